"""The ssh node agent: a small program started over ssh on each node a spec names (`[cluster] nodes`), for the
hosts no Spark executor runs on (YARN's NodeManagers, HDFS DataNodes, Ceph hosts, an NFS server).

It speaks the protocol at the top of `sampling/nodes.py`. The node needs only `python3` (3.7+): the agent's
source is procfs.py's and devices.py's text (standard library only) plus `AGENT_MAIN` below, shipped on the
ssh command line, so nothing is installed on the node and the agent always matches this tierbench. ssh uses
the user's own config and keys, as HiBench and ALOJA do.
"""

from __future__ import annotations

import base64
import json
import queue
import re
import shlex
import subprocess
import threading
import time
import zlib
from collections import deque
from pathlib import Path

from ..errors import UserError
from .nodes import encode

# The agent's first argument: it finds its own processes (not counted as "--match" processes; the test checks
# none is left behind) by this word in their command lines.
MARKER = "tierbench-ssh-agent"

# Python 3.7-compatible: no walrus, no `X | None` outside annotations, no str.removeprefix.
AGENT_MAIN = r'''
import argparse
import json
import select
import sys
import time


def _send(msg):
    msg["agent"] = "ssh"  # on every message, not only facts: NodeLog keeps a host's messages from one agent kind
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def _facts(dirs):
    out = {}
    for d in dirs:
        try:
            dev, m = device_of(d), mount_of(d)
        except OSError:  # not permitted to stat it: say so by nulls rather than end the agent
            dev, m = None, {}
        out[d] = {"device": dev, "mount_point": m.get("mount_point"), "fs_type": m.get("fs_type"),
                  "options": m.get("options")}
    mem = parse_meminfo(_text("/proc/meminfo")).get("MemTotal", 0)
    return {"cores": os.cpu_count(), "mem_bytes": mem, "kernel": os.uname().release, "dirs": out}


def _matching_io(match):
    """Summed /proc/PID/io of the processes whose command line holds `match` (the DataNode, radosgw...)."""
    if not match:
        return None
    me, rd, wr = os.getpid(), 0, 0
    for e in os.scandir("/proc"):
        if not e.name.isdigit() or int(e.name) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % e.name, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if match in cmd and MARKER not in cmd:  # our own shell's command line holds "--match <it>" too
            io = process_io(int(e.name))
            if io:
                rd, wr = rd + io[0], wr + io[1]
    return [rd, wr]


def _sample(host, match, synced=False):
    msg = {"kind": "sample", "host": host, "t": time.time(), "diskstats": _text("/proc/diskstats"),
           "stat": _text("/proc/stat").split("\n", 1)[0], "net_dev": _text("/proc/net/dev"),
           "meminfo": _text("/proc/meminfo"), "io": _matching_io(match)}
    if synced:
        msg["synced"] = True
    return msg


def _drop():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True, None
    except OSError as e:
        return False, "cannot drop the page cache (needs root): %s" % e


def _serve(a):
    _send({"kind": "facts", "host": a.host, "facts": _facts(a.dir)})
    buf, due = b"", time.time()
    while True:
        now = time.time()
        if now >= due:
            _send(_sample(a.host, a.match))
            due = max(due + a.interval, now)  # after a stall, go on from now rather than burst
        # Commands and the sampling clock in one thread: wait for stdin only until the next sample is due.
        if not select.select([0], [], [], max(0.0, due - time.time()))[0]:
            continue
        data = os.read(0, 65536)
        if not data:
            return  # EOF: tierbench went away, or the ssh connection did
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                cmd = json.loads(line)
            except ValueError:
                continue
            what = cmd.get("cmd") if isinstance(cmd, dict) else None
            if what == "stop":
                return
            if what == "drop":
                ok, err = _drop()
                _send({"kind": "dropped", "host": a.host, "token": int(cmd.get("token", 0)), "ok": ok, "error": err})
            elif what == "sync":  # the job's end as this node sees it, then what the sync flushed
                _send(_sample(a.host, a.match))
                os.sync()
                _send(_sample(a.host, a.match, synced=True))


def _agent_main(argv):
    p = argparse.ArgumentParser(prog=MARKER)
    p.add_argument("--host", required=True)
    p.add_argument("--interval", type=float, default=1.0)
    p.add_argument("--dir", action="append", default=[])
    p.add_argument("--match")
    try:
        _serve(p.parse_args(argv))
    except BrokenPipeError:
        pass  # tierbench closed our stdout: nobody to tell
    os._exit(0)  # not sys.exit: its final flush of a closed stdout would print a second BrokenPipeError


_agent_main(sys.argv[2:])  # argv: ["-c", MARKER, "--host", ...]
'''


