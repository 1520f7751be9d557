"""Nodes observed by agents: every host of a cluster sampled as tierbench samples its own machine.

On a cluster the launcher host is not where the IO happens. An *agent* runs on each node -- inside a Spark
executor (the `tierbench.agent.NodeAgentPlugin` Spark plugin, one per host however many executors share it)
or as a small program started over ssh (`sampling/ssh_agent.py`, for YARN's hosts and storage servers) --
and ships raw counter snapshots; tierbench turns them into the same compact columns as its own sampler
(`sampler.Series`), so per-node IO profiles, CPU and network are analysed by the same code.

The agents' protocol: JSON objects, one per message, each with "kind" and "host" (the node's name as the
agent sees it: its hostname, or its bind address when several "nodes" share one machine), and "agent" on
"facts" (on every message, optionally: a host is observed by the first agent that reported it):

  {"kind": "facts", "host": H, "agent": "spark-plugin" | "ssh", "facts": {
       "cores": int, "mem_bytes": int, "kernel": str,
       "dirs": {path: {"device": diskstats name | null, "mount_point": str, "fs_type": str, "options": str}},
       "block_manager_dirs": [path, ...]          (spark-plugin: where the executor's shuffle really goes)}}
  {"kind": "sample", "host": H, "t": epoch seconds (float),
       "diskstats": text of /proc/diskstats, "stat": first line of /proc/stat, "net_dev": text of /proc/net/dev,
       "meminfo": text of /proc/meminfo, "io": [read_bytes, write_bytes] of the executor/engine processes | null,
       "synced": true  (only on the sample taken right after a "sync" command: the job's writeback is in it)}
  {"kind": "dropped", "host": H, "token": int, "ok": bool, "error": str | null}

Commands to agents (tierbench -> agent), JSON objects:
  {"cmd": "drop", "token": int}   sync, then drop the page cache (root); answer with "dropped"
  {"cmd": "sync"}                 send a sample at once (the job's end), sync, then another, marked "synced"
                                  (the interval between them is the run's "writeback after the job")
  {"cmd": "stop"}                 end the agent
"""

import json
import time
from typing import Protocol

from . import procfs
from .sampler import Series


def snapshot(msg: dict, devices) -> tuple:
    """A "sample" message as the snapshot a Series takes."""
    io = msg.get("io") or (0, 0)
    return (msg["t"], procfs.parse_diskstats(msg["diskstats"], set(devices)), procfs.parse_cpu(msg["stat"]),
            procfs.parse_net(msg["net_dev"]), (int(io[0]), int(io[1])))


class NodeLog:
    """Every message the agents sent, by host, in arrival order; a run's per-node series are cut out of it."""

    def __init__(self):
        self.facts: dict[str, dict] = {}
        self.agents: dict[str, str] = {}
        self.samples: dict[str, list[dict]] = {}
        self.dropped: dict[int, dict[str, dict]] = {}

    def add(self, msg: dict) -> None:
        host, kind, agent = msg.get("host"), msg.get("kind"), msg.get("agent")
        if not host:
            return
        if agent and self.agents.get(host, agent) != agent:
            return  # a host two agents observe (an executor host also named in [cluster] nodes): the first one's
        if kind == "facts":
            self.facts[host] = msg.get("facts", {})
            self.agents[host] = agent or "?"
        elif kind == "sample":
            self.samples.setdefault(host, []).append(msg)
        elif kind == "dropped":
            self.dropped.setdefault(int(msg.get("token", -1)), {})[host] = msg

    def add_all(self, msgs) -> None:
        for m in msgs:
            self.add(m)

    def hosts(self) -> list[str]:
        return sorted(set(self.facts) | set(self.samples))

    def forget_host(self, host: str) -> None:
        for table in (self.facts, self.agents, self.samples):
            table.pop(host, None)

    def busy_devices(self, host: str, t_start: float) -> list[str]:
        """Devices whose counters moved on the host since t_start: what to show of a node whose dirs tierbench
        does not know (a storage server observed over ssh)."""
        msgs = [m for m in self.samples.get(host, [])]
        first = next((m for m in reversed(msgs) if m["t"] <= t_start), msgs[0] if msgs else None)
        if first is None:
            return []
        a, b = procfs.parse_diskstats(first["diskstats"]), procfs.parse_diskstats(msgs[-1]["diskstats"])
        return sorted(d for d in b if d in a and (b[d][2] != a[d][2] or b[d][6] != a[d][6]))

    def forget_before(self, t: float) -> None:
        """Drop samples older than t, but keep each host's last one before it (the next run's baseline)."""
        for host, msgs in self.samples.items():
            keep = [m for m in msgs if m["t"] >= t]
            older = [m for m in msgs if m["t"] < t]
            self.samples[host] = older[-1:] + keep

    def series(self, host: str, devices, interval_s: float, t_start: float, t_end: float) -> dict | None:
        """The host's samples from its last one at or before t_start to its "synced" one after t_end: the interval
        that ends at the synced sample is the writeback (what the node's sync flushed), every other one the job's.
        None when the host sent fewer than two samples in that span."""
        msgs = sorted(self.samples.get(host, []), key=lambda m: m["t"])
        base = [m for m in msgs if m["t"] <= t_start]
        span = [m for m in msgs if t_start < m["t"]]
        synced = next((i for i, m in enumerate(span) if m.get("synced") and m["t"] >= t_end), None)
        if synced is not None:
            span = span[: synced + 1]
        chosen = base[-1:] + span
        if len(chosen) < 2:
            return None
        s = Series(devices, interval_s)
        prev = snapshot(chosen[0], devices)
        for m in chosen[1:]:
            cur = snapshot(m, devices)
            s.add(prev, cur, "writeback" if m.get("synced") else "job")
            prev = cur
        return s.to_dict()


