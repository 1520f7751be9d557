"""`shared`: one network mount (NFS), at the same path on every node."""

from ...errors import SpecError
from ..types import FILE_SYNC_GAPS, StorageType, check_dirs, unknown_fields

ORDER = 2


class SharedStorage(StorageType):
    name, title = "shared", "a shared mount (NFS), the same path on every node"
    network_fs = True
    sync_gaps = FILE_SYNC_GAPS

    def parse(self, src, where, value, base_dir):
        unknown_fields(src, f"{where}.", value, ("type", "path"))
        if "path" not in value:
            raise SpecError(src, f"{where}.path", "missing: the shared mount's path, the same on every node (e.g. an NFS mount)")
        return check_dirs(src, f"{where}.path", [value["path"]], base_dir), None, {}


STORAGE_TYPE = SharedStorage()
