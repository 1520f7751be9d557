"""The scale model's page cache budget, enforced on the engine's processes (cgroup v1 memory controller, as root).

A target node with 167 GB of data and 10 GB of free memory reads its shuffle back from its drives; a model
with 256 MB of data on a 24 GB machine would read it from memory. So the engine's processes run in a memory
group of their own, and every POLL_S the page cache they hold beyond the budget is reclaimed: the group's limit
is lowered for a moment to what it uses less that excess (the kernel takes page cache first: without swap a heap
cannot go), then raised again well above what it uses. A limit is never what a JVM's heap meets: a fixed limit
that a second JVM's heap met made a study thrash for minutes (issue 33), and so did a limit that followed the
JVMs' memory with a few MB of room (a JVM reclaiming its own new pages).

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
# room above what the group uses, for the engine's processes to allocate in between two polls: the limit is not
# what bounds the page cache (a limit that a heap meets makes the JVM reclaim its own pages, for minutes: measured
# with 4 MB of room), the squeeze is
HEADROOM = 512 << 20


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
        self._samples: list[int] = []  # the page cache the group held, every poll of the current run
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
            self._samples = []

    def end_run(self) -> dict:
        """The budget and the page cache held over the run's polls: its median and its most (a JVM reading its jars
        as it starts fills the cache faster than a poll takes it back: a moment, not what the run held)."""
        with self._lock:
            got = sorted(self._samples) or [0]
        return {"page_cache_budget_bytes": self.budget, "page_cache_peak_bytes": got[-1],
                "page_cache_median_bytes": got[(len(got) - 1) // 2], "polls": len(self._samples)}

    def _follow(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self._squeeze()
            except OSError:
                continue  # the group is going away, or the kernel is busy: the next poll tries again

    def _squeeze(self) -> None:
        """The page cache above the budget reclaimed at once: the limit lowered to what the group uses less that
        excess (the kernel reclaims down to it, page cache first: there is no swap for a heap), then raised again
        by HEADROOM. Between two polls the cache grows by what the jobs read and write in POLL_S."""
        st = _stat(self.group)
        # the page cache the budget bounds: clean file pages that no process maps, what a job could read back from
        # memory (the shuffle, the data); dirty pages are writes on their way to the drive (durable: synced per 8 MB)
        cache = max(0, st["total_cache"] - st["total_mapped_file"] - st["total_dirty"] - st["total_writeback"])
        with self._lock:
            self._samples.append(cache)
        limit_file = self.group / "memory.limit_in_bytes"
        if cache > self.budget:
            usage = int((self.group / "memory.usage_in_bytes").read_text())
            try:
                limit_file.write_text(f"{max(usage - (cache - self.budget), 1 << 20)}\n")
            except OSError:
                pass  # EBUSY: dirty pages still on their way to the drive; taken at a later poll
        usage = int((self.group / "memory.usage_in_bytes").read_text())
        limit_file.write_text(f"{usage + HEADROOM}\n")

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
