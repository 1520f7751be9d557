"""Storage: one class per type of storage (one module each in kinds/, found by registry.py; their base class,
connector and configuration in types.py), and the namespaced roots tierbench owns (layout.py)."""

from .layout import OwnershipError, StudyLayout
from .types import STORAGE_TYPES, Connector, StorageConfig, StorageType, local_path, storage_type, to_uri

__all__ = ["StudyLayout", "OwnershipError", "to_uri", "local_path", "StorageConfig", "StorageType", "STORAGE_TYPES",
           "storage_type", "Connector"]
