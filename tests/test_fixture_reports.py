"""Reports from committed folders of real results (tests/fixtures/*-results, each from a real `tierbench run`:
see its study.json's command_line and machine): Spark vs Hadoop's own jobs, a knob sweep with SQL queries.
Fast: no JVM; the analysis and the report are pure functions of the stored records."""

import json
import shutil
from pathlib import Path

import pytest

from tierbench.errors import UserError
from tierbench.report import EXPORTERS, render_report
from tierbench.store import ResultsDir
from tierbench.store.record import SCHEMA_VERSION

FIXTURES = Path(__file__).parent / "fixtures"


def copy_of(name: str, tmp_path: Path) -> Path:
    d = tmp_path / name
    shutil.copytree(FIXTURES / name, d)
    return d


def test_spark_and_hadoop_results_report_side_by_side(tmp_path):
    d = copy_of("engines-results", tmp_path)
    recs = ResultsDir(d).records()
    assert {r["variant"] for r in recs} == {"disk@spark", "disk@hadoop"} and all(r["status"] == "ok" for r in recs)
    # the same TeraGen rows from both engines: the same checksum, and each TeraValidate agreed with it
    gens = {(r["engine"], r["repeat"]): r["details"]["checksum"] for r in recs if r["workload"] == "teragen"}
    assert len(set(gens.values())) == 1
    html_path, md_path = render_report(d)
    md = md_path.read_text()
    for want in ("disk@spark", "disk@hadoop", "engine hadoop", "hadoop 3.4.2", "Normalised runtime"):
        assert want in md, want
    assert html_path.read_text().count("<svg") >= 3


def test_sweep_and_sql_results_report_the_sweep_and_the_queries(sweep_sql_document):
    d = FIXTURES / "sweep-sql-results"  # (only read: its document is conftest's, built once for the session)
    recs = ResultsDir(d).records()
    assert all(r["status"] == "ok" for r in recs)
    study = ResultsDir(d).study()
    assert {sw["knob"] for sw in study["spec"]["sweeps"]} == {"shuffle_compress", "split_size"}
    md = EXPORTERS["md"].render_document(sweep_sql_document)
    assert "## Sweep of split_size" in md and "## Sweep of shuffle_compress" in md
    assert "## SQL queries" in md and "| q01 |" in md and "same answer" in md


def test_records_of_schema_1_read_as_schema_2(tmp_path):
    d = copy_of("quickstart-results", tmp_path)
    assert ResultsDir(d).study()["schema_version"] == 1  # the committed folder predates the `io` field
    recs = ResultsDir(d).records()
    assert all(r["schema_version"] == SCHEMA_VERSION and "io" in r and r["durability"] == "engine" for r in recs)
    sort = next(r for r in recs if r["workload"] == "terasort")
    assert sort["io"]["intermediate_mb"] == sort["metrics"]["data_mb"]


def test_a_report_refuses_to_pool_runs_of_two_machines_unless_allowed(tmp_path):
    d = copy_of("quickstart-results", tmp_path)
    lines = (d / "runs.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["machine"] = dict(first["machine"], cpu_model="Another CPU", cpu_cores=64)
    (d / "runs.jsonl").write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    with pytest.raises(UserError, match=r"cannot be pooled: .*2 machines.*--allow-mixed"):
        render_report(d)
    _, md_path = render_report(d, allow_mixed=True)
    assert "pooled with --allow-mixed" in md_path.read_text()


def test_the_cli_says_so_in_one_line(tmp_path, tb_main):
    d = copy_of("quickstart-results", tmp_path)
    lines = (d / "runs.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["tool_version"] = "0.0.1"
    (d / "runs.jsonl").write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    out = tb_main("report", d)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "tierbench versions" in out.stderr
    assert not (d / "report.md").exists()  # (--allow-mixed renders it: the test above)
