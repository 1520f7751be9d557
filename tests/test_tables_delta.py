"""Delta Lake beside Iceberg (workloads/tables.py's format = "delta") without a JVM: the spec's refusals, each table
workload reading the table-load of its own format (its own data set), Delta's runtime and session settings on the
application, and a study on the FakeEngine replaying real Delta results (tests/fixtures/delta-job-results.json,
captured on Spark 4.1.4 by capture_job_results.py --tables --delta) beside Iceberg's."""

import copy
import json
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import write_spec
from test_tables import DELTA_RESULTS, TABLE_RESULTS, spec_text
from tierbench.engines.fake import FakeEngine
from tierbench.report.render import render_report
from tierbench.spec import parse_spec
from tierbench.study import preparation
from tierbench.study.runner import StudyRunner, spark_runtimes
from tierbench.workloads import measure
from tierbench.workloads.tables import DELTA, ICEBERG

TABLE_WORKLOADS = ("table-load", "table-sql", "table-maintain", "table-optimize")


def delta_too(text: str) -> str:
    """The spec with a second set of table workloads, format = "delta", after Iceberg's."""
    extra = "".join(f'[[workloads]]\nname = "{w}"\nlabel = "delta-{w}"\nformat = "delta"\n'
                    + ('queries = ["q01", "q06"]\n' if w == "table-sql" else "") for w in TABLE_WORKLOADS)
    return text + extra


class ByFormat(FakeEngine):
    """The FakeEngine replaying each run's format's recorded results, keeping what each run was asked to read and write."""

    def __init__(self):
        super().__init__(TABLE_RESULTS)
        self.asked: dict[str, tuple] = {}

    def run(self, req, on_progress):
        self.results = DELTA_RESULTS if req.workload.params.get("format") == "delta" else TABLE_RESULTS
        self.asked[req.workload.label] = (req.inputs, req.outputs, req.producer and req.producer.label)
        return super().run(req, on_progress)


def test_an_unknown_format_is_one_line_naming_the_field_and_the_accepted(tmp_path, tb_main):
    spec = write_spec(tmp_path / "s.toml", spec_text(tmp_path).replace('name = "table-load"\n',
                                                                        'name = "table-load"\nformat = "hudi"\n'))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert "workloads[1].format" in line and "'iceberg', 'delta'" in line and "'hudi'" in line


def test_a_delta_maintenance_without_a_delta_load_is_refused(tmp_path, tb_main):
    spec = write_spec(tmp_path / "s.toml", spec_text(tmp_path, maintain='format = "delta"'))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert 'table-maintain reads the output of a table-load of format = "delta"' in out.stderr
    assert not (tmp_path / "res").exists()


def test_both_formats_in_one_study_put_both_runtimes_and_deltas_settings_on_the_application(tmp_path, monkeypatch):
    from tierbench.engines import spark as spark_engine
    from tierbench.storage import StudyLayout

    spec = parse_spec(tomllib.loads(delta_too(spec_text(tmp_path))), "s.toml", tmp_path)
    assert spark_runtimes(spec) == (ICEBERG, DELTA)
    monkeypatch.setattr(spark_engine, "jobs_jar", lambda spark=None: Path("/c/jobs.jar"))
    runtimes = (replace(ICEBERG, jars=lambda: [Path("/c/ice.jar")]),  # (the jars as fetched: no Maven here)
                replace(DELTA, jars=lambda: [Path("/c/delta-spark.jar"), Path("/c/delta-storage.jar")]))
    own = replace(spec.engines[0], conf={**spec.engines[0].conf, "spark.sql.extensions": "my.Extension"})
    engine = spark_engine.SparkEngine(own, spec.name, tmp_path / "logs", runtimes=runtimes)
    config = spec.config("a")
    conf = engine.application_conf("a", config, StudyLayout(spec).intermediate_dirs(config, "a"), lambda t: None)
    assert conf["spark.jars"].split(",")[-3:] == ["/c/ice.jar", "/c/delta-spark.jar", "/c/delta-storage.jar"]
    assert conf["spark.sql.catalog.spark_catalog"] == "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    assert conf["spark.sql.extensions"] == "my.Extension,io.delta.sql.DeltaSparkSessionExtension"  # (the engine's stays)


