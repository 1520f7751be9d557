"""The lakehouse table workloads (workloads/tables.py) without a JVM: the spec's refusal of a Spark release their
runtime is not built for, the jobs' parameters (the maintenance's windows of the key space, the tables found beside
sqlgen's Parquet), and a study on the FakeEngine replaying real Iceberg and Delta Lake results
(tests/fixtures/table-job-results.json and delta-job-results.json, captured on Spark 4.1.4 by capture_job_results.py
--tables [--delta]): metrics, checks, the report's Tables section, the two formats side by side."""

import copy
import json
import tomllib
from pathlib import Path

import pytest

from conftest import write_spec
from tierbench.engines.fake import FakeEngine
from tierbench.job import JobRequest
from tierbench.report.render import render_report
from tierbench.spec import parse_spec
from tierbench.spec.workload_list import WorkloadSpec
from tierbench.study import preparation
from tierbench.study.runner import StudyRunner, spark_runtimes
from tierbench.workloads import WORKLOADS, measure
from tierbench.workloads.tables import BUCKETS, DELTA, ICEBERG

TABLE_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "table-job-results.json").read_text())
DELTA_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "delta-job-results.json").read_text())
SPEC = """
name = "lake"
repeats = 1
warm_up = false
drop_caches = "never"
[sampling]
enabled = false
[engine]
master = "local[1]"
{engine}
[storage.a]
data = ["{d}/a"]
[[workloads]]
name = "sqlgen"
scale = 0.01
[[workloads]]
name = "table-load"
[[workloads]]
name = "table-sql"
label = "sql-loaded"
queries = ["q01", "q06"]
[[workloads]]
name = "table-maintain"
{maintain}
[[workloads]]
name = "table-optimize"
[[workloads]]
name = "table-sql"
label = "sql-optimized"
queries = ["q01", "q06"]
"""


def spec_text(d, engine='spark = "4.1.4"', maintain=""):
    return SPEC.format(d=d, engine=engine, maintain=maintain)


@pytest.mark.parametrize("engine, field", [("", "engine.spark"), ('spark = "4.3.0"', "engine.spark")])
def test_a_release_the_runtime_is_not_built_for_is_one_line_naming_the_field(tmp_path, tb_main, engine, field):
    spec = write_spec(tmp_path / "s.toml", spec_text(tmp_path, engine))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert f"s.toml: {field}: table-load" in line and "Iceberg" in line and '"4.1.4"' in line and "got 4.3.0" in line
    assert not (tmp_path / "res").exists() and not (tmp_path / "a").exists()  # refused before anything was written


def test_swept_engines_are_named_by_their_own_field(tmp_path):
    text = spec_text(tmp_path).replace("[engine]\n", "[engines.new]\nspark = \"4.1.4\"\n[engines.old]\n")
    with pytest.raises(Exception, match=r"engines\.old\.spark: table-load"):
        parse_spec(tomllib.loads(text.replace('spark = "4.1.4"\n[storage', "[storage")), "s.toml")


def test_too_large_a_share_is_refused(tmp_path, tb_main):
    spec = write_spec(tmp_path / "s.toml", spec_text(tmp_path, maintain="batches = 10\nshare = 0.1"))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "workloads[3].share" in out.stderr and "at most 1 / (2 x batches)" in out.stderr


def test_the_study_puts_icebergs_runtime_on_the_application(tmp_path):
    spec = parse_spec(tomllib.loads(spec_text(tmp_path)), "s.toml")
    assert spark_runtimes(spec) == (ICEBERG,)  # once, however many table workloads
    plain = parse_spec(tomllib.loads(spec_text(tmp_path).split("[[workloads]]\nname = \"table-load\"")[0]), "s.toml")
    assert spark_runtimes(plain) == ()


def _req(name, params, producer=None, inputs=("file:///d/tb/a/r1/lake-tables",)):
    wl = WORKLOADS[name]
    full = {p.name: p.default for p in wl.params} | params
    return JobRequest("k", WorkloadSpec(name, name, full), producer, list(inputs), ["file:///d/tb/a/r1/lake-tables"],
                      [], Path("/tmp"))


def test_maintenance_batches_change_disjoint_windows_of_the_key_space():
    p = WORKLOADS["table-maintain"].spark_params(_req("table-maintain", {"batches": 3, "share": 0.01}))
    assert p["source"] == "file:///d/tb/a/r1/sql-tables/lineitem"  # sqlgen's Parquet beside the tables
    assert p["warehouse"] == "file:///d/tb/a/r1/lake-tables" and p["keys"] == ["l_orderkey", "l_linenumber"]
    starts = [int(w.split(" - ")[1].split(",")[0]) for b in p["batches"] for w in (b["delete_where"], b["update_where"])]
    width = BUCKETS // 100
    assert starts == [i * width for i in range(6)]  # each statement its own 1% of the buckets, none twice
    assert f"< {width}" in p["batches"][0]["delete_where"] and "hash(l_orderkey, l_linenumber)" in p["batches"][0]["delete_where"]