def agent_source() -> str:
    """The agent program: procfs.py + devices.py + AGENT_MAIN, with one `from __future__` line at the top (it
    must come first, and it keeps their `X | None` annotations unevaluated on Python 3.7-3.9)."""
    here = Path(__file__).resolve().parent
    parts = ["from __future__ import annotations", f"MARKER = {MARKER!r}"]
    for name in ("procfs.py", "devices.py"):
        parts.append(re.sub(r"^from __future__ import .*$", "", (here / name).read_text(), flags=re.M))
    parts.append(AGENT_MAIN)
    return "\n".join(parts)


def remote_command(node: str, dirs: list[str], interval_s: float, match: str | None) -> str:
    """The command line ssh runs on the node. The program travels compressed in base64 inside a one-line
    bootstrap, so it has no newlines or quotes for the node's login shell to mangle (csh, fish...)."""
    code = base64.b64encode(zlib.compress(agent_source().encode(), 9)).decode()
    boot = f"import base64,zlib;exec(compile(zlib.decompress(base64.b64decode('{code}')),'{MARKER}','exec'))"
    args = [MARKER, "--host", node, "--interval", repr(float(interval_s))]
    for d in dirs:
        args += ["--dir", d]
    if match:
        args += ["--match", match]
    return "python3 -c " + " ".join(shlex.quote(a) for a in [boot, *args])


