"""The storage types tierbench knows: every module of storage/kinds/ that defines STORAGE_TYPE (a StorageType
instance) is discovered, listed in its module's ORDER. Adding a storage type is adding such a module; nothing
else lists storage types."""

from pathlib import Path

from ..discovery import by_name, declared
from ..errors import SpecError
from . import kinds
from .types import DEFAULT_TYPE, StorageType


def _discover() -> dict[str, StorageType]:
    return by_name("storage type", declared(kinds.__name__, "STORAGE_TYPE", lambda t: isinstance(t, StorageType)))


STORAGE_TYPES: dict[str, StorageType] = _discover()


def storage_type(name: str) -> StorageType:
    return STORAGE_TYPES[name]


def parse_data(src: str, where: str, value, base_dir: Path) -> tuple[tuple[str, ...], str, int | None, dict]:
    """`data`: a list of local dirs, or a table with a `type`. Returns (locations, type name, replication, settings)."""
    kind = value.get("type", DEFAULT_TYPE) if isinstance(value, dict) else DEFAULT_TYPE
    if kind not in STORAGE_TYPES:
        raise SpecError(src, f"{where}.type", f"expected one of {', '.join(STORAGE_TYPES)}, got {kind!r}")
    data, replication, conf = STORAGE_TYPES[kind].parse(src, where, value, base_dir)
    return data, kind, replication, conf
