"""Raw results: an append-only, schema-versioned folder per study."""

from .results import ResultsDir, SCHEMA_VERSION, RECORD_FIELDS, latest_ok

__all__ = ["ResultsDir", "SCHEMA_VERSION", "RECORD_FIELDS", "latest_ok"]
