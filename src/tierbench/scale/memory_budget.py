"""The scale model's page cache budget, enforced on the engine's processes (a memory cgroup, v1 or v2, as root).

A target node with 167 GB of data and 10 GB of free memory reads its shuffle back from its drives; a model
with 256 MB of data on a 24 GB machine would read it from memory. So the engine's processes run in a memory
group of their own whose limit follows what they really use: every POLL_S, limit = their anonymous memory +
their mapped files (code, jars) + their writes on the way to the drive (dirty, under writeback) + the budget + HEADROOM. The page cache beyond that is what the kernel reclaims
(without swap a heap cannot go): a fixed limit that a second JVM's heap met made a study thrash for minutes
(issue 33), a following one cannot.

The group is tierbench's own (`tierbench-<study>-<pid>`), made for the study and removed after it, checked (groups
made inside it go first; one warning line if it still stands), or, when a SIGKILL gave it no chance, by the next
study (`remove_stale_groups`: empty groups of dead pids only); only the
processes the engines start are moved into it (and back where they were after it: a standalone cluster's
Workers the study restarted outlive it). Each run records the budget and the page cache the group held at most
(`memory_budget` in runs.jsonl), and what of the engine's processes it did not hold (`not_covering`: executors of
a cluster the study did not start): the budget measured to hold, or not.

The hierarchy's own files are storage/cgroups.py's: v1 memory.limit_in_bytes with the OOM killer off, v2 memory.high
(reclaim and wait above it, never an OOM kill) on a group inside tierbench's, so that the engine's processes also meet
the emulated devices' io.max there.
"""

import os
import sys
import threading
import time
from pathlib import Path

from ..errors import UserError
from ..following import Following
from ..storage import cgroups
from .constants import value

MEMORY = cgroups.ROOT / "memory"  # (v1's; the hierarchy in use is cgroups.current())
POLL_S = value("memory_budget.POLL_S")
RELEASE_TRIES = 10  # removing the group at the study's end, 0.1 s apart
# what a JVM may allocate between two polls before its page cache is taken back: the limit follows the
# processes' own memory with this much room, so the page cache may hold the budget plus it. Measured: with 4 MB
# of room a starting JVM reclaimed its own new pages for minutes; lowering the limit each poll to squeeze the cache
# to the budget alone evicted the read-ahead windows of every stream before they were read (an all-HDD TeraSort of
# 128 MB took 137 s, of 256 MB with this room 78-95 s): the room is also the read-ahead's
HEADROOM = value("memory_budget.HEADROOM")
# what a JVM's heap may grow by between two polls beyond that room, once the page cache it displaced is gone: above
# the limit a page fault waits for the next poll, but a read() fails (ENOMEM: cgroup v1 fails a charge outside a
# page fault), and a JVM loading a class then reports it missing: a TeraValidate of the budget's e2e study, its map
# tasks allocating their sort buffers (17 MB each) at once, failed twice in a row so (CI, 2026-11-27,
# "ClassNotFoundException: org.apache.hadoop.io.LongWritable"). So the limit leaves this much more between polls,
# and a poll that finds the page cache beyond the budget and HEADROOM first lowers the limit to take it back (the
# kernel reclaims it then, as it would have at the charge) before leaving the room again
ANON_ROOM = value("memory_budget.ANON_ROOM")


def can_budget() -> str | None:
    """None when this machine can enforce a budget, else why not."""
    if os.geteuid() != 0:
        return "a page cache budget needs root (a memory cgroup)"
    why = cgroups.current().why_no_memory()
    return f"a page cache budget {why}" if why else None


def _stat(group: Path) -> dict[str, int]:
    return cgroups.current().memory_stat(group)


def clean_cache(st: dict[str, int]) -> int:
    """The page cache the budget bounds: clean file pages that no process maps, what a job could read back from
    memory (the shuffle, the data); dirty pages and pages under writeback are writes on their way to the drive."""
    return max(0, st["total_cache"] - st["total_mapped_file"] - st["total_dirty"] - st["total_writeback"])


def limit_for(st: dict[str, int], budget: int) -> int:
    """The group's limit: its anonymous and mapped memory, its writes on their way to the drive, the budget and the
    room. Writes are outside the budget as on the target, where a full node's writeback keeps its drives busy with
    large requests; counted in it (until 2026-11-27), a TeraGen's writers met the limit, the kernel's reclaim wrote
    their pages back in requests of about 220 KiB where 450 KiB went out without it, the emulated HDD's IOPS limit
    held it below its MB/s and it idled between reclaims: an all-HDD TeraGen of the quickstart's (core_speed 0.33) took 8.0-9.4 s of
    work instead of 6.0-6.5 s (the drive's MB/s alone), and its TeraSort 14.9-16.4 s instead of 11.6-13.3 s. A
    write synced turns clean and falls under the budget at the next poll: TeraSort still reads its input and its
    shuffle from the drive (608-678 MiB read for 128 MiB of input)."""
    return st["total_rss"] + st["total_mapped_file"] + st["total_dirty"] + st["total_writeback"] + budget + HEADROOM


