"""The ssh node agent against Debian's real sshd on 127.0.0.1: two "nodes" (ssh aliases of this machine) send
facts and samples, answer drop and sync, a fsync'd write shows up in their series, a node that cannot be
reached fails start() in one line, and stop() leaves nothing running."""

import ast
import json
import os
import time

import pytest

from conftest import one_error_line, write_spec
from tierbench.errors import UserError
from tierbench.sampling.devices import device_of
from tierbench.sampling.nodes import NodeLog, wait_for
from tierbench.sampling.ssh_agent import MARKER, SshAgents, agent_source

pytestmark = pytest.mark.e2e

NODES = ["node-a", "node-b"]
MB = 1 << 20


def _agent_processes() -> list[tuple[int, str]]:
    """ssh clients and agents of ours still running (a scan of /proc, no psutil)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if MARKER in cmd and int(pid) != os.getpid():
            found.append((int(pid), cmd))
    return found


def _no_agents_left(timeout_s: float = 5.0) -> list[tuple[int, str]]:
    deadline = time.time() + timeout_s
    while _agent_processes() and time.time() < deadline:
        time.sleep(0.1)
    return _agent_processes()


@pytest.fixture
def agents(ssh_config, tmp_path):
    a = SshAgents(NODES, [str(tmp_path)], interval_s=0.5, ssh_config=ssh_config, match="pytest")
    a.start()
    log = NodeLog()
    yield a, log
    a.stop()


def test_the_agent_source_is_python_3_7():
    ast.parse(agent_source(), feature_version=(3, 7))


def test_both_nodes_send_their_facts_and_samples(agents, tmp_path):
    a, log = agents
    log.add_all(a.messages())
    assert sorted(log.facts) == NODES and set(log.agents.values()) == {"ssh"}
    for node in NODES:
        f = log.facts[node]
        assert f["cores"] == os.cpu_count() and f["mem_bytes"] > 0 and f["kernel"] == os.uname().release
        d = f["dirs"][str(tmp_path)]
        assert d["device"] == device_of(str(tmp_path)) and d["mount_point"] and d["fs_type"] and d["options"]
    time.sleep(2.6)
    log.add_all(a.messages())
    for node in NODES:
        ts = [m["t"] for m in log.samples[node]]
        assert 5 <= len(ts) <= 8, ts  # every 0.5 s for ~2.6 s, plus the one at start
        gaps = [y - x for x, y in zip(ts, ts[1:])]
        assert 0.4 < sum(gaps) / len(gaps) < 0.65 and max(gaps) < 1.5, gaps  # (a loaded machine may delay one)
        assert isinstance(log.samples[node][-1]["io"], list)  # --match pytest: this test's own process
    assert a.dead() == []


def test_drop_sync_and_a_write_in_the_series(agents, tmp_path):
    a, log = agents
    dev = device_of(str(tmp_path))
    assert dev, "the test's tmp dir is on no block device"
    a.command({"cmd": "drop", "token": 41})
    assert wait_for(lambda: log.add_all(a.messages()), lambda: len(log.dropped.get(41, {})) == 2, 20)
    assert all(m["ok"] and m["error"] is None for m in log.dropped[41].values()), log.dropped[41]

    time.sleep(0.6)  # a sample before t_start on each node
    t_start = time.time()
    size = 32 << 20
    with open(tmp_path / "blob", "wb") as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())
    t_end = time.time()
    a.command({"cmd": "sync"})
    synced = lambda: all(any(m.get("synced") and m["t"] >= t_end for m in log.samples.get(n, [])) for n in NODES)
    assert wait_for(lambda: log.add_all(a.messages()), synced, 10)
    for node in NODES:
        s = log.series(node, [dev], 0.5, t_start, t_end)
        assert s is not None, node
        assert sum(s["devices"][dev]["wr_bytes"]) >= 0.9 * size, (node, s["devices"][dev]["wr_bytes"])


def test_an_unreachable_node_fails_start_in_one_line(ssh_config, tmp_path):
    t0 = time.time()
    with pytest.raises(UserError) as e:
        SshAgents(["node-a", "node-closed"], [str(tmp_path)], ssh_config=ssh_config).start()
    msg = str(e.value)
    assert time.time() - t0 < 15
    assert "\n" not in msg and msg.startswith("node node-closed: ssh failed: ") and "Connection refused" in msg, msg
    assert _no_agents_left() == []  # node-a's agent was stopped too

    with pytest.raises(UserError, match=r"^node no-such-node\.invalid: ssh failed: .*resolve hostname"):
        SshAgents(["no-such-node.invalid"], [str(tmp_path)], ssh_config=ssh_config).start()
    assert time.time() - t0 < 30


def test_a_node_whose_agent_dies_is_reported_not_waited_for(agents):
    a, log = agents
    victim = next(pid for pid, cmd in _agent_processes() if "--host node-b" in cmd and not cmd.startswith("ssh "))
    os.kill(victim, 9)
    t0 = time.time()
    assert wait_for(lambda: None, lambda: a.dead(), 10)
    assert time.time() - t0 < 3
    (node, reason), = a.dead()
    assert node == "node-b" and reason.startswith("agent or connection ended"), reason
    a.command({"cmd": "sync"})  # to the living one only; no exception for the dead
    assert wait_for(lambda: log.add_all(a.messages()), lambda: any(m.get("synced") for m in log.samples.get("node-a", [])), 5)


def test_a_study_does_not_wait_out_its_timeouts_for_a_node_whose_agent_died(ssh_config, tmp_path):
    """What the run lifecycle asks of its nodes, with node-b's agent killed: the page cache drop and the run's end
    answer at once for node-a and say why node-b is missing, instead of waiting the whole 120 s and 60 s."""
    from tierbench.sampling.nodes import ClusterObservation

    obs = ClusterObservation(0.5, {"nodes": NODES, "ssh_config": ssh_config, "processes": "pytest"}, [str(tmp_path)])
    try:
        obs.start(None)
        assert obs.drop_caches(None, timeout_s=20) == {n: {"ok": True, "error": None} for n in NODES}
        victim = next(pid for pid, cmd in _agent_processes() if "--host node-b" in cmd and not cmd.startswith("ssh "))
        os.kill(victim, 9)
        assert wait_for(lambda: None, lambda: obs.lost(), 10)
        t0 = time.time()
        dropped = obs.drop_caches(None, timeout_s=60)
        obs.start(None)
        time.sleep(1.2)  # a run of a few samples
        nodes = obs.stop(None, {"data": [str(tmp_path)]}, timeout_s=60)
        assert time.time() - t0 < 10
        assert dropped["node-a"]["ok"] and not dropped["node-b"]["ok"]
        assert dropped["node-b"]["error"].startswith("its agent is gone: agent or connection ended"), dropped
        assert "lost" not in nodes["node-a"] and nodes["node-b"]["lost"].startswith("agent or connection ended")
        assert nodes["node-a"]["samples"] is not None
    finally:
        obs.close()
    assert _no_agents_left() == []


def test_stop_leaves_no_ssh_or_agent_behind(ssh_config, tmp_path):
    a = SshAgents(NODES, [str(tmp_path)], interval_s=0.5, ssh_config=ssh_config)
    a.start()
    assert len(_agent_processes()) >= 4  # an ssh and an agent per node
    t0 = time.time()
    a.stop()
    assert time.time() - t0 < 6
    assert _no_agents_left() == []


def test_a_study_observes_its_cluster_nodes_over_ssh(ssh_config, tmp_path, tb):
    """[cluster] nodes in a spec: each run records both nodes' facts and series, both dropped their page cache, the
    report lists them; a node that cannot be reached stops the study before its first run, in one line."""
    spec = write_spec(tmp_path / "s.toml", f"""
