"""Storage targets: where a configuration's data and intermediate files go, under roots tierbench owns."""

from .layout import StudyLayout, OwnershipError

__all__ = ["StudyLayout", "OwnershipError"]
