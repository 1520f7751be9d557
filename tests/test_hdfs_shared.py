"""Real HDFS (NameNode + 2 DataNodes from `tierbench services up hdfs`) and a shared mount, both engines, one report."""

import json
import subprocess

import pytest

from conftest import SMALL_WORKLOADS, write_spec


def fs_shell(*args) -> subprocess.CompletedProcess:
    from tierbench.engines.hadoop.runtime import classpath
    from tierbench.toolchain import java_bin

    return subprocess.run([java_bin(), "-cp", classpath(), "org.apache.hadoop.fs.FsShell", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def hdfs(tmp_path_factory):
    from conftest import hdfs_service

    yield from hdfs_service(tmp_path_factory, "hdfs", 2)


def test_hdfs_service_is_up_with_two_datanodes(hdfs, tb):
    d, uri, up = hdfs
    assert uri.startswith("hdfs://127.0.0.1:") and "2 DataNode(s) live" in up.stdout
    st = tb("services", "status", "hdfs", "--dir", d / "svc")
    assert st.returncode == 0 and "ready" in st.stdout


def test_study_on_hdfs_and_shared_with_both_engines(hdfs, tb):
    d, uri, _ = hdfs
    spec = write_spec(d / "s.toml", f"""
name = "mixed"
repeats = 1
warm_up = false
[engines.spark]
kind = "spark"
master = "local[2]"
driver_memory = "1g"
[engines.hadoop]
kind = "hadoop"
[storage.hdfs]
data = {{ type = "hdfs", uri = "{uri}/tb", replication = 2 }}
intermediate = ["{d}/tmp"]
[storage.shared]
data = {{ type = "shared", path = "{d}/shared" }}
{SMALL_WORKLOADS}
""")
    out = tb("run", spec, "--out", d / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = [json.loads(l) for l in (d / "res" / "runs.jsonl").read_text().splitlines()]
    assert len(recs) == 20 and all(r["status"] == "ok" for r in recs), [r["error"] for r in recs if r["error"]]
    assert {r["variant"] for r in recs} == {"hdfs@spark", "hdfs@hadoop", "shared@spark", "shared@hadoop"}
    sums = {r["details"]["checksum"] for r in recs if r["workload"] in ("teragen", "teravalidate")}
    assert len(sums) == 1  # the same rows on every storage and engine
    h = next(r for r in recs if r["variant"] == "hdfs@spark" and r["workload"] == "teragen")
    assert h["storage"]["type"] == "hdfs" and h["storage"]["settings"] == {"dfs.replication": "2"}
    assert h["engine_conf"]["spark.hadoop.dfs.replication"] == "2"
    assert next(r for r in recs if r["variant"] == "shared@hadoop")["storage"]["type"] == "shared"
    html = (d / "res" / "report.html").read_text()
    assert all(v in html for v in ("hdfs@spark", "hdfs@hadoop", "shared@spark", "shared@hadoop"))
    # nothing of the study is left on HDFS
    ls = fs_shell("-ls", "-R", f"{uri}/tb")
    assert "tierbench" not in ls.stdout


def test_refuses_an_hdfs_directory_it_does_not_own(hdfs, tb):
    from tierbench.study.identity import new_study_id

    d, uri, _ = hdfs
    mine = f"mine-{new_study_id(d / 'res2')}"  # (the root the study in --out res2 would make: its name and the folder's id)
    assert fs_shell("-mkdir", "-p", f"{uri}/theirs/tierbench/{mine}").returncode == 0
    assert fs_shell("-touchz", f"{uri}/theirs/tierbench/{mine}/precious").returncode == 0
    spec = write_spec(d / "own.toml", f"""
name = "mine"
[storage.h]
data = {{ type = "hdfs", uri = "{uri}/theirs" }}
intermediate = ["{d}/tmp2"]
[[workloads]]
name = "teragen"
rows = 1000
""")
    out = tb("run", spec, "--out", d / "res2")
    assert out.returncode == 2 and "not created by tierbench" in out.stderr
    assert fs_shell("-test", "-e", f"{uri}/theirs/tierbench/{mine}/precious").returncode == 0
