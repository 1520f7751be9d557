"""Storage targets: where a configuration's data and intermediate files go, under roots tierbench owns."""

from .layout import StudyLayout, OwnershipError, to_uri

__all__ = ["StudyLayout", "OwnershipError", "to_uri"]
