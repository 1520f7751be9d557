"""The study report as one document (report/document.py), from stored results only: the context every section
reads is computed once (report/context.py), then each section of report/sections/ adds what it has, in ORDER.
report/render.py only draws the document."""

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from .. import __version__
from ..store import ResultsDir
from .context import build_context
from .document import Paragraph, Report, Strong
from .sections import ORDER


def load_study(path) -> tuple[dict, list[dict]]:
    rd = ResultsDir(path)
    return rd.study(), rd.records(analysed=True)


@dataclass
class StudyResults:
    """What every exporter renders from: a study's study.json and run records, and the report document,
    built from them on first use (once, whichever formats are written)."""

    study: dict
    records: list[dict]

    @classmethod
    def load(cls, path) -> "StudyResults":
        return cls(*load_study(path))

    @cached_property
    def document(self) -> Report:
        return build_report(self.study, self.records)


def build_report(study: dict, records: list[dict], now: datetime | None = None) -> Report:
    """The study report as one document, from the stored study and run records only."""
    ctx = build_context(study, records, now)
    spec = ctx.spec
    subtitle = Paragraph([f"{spec.get('description') or ''} Generated {ctx.now:%Y-%m-%d %H:%M} UTC by tierbench {__version__} "
                          f"from {len(ctx.runs)} stored runs. Baseline: ", Strong(ctx.analysis.baseline), "."], muted=True)
    return Report(f"tierbench report: {spec['name']}", subtitle, [s for section in ORDER for s in section.sections(ctx)])