class SshAgents:
    """One ssh per node running the agent; their messages in one queue. Never hangs tierbench: a node whose ssh
    died is in dead(), commands to it are dropped, stop() kills what does not end by itself."""

    START_TIMEOUT_S = 30.0

    def __init__(self, nodes: list[str], dirs: list[str], interval_s: float = 1.0, ssh_config: str | None = None,
                 match: str | None = None):
        self.nodes, self.dirs, self.interval_s = list(nodes), list(dirs), interval_s
        self.ssh_config, self.match = ssh_config, match
        self._procs: dict[str, subprocess.Popen] = {}
        self._threads: list[threading.Thread] = []
        self._diag: dict[str, deque] = {n: deque(maxlen=50) for n in self.nodes}  # ssh's stderr, non-JSON lines
        self._queue: queue.Queue = queue.Queue()
        self._held: list[dict] = []  # taken off the queue while start() waited for facts
        self._stopping = False
        self._connected: set[str] = set()  # nodes whose agent sent its facts
        self._ended: dict[str, str] = {}  # why a node's ssh ended, once known

    def _ssh(self) -> list[str]:
        cmd = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
               # a node that vanishes (power, network) ends its ssh within ~15 s instead of leaving it waiting
               "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
               # no persistent master of our own (ControlPersist): it would outlive stop() and hold our pipes;
               # a master the user already has is still used
               "-o", "ControlMaster=no"]
        return cmd + (["-F", self.ssh_config] if self.ssh_config else [])

    def _read_out(self, node: str, stream) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").strip()
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and "kind" in msg:
                self._queue.put(msg)
            elif line:
                self._diag[node].append(line)

    def _read_err(self, node: str, stream) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").strip()
            if line:
                self._diag[node].append(line)

    def start(self) -> None:
        for node in self.nodes:
            try:
                p = subprocess.Popen([*self._ssh(), "--", node, remote_command(node, self.dirs, self.interval_s, self.match)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except OSError as e:
                self.stop()
                raise UserError(f"node {node}: cannot run ssh ({e.strerror}); install the OpenSSH client "
                                "(Debian: apt-get install openssh-client)") from None
            self._procs[node] = p
            for target, stream in ((self._read_out, p.stdout), (self._read_err, p.stderr)):
                t = threading.Thread(target=target, args=(node, stream), name=f"ssh-agent-{node}", daemon=True)
                t.start()
                self._threads.append(t)
        waiting, deadline = set(self.nodes), time.time() + self.START_TIMEOUT_S
        while waiting:
            for msg in self._drain():
                self._held.append(msg)
                if msg.get("kind") == "facts":
                    waiting.discard(msg.get("host"))
                    self._connected.add(msg.get("host"))
            for node in sorted(waiting):
                if self._procs[node].poll() is not None:
                    self._fail(node, self._reason(node))
            if waiting and time.time() > deadline:
                node = sorted(waiting)[0]
                last = self._diag[node][-1] if self._diag[node] else "nothing on its stderr"
                self._fail(node, f"no facts from the agent within {self.START_TIMEOUT_S:.0f} s ({last})")
            time.sleep(0.05)

    def _fail(self, node: str, reason: str) -> None:
        self.stop()
        cfg = ["-F", self.ssh_config] if self.ssh_config else []
        check = " ".join(shlex.quote(a) for a in ["ssh", "-o", "BatchMode=yes", *cfg, node, "python3", "-V"])
        raise UserError(f"node {node}: {reason}; check that `{check}` works from this host")

    def _reason(self, node: str) -> str:
        """Why the node's ssh ended, in one line: ssh's own last error line, or the agent's (a traceback's)."""
        if node in self._ended:
            return self._ended[node]
        p = self._procs[node]
        deadline = time.time() + 1.0
        for t in self._threads:  # let the readers take in the last lines ssh wrote
            if t.name == f"ssh-agent-{node}":
                t.join(timeout=max(0.0, deadline - time.time()))
        self._ended[node] = self._why(node, p)
        return self._ended[node]

    def _why(self, node: str, p: subprocess.Popen) -> str:
        last = self._diag[node][-1] if self._diag[node] else "no message"
        if node not in self._connected:  # never heard from the agent: ssh could not connect, resolve, log in
            return f"ssh failed: {last}" if p.returncode == 255 else f"agent exited with code {p.returncode}: {last}"
        # (ssh exits 255 for a lost connection and for an agent killed by a signal alike)
        return f"agent or connection ended (ssh exit code {p.returncode}): {last}"

    def _drain(self) -> list[dict]:
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def messages(self) -> list[dict]:
        """Every message received since the last call (non-blocking)."""
        out, self._held = self._held + self._drain(), []
        return out

    def command(self, obj: dict) -> None:
        """Send a command to every node still connected (a dead one is in dead(), not an exception here)."""
        line = (encode(obj) + "\n").encode()
        for p in self._procs.values():
            if p.poll() is None:
                try:
                    p.stdin.write(line)
                    p.stdin.flush()
                except (OSError, ValueError):
                    pass

    def dead(self) -> list[tuple[str, str]]:
        """(node, reason) for each node whose ssh ended while tierbench still wanted its samples."""
        if self._stopping:
            return []
        return [(n, self._reason(n)) for n, p in self._procs.items() if p.poll() is not None]

    def stop(self, wait_s: float = 5.0) -> None:
        """Tell every agent to stop, close their stdin (EOF stops them too), and kill ssh where that is not enough."""
        if self._stopping:
            return
        self.command({"cmd": "stop"})
        self._stopping = True
        for p in self._procs.values():
            try:
                p.stdin.close()
            except OSError:
                pass
        deadline = time.time() + wait_s
        for p in self._procs.values():
            try:
                p.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()  # the node's sshd then closes the session and the agent reads EOF
                p.wait()
        deadline = time.time() + 2.0
        for t in self._threads:  # daemon threads: one a stray process keeps reading is left, not waited for
            t.join(timeout=max(0.0, deadline - time.time()))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
