"""The storage types tierbench knows: every module of storage/kinds/ that defines STORAGE_TYPE (a StorageType
instance) is discovered, listed in its module's ORDER. Adding a storage type is adding such a module; nothing
else lists storage types."""

import importlib
import pkgutil
from pathlib import Path

from ..errors import SpecError
from . import kinds
from .types import DEFAULT_TYPE, StorageType


def _discover() -> dict[str, StorageType]:
    modules = []
    for info in pkgutil.iter_modules(kinds.__path__):
        mod = importlib.import_module(f"{kinds.__name__}.{info.name}")
        if isinstance(getattr(mod, "STORAGE_TYPE", None), StorageType):
            modules.append(mod)
    found: dict[str, StorageType] = {}
    for mod in sorted(modules, key=lambda m: (getattr(m, "ORDER", 1000), m.__name__)):
        if mod.STORAGE_TYPE.name in found:
            raise ValueError(f"storage type {mod.STORAGE_TYPE.name} is defined twice ({mod.__name__})")
        found[mod.STORAGE_TYPE.name] = mod.STORAGE_TYPE
    return found


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
