"""One report document, every format: report.html and report.md drawn from the same model cannot drift.
Fast: committed real results (tests/fixtures/quickstart-results), no JVM, no Spark."""

import csv
import errno
import html
import io
import json
import os
import re
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tierbench.report.mdtext import md_inline
from tierbench.report import EXPORTERS, StudyResults, render_report
from tierbench.report import render
from tierbench.report.document import Bullets, Figure, Notice, Paragraph, Report, Section, Strong, Table
from tierbench.spec import parse_spec

FIXTURE = Path(__file__).parent / "fixtures" / "quickstart-results"

# what the fixture's report has, in this order: a check on the builder, not only on the renderers
PLAIN_SECTIONS = ["Answer", "Normalised runtime", "Runtime", "Throughput", "Findings", "Pipelines", "Summary per configuration and workload",
                  "Intermediate data per node", "Working set vs memory", "Storage configurations", "Environment", "Every run"]
FULL_SECTIONS = ["Answer", "Normalised runtime", "Runtime", "Throughput", "Findings", "Pipelines", "Sweep of shuffle_compress (engine spark)",
                 "Cost per job", "Summary per configuration and workload", "Intermediate data per node", "Working set vs memory", "Storage configurations", "Device ceilings (fio)",
                 "Environment", "Every run"]


def _plain(tmp_path) -> Path:
    d = tmp_path / "results"
    shutil.copytree(FIXTURE, d)
    return d


@pytest.fixture
def plain(tmp_path) -> Path:
    return _plain(tmp_path)


