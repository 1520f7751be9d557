"""Storage: one class per type of storage (types.py), and the namespaced roots tierbench owns (layout.py)."""

from .layout import OwnershipError, StudyLayout
from .types import STORAGE_TYPES, StorageConfig, StorageType, local_path, storage_type, to_uri

__all__ = ["StudyLayout", "OwnershipError", "to_uri", "local_path", "StorageConfig", "StorageType", "STORAGE_TYPES", "storage_type"]
