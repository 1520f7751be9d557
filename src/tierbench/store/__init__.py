"""Raw results: an append-only, schema-versioned folder per study, read into frozen values (stored.py)."""

from .results import ResultsDir, SCHEMA_VERSION, RECORD_FIELDS, latest_ok
from .stored import StoredRun, StoredStudy, StudyFile

__all__ = ["ResultsDir", "SCHEMA_VERSION", "RECORD_FIELDS", "latest_ok", "StoredRun", "StoredStudy", "StudyFile"]