def wait_for(poll, done, timeout_s: float, interval_s: float = 0.2) -> bool:
    """Poll (a function that takes new messages in) until done() or the timeout; True when done."""
    deadline = time.time() + timeout_s
    while True:
        poll()
        if done():
            return True
        if time.time() > deadline:
            return False
        time.sleep(interval_s)


def encode(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"))


NO_EXECUTORS_WAIT_S = 15  # how long a fresh application may take to register its first executor


class NodeAgents(Protocol):
    """An engine's agents on its executors' nodes (engines/spark.py's SparkNodeAgents): what an engine's
    `node_agents` hook gives (engines/base.py), None where it has none."""

    app: object  # the application they run in: a fresh one's agents replace the last one's
    expected: int | None  # executor hosts to wait for, when the engine knows how many there are

    def messages(self) -> list[dict]: ...

    def command(self, cmd: dict) -> None: ...

    def hosts(self) -> list[str]: ...


def agents_of(engine) -> NodeAgents | None:
    """The engine's node agents; none without an engine (a study's ssh nodes observed on their own)."""
    return engine.node_agents if engine is not None else None


class ClusterObservation:
    """A study's nodes: the agents in the Spark executors (one set per application) and those started over
    ssh for the hosts the spec names (one set per study). The run lifecycle asks it to wait for the agents,
    drop every node's page cache, and cut each node's series out of what the agents sent."""

    def __init__(self, interval_s: float, cluster: dict | None = None, dirs=()):
        self.interval_s = interval_s
        self.cluster = cluster or {}  # the spec's [cluster]: nodes observed over ssh
        self.dirs = list(dirs)  # the study's local dirs: each ssh node says which device holds them there
        self.ssh = None  # an ssh_agent.SshAgents, started on first use
        self.log = NodeLog()
        self._token = 0
        self._app = None
        self.t_start = 0.0

    def start_ssh(self) -> None:
        """An agent on each of the spec's [cluster] nodes, over ssh (a UserError naming the node that fails)."""
        if self.cluster.get("nodes") and self.ssh is None:
            from .ssh_agent import SshAgents

            ssh = SshAgents(self.cluster["nodes"], self.dirs, self.interval_s, self.cluster.get("ssh_config"),
                            self.cluster.get("processes"))
            ssh.start()
            self.ssh = ssh

    def observers(self, engine) -> list:
        self.start_ssh()
        return [o for o in (agents_of(engine), self.ssh) if o is not None]

    def poll(self, observers) -> None:
        for o in observers:
            kind = "ssh" if o is self.ssh else "spark-plugin"
            for m in o.messages():
                m.setdefault("agent", kind)
                self.log.add(m)

    def await_agents(self, engine, timeout_s: float = 60) -> list[str]:
        """Every executor host's agent has reported (a new application's agents replace the last one's);
        returns the executor hosts that did not report in time."""
        agents = agents_of(engine)
        if agents is None:
            return []
        if agents.app is not self._app:  # a fresh application: its executors' facts (block manager dirs) are new
            for h in [h for h, a in self.log.agents.items() if a == "spark-plugin"]:
                self.log.forget_host(h)
            self._app = agents.app
        expected: set[str] = set()
        t0 = time.time()

        def all_reported() -> bool:
            nonlocal expected
            expected = set(agents.hosts())
            want = agents.expected
            if want and len(expected) < want and time.time() - t0 < NO_EXECUTORS_WAIT_S:
                return False  # a fresh application's executors register one by one: the cluster has `want` hosts
            if not expected:  # no executor yet (or dynamic allocation released them): not worth a minute per run
                return time.time() - t0 > NO_EXECUTORS_WAIT_S
            return expected <= set(self.log.facts)

        wait_for(lambda: self.poll([agents]), all_reported, timeout_s, 0.5)
        return sorted(expected - set(self.log.facts))

    def drop_caches(self, engine, timeout_s: float = 120) -> dict[str, dict]:
        """Each observed node syncs and drops its page cache; {host: {"ok", "error"}}."""
        observers = self.observers(engine)
        if not observers:
            return {}
        self._token += 1
        token = self._token
        for o in observers:
            o.command({"cmd": "drop", "token": token})
        hosts = set(self.log.facts)
        wait_for(lambda: self.poll(observers), lambda: hosts - set(self.lost()) <= set(self.log.dropped.get(token, {})),
                 timeout_s)
        answers, lost = self.log.dropped.get(token, {}), self.lost()

        def answer(h: str) -> dict:
            if h in answers:
                return {"ok": bool(answers[h].get("ok")), "error": answers[h].get("error")}
            return {"ok": False, "error": f"its agent is gone: {lost[h]}" if h in lost else f"no answer in {timeout_s:g} s"}
        return {h: answer(h) for h in sorted(hosts)}

    def lost(self) -> dict[str, str]:
        """{node: why} for the ssh nodes whose agent ended while the study still wanted it: not waited for (each
        wait would otherwise run out its whole timeout, every run)."""
        return dict(self.ssh.dead()) if self.ssh is not None else {}

    def start(self, engine) -> None:
        self.poll(self.observers(engine))
        self.t_start = time.time()
        self.log.forget_before(self.t_start - 3 * self.interval_s)

    def stop(self, engine, dirs_by_role: dict[str, list[str]], timeout_s: float = 60) -> dict:
        """Each node's facts and series for the run (the writeback after a sync on every node its own
        interval), keyed by host."""
        observers = self.observers(engine)
        if not observers:
            return {}
        t_end = time.time()
        for o in observers:
            o.command({"cmd": "sync"})
        hosts = set(self.log.facts)

        def synced(h: str) -> bool:
            return any(m.get("synced") and m["t"] >= t_end for m in self.log.samples.get(h, []))

        wait_for(lambda: self.poll(observers), lambda: all(synced(h) for h in hosts - set(self.lost())), timeout_s)
        lost = self.lost()
        nodes = {}
        for h in sorted(hosts):
            facts = self.log.facts[h]
            where = facts.get("dirs", {})
            device = lambda d: (where.get(str(d)) or {}).get("device")
            roles = {role: sorted({device(d) for d in dirs} - {None}) for role, dirs in dirs_by_role.items()}
            shuffle_dirs = facts.get("block_manager_dirs", [])
            roles["shuffle"] = sorted({device(d) for d in shuffle_dirs} - {None})
            devices = sorted(set().union(*roles.values())) or self.log.busy_devices(h, self.t_start)
            nodes[h] = {"agent": self.log.agents.get(h), "cores": facts.get("cores"), "mem_bytes": facts.get("mem_bytes"),
                        "kernel": facts.get("kernel"), "devices": roles, "shuffle_dirs": shuffle_dirs,
                        "mounts": dict(where),
                        "samples": self.log.series(h, devices, self.interval_s, self.t_start, t_end)}
            if h in lost:  # its series ends where its agent did
                nodes[h]["lost"] = lost[h]
        self.log.forget_before(t_end)
        return nodes

    def close(self) -> None:
        if self.ssh is not None:
            self.ssh.stop()
