"""Never lose, never crash on bad stored data (issue 31): study.json and runs.jsonl of the wrong shape, files that are
not files (a link to /dev/zero, a FIFO) or too large, a report that cannot be written, user text in report.md, and
CSV cells a spreadsheet would run. Fast: committed real results (tests/fixtures), no JVM."""

import csv
import io
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tierbench.cli.main import main
from tierbench.report import EXPORTERS, StudyResults, render
from tierbench.report.document import Bullets, Notice, Paragraph, Report, Section, Table
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures"


def copy_of(tmp_path: Path, fixture: str = "quickstart-results") -> Path:
    d = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, d)
    return d


def lines_of(d: Path) -> list[dict]:
    return [json.loads(line) for line in (d / "runs.jsonl").read_text().splitlines()]


def write_lines(d: Path, lines: list) -> None:
    (d / "runs.jsonl").write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))


def edit_study(d: Path, change) -> None:
    study = json.loads((d / "study.json").read_text())
    change(study)
    (d / "study.json").write_text(json.dumps(study))


def cli(capsys, *args) -> tuple[int, str, str]:
    """The CLI in this process (the report's imports are paid once), its signal handlers put back after."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        rc = main([str(a) for a in args])
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    out = capsys.readouterr()
    return rc, out.out, out.err


def warned_lines(err: str) -> list[int]:
    """The runs.jsonl lines the warnings on stderr name, in the order given."""
    return [int(m.group(1)) for m in re.finditer(r"^tierbench: warning: .*runs\.jsonl:(\d+): damaged record skipped", err, re.M)]


def one_error(rc: int, err: str, *words) -> str:
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("tierbench: error: "), (rc, err)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# -- 1. one validating loader: records and study.json of the wrong shape ------------------------------------------

def _set(path: str, value):
    """A change to a record: the field at a dotted path set to value."""
    def change(rec):
        *parents, last = path.split(".")
        for p in parents:
            rec = rec[p]
        rec[last] = value
    return change


@pytest.mark.parametrize("change, says", [
    (_set("wall_s", "fast"), "`wall_s` is not a number or null: it is a string ('fast')"),
    (_set("wall_s", float("nan")), "`wall_s` is not a number or null: it is a number (nan)"),
    (_set("status", 5), "`status` is missing or not a str: it is a number (5)"),
    (_set("metrics", "x"), "`metrics` is missing or not an object: it is a string ('x')"),
    (_set("metrics.data_mb", "64"), "metrics: `data_mb` is not a number or null: it is a string ('64')"),
    (_set("machine", "x"), "`machine` is not an object or null: it is a string ('x')"),
    (_set("storage", "x"), "`storage` is not an object: it is a string ('x')"),
    (_set("engine_conf", {"spark.master": 5}), "engine_conf: `spark.master` is not a str: it is a number (5)"),
    (_set("started_at", 5), "`started_at` is not a str or null: it is a number (5)"),
    (_set("schema_version", "x"), "`schema_version` is not an int: it is a string ('x')"),
    (_set("schema_version", 99), "`schema_version` is 99: this tierbench reads 1 to"),
    (lambda rec: rec.pop("config"), "`config` is missing or not a str (nor is there a `variant`)"),
])
def test_a_record_of_the_wrong_shape_is_skipped_with_a_warning_naming_its_line_and_field(tmp_path, change, says):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    change(recs[2])
    write_lines(d, recs)
    seen = []
    kept = ResultsDir(d, on_warning=seen.append).records()
    assert [r["run_key"] for r in kept] == [r["run_key"] for i, r in enumerate(recs) if i != 2]  # the others kept
    assert len(seen) == 1 and seen[0].startswith(f"{d / 'runs.jsonl'}:3: damaged record skipped ({says}"), seen


@pytest.mark.parametrize("line, says", [
    ('"a string"', "a JSON string ('a string'), not an object"),
    ("[1, 2]", "a JSON list, not an object"),
    ("5", "a JSON number (5), not an object"),
    ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply to be a run record"),
])
def test_a_line_that_is_json_but_no_record_is_skipped_with_a_warning(tmp_path, line, says):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    write_lines(d, [recs[0], line, *recs[1:]])
    seen = []
    assert len(ResultsDir(d, on_warning=seen.append).records()) == len(recs)
    assert len(seen) == 1 and f"runs.jsonl:2: damaged record skipped ({says}" in seen[0]


def test_a_sampled_run_whose_series_are_short_is_skipped(tmp_path):
    # the IO profile indexes every column by interval: a short one was an IndexError deep in the report
    d = copy_of(tmp_path, "model-results")
    recs = lines_of(d)
    recs[0]["samples"]["tags"] = []
    recs[1]["samples"]["cpu"]["user"] = recs[1]["samples"]["cpu"]["user"][:1]
    write_lines(d, recs)
    seen = []
    assert len(ResultsDir(d, on_warning=seen.append).records()) == len(recs) - 2
    n0, n1 = len(recs[0]["samples"]["t_ms"]), len(recs[1]["samples"]["t_ms"])
    assert seen == [f"{d / 'runs.jsonl'}:1: damaged record skipped (samples: `tags` has 0 values for {n0} intervals (`t_ms`))",
                    f"{d / 'runs.jsonl'}:2: damaged record skipped (samples.cpu: `user` has 1 values for {n1} intervals (`t_ms`))"]


def test_an_ok_run_without_a_runtime_is_exported_but_not_analysed(tmp_path):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    recs[4]["wall_s"] = None
    write_lines(d, recs)
    seen = []
    rd = ResultsDir(d, on_warning=seen.append)
    assert len(rd.records()) == len(recs) and not seen  # the export keeps what was stored
    assert len(rd.records(analysed=True)) == len(recs) - 1
    assert seen == [f"{d / 'runs.jsonl'}:5: damaged record skipped (`wall_s` is null in a run whose status is \"ok\": "
                    "it has no runtime to compare)"]


def test_report_and_results_skip_bad_records_and_say_each_once(tmp_path, capsys):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    recs[2]["wall_s"] = "fast"  # each of these was a traceback of `tierbench report`
    recs[4]["machine"] = "x"
    recs[5]["storage"] = "x"
    recs[6]["started_at"] = 5
    write_lines(d, recs)
    rc, out, err = cli(capsys, "report", d)
    assert rc == 0 and "Traceback" not in err and (d / "report.md").is_file()
    assert warned_lines(err) == [3, 5, 6, 7]  # each once, in file order
    assert err.count(f"tierbench: warning: {d / 'runs.jsonl'}:3: damaged record skipped (`wall_s` is not a number") == 1
    assert f"from {len(recs) - 4} stored runs" in (d / "report.md").read_text()
    rc, out, err = cli(capsys, "results", d, "--format", "csv")
    assert rc == 0 and len(list(csv.reader(io.StringIO(out)))) == 1 + len(recs) - 4


def test_advise_skips_a_bad_sampled_record_and_warns(tmp_path, capsys):
    d = copy_of(tmp_path, "model-results")
    recs = lines_of(d)
    recs[0]["samples"]["devices"] = "x"  # was an AttributeError in the model's profile of the run
    recs[1]["machine"] = "x"
    write_lines(d, recs)
    rc, out, err = cli(capsys, "advise", d)
    assert rc == 0 and "Traceback" not in err and out.strip()
    assert warned_lines(err) == [1, 2]
    assert "samples: `devices` is missing or not an object: it is a string ('x')" in err


def test_warnings_name_ten_lines_then_count_the_rest_and_come_once(tmp_path):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    write_lines(d, recs + ['{"run_key": 5}'] * 25)
    seen = []
    rd = ResultsDir(d, on_warning=seen.append)
    assert len(rd.records()) == len(recs) and len(rd.records()) == len(recs)  # read twice, as a resume does
    first = len(recs) + 1
    assert len(seen) == 11 and all(f"runs.jsonl:{first + i}: damaged record skipped" in seen[i] for i in range(10))
    assert seen[10] == f"{d / 'runs.jsonl'}: 15 more damaged records skipped (lines {first + 10} to {first + 24})"


def _drop_caches(s):
    s["spec"]["drop_caches"] = "sometimes"


@pytest.mark.parametrize("verb, fixture, change, says", [
    ("report", "quickstart-results", lambda s: s.update(machine="x"), "`machine` is not an object: it is a string ('x')"),
    ("report", "quickstart-results", lambda s: s.update(command_line=5), "`command_line` is not a list: it is a number (5)"),
    ("report", "quickstart-results", _drop_caches, "spec: `drop_caches` is missing or not one of 'auto', 'always', 'never'"),
    ("report", "quickstart-results", lambda s: s["spec"].update(engine="x"), "spec: `engine` is not an object"),
    ("report", "quickstart-results", lambda s: s["spec"]["storage"].__setitem__(0, "x"), "`spec.storage[0]` is not an object"),
    ("report", "quickstart-results", lambda s: s.update(spec="x"), "`spec` is missing or not an object: it is a string ('x')"),
    ("report", "quickstart-results", lambda s: s.update(predictions={"x": 1}), "predictions: `calibrated_on` is missing"),
    ("results", "quickstart-results", lambda s: s["spec"].update(workloads=[{"name": "teragen", "label": 5, "params": {}}]),
     "spec.workloads[0]: `label` is missing or not a str: it is a number (5)"),
    ("report", "quickstart-results", lambda s: s["spec"]["workloads"][0]["params"].update(files="many"),
     "spec.workloads[0].params: `files` is a string ('many'): expected a whole number >= 1"),
    ("report", "engines-results", lambda s: s["storage_map"]["devices"]["vda"].update(rotational=[]),
     "storage_map.devices.vda: `rotational` is not true or false or null: it is a list"),
    ("advise", "model-results", lambda s: s.update(storage_map="x"), "`storage_map` is not an object: it is a string ('x')"),
    ("advise", "model-results", lambda s: s.update(emulated=5), "`emulated` is not an object or null: it is a number (5)"),
    ("predict", "model-results", lambda s: s.update(emulated={"loop0": {"name": "d", "profile": {"name": "hdd"}}}),
     "emulated.loop0.profile: `read_mb_s` is missing or not a number"),
])
def test_a_study_json_of_the_wrong_shape_is_one_line_naming_the_file_and_field(tmp_path, capsys, verb, fixture, change, says):
    d = copy_of(tmp_path, fixture)
    edit_study(d, change)
    rc, out, err = cli(capsys, verb, d, *(["--hardware", "sandisk-all-ssd"] if verb == "predict" else []))
    one_error(rc, err, f"{d / 'study.json'}: not a tierbench study", says)
    assert not (d / "report.html").exists()


def test_a_spec_stored_before_a_parameter_existed_reads_with_its_default_and_is_not_rewritten(tmp_path):
    # the quickstart fixture's teragen was stored before `filler` existed; a parameter dropped by hand reads the same
    d = copy_of(tmp_path)
    edit_study(d, lambda s: s["spec"]["workloads"][0]["params"].pop("file_size"))
    stored = (d / "study.json").read_text()
    rd = ResultsDir(d)
    params = {w["label"]: w["params"] for w in rd.study()["spec"]["workloads"]}
    assert params["teragen"]["filler"] == "hadoop" and params["dfsio-write"]["file_size"] == 64 << 20
    assert (d / "study.json").read_text() == stored
    rd.update_study(note="x")  # what is written back is what was stored, and the new field
    spec = json.loads((d / "study.json").read_text())["spec"]
    assert spec == json.loads(stored)["spec"]


# -- 2. bounded reads: regular files only, and capped ------------------------------------------------------------

def _limited_memory():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a read of /dev/zero ends in MemoryError, not the OOM killer


def _zero(p: Path):
    p.unlink()
    p.symlink_to("/dev/zero")


def _fifo(p: Path):
    p.unlink()
    os.mkfifo(p)


@pytest.mark.parametrize("name, make, says", [
    ("runs.jsonl", _zero, "runs.jsonl is a link to /dev/zero (a character device), not a regular file"),
    ("study.json", _zero, "study.json is a link to /dev/zero (a character device), not a regular file"),
    ("runs.jsonl", _fifo, "runs.jsonl is a FIFO (named pipe), not a regular file"),
    ("study.json", _fifo, "study.json is a FIFO (named pipe), not a regular file"),
    ("runs.jsonl", lambda p: (p.unlink(), p.mkdir()), "runs.jsonl is a directory, not a regular file"),
])
def test_a_stored_file_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path, name, make, says):
    d = copy_of(tmp_path)
    make(d / name)
    out = subprocess.run([sys.executable, "-m", "tierbench", "results", str(d)], capture_output=True, text=True,
                         timeout=30, preexec_fn=_limited_memory)  # (a FIFO would hang it: the timeout fails the test)
    one_error(out.returncode, out.stderr, f"{d / name}", says)


def test_a_study_json_over_64_mb_is_refused_unread(tmp_path, capsys):
    d = copy_of(tmp_path)
    with open(d / "study.json", "r+b") as f:
        f.truncate(65 << 20)  # sparse: nothing is written, and nothing must be read
    rc, out, err = cli(capsys, "results", d)
    one_error(rc, err, f"{d / 'study.json'}: 68.2 MB, more than a study.json can be (64 MB)")


def test_a_runs_line_over_16_mb_is_skipped_and_the_lines_after_it_kept(tmp_path):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    huge = json.dumps(recs[1])[:-1] + " " * (16 << 20) + "}"  # valid JSON: only its size is wrong
    write_lines(d, [recs[0], huge, *recs[2:]])
    seen = []
    kept = ResultsDir(d, on_warning=seen.append).records()
    assert [r["run_key"] for r in kept] == [r["run_key"] for i, r in enumerate(recs) if i != 1]
    assert seen == [f"{d / 'runs.jsonl'}:2: damaged record skipped (longer than 16 MB: no run record is)"]


def test_a_torn_last_line_longer_than_a_read_chunk_is_cut_whole(tmp_path):
    d = copy_of(tmp_path)
    whole = (d / "runs.jsonl").read_bytes()
    torn = b'{"run_key": "r9/x/y", "pad": "' + b"x" * (3 << 20)  # no newline: cut short as it was written
    (d / "runs.jsonl").write_bytes(whole + torn)
    seen = []
    ResultsDir(d, on_warning=seen.append).cut_torn_tail()
    assert (d / "runs.jsonl").read_bytes() == whole
    assert len(seen) == 1 and f"cut off a torn last line ({len(torn)} bytes" in seen[0]


# -- 3. a report that cannot be written ---------------------------------------------------------------------------

def test_report_where_report_html_is_a_directory_is_one_line(tmp_path, capsys):
    d = copy_of(tmp_path)
    (d / "report.html").mkdir()
    before = sorted(os.listdir(d))
    rc, out, err = cli(capsys, "report", d)
    one_error(rc, err, f"cannot write the report {d / 'report.html'}: Is a directory")
    assert sorted(os.listdir(d)) == before  # no temporary file left behind


def test_a_report_that_cannot_be_written_names_the_file_and_the_os_reason(tmp_path, monkeypatch):
    # root may write anywhere, so a read-only folder is faked where write_atomic makes its temporary file
    d = copy_of(tmp_path)

    def fake_mkstemp_in_a_read_only_folder(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(d / ".report.json.x.tmp"))

    monkeypatch.setattr(render, "tempfile", SimpleNamespace(mkstemp=fake_mkstemp_in_a_read_only_folder))
    with pytest.raises(render.ReportNotWritten) as e:  # (an OSError still, for the callers that catch those)
        EXPORTERS["json"].write(StudyResults(ResultsDir(d).load()), d / "report.json")
    assert (e.value.filename, e.value.strerror) == (str(d / "report.json"), "Permission denied")  # the file, not the temporary
    assert sorted(os.listdir(d)) == ["runs.jsonl", "study.json"]


# -- 4. report.md: the user's text is text -------------------------------------------------------------------------

HOSTILE = "first\n# Injected heading\n| a | b |\n<script>alert(1)</script> <b>bold</b>"


def test_markdown_text_cannot_make_headings_rows_or_html():
    doc = Report("t <b>x</b>", Paragraph(HOSTILE), [Section("one", 2, [
        Table(["h"], [[HOSTILE]]), Bullets(["# not a heading", "1. not a list"]), Notice("fail", HOSTILE),
        Paragraph("- not a list\r\n## pwned"), Paragraph("> not a quote")])])
    md = render.MarkdownExporter().render_document(doc)
    lines = md.splitlines()
    assert [line for line in lines if line.startswith("#")] == ["# t \\<b\\>x\\</b\\>", "## one"]
    assert not any(line.startswith(("| a |", "- not", "1. not", "> not")) for line in lines)
    assert "<script>" not in md and "<b>" not in md and "\\<script\\>alert(1)\\</script\\>" in md
    table = [line for line in lines if line.startswith("| ")]
    assert len(table) == 2 and table[1].count(" | ") == 0 and "\\| a \\| b \\|" in table[1]  # one cell, its bars escaped
    assert "- \\# not a heading" in lines and "- 1\\. not a list" in lines and "\\> not a quote" in lines


def test_report_md_keeps_hostile_descriptions_names_and_errors_as_text(tmp_path, capsys):
    d = copy_of(tmp_path)

    def hostile(study):
        study["spec"]["description"] = HOSTILE
        study["spec"]["storage"][0]["description"] = "<img src=x onerror=alert(1)>\n## pwned"

    edit_study(d, hostile)
    recs = lines_of(d)
    recs[3].update(status="failed", error="disk full <sda>\n## pwned | see the log")
    write_lines(d, recs)
    rc, out, err = cli(capsys, "report", d)
    assert rc == 0, err
    md = (d / "report.md").read_text()
    lines = md.splitlines()
    assert not any(line.startswith(("# Injected", "## pwned", "| a | b |")) for line in lines)
    assert not re.search(r"(?<!\\)<[A-Za-z/!?]", md)  # no < that could open HTML (an escaped one reads as text)
    assert "<script>" not in md and "<sda>" not in md and "<b>" not in md and "\\<img src=x" in md
    assert "first # Injected heading \\| a \\| b \\| \\<script\\>alert(1)\\</script\\>" in md
    assert "disk full \\<sda\\> ## pwned \\| see the log" in md
    html_text = (d / "report.html").read_text()
    assert "<script>alert" not in html_text and "&lt;script&gt;alert(1)" in html_text


# -- 5. CSV: no formulas ------------------------------------------------------------------------------------------

def test_csv_text_a_spreadsheet_would_evaluate_is_quoted_and_numbers_stay_numbers(tmp_path, capsys):
    d = copy_of(tmp_path)
    recs = lines_of(d)
    recs[0].update(label='=HYPERLINK("http://x","y")', error="@SUM(A1)", engine="+1+2", study="\t=1", run_key="-2+3",
                   wall_s=-1.5)
    recs[0]["metrics"]["data_mb"] = -3
    write_lines(d, recs)
    rc, out, err = cli(capsys, "results", d, "--format", "csv")
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    row = next(r for r in rows if r["run_key"] == "'-2+3")
    assert (row["label"], row["error"], row["engine"], row["study"]) == (
        "'=HYPERLINK(\"http://x\",\"y\")", "'@SUM(A1)", "'+1+2", "'\t=1")
    assert (row["wall_s"], row["metrics.data_mb"]) == ("-1.5", "-3")  # numbers, negative ones too, as they were
    assert all(not v.startswith("'") for r in rows[1:] for v in r.values())  # the others untouched
