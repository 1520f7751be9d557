"""`local`: directories on this machine's file systems; a data set's parts spread over them (JBOD)."""

from ...errors import SpecError
from ..types import FILE_SYNC_GAPS, StorageType, check_dirs, unknown_fields

ORDER = 1


class LocalStorage(StorageType):
    name, title = "local", "local directories (JBOD)"
    sync_gaps = FILE_SYNC_GAPS

    def parse(self, src, where, value, base_dir):
        if not isinstance(value, dict):  # a bare list of directories
            return check_dirs(src, where, value, base_dir), None, {}
        unknown_fields(src, f"{where}.", value, ("type", "dirs"))
        return check_dirs(src, f"{where}.dirs", value.get("dirs"), base_dir), None, {}

    def check_engines(self, src, where, data, engine_kinds, drives=None, hadoop_spreads=False):
        # The hadoop engine's jobs write a data set to one output path. In durable local mode its file system
        # spreads the files over every data directory as HDFS's DataNode spreads its blocks over its volumes
        # (SyncingLocalFileSystem, tierbench.local.volumes); elsewhere only several directories of one drive -- an
        # emulated drive listed as `split` directories for its shares of the intermediate data -- hold it all the same.
        if "hadoop" in engine_kinds and not hadoop_spreads and (len(data) if drives is None else drives) > 1:
            what = f"{drives} emulated drives" if drives else f"{len(data)} directories"
            raise SpecError(src, where, f"the hadoop engine writes each data set to one directory here, and these are "
                            f"{what}: list one (or one emulated drive, `split` into several directories), or run it in "
                            "local mode with durability = \"durable\" (the default), where its file system spreads a data "
                            "set's files over the directories as HDFS spreads its blocks")


STORAGE_TYPE = LocalStorage()
