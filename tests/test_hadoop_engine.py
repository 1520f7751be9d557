"""The hadoop engine in whole studies: local mode beside Spark in one report, and on an embedded YARN."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import SMALL_WORKLOADS, write_spec

# and a shuffle of 8 MB from 2 maps to 4 reducers: the spark engine's job and tierbench's own MapReduce job
WORKLOADS = SMALL_WORKLOADS + """
[[workloads]]
name = "shuffle"
size = "8MiB"
map_tasks = 2
partitions = 4
"""


def _records(path):
    return [json.loads(l) for l in (path / "runs.jsonl").read_text().splitlines()]


@pytest.mark.e2e
def test_spark_and_hadoop_side_by_side_in_one_report(tmp_path, tb):
    spec = write_spec(tmp_path / "s.toml", f"""
name = "engines"
repeats = 1
warm_up = false
[engines.spark]
kind = "spark"
master = "local[2]"
driver_memory = "1g"
[engines.hadoop]
kind = "hadoop"
[storage.disk]
data = ["{tmp_path}/d1"]
intermediate = {{ dirs = ["{tmp_path}/d2"], split = 2 }}
{WORKLOADS}""")
    out = tb("run", spec, "--out", tmp_path / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = _records(tmp_path / "res")
    assert [r["variant"] for r in recs] == ["disk@spark"] * 6 + ["disk@hadoop"] * 6
    assert all(r["status"] == "ok" for r in recs)
    h = {r["workload"]: r for r in recs if r["engine"] == "hadoop"}
    s = {r["workload"]: r for r in recs if r["engine"] == "spark"}
    assert h["teragen"]["engine_version"].startswith("hadoop 3.4.2 (local")
    # same rows from both engines: same checksum, as TeraGen and TeraValidate report it
    assert h["teragen"]["details"]["checksum"] == h["teravalidate"]["details"]["checksum"] == s["teravalidate"]["details"]["checksum"]
    assert h["teravalidate"]["metrics"]["rows"] == 20_003 and h["teravalidate"]["metrics"]["error_count"] == 0
    # TestDFSIO's own lines are kept, and our figures from its per-task lines equal them
    assert h["dfsio-write"]["details"]["testdfsio"] == h["dfsio-write"]["details"]["testdfsio_printed"]
    assert h["terasort"]["metrics"]["spilled_records"] > 0 and h["terasort"]["metrics"]["shuffle_mb"] > 0
    # the same shuffle on both: every byte the maps sent received (a shortfall fails the run), through
    # MapReduce's own shuffle on the hadoop engine (its counters)
    for shuffle in (h["shuffle"], s["shuffle"]):
        assert shuffle["metrics"]["data_mb"] == 8 and (shuffle["metrics"]["map_tasks"], shuffle["metrics"]["reduce_tasks"]) == (2, 4)
    assert h["shuffle"]["details"]["counters"]["Map-Reduce Framework"]["Reduce shuffle bytes"] > 8 << 20
    # local mode: the configuration's intermediate dirs are Hadoop's local dirs
    assert re.search(r"d2/tierbench/engines-[0-9a-f]{8}/disk__hadoop/intermediate/dir1", h["terasort"]["engine_conf"]["mapreduce.cluster.local.dir"])
    log = tmp_path / "res" / h["terasort"]["details"]["log"]
    assert "TeraSort" in log.read_text()  # raw log kept with the run
    html = (tmp_path / "res" / "report.html").read_text()
    assert "disk@spark" in html and "disk@hadoop" in html and "engine hadoop" in html


def test_hadoop_engine_refuses_jbod_on_local_dirs_with_hadoops_own_file_system(tmp_path, tb_main):
    # (durable local mode spreads a data set over them: tests/test_hadoop_local_dirs.py)
    spec = write_spec(tmp_path / "s.toml", f"""
