"""The storage types, one module each: a module that defines STORAGE_TYPE (a StorageType instance) and ORDER
(its place in listings) is found by storage/registry.py. Adding a storage type is adding such a module."""
