"""Per-node series from the agents' messages (sampling/nodes.py) and the per-node analysis (analysis/nodes.py), on
real /proc counters of this machine taken around a real fsync'ed write: no JVM, no ssh."""

import os
import time
from pathlib import Path

from conftest import as_run, as_runs
from tierbench.analysis import nodes as an
from tierbench.sampling.devices import device_of
from tierbench.sampling.nodes import NodeLog

MB = 1 << 20


def sample(host: str, synced: bool = False, agent: str = "ssh") -> dict:
    """A "sample" message as an agent sends it: this machine's /proc files, now."""
    read = lambda p: Path(p).read_text()
    m = {"kind": "sample", "host": host, "agent": agent, "t": time.time(), "diskstats": read("/proc/diskstats"),
         "stat": read("/proc/stat").splitlines()[0], "net_dev": read("/proc/net/dev"), "meminfo": read("/proc/meminfo"),
         "io": None}
    if synced:
        m["synced"] = True
    return m


def write_synced(path: Path, mb: int) -> None:
    with open(path, "wb") as f:
        f.write(os.urandom(mb * MB))
        f.flush()
        os.fsync(f.fileno())


def test_a_nodes_series_holds_the_write_made_between_its_samples_and_the_sync_is_the_writeback(tmp_path):
    dev = device_of(str(tmp_path))
    log = NodeLog()
    log.add({"kind": "facts", "host": "n1", "agent": "ssh", "facts": {"dirs": {str(tmp_path): {"device": dev}}}})
    log.add(sample("n1"))
    time.sleep(0.05)
    t_start = time.time()
    write_synced(tmp_path / "f", 16)
    log.add(sample("n1"))
    t_end = time.time()
    log.add(sample("n1"))  # the job's end, as the node saw it
    os.sync()
    log.add(sample("n1", synced=True))
    s = log.series("n1", [dev], 1.0, t_start, t_end)
    assert s["tags"] == ["job", "job", "writeback"]
    assert sum(s["devices"][dev]["wr_bytes"][:2]) >= 16 * MB  # the fsync'ed write is the job's, not the writeback's
    assert len(s["cpu"]["user"]) == 3 and len(s["net"]["rx_bytes"]) == 3

    log.forget_before(t_end)  # the next run's baseline is the last sample before it
    assert [m["t"] for m in log.samples["n1"]][0] < t_end


def test_a_host_belongs_to_the_first_agent_that_reported_it():
    log = NodeLog()
    log.add({"kind": "facts", "host": "h", "agent": "spark-plugin", "facts": {}})
    log.add(sample("h", agent="ssh"))
    log.add(sample("h", agent="spark-plugin"))
    assert len(log.samples["h"]) == 1 and log.agents["h"] == "spark-plugin"


def _record(tmp_path) -> dict:
    dev = device_of(str(tmp_path))
    nodes = {}
    for host, mb in (("a", 4), ("b", 24)):
        log = NodeLog()
        log.add(sample(host))
        t0 = time.time()
        write_synced(tmp_path / host, mb)
        log.add(sample(host))
        t1 = time.time()
        log.add(sample(host, synced=True))
        nodes[host] = {"agent": "ssh", "cores": 2, "mem_bytes": 8 << 30,
                       "devices": {"data": [dev], "intermediate": [], "shuffle": []},
                       "samples": log.series(host, [dev], 1.0, t0, t1)}
    stages = [{"stage_id": 0, "hosts": {"a": {"shuffle_write_bytes": 3 * MB}, "b": {"shuffle_write_bytes": 5 * MB}}}]
    return {"nodes": nodes, "details": {"phases": [], "stages": stages,
                                        "nodes_page_cache_dropped": {"a": {"ok": True, "error": None},
                                                                     "b": {"ok": False, "error": "not root"}}}}


def test_per_node_rows_the_cluster_total_and_the_slowest_node(tmp_path):
    rec = _record(tmp_path)
    rows = an.node_rows(as_run(rec))
    by = {r["node"]: r for r in rows if r["phase"] != "writeback after the job"}
    assert by["b"]["write_mb"] >= 24 and by["a"]["write_mb"] >= 4
    assert by["a"]["shuffle_write_mb"] == 3 and by["b"]["shuffle_write_mb"] == 5  # the engine's bytes per host
    total = {t["phase"]: t for t in an.cluster_total(rows)}
    first = next(iter(total.values()))
    assert first["node"] == "all 2 nodes" and first["shuffle_write_mb"] == 8
    assert abs(sum(t["write_mb"] for t in total.values()) - sum(r["write_mb"] for r in rows)) < 1e-9
    observed = an.observed_nodes(as_runs([rec]))
    assert observed["a"]["dropped"] == 1 and observed["b"]["dropped"] == 0 and observed["b"]["drop_errors"] == {"not root"}


def test_no_slowest_node_of_one():
    assert an.slowest_node([{"node": "a", "busy_s": 3.0}]) is None
    assert an.slowest_node([{"node": "a", "busy_s": 1.0}, {"node": "b", "busy_s": 2.5}]) == ("b", 2.5)


class StaggeredExecutors:
    """A fake of a fresh application's executors registering one by one (named so: a real second executor's
    delay cannot be set), with the node agents each sends its facts from: the first host at once, the second
    after `delay_s`."""

    def __init__(self, delay_s: float, expected: int | None):
        self.app, self.expected, self.t0, self.sent = object(), expected, time.time(), set()

    def hosts(self) -> list[str]:
        return ["h1"] + (["h2"] if time.time() - self.t0 >= self.delay_s else [])

    def messages(self) -> list[dict]:
        new = [h for h in self.hosts() if h not in self.sent]
        self.sent.update(new)
        return [{"kind": "facts", "host": h, "agent": "spark-plugin", "facts": {}} for h in new]

    def command(self, cmd: dict) -> None:
        pass


def test_a_fresh_applications_agents_are_awaited_until_the_clusters_every_executor_reported():
    from tierbench.sampling.nodes import ClusterObservation

    class Engine:
        node_agents = StaggeredExecutors(0.0, 2)

    Engine.node_agents.delay_s = 1.5
    obs = ClusterObservation(1.0)
    assert obs.await_agents(Engine(), timeout_s=10) == []
    assert set(obs.log.facts) == {"h1", "h2"}  # the page-cache drop that follows reaches both
    # without a count to wait for, the first executor's agent is enough (the old behaviour, for foreign clusters)
    Engine.node_agents = StaggeredExecutors(0.0, None)
    Engine.node_agents.delay_s = 1.5
    obs = ClusterObservation(1.0)
    assert obs.await_agents(Engine(), timeout_s=10) == [] and set(obs.log.facts) == {"h1"}


def test_a_run_whose_node_agent_was_lost_is_not_counted_as_observed_and_says_why(tmp_path):
    rec = _record(tmp_path)
    rec["nodes"]["b"]["lost"] = "agent or connection ended (ssh exit code 255): Connection reset"
    observed = an.observed_nodes(as_runs([rec, _record(tmp_path)]))
    assert observed["a"]["runs"] == 2 and observed["a"]["lost"] == set()
    assert observed["b"]["runs"] == 1 and observed["b"]["lost"] == {rec["nodes"]["b"]["lost"]}
