"""Reports and exports: pure functions of a results folder.

build.py turns the results into one report document (document.py): context.py reads the study once, and each
module of sections/ adds its sections in ORDER; render.py has the exporters (HTML, Markdown, JSON, CSV) behind one
interface, and render_report, which writes report.html and report.md."""

from .build import StudyResults, build_report, load_study
from .render import EXPORTERS, Exporter, render_report

__all__ = ["EXPORTERS", "Exporter", "StudyResults", "build_report", "load_study", "render_report"]
