"""A small real study on another Spark release than the project's (`[engine] spark = "4.1.4"`): pyspark 4.1.4 from
PyPI in tierbench's cache (installed on first use), its JVM running the jobs jar compiled against its jars, and each
run recording the release. A 2 MB TeraGen, its TeraSort and TeraValidate: the output is checked, not only timed."""

import json
from pathlib import Path

import pytest

from conftest import tierbench, write_spec
from tierbench.toolchain import cache_dir

RELEASE = "4.1.4"
SPEC = """
name = "spark-release"
repeats = 1
warm_up = false
durability = "durable"   # (the shuffle's map outputs synced: the jobs jar finds 4.1's block resolver by name)
[engine]
spark = "{release}"
master = "local[2]"
driver_memory = "1g"
[storage.one]
data = ["{d}/disk/tb"]
create_dirs = true
[[workloads]]
name = "teragen"
rows = 20_000
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
"""


@pytest.mark.e2e
def test_a_study_on_spark_4_1_4_runs_on_that_release_and_records_it(tmp_path):
    spec = write_spec(tmp_path / "s.toml", SPEC.format(release=RELEASE, d=tmp_path))
    out = tierbench("run", spec, "--out", tmp_path / "results", timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    records = [json.loads(x) for x in (tmp_path / "results" / "runs.jsonl").read_text().splitlines()]
    assert [r["workload"] for r in records] == ["teragen", "terasort", "teravalidate"]
    assert all(r["status"] == "ok" for r in records), [r["error"] for r in records]
    assert records[1]["durability"] == "durable" and records[1]["sync_gaps"] == []
    # the release the application's JVM reported (SparkSession.version), not the spec's word for it
    assert {r["engine_version"] for r in records} == {f"spark {RELEASE}"}
    jars = records[0]["engine_conf"]["spark.jars"].split(",")
    jobs = next(Path(j) for j in jars if Path(j).name.startswith("tierbench-jobs-"))
    assert jobs.parent == cache_dir() / "jobs" and jobs.is_file()
    assert (cache_dir() / "spark" / RELEASE / "pyspark" / "jars" / f"spark-core_2.13-{RELEASE}.jar").is_file()
    gen, sort, validate = records
    assert gen["details"]["rows"] == validate["details"]["rows"] == 20_000  # 2 MB of 100-byte rows
    # the sorted output holds the generated rows (the same checksum) in order (TeraValidate: no problem found)
    assert validate["details"]["checksum"] == gen["details"]["checksum"] and validate["details"]["errors"] == []
    study = json.loads((tmp_path / "results" / "study.json").read_text())
    assert study["spec"]["engines"][0]["spark"] == RELEASE
    assert f"spark {RELEASE}" in (tmp_path / "results" / "report.md").read_text()
