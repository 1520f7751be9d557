"""The study report as one document (report/document.py), from stored results only: the context every section
reads is computed once (report/context.py), then each section of report/sections/ adds what it has, in ORDER.
report/render.py only draws the document."""

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from .. import __version__
from ..store import ResultsDir, StoredStudy
from .context import build_context
from .document import Paragraph, Report, Strong
from .sections import ORDER


def load_study(path) -> StoredStudy:
    """The results folder as the report reads it: its runs less a successful one without a runtime (analysed)."""
    return ResultsDir(path).load(analysed=True)


@dataclass
class StudyResults:
    """What every exporter renders from: a stored study (study.json, the runs, the derived outputs), and the report
    document, built from it on first use (once, whichever formats are written)."""

    stored: StoredStudy

    @classmethod
    def load(cls, path) -> "StudyResults":
        return cls(load_study(path))

    @property
    def records(self) -> list[dict]:
        """The runs as record dicts: what the JSON and CSV exports write."""
        return [r.as_record_dict() for r in self.stored.runs]

    @cached_property
    def document(self) -> Report:
        return build_report(self.stored)


def build_report(stored: StoredStudy, now: datetime | None = None) -> Report:
    """The study report as one document, from the stored study only."""
    ctx = build_context(stored, now)
    spec = ctx.spec
    subtitle = Paragraph([f"{spec.get('description') or ''} Generated {ctx.now:%Y-%m-%d %H:%M} UTC by tierbench {__version__} "
                          f"from {len(ctx.runs)} stored runs. Baseline: ", Strong(ctx.analysis.baseline), "."], muted=True)
    return Report(f"tierbench report: {spec['name']}", subtitle, [s for section in ORDER for s in section.sections(ctx)])
