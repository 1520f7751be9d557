"""The scale model's page cache budget, enforced on the engine's processes (cgroup v1 memory controller, as root).

A target node with 167 GB of data and 10 GB of free memory reads its shuffle back from its drives; a model
with 256 MB of data on a 24 GB machine would read it from memory. So the engine's processes run in a memory
group of their own whose limit follows what they really use: every POLL_S, limit = their anonymous memory +
their mapped files (code, jars) + the budget. The page cache beyond the budget is then what the kernel
reclaims, never the JVMs' heaps or code: a fixed limit that a second JVM's heap met made a study thrash for
minutes (issue 33), a following one cannot. HEADROOM is what a JVM may allocate between two polls.

The group is tierbench's own (`tierbench-<study>-<pid>`), made for the study and removed after it; only the
processes the engines start are moved into it. Each run records the budget and the page cache the group held
at most (`memory_budget` in runs.jsonl): the budget measured to hold, or not.
"""

import os
import threading
from pathlib import Path

from ..errors import UserError

MEMORY = Path("/sys/fs/cgroup/memory")
POLL_S = 0.05
HEADROOM = 32 << 20  # bytes a JVM may allocate between two polls before its page cache is squeezed harder


def can_budget() -> str | None:
    """None when this machine can enforce a budget, else why not."""
    if os.geteuid() != 0:
        return "a page cache budget needs root (a memory cgroup)"
    if not (MEMORY / "memory.limit_in_bytes").exists():
        return f"a page cache budget needs the cgroup-v1 memory controller ({MEMORY}), which this machine does not have"
    return None


def _stat(group: Path) -> dict[str, int]:
    out = {}
    for line in (group / "memory.stat").read_text().splitlines():
        k, _, v = line.partition(" ")
        out[k] = int(v)
    return out


class MemoryBudget:
    """A memory group whose page cache stays within `budget_bytes`; use as a context manager."""

    def __init__(self, study: str, budget_bytes: int):
        self.budget = budget_bytes
        self.group = MEMORY / f"tierbench-{study}-{os.getpid()}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._peak_cache = 0
        self._members: set[int] = set()

    def __enter__(self) -> "MemoryBudget":
        why = can_budget()
        if why:
            raise UserError(why)
        self.group.mkdir(exist_ok=False)  # a name of ours alone: refuse to adopt a group that exists
        # a process that meets the limit between two polls waits for the next one to raise it: never an OOM kill
        (self.group / "memory.oom_control").write_text("1\n")
        self._thread = threading.Thread(target=self._follow, name="tierbench-memory-budget", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        self._release()

    def join(self, pid: int) -> None:
        """Move a process the engine started into the group (its threads follow; its children are born in it)."""
        try:
            (self.group / "cgroup.procs").write_text(f"{pid}\n")
            self._members.add(pid)
        except OSError:  # it ended already: nothing to confine
            pass

    def start_run(self) -> None:
        with self._lock:
            self._peak_cache = 0

    def end_run(self) -> dict:
        with self._lock:
            return {"page_cache_budget_bytes": self.budget, "page_cache_peak_bytes": self._peak_cache}

    def _follow(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                st = _stat(self.group)
                # the page cache the budget bounds: cached file pages that no process maps (the shuffle, the data)
                cache = max(0, st["total_cache"] - st["total_mapped_file"])
                with self._lock:
                    self._peak_cache = max(self._peak_cache, cache)
                limit = st["total_rss"] + st["total_mapped_file"] + self.budget + HEADROOM
                (self.group / "memory.limit_in_bytes").write_text(f"{limit}\n")
            except OSError:
                continue  # EBUSY: the kernel could not reclaim down to it at once; the next poll tries again

    def _release(self) -> None:
        """Processes still in the group back to the root group (their memory goes with them), then the group gone."""
        try:
            for pid in (self.group / "cgroup.procs").read_text().split():
                try:
                    (MEMORY / "cgroup.procs").write_text(f"{pid}\n")
                except OSError:
                    pass
            (self.group / "memory.force_empty").write_text("0\n")
            self.group.rmdir()
        except OSError:
            pass
