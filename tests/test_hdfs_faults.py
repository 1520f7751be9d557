"""A real HDFS (tierbench services up hdfs, 2 DataNodes) losing a DataNode: status asks the NameNode and says
so, runs that write at replication 2 record the under-replicated blocks and the report warns; the NameNode
keeps its ports across down/up, so an interrupted study's spec still reaches it (issue 17, item 4)."""

import json
import os
import signal
import time
from pathlib import Path

import pytest

from conftest import daemon_pid, tierbench, write_spec


def test_down_deletes_the_daemons_tmpdir_it_made_and_never_one_it_did_not(tmp_path, monkeypatch):
    """The JVMs' java.io.tmpdir is the service's jvm-tmp, made (and marked) by tierbench: `down` deletes it once no
    daemon runs; a jvm-tmp that was there before, unmarked, is used but left as it was."""
    from tierbench.services import hdfs
    from tierbench.services.hdfs import JVM_TMP_MARK, Hdfs

    monkeypatch.setattr(hdfs, "hadoop_lib", lambda: tmp_path / "lib")  # (no jars needed, none fetched)
    monkeypatch.setattr(hdfs, "hadoop_log4j_dir", lambda: tmp_path / "log4j")

    ours = Hdfs(tmp_path / "ours")
    cmd = ours._java(tmp_path / "conf", "org.apache.hadoop.hdfs.server.namenode.NameNode")
    assert f"-Djava.io.tmpdir={ours.jvm_tmp}" in cmd and (ours.jvm_tmp / JVM_TMP_MARK).is_file()
    (ours.jvm_tmp / "jetty-localhost-1").mkdir()
    ours.down()
    assert not ours.jvm_tmp.exists()
    theirs = Hdfs(tmp_path / "theirs")
    (theirs.jvm_tmp / "notes").mkdir(parents=True)
    theirs._java(tmp_path / "conf", "org.apache.hadoop.hdfs.server.namenode.NameNode")
    theirs.down()
    assert sorted(p.name for p in theirs.jvm_tmp.iterdir()) == ["notes"]


def _jetty_dirs_in_tmp() -> set:
    return {p.name for p in Path("/tmp").glob("jetty-*")}


@pytest.mark.e2e
def test_a_dead_datanode_is_seen_and_recorded_and_ports_survive_down_up(tmp_path):
    """... and the daemons' web servers unpack into the service's dir, not /tmp, and `down` removes that, also after
    a DataNode was killed."""
    svc = tmp_path / "svc"
    jetty_before = _jetty_dirs_in_tmp()
    up = tierbench("services", "up", "hdfs", "--dir", svc, "--datanodes", "2", timeout=300)
    assert up.returncode == 0, up.stderr[-2000:]
    try:
        state = json.loads((svc / "service.json").read_text())
        web = f"http://127.0.0.1:{state['ports']['http']}"
        assert f'web = "{web}"' in up.stdout
        assert len(list((svc / "jvm-tmp").glob("jetty-*"))) == 3  # the NameNode's and each DataNode's
        spec = write_spec(tmp_path / "s.toml", f"""
name = "degraded"
repeats = 1
warm_up = false
[engine]
master = "local[2]"
[storage.hdfs]
data = {{ type = "hdfs", uri = "{state['uri']}/tb", replication = 2, web = "{web}" }}
intermediate = ["{tmp_path}/tmp"]
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "2MiB"
""")
        ok = tierbench("run", spec, "--out", tmp_path / "res1", timeout=600)
        assert ok.returncode == 0, ok.stderr[-2000:]
        rec = json.loads((tmp_path / "res1" / "runs.jsonl").read_text().splitlines()[0])
        h = rec["details"]["storage_health"]
        assert h["checked"] and (h["live_datanodes"], h["dead_datanodes"], h["under_replicated_blocks"]) == (2, 0, 0)
        assert h["files_written"] >= 2 and h["blocks_written"] >= 2  # the 2 data files (and DFSIO's own)
        # a DataNode dies
        os.kill(daemon_pid(svc / "pids" / "datanode-2.pid"), signal.SIGKILL)
        deadline = time.time() + 90
        while time.time() < deadline:
            st = tierbench("services", "status", "hdfs", "--dir", svc)
            if "1 DataNode(s) live" in st.stdout:
                break
            time.sleep(2)
        assert st.returncode == 3 and "starting or unhealthy" in st.stdout and "1 of 2 DataNode process(es) not running" in st.stdout
        out = tierbench("run", spec, "--out", tmp_path / "res2", timeout=600)
        recs = [json.loads(l) for l in (tmp_path / "res2" / "runs.jsonl").read_text().splitlines()]
        health = recs[0]["details"]["storage_health"]
        assert health["dead_datanodes"] == 1 and health["under_replicated_blocks"] == health["blocks_written"] >= 2, health
        assert "HDFS was degraded after 1 run(s)" in (tmp_path / "res2" / "report.md").read_text()
    finally:
        assert tierbench("services", "down", "hdfs", "--dir", svc, timeout=120).returncode == 0
    again = tierbench("services", "up", "hdfs", "--dir", svc, "--datanodes", "2", timeout=300)
    try:
        assert again.returncode == 0, again.stderr[-2000:]
        assert json.loads((svc / "service.json").read_text())["ports"] == state["ports"]
        assert state["uri"] in again.stdout
    finally:
        tierbench("services", "down", "hdfs", "--dir", svc, timeout=120)
    assert not (svc / "jvm-tmp").exists() and _jetty_dirs_in_tmp() <= jetty_before
