"""Exporters: every output format behind one interface.

An exporter has a name, a file suffix and render(results) -> str, where results is a StudyResults
(the stored study, and the report document built from it once). HTML and Markdown
draw the report document (report/document.py) block by block, so they cannot drift from each other;
JSON and CSV export the run records. render_report writes report.html and report.md, each atomically.
"""

import csv
import html
import io
import json
import math
import os
import re
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from ..store import ResultsDir
from .build import StudyResults
from .mdtext import block_start, md_block, md_heading, md_inline
from .document import Block, Bullets, Figure, Notice, Paragraph, Report, Section, Strong, Table


class Exporter(ABC):
    name: ClassVar[str]  # the format's name: tierbench results --format NAME
    suffix: ClassVar[str]  # of the file it writes

    @abstractmethod
    def render(self, results: StudyResults) -> str: ...

    def write(self, results: StudyResults, path: str | os.PathLike) -> Path:
        """Render to path, atomically: the old file stays whole until the new one is complete. A path that cannot be
        written (a read-only folder, a directory in the way, a full disk) raises ReportNotWritten, naming it."""
        text = self.render(results)
        try:
            return write_atomic(path, text)
        except OSError as e:
            raise ReportNotWritten(e.errno, e.strerror or str(e), str(path)) from e


class ReportNotWritten(OSError):
    """A report file that could not be written: `filename` is the file (not the temporary one the OS error may
    name), errno and strerror the OS's reason. An OSError still, for callers that catch those."""


class DocumentExporter(Exporter):
    """A format of the report document (HTML, Markdown)."""

    def render(self, results: StudyResults) -> str:
        return self.render_document(results.document)

    @abstractmethod
    def render_document(self, doc: Report) -> str: ...


class RecordsExporter(Exporter):
    """A format of the run records themselves (JSON, CSV)."""

    def render(self, results: StudyResults) -> str:
        return self.dump(results.records)

    @abstractmethod
    def dump(self, records: list[dict]) -> str: ...