class MemoryBudget(Following):
    """A memory group whose page cache stays within `budget_bytes`; use as a context manager."""
    THREAD = "tierbench-memory-budget"

    def __init__(self, study: str, budget_bytes: int):
        super().__init__()
        self.budget = budget_bytes
        self.name = f"tierbench-{study}-{os.getpid()}"
        self.group = cgroups.current().memory_parent() / self.name
        self._lock = threading.Lock()
        # every poll of the current run: the page cache the group held when it came, and what it left the group
        self._found: list[int] = []
        self._left: list[int] = []
        self._not_covering: list[str] = []  # what of the current run's processes the group does not hold
        self._origins: dict[int, str] = {}  # pid -> the memory group it was in before it joined

    def __enter__(self) -> "MemoryBudget":
        why = can_budget()
        if why:
            raise UserError(why)
        remove_stale_groups(cgroups.current().memory_parent())
        self.group = cgroups.current().make_memory_group(self.name)  # a process over the limit waits: never OOM-killed
        self._start_following()
        return self

    def __exit__(self, *exc) -> None:
        self._stop_following()
        self._release()

    def join(self, pid: int) -> None:
        """Move a process the engine started into the group (its threads follow; its children are born in it)."""
        origin = _memory_group_of(pid)
        try:
            (self.group / "cgroup.procs").write_text(f"{pid}\n")
        except OSError:  # it ended already: nothing to confine
            return
        if origin is not None and pid not in self._origins:
            self._origins[pid] = origin

    def not_covering(self, what: str) -> None:
        """Told by the engine during a run: what of the run's processes the group does not hold, and why."""
        with self._lock:
            if what not in self._not_covering:
                self._not_covering.append(what)

    def start_run(self) -> None:
        with self._lock:
            self._found, self._left, self._not_covering = [], [], []

    def end_run(self) -> dict:
        """The budget and the page cache held over the run's polls: the median of what each poll left the group (the
        cache the run could read from) and the most a poll found (what reads and synced writes had added since the
        poll before: with the limit's ANON_ROOM, up to 256 MB for a moment; a JVM reading its jars as it starts)."""
        with self._lock:
            left, gaps = sorted(self._left) or [0], list(self._not_covering)
            peak, polls = max(self._found, default=0), len(self._found)
        held = {"page_cache_budget_bytes": self.budget, "page_cache_peak_bytes": peak,
                "page_cache_median_bytes": left[(len(left) - 1) // 2], "polls": polls}
        return held | ({"not_covering": gaps} if gaps else {})

    def _follow(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                self._set_limit()
            except OSError:
                continue  # the group is going away, or the kernel is busy: the next poll tries again

    def _set_limit(self) -> None:
        """The limit set to what the processes hold that is not page cache to bound, + the budget + HEADROOM: the
        kernel reclaims clean page cache beyond it, never a heap; then ANON_ROOM more, for a heap that grows before
        the next poll (the page cache that fills it meanwhile is taken back at that poll)."""
        st = _stat(self.group)
        found = left = clean_cache(st)
        limit = limit_for(st, self.budget)
        if found > self.budget + HEADROOM:
            try:
                _write_limit(self.group, limit)  # the kernel reclaims down to it before the write returns
            except OSError:
                pass  # EBUSY: a heap grew meanwhile and the cache could not all go; the next poll tries again
            left = clean_cache(_stat(self.group))
        _write_limit(self.group, limit + ANON_ROOM)
        with self._lock:
            self._found.append(found)
            self._left.append(left)

    def _release(self) -> None:
        """The group gone, checked: the processes still in it, or in a group made inside it (an engine's own
        container executor may make them), back to the group each came from (the root group for those born in it,
        or when theirs is gone; their memory goes with them), the groups removed deepest first, a few times over
        (a process may fork meanwhile); one warning line when it still stands."""
        for _ in range(RELEASE_TRIES):
            inside = sorted((Path(d) for d, _, _ in os.walk(self.group)), key=lambda g: len(g.parts), reverse=True)
            for group in inside:
                self._move_out(group)
                for step in (lambda: cgroups.current().empty_memory(group), group.rmdir):
                    try:
                        step()
                    except OSError:
                        continue  # (EBUSY: a process, or a group inside it, is still there: the next try)
            if not self.group.exists():
                return
            time.sleep(0.1)
        print(f"tierbench: warning: the page cache budget's memory group {self.group} could not be removed (it still "
              "holds a process or a group); remove it yourself with rmdir once they are gone", file=sys.stderr, flush=True)

    def _move_out(self, group: Path) -> None:
        try:
            pids = list(map(int, (group / "cgroup.procs").read_text().split()))
        except OSError:
            return
        for pid in pids:
            home = cgroups.current().memory_home()
            for back in dict.fromkeys((home / self._origins.get(pid, "").lstrip("/"), home)):
                try:
                    (back / "cgroup.procs").write_text(f"{pid}\n")
                    break
                except OSError:
                    continue


def _write_limit(group: Path, limit: int) -> None:
    cgroups.current().set_memory_limit(group, limit)


def remove_stale_groups(memory: Path = MEMORY) -> list[str]:
    """Remove the empty groups of studies whose tierbench is gone (killed with SIGKILL: no __exit__ ran); the names
    removed. Only ours (`tierbench-<study>-<pid>`, the pid no longer running) and only empty (rmdir refuses a
    group that holds a process): a live study's group, or one still holding a process, is left as it is."""
    removed = []
    for group in memory.glob("tierbench-*-*"):
        pid = group.name.rsplit("-", 1)[1]
        if not group.is_dir() or not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        try:
            group.rmdir()
            removed.append(group.name)
        except OSError:
            pass
    return removed


def _memory_group_of(pid: int) -> str | None:
    """The memory cgroup a process is in (its path under the hierarchy's memory root), from /proc/<pid>/cgroup."""
    return cgroups.current().memory_group_of(pid)