def _full(plain: Path, tmp_path: Path) -> Path:
    """The fixture with more of what a report can hold: costs (example prices), a knob sweep, a failed run
    and a skipped device probe."""
    study = json.loads((plain / "study.json").read_text())
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    study["spec"]["cost"] = parse_spec(raw, "quickstart", base_dir=tmp_path).to_dict()["cost"]
    study["spec"]["sweeps"] = [{"knob": "shuffle_compress", "level": "engine", "base": "spark",
                                "members": [{"name": "spark", "value": True}]}]
    study["probe_error"] = "fio is not installed"
    (plain / "study.json").write_text(json.dumps(study))
    records = [json.loads(l) for l in (plain / "runs.jsonl").read_text().splitlines()]
    failed = next(r for r in records if r["run_key"] == "r2/split/terasort")
    failed.update(status="failed", error="disk full <sda> | see the log")
    (plain / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return plain


# the documents the read-only tests look at, each built once for the module (building draws every chart)
@pytest.fixture(scope="module")
def plain_results(tmp_path_factory) -> StudyResults:
    return StudyResults.load(_plain(tmp_path_factory.mktemp("plain")))


@pytest.fixture(scope="module")
def full_results(tmp_path_factory) -> StudyResults:
    t = tmp_path_factory.mktemp("full")
    return StudyResults.load(_full(_plain(t), t))


def _html_headings(text: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", m.group(2))) for m in re.finditer(r"<h([23])>(.*?)</h\1>", text)]


def _md_headings(text: str) -> list[str]:
    return [m.group(2) for m in re.finditer(r"^(#{2,3}) (.+)$", text, re.M)]


def _html_tables(text: str) -> list[tuple[list[str], int]]:
    out = []
    for t in re.findall(r"<table>.*?</table>", text, re.S):
        head = [html.unescape(x) for x in re.findall(r"<th>(.*?)</th>", t)]
        body = re.search(r"<tbody>(.*?)</tbody>", t, re.S).group(1)
        out.append((head, body.count("<tr>")))
    return out


def _md_tables(text: str) -> list[tuple[list[str], int]]:
    out, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            assert re.fullmatch(r"\|(---\|)+", block[1]), block[:2]
            head = [x.strip() for x in re.split(r"(?<!\\)\|", block[0])[1:-1]]
            out.append((head, len(block) - 2))
            block = []
    return out


@pytest.mark.parametrize("which,sections", [("plain", PLAIN_SECTIONS), ("full", FULL_SECTIONS)])
def test_html_and_markdown_have_the_same_sections_in_the_same_order(request, which, sections):
    results = request.getfixturevalue(f"{which}_results")
    doc = results.document
    assert [s.title for s in doc.sections] == sections
    every = doc.all_sections()
    html_text, md = EXPORTERS["html"].render(results), EXPORTERS["md"].render(results)
    assert _html_headings(html_text) == [f"{s.title} {s.aside}".strip() for s in every]
    assert _md_headings(md) == [s.title + (f" — {s.aside}" if s.aside else "") for s in every]
    # the same top-level sections in both texts, so a renderer that skips one fails here
    assert [h for h in _html_headings(html_text) if h in sections] == sections
    assert [h for h in _md_headings(md) if h in sections] == sections
    assert md.startswith(f"# {doc.title}\n") and f"<h1>{html.escape(doc.title)}</h1>" in html_text


@pytest.mark.parametrize("which", ["plain", "full"])
def test_markdown_has_every_table_note_and_warning_of_the_html(request, which):
    results = request.getfixturevalue(f"{which}_results")
    doc = results.document
    html_text, md = EXPORTERS["html"].render(results), EXPORTERS["md"].render(results)
    tables = [(t.head, len(t.rows)) for t in doc.tables()]
    assert tables and all(n > 0 for _, n in tables)
    assert _html_tables(html_text) == tables
    assert _md_tables(md) == tables
    blocks = list(doc.walk())
    notices = [b for b in blocks if isinstance(b, Notice)]
    if which == "full":
        assert {n.kind for n in notices} == {"warn", "fail"}
        assert any("r2/split/terasort failed: disk full <sda> | see the log" == n.text for n in notices)
        assert any("EXAMPLE PRICES" in n.text for n in notices) and any("fio is not installed" in n.text for n in notices)
    assert any("too few" in n.text for n in notices)
    for n in notices:
        assert f"<div class='{n.kind}'>{n.icon} {html.escape(n.text)}</div>" in html_text
        assert f"> {n.icon} {md_inline(n.text)}" in md  # (user text escaped: no raw HTML, no injected table cell)
    assert html_text.count("<div class='warn'>") + html_text.count("<div class='fail'>") == len(notices)
    assert md.count("> ⚠") + md.count("> ✗") == len(notices)
    for p in (b for b in blocks if isinstance(b, Paragraph)):
        assert p.plain in md and html.escape(p.plain) in re.sub(r"</?b>", "", html_text)
    for b in (b for b in blocks if isinstance(b, Bullets)):
        assert b.items
        for item in b.items:
            assert f"- {item}" in md and f"<li>{html.escape(item)}</li>" in html_text
    for f in (b for b in blocks if isinstance(b, Figure)):
        assert f.svg.startswith("<svg") and f.caption and f"{f.caption}." in md
        assert f"id='{f.id}'>{render.readable_svg(f.svg)}</div>" in html_text
    assert "<svg" not in md
    # the subtitle: the same words, baseline in bold
    assert f"**{doc.subtitle.parts[1].text}**" in md and f"<b>{doc.subtitle.parts[1].text}</b>" in html_text


def test_html_keeps_the_chart_ids_and_is_self_contained(full_results):
    html_text = EXPORTERS["html"].render(full_results)
    for ident in ("chart-normalised", "chart-runtime", "chart-throughput", "chart-cost", "chart-sweep-0",
                  "chart-pipeline-teragen+terasort+teravalidate"):
        assert html_text.count(f"id='{ident}'") == 1, ident
    assert html_text.count("<svg") == 6 and "<style>" in html_text and "<link" not in html_text
    assert "&lt;sda&gt;" in html_text and "<sda>" not in html_text  # text is escaped


def test_every_block_kind_is_drawn_by_both_renderers():
    doc = Report("t", Paragraph(["a ", Strong("b"), " c"], muted=True), [
        Section("one", 2, [Paragraph("p1"), Bullets(["x", "y"]), Notice("warn", "w1"), Notice("fail", "f1"),
                           Table(["h1", "h|2"], [["1", "a|b"], ["2", "c"]]), Figure("<svg>s</svg>", "chart-x", "cap")]),
        Section("two", 2, [Section("two-a", 3, [Paragraph("p2", muted=True)], aside="side")]),
    ])
    h = render.HtmlExporter().render_document(doc)
    m = render.MarkdownExporter().render_document(doc)
    assert _html_headings(h) == ["one", "two", "two-a side"] and _md_headings(m) == ["one", "two", "two-a — side"]
    assert "<p class='muted'>a <b>b</b> c</p>" in h and "<p>p1</p>" in h and "<p class='muted'>p2</p>" in h
    assert "<div class='figure' id='chart-x'><svg>s</svg></div>" in h and "<div class='fail'>✗ f1</div>" in h
    assert m.startswith("# t\n\na **b** c\n\n## one\n\np1\n\n- x\n- y\n\n> ⚠ w1\n>\n> ✗ f1\n\n| h1 | h\\|2 |")
    assert "| 1 | a\\|b |" in m and "*Chart in report.html: cap.*" in m and "### two-a — side\n\np2\n" in m
    assert _md_tables(m) == [(["h1", "h\\|2"], 2)] and _html_tables(h) == [(["h1", "h|2"], 2)]
    with pytest.raises(ValueError):
        Notice("info", "no such kind")


def test_json_and_csv_exporters_are_the_records(plain):
    results = StudyResults.load(plain)
    records = results.records
    out = EXPORTERS["json"].render(results)
    assert json.loads(out) == records
    assert out == json.dumps(records, indent=2, default=str)  # canonical: the records as stored
    rows = list(csv.DictReader(io.StringIO(EXPORTERS["csv"].render(results))))
    assert len(rows) == len(records) == 20
    assert [r["run_key"] for r in rows] == [r["run_key"] for r in records]
    assert rows[0]["metrics.throughput_mb_s"] == str(records[0]["metrics"]["throughput_mb_s"])
    # the exporters of the records, as functions of the records alone
    assert EXPORTERS["json"].dump(records) == out and EXPORTERS["csv"].dump(records) == EXPORTERS["csv"].render(results)
    assert set(EXPORTERS) == {"html", "md", "json", "csv"}
    assert all(isinstance(x, render.Exporter) and x.suffix == "." + x.name for x in EXPORTERS.values())


def test_render_report_writes_both_files_atomically(plain, monkeypatch):
    before = set(os.listdir(plain))
    html_path, md_path = render_report(plain)
    assert (html_path, md_path) == (plain / "report.html", plain / "report.md")
    assert set(os.listdir(plain)) == before | {"report.html", "report.md"}  # no temporary files left
    assert oct(md_path.stat().st_mode & 0o777) == oct(0o666 & ~render._umask())
    good = html_path.read_text()
    assert good.endswith("</body></html>")

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(render.os, "fsync", full_disk)
    with pytest.raises(OSError):
        render_report(plain)
    assert html_path.read_text() == good  # the good report is still whole
    assert set(os.listdir(plain)) == before | {"report.html", "report.md"}


def test_report_imports_nothing_of_execution():
    import subprocess
    import sys

    code = ("import sys, tierbench.report, tierbench.report.render; "
            "bad = [m for m in sys.modules if m in ('tierbench.study.runner', 'pyspark') or m.startswith('tierbench.engines')]; "
            "print(bad); sys.exit(bool(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_summary_shows_mb_s_per_core_of_the_engines_cores(plain):
    from conftest import as_run
    from tierbench.analysis.stats import engine_cores as engine_cores_of_run
    from tierbench.report.build import build_report, load_study

    engine_cores = lambda record: engine_cores_of_run(as_run(record))  # noqa: E731 (hand-made records below: dicts)
    stored = load_study(plain)
    records = stored.runs
    assert {engine_cores(r) for r in records} == {2}  # the quickstart runs local[2]
    table = next(b for s in build_report(stored).sections if s.title.startswith("Summary")
                 for b in s.blocks if isinstance(b, Table))
    tp, per_core = table.head.index("throughput MB/s (median)"), table.head.index("MB/s per core (median)")
    shown = [(float(row[tp]), float(row[per_core])) for row in table.rows if row[tp] != "–"]
    assert shown and all(abs(t / 2 - c) <= 0.06 for t, c in shown), shown
    machine = {"cpu_cores": 8}
    assert engine_cores({"engine_conf": {"spark.master": "local[*]"}, "machine": machine}) == 8
    assert engine_cores({"engine_conf": {"spark.master": "local"}, "machine": machine}) == 1
    assert engine_cores({"engine_conf": {"spark.master": "yarn", "spark.executor.instances": "4", "spark.executor.cores": "3"}}) == 12
    assert engine_cores({"engine_conf": {"spark.master": "spark://h:7077"}}) is None  # unknown: the column says "–"
    assert engine_cores({"engine_kind": "hadoop", "engine_conf": {"mapreduce.framework.name": "local"}}) == 1


def test_environment_says_how_the_engines_applications_lived(plain):
    from tierbench.report.build import build_report, load_study

    from dataclasses import replace

    stored = load_study(plain)
    stored = replace(stored, study=replace(stored.study, engine_applications={"spark": {"keep_alive_memory": 6 << 30, "started": 2, "resumed": 2}}))
    first = next(r for r in stored.runs if r.run_key == "r1/single/dfsio-write")
    first.details["warm_up"] = {"s": 2.5, "passes": 2, "workloads": ["dfsio-write"]}
    env = next(b for s in build_report(stored).sections if s.title == "Environment" for b in s.blocks if isinstance(b, Table))
    row = next(r for r in env.rows if r[0] == "engine spark applications")
    assert "2 started" in row[1] and "median 2.5 s" in row[1] and "2 resumed" in row[1] and "6.44 GB" in row[1], row