# -- HTML: one self-contained file, charts inline --------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0} th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4} .warn{background:#fff6e0;border-left:4px solid #e0a000;padding:.4em .8em;margin:.3em 0}
.fail{background:#fde8e8;border-left:4px solid #c33;padding:.4em .8em;margin:.3em 0} .figure svg{max-width:100%;height:auto}
.muted{color:#666;font-size:.9em} ul.headline li{margin:.2em 0}
"""


MIN_FONT_PX = 12.0  # the smallest text the HTML report shows, chart labels included
PX_PER_PT = 4 / 3  # CSS: 96 px per 72 pt
SVG_SIZE = re.compile(r'^(<svg\b[^>]*?)\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"')
GLYPH_SCALE = re.compile(r'scale\((\d*\.?\d+) -\1\)')  # matplotlib's text: glyphs at 100 units per em, scaled to the font


def readable_svg(svg: str) -> str:
    """A matplotlib chart drawn large enough that its smallest label is MIN_FONT_PX on screen: its width and height
    set in px, scaled up from its own pt where a label would be smaller (CSS max-width still fits it to the page)."""
    m = SVG_SIZE.match(svg)
    sizes = [float(x) * 100 for x in GLYPH_SCALE.findall(svg)]  # the labels' font sizes, pt
    if not m or not sizes:
        return svg
    factor = max(1.0, MIN_FONT_PX / (min(sizes) * PX_PER_PT))
    w, h = (float(x) * PX_PER_PT * factor for x in m.group(2, 3))
    return f'{m.group(1)} width="{math.ceil(w)}px" height="{math.ceil(h)}px"' + svg[m.end():]  # (up: never under)


def table_html(head, rows) -> str:
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


class HtmlExporter(DocumentExporter):
    name = "html"
    suffix = ".html"

    def render_document(self, doc: Report) -> str:
        e = html.escape
        parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(doc.title)}</title>",
                 f"<style>{CSS}</style></head><body>",
                 f"<h1>{e(doc.title)}</h1>",
                 self._paragraph(doc.subtitle)]
        for s in doc.sections:
            parts += self._block(s)
        parts.append("</body></html>")
        return "\n".join(parts)

    def _paragraph(self, p: Paragraph) -> str:
        text = "".join(f"<b>{html.escape(x.text)}</b>" if isinstance(x, Strong) else html.escape(x) for x in p.parts)
        return f"<p class='muted'>{text}</p>" if p.muted else f"<p>{text}</p>"

    def _block(self, b: Block) -> list[str]:
        e = html.escape
        match b:
            case Section():
                aside = f" <span class='muted'>{e(b.aside)}</span>" if b.aside else ""
                out = [f"<h{b.level}>{e(b.title)}{aside}</h{b.level}>"]
                for x in b.blocks:
                    out += self._block(x)
                return out
            case Paragraph():
                return [self._paragraph(b)]
            case Bullets():
                return ["<ul class='headline'>" + "".join(f"<li>{e(x)}</li>" for x in b.items) + "</ul>"]
            case Notice():
                return [f"<div class='{b.kind}'>{b.icon} {e(b.text)}</div>"]
            case Table():
                return [table_html(b.head, b.rows)]
            case Figure():
                cls = "figure" + (f" {b.kind}" if b.kind else "")
                ident = f" id='{e(b.id)}'" if b.id else ""
                return [f"<div class='{cls}'{ident}>{readable_svg(b.svg)}</div>"]
        raise TypeError(f"no HTML for {type(b).__name__}")


# -- Markdown ----------------------------------------------------------------------------------------------

def table_md(head, rows) -> str:
    esc = md_inline  # (a cell's text: no line break, HTML or cell break of its own)
    lines = ["| " + " | ".join(esc(x) for x in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(esc(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


class MarkdownExporter(DocumentExporter):
    name = "md"
    suffix = ".md"

    def render_document(self, doc: Report) -> str:
        chunks = [(None, f"# {md_heading(doc.title)}"), (None, self._paragraph(doc.subtitle))]
        for s in doc.sections:
            chunks += self._block(s)
        out = chunks[0][1]
        for (prev, _), (kind, text) in zip(chunks, chunks[1:]):
            # notices in a row are one quoted block, one paragraph each
            out += ("\n>\n" if prev is kind is Notice else "\n\n") + text
        return out + "\n"

    def _paragraph(self, p: Paragraph) -> str:
        text = "".join(f"**{md_inline(x.text)}**" if isinstance(x, Strong) else md_inline(x) for x in p.parts).strip()
        return text if p.parts and isinstance(p.parts[0], Strong) else block_start(text)

    def _block(self, b: Block) -> list[tuple[type | None, str]]:
        match b:
            case Section():
                aside = f" — {md_heading(b.aside)}" if b.aside else ""
                out = [(Section, "#" * b.level + f" {md_heading(b.title)}{aside}")]
                for x in b.blocks:
                    out += self._block(x)
                return out
            case Paragraph():
                return [(Paragraph, self._paragraph(b))]
            case Bullets():
                return [(Bullets, "\n".join(f"- {md_block(x)}" for x in b.items))]
            case Notice():
                return [(Notice, f"> {b.icon} {md_inline(b.text)}")]
            case Table():
                return [(Table, table_md(b.head, b.rows))]
            case Figure():
                return [(Figure, f"*Chart in report.html: {md_inline(b.caption)}.*" if b.caption else "*Chart in report.html.*")]
        raise TypeError(f"no Markdown for {type(b).__name__}")


# -- the run records: JSON (canonical, as stored) and CSV (flat, one row per run) ---------------------------

CSV_FIXED = ("study", "run_key", "config", "workload", "label", "engine", "repeat", "attempt", "status",
             "wall_s", "started_at", "ended_at", "page_cache_dropped", "engine_version", "git_commit", "error")


class JsonExporter(RecordsExporter):
    name = "json"
    suffix = ".json"

    def dump(self, records: list[dict]) -> str:
        return json.dumps(records, indent=2, default=str)


# a text cell starting with one of these is a formula to a spreadsheet (=, +, -, @; tab and CR before one):
# a label or an error message such as "=HYPERLINK(...)" would run on opening the CSV (OWASP: CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A value as a CSV cell: text that a spreadsheet would evaluate gets a leading ' (shown, not evaluated);
    numbers, negative ones too, stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class CsvExporter(RecordsExporter):
    name = "csv"
    suffix = ".csv"

    def dump(self, records: list[dict]) -> str:
        metric_names = sorted({m for r in records for m in r.get("metrics", {})})
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow([csv_cell(x) for x in list(CSV_FIXED) + [f"metrics.{m}" for m in metric_names]])
        for r in records:
            row = [r.get(k) for k in CSV_FIXED] + [r.get("metrics", {}).get(m) for m in metric_names]
            w.writerow([csv_cell(x) for x in row])
        return buf.getvalue()


EXPORTERS: dict[str, Exporter] = {x.name: x for x in (HtmlExporter(), MarkdownExporter(), JsonExporter(), CsvExporter())}


# -- writing ------------------------------------------------------------------------------------------------

def _umask() -> int:
    try:
        for line in open("/proc/self/status"):
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write text to path so that path is always either the old file or the whole new one: a temporary
    file in the same directory, fsync'ed, then renamed over path. A full disk leaves the old file as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # the rename itself durable too
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return path


def render_report(path, allow_mixed: bool = False) -> tuple[Path, Path]:
    """Write report.html and report.md of a results folder; their paths. Refuses (UserError) a folder whose
    runs of one (configuration, workload) come from different machines or versions, unless allow_mixed."""
    from ..analysis.stats import runs_for_analysis
    from ..store.pooling import check_pools

    rd = ResultsDir(path)
    results = StudyResults(rd.load(analysed=True))
    check_pools(runs_for_analysis(list(results.stored.runs)), allow_mixed, str(rd.path))
    return tuple(EXPORTERS[name].write(results, rd.path / f"report{EXPORTERS[name].suffix}") for name in ("html", "md"))