def test_queries_through_the_tables_name_their_warehouse_and_catalog_dirs():
    sqlgen = WorkloadSpec("sqlgen", "sqlgen", {"benchmark": "tpch"})
    req = _req("table-sql", {"queries": ["q06"]}, sqlgen, ["file:///d/tb/a/r1/sql-tables"])
    p = WORKLOADS["table-sql"].spark_params(req)
    assert p["warehouse"] == "file:///d/tb/a/r1/lake-tables"
    assert p["tables"]["lineitem"] == "file:///d/tb/a/r1/lake-tables/db/lineitem" and len(p["tables"]) == 8


def test_each_phase_is_measured_from_the_real_result():
    load = measure("table-load", TABLE_RESULTS["table-load"]["result"], 1.0).metrics
    maintain = measure("table-maintain", TABLE_RESULTS["table-maintain"]["result"], 1.0)
    optimize = measure("table-optimize", TABLE_RESULTS["table-optimize"]["result"], 1.0).metrics
    assert load["snapshots"] == 8 and load["files_deleted"] == 0 and load["files_written"] >= 16
    assert maintain.failure is None and maintain.metrics["snapshots"] == 1 + 3 * 2  # three commits a batch
    assert maintain.metrics["live_delete_files"] > 0 and len(maintain.details["batches"]) == 2  # merge-on-read
    assert optimize["live_delete_files"] == 0 and optimize["snapshots"] == 1 and optimize["files_deleted"] > 0
    assert optimize["small_files"] < maintain.metrics["small_files"]


def test_a_changed_row_count_fails_the_run():
    job = copy.deepcopy(TABLE_RESULTS["table-maintain"]["result"])
    job["rows_after"] = job["rows_before"] - 1
    assert "rows before" in measure("table-maintain", job, 1.0).failure


def test_a_study_on_replayed_results_reports_its_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(preparation, "prepare_releases", lambda spec, on_phase: None)  # (no pip: nothing runs)
    spec = parse_spec(tomllib.loads(spec_text(tmp_path)), "s.toml", tmp_path)
    StudyRunner(spec, tmp_path / "r", ["t"], engines={"spark": FakeEngine(TABLE_RESULTS)}).run()
    records = [json.loads(x) for x in (tmp_path / "r" / "runs.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["ok"] * 6, [r["error"] for r in records]
    md = render_report(tmp_path / "r")[1].read_text()
    tables = md.split("## Tables", 1)[1].split("\n## ", 1)[0]
    assert "| a | table-maintain |" in tables and "| a | sql-optimized |" in tables and "1.00x" in tables
    assert "requests $" not in tables  # local dirs: no object store requests to price


def test_the_runtime_rides_on_spark_jars_beside_a_connectors_jars(tmp_path, monkeypatch):
    """(the S3 configuration's S3A jars and Iceberg's runtime both: the e2e study found the second addition refused)"""
    from tierbench.engines import spark as spark_engine
    from tierbench.storage import StudyLayout
    from tierbench.storage.kinds import s3
    from tierbench.workloads.base import SparkRuntime

    monkeypatch.setattr(spark_engine, "jobs_jar", lambda spark=None: Path("/c/jobs.jar"))
    monkeypatch.setattr(s3, "spark_s3a_jars", lambda: [Path("/c/s3a/hadoop-aws.jar"), Path("/c/s3a/s3.jar")])
    text = spec_text(tmp_path).replace('data = ["{d}/a"]'.format(d=tmp_path), 'data = { type = "s3", endpoint = '
                                       '"http://127.0.0.1:1", bucket = "tierbench" }\nintermediate = ["%s/t"]' % tmp_path)
    spec = parse_spec(tomllib.loads(text), "s.toml", tmp_path)
    runtime = SparkRuntime("a runtime", ("4.1.4",), lambda: [Path("/c/t/iceberg.jar")])
    engine = spark_engine.SparkEngine(spec.engines[0], spec.name, tmp_path / "logs", runtimes=(runtime,))
    config = spec.config("a")
    phases = []
    conf = engine.application_conf("a", config, StudyLayout(spec).intermediate_dirs(config, "a"), phases.append)
    assert conf["spark.jars"].split(",") == ["/c/jobs.jar", "/c/s3a/hadoop-aws.jar", "/c/s3a/s3.jar", "/c/t/iceberg.jar"]
    assert "checking a runtime (fetched from Maven Central on first use)" in phases


def test_a_load_of_some_tables_loads_those_and_refuses_one_the_benchmark_lacks(tmp_path, tb_main):
    sqlgen = WorkloadSpec("sqlgen", "sqlgen", {"benchmark": "tpch"})
    req = _req("table-load", {"tables": ["lineitem", "orders"]}, sqlgen, ["file:///d/tb/a/r1/sql-tables"])
    assert list(WORKLOADS["table-load"].spark_params(req)["sources"]) == ["lineitem", "orders"]
    spec = write_spec(tmp_path / "s.toml", spec_text(tmp_path).replace('name = "table-load"', 'name = "table-load"\n'
                                                                        'tables = ["lineitem", "store_sales"]'))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "tables: no tpch table store_sales; accepted: customer, lineitem" in out.stderr
