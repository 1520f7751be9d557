"""Which of a Spark application's processes a scale model's page cache budget holds (scale/memory_budget.py).

Local mode: the executors are threads of the application's JVM, born from its worker process, which SparkApp moves
into the budget's group before it asks it to start the JVM: all of the application is held.

An embedded standalone cluster (`tierbench services up spark`): the executors are children of its Workers. The
study's engine restarts the Workers itself for each configuration's application (SparkEngine.open, on that
configuration's intermediate dirs): those Workers are processes tierbench started for the study, and are moved into
the group before the application asks them for executors (born in it). A Worker the study did not start (already
on those dirs: restart_workers left it as it was) is never moved; the runs then say the budget does not hold its
executors. Any other cluster's executors run on its nodes, out of this machine's reach.
"""

from typing import Callable

from .. import processes

WorkerId = tuple[int, int]  # (pid, start time): a Worker, not whichever process has its pid later


def worker_ids(cluster) -> set[WorkerId]:
    """The embedded cluster's running Workers."""
    out = set()
    for pid in cluster.status()["worker_pids"]:
        started = processes.start_time(pid) if pid else None
        if started is not None:
            out.add((pid, started))
    return out


class ExecutorConfinement:
    """The Workers this engine started during the study, and what of each application the budget does not hold."""

    def __init__(self):
        self.started: set[WorkerId] = set()

    def apply(self, master: str, confine: Callable[[int], None] | None, before: set[WorkerId] | None,
              now: set[WorkerId] | None) -> str | None:
        """After an embedded cluster's Workers were restarted for an application (`before`: those running until then,
        `now`: after; None for both without such a cluster), before the application starts: the Workers the study
        started joined to the budget. Returns what the budget does not hold of the application's processes, None when
        it holds them all (or there is no budget)."""
        if confine is None or master.startswith("local"):  # (local-cluster[...]: the driver's JVM forks the executors)
            return None
        if now is None:
            return (f"the executors, on the nodes of the cluster {master}: the budget holds the processes tierbench "
                    "starts on this machine (the driver)")
        self.started |= now - (before or set())  # (re)started by this application's open
        for pid, _ in sorted(now & self.started):
            confine(pid)
        theirs = sorted(pid for pid, _ in now - self.started)
        if theirs:
            return (f"the executors of the Spark standalone Workers {', '.join(map(str, theirs))}, which this study did "
                    "not start (they were already on this configuration's dirs): never moved into the budget's group")
        return None