def test_each_format_reads_and_writes_its_own_warehouse(tmp_path, monkeypatch):
    monkeypatch.setattr(preparation, "prepare_releases", lambda spec, on_phase: None)  # (no pip: nothing runs)
    spec = parse_spec(tomllib.loads(delta_too(spec_text(tmp_path))), "s.toml", tmp_path)
    engine = ByFormat()
    StudyRunner(spec, tmp_path / "r", ["t"], engines={"spark": engine}).run()
    records = [json.loads(x) for x in (tmp_path / "r" / "runs.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["ok"] * 10, [r["error"] for r in records]
    ins, outs, producer = engine.asked["delta-table-maintain"]
    assert producer == "delta-table-load" and ins[0].endswith("/delta-tables")
    assert engine.asked["delta-table-load"][1][0].endswith("/delta-tables")
    assert engine.asked["table-load"][1][0].endswith("/lake-tables")
    assert engine.asked["table-optimize"][0][0].endswith("/lake-tables") and engine.asked["table-optimize"][2] == "table-load"


def test_delta_phases_are_measured_from_the_real_result():
    load = measure("table-load", DELTA_RESULTS["table-load"]["result"], 1.0).metrics
    maintain = measure("table-maintain", DELTA_RESULTS["table-maintain"]["result"], 1.0)
    optimize = measure("table-optimize", DELTA_RESULTS["table-optimize"]["result"], 1.0)
    # one version per table loaded, written as Parquet beside each _delta_log
    assert load["snapshots"] == 8 and load["files_deleted"] == 0 and load["data_files"] >= 8 and load["metadata_files"] >= 8
    m = maintain.metrics
    # merge-on-read is deletion vectors: the DELETE and the MERGE marked rows in deletion vector files, nothing deleted
    assert maintain.failure is None and m["live_delete_files"] > 0 and m["files_deleted"] == 0
    assert maintain.details["state"]["deletion_vectors"] > 0 and len(maintain.details["batches"]) == 2
    # lineitem's versions: its load, the property change that turned deletion vectors on, three commits a batch
    assert m["snapshots"] == 1 + 1 + 3 * 2
    o = optimize.metrics
    # OPTIMIZE applied the deletion vectors; VACUUM deleted the files no version needs; the log keeps its versions
    assert o["live_delete_files"] == 0 and o["files_deleted"] > 0 and o["small_files"] < m["small_files"]
    assert o["snapshots"] > m["snapshots"] and optimize.details["removed_delete_files"] > 0
    assert optimize.failure is None


def test_a_changed_row_count_fails_a_delta_run():
    job = copy.deepcopy(DELTA_RESULTS["table-optimize"]["result"])
    job["rows_after"] = job["rows_before"] + 1
    assert "rows before" in measure("table-optimize", job, 1.0).failure


@pytest.mark.parametrize("both", [True, False])
def test_the_tables_section_names_the_format_where_the_study_has_two(tmp_path, monkeypatch, both):
    monkeypatch.setattr(preparation, "prepare_releases", lambda spec, on_phase: None)
    text = spec_text(tmp_path)
    spec = parse_spec(tomllib.loads(delta_too(text) if both else text), "s.toml", tmp_path)
    StudyRunner(spec, tmp_path / "r", ["t"], engines={"spark": ByFormat()}).run()
    md = render_report(tmp_path / "r")[1].read_text()
    tables = md.split("## Tables", 1)[1].split("\n## ", 1)[0]
    if both:
        assert "Lakehouse tables (Iceberg, Delta Lake)" in tables and "| variant | phase | format |" in tables
        assert "| a | delta-table-maintain | Delta Lake |" in tables and "| a | table-maintain | Iceberg |" in tables
        # each format's queries against its own first listing
        assert "| a | delta-table-sql | Delta Lake | 1 |" in tables and tables.count("1.00x") >= 2
    else:
        assert "Lakehouse tables (Iceberg)" in tables and "| format |" not in tables
