"""Reports and exports: pure functions of a results folder."""

from .build import render_report, load_study

__all__ = ["render_report", "load_study"]