name = "j"
durability = "engine"
[engine]
kind = "hadoop"
[storage.a]
data = ["{tmp_path}/d1", "{tmp_path}/d2"]
[[workloads]]
name = "teragen"
""")
    out = tb_main("run", spec)
    assert out.returncode == 2 and "storage.a.data" in out.stderr and "one directory" in out.stderr


@pytest.fixture(scope="module")
def yarn(tmp_path_factory):
    from conftest import tierbench

    d = tmp_path_factory.mktemp("yarn")
    up = tierbench("services", "up", "yarn", "--dir", d / "svc", timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    yield d, up
    down = tierbench("services", "down", "yarn", "--dir", d / "svc", timeout=120)
    assert down.returncode == 0 and "stopped" in down.stdout


def test_study_on_embedded_yarn(yarn, tb):
    d, up = yarn
    assert "export HADOOP_CONF_DIR=" in up.stdout and "127.0.0.1:" in up.stdout
    st = tb("services", "status", "yarn", "--dir", d / "svc")
    assert st.returncode == 0 and "ready" in st.stdout and "1 node(s) running" in st.stdout
    spec = write_spec(d / "s.toml", f"""
name = "onyarn"
repeats = 1
warm_up = false
[engine]
kind = "hadoop"
mode = "yarn"
hadoop_conf_dir = "{d / 'svc' / 'conf'}"
[storage.one]
data = ["{d}/data"]
{SMALL_WORKLOADS}""")
    out = tb("run", spec, "--out", d / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = _records(d / "res")
    assert len(recs) == 5 and all(r["status"] == "ok" for r in recs), [r["error"] for r in recs]
    by = {r["workload"]: r for r in recs}
    assert "yarn" in by["teragen"]["engine_version"]
    assert by["teragen"]["metrics"]["tasks"] == 2  # on YARN, TeraGen's map count is honoured
    assert by["teragen"]["details"]["checksum"] == by["teravalidate"]["details"]["checksum"]
    assert by["dfsio-read"]["metrics"]["data_mb"] == 4 and by["dfsio-read"]["metrics"]["throughput_mb_s"] > 0
    # (the shuffle, tierbench's own MapReduce job, ran here too once, its jar shipped to YARN's tasks: 2026-11-29,
    # session 55; a YARN job of 33 s more in CI, so it runs in local mode only, in the test above)


def test_services_status_when_down(tmp_path, tb_main):
    st = tb_main("services", "status", "yarn", "--dir", tmp_path / "none")
    assert st.returncode == 3 and "not running" in st.stdout


def test_yarn_mode_finds_the_cluster_of_a_hadoop_command_on_path(tmp_path, monkeypatch):
    """A user's cluster: no conf dir in the spec, no HADOOP_CONF_DIR, but their `hadoop` on PATH.
    (The `hadoop` here is a stand-in script answering `hadoop envvars` as Hadoop 3 does.)"""
    from tierbench.engines.hadoop import HadoopEngine
    from tierbench.errors import SpecError
    from tierbench.spec import parse_spec

    conf = tmp_path / "etc-hadoop"
    conf.mkdir()
    raw = {"name": "y", "engine": {"kind": "hadoop", "mode": "yarn"}, "storage": {"a": {"data": [str(tmp_path)]}},
           "workloads": [{"name": "teragen"}]}
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    with pytest.raises(SpecError, match="needs a Hadoop conf dir"):
        parse_spec(raw, "s.toml")
    (tmp_path / "bin").mkdir()
    shim = tmp_path / "bin" / "hadoop"
    shim.write_text(f"#!/bin/sh\n[ \"$1\" = envvars ] && echo \"HADOOP_CONF_DIR='{conf}'\"\n")
    shim.chmod(0o755)
    spec = parse_spec(raw, "s.toml")
    assert HadoopEngine(spec.engines[0], tmp_path).conf_dir == str(conf)
    monkeypatch.setenv("HADOOP_CONF_DIR", "/elsewhere")  # the environment wins over the installed command
    assert HadoopEngine(spec.engines[0], tmp_path).conf_dir == "/elsewhere"
