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

    def check_engines(self, src, where, data, engine_kinds, drives=None):
        # The hadoop engine's jobs write a data set to one directory (the first: Hadoop's FileOutputFormat has one
        # output path). Several directories of one drive -- an emulated drive listed as `split` directories, so
        # that it takes that many shares of the intermediate data -- hold it all the same; several drives cannot.
        if "hadoop" in engine_kinds and (len(data) if drives is None else drives) > 1:
            what = f"{drives} emulated drives" if drives else f"{len(data)} directories"
            raise SpecError(src, where, f"the hadoop engine writes each data set to one directory, and these are {what}: "
                            "list one (or one emulated drive, `split` into several directories: the data goes to the "
                            "first, the shuffle to all); spreading a data set over several drives is what HDFS does")


STORAGE_TYPE = LocalStorage()