name = "ssh-nodes"
repeats = 1
[engine]
master = "local[1]"
driver_memory = "1g"
[cluster]
nodes = ["node-a", "node-b"]
ssh_config = "{ssh_config}"
[storage.one]
data = ["{tmp_path}/data"]
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "8MiB"
""")
    out = tb("run", spec, "--out", tmp_path / "res", timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    rec = json.loads((tmp_path / "res" / "runs.jsonl").read_text().splitlines()[0])
    assert rec["status"] == "ok" and set(rec["nodes"]) == {"node-a", "node-b"}
    dev = device_of(str(tmp_path))
    for host, node in rec["nodes"].items():
        assert node["agent"] == "ssh" and node["devices"]["data"] == [dev]
        written = sum(node["samples"]["devices"][dev]["wr_bytes"])
        assert written >= 16 * MB * 0.9, (host, written)  # this machine is both nodes: each sees the 16 MB written
    assert all(d["ok"] for d in rec["details"]["nodes_page_cache_dropped"].values())
    report = (tmp_path / "res" / "report.md").read_text()
    assert "2 node(s) observed" in report and "| node-a | ssh |" in report and "| node-b | ssh |" in report
    assert not _no_agents_left()

    bad = write_spec(tmp_path / "bad.toml", spec.read_text().replace('"node-b"', '"node-closed"').replace("ssh-nodes", "ssh-bad"))
    out = tb("run", bad, "--out", tmp_path / "res-bad", timeout=120)
    assert out.returncode != 0
    one_error_line(out, "node-closed")
    assert not (tmp_path / "res-bad" / "runs.jsonl").exists() or not (tmp_path / "res-bad" / "runs.jsonl").read_text()
