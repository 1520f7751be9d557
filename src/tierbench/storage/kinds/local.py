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

    def check_engines(self, src, where, data, engine_kinds):
        if len(data) > 1 and "hadoop" in engine_kinds:
            raise SpecError(src, where, "the hadoop engine writes each data set to one directory: list one "
                            "(spreading over several local directories, JBOD-style, is what HDFS does)")


STORAGE_TYPE = LocalStorage()
