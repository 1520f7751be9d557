"""Exporters of run records, kept for the callers of this module: they are the JSON and CSV exporters
of report/render.py (where every format lives, behind one interface), as functions of the records."""

from .render import CSV_FIXED, EXPORTERS as _ALL

to_json = _ALL["json"].dump
to_csv = _ALL["csv"].dump

EXPORTERS = {"json": to_json, "csv": to_csv}

__all__ = ["CSV_FIXED", "EXPORTERS", "to_csv", "to_json"]
