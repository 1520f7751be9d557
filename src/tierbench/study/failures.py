"""How the runner treats a failed run: once more where it failed under a page cache budget's race, and the study
stopped where runs keep failing the same way."""

import re

MAX_SAME_FAILURES = 3  # runs in a row failing with the same cause stop the study (a dead endpoint, a full disk)
# Under a scale model's page cache budget, cgroup v1 charges the kernel's own allocations to the budget group's limit
# and fails them there (where a page fault waits for the budget's next poll, scale/memory_budget.py): a JVM refused a
# thread's stack ("Native memory allocation (mmap) failed", TestDFSIO) or a file's lookup failing as "does not
# exist" (TeraValidate, a file TeraSort had written) when the tasks' buffers were allocated at once. The limit
# leaves a heap room to grow between polls since 2026-11-27 (ANON_ROOM); a run that still fails under the budget is
# recorded and run once more; a job that really fails fails twice. cgroup v2's budget is memory.high, which makes a
# charge above it wait for reclaim and never fails it (storage/cgroups.py): there, a run that fails is run once more
# all the same (it costs a run), but the line does not blame the budget.
BUDGET_RACE = ("failed under the page cache budget, whose group can refuse the kernel's own allocations between two "
               "of its polls (cgroup v1): run once more")
BUDGET_RETRY_V2 = "failed under the page cache budget (cgroup v2, whose budget never refuses a charge): run once more"


def budget_race_line() -> str:
    """What the runner says of a run it runs once more under the budget, on this machine's hierarchy."""
    from ..storage.cgroups import CgroupV2, current

    return BUDGET_RETRY_V2 if isinstance(current(), CgroupV2) else BUDGET_RACE


# a failure that says its cause: a full disk is no budget's race, and running it once more would fail the same way
# (e.g. MapReduce's "Could not find any valid local directory for output/file.out with requested size ...")
FULL_DISK = re.compile(r"No space left on device|Could not find any valid local directory|DiskErrorException")


def _ran_and_failed(record: dict) -> bool:
    return record["status"] != "ok" and not (record["error"] or "").startswith("not run:")


def retry_under_budget(record: dict) -> bool:
    """A run that failed under the page cache budget runs once more, unless its error names another cause."""
    return _ran_and_failed(record) and not FULL_DISK.search(record["error"] or "")


class FailureStreak:
    """Counts runs in a row that failed with the same cause. A run skipped for want of its input is a
    consequence, not a cause: it neither counts nor breaks the streak."""

    def __init__(self, limit: int):
        self.limit, self.count, self.cause = limit, 0, ""

    def add(self, record: dict) -> bool:
        error = record.get("error") or ""
        if record["status"] == "ok":
            self.count, self.cause = 0, ""
        elif not error.startswith("not run:"):
            cause = re.sub(r"\d+", "N", error)[:120]  # the same failure with other numbers in it
            self.count = self.count + 1 if cause == self.cause else 1
            self.cause = cause
        return self.count >= self.limit
