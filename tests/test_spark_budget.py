"""The scale model's page cache budget on the Spark engine's processes (engines/spark_confine.py): which it holds,
which it never moves, and what the runs then say. The local-mode study is in test_scale_model.py."""

import subprocess

import pytest

from tierbench import processes
from tierbench.engines.spark_confine import ExecutorConfinement


def _ids(*procs) -> set:
    return {(p.pid, processes.start_time(p.pid)) for p in procs}


def test_only_the_workers_the_study_started_join_the_budget_and_the_runs_name_the_others():
    # two processes as an embedded cluster's Workers: one running before the application's open restarted the
    # Workers (left as it was: `services up` started it), one the open started
    theirs, ours = subprocess.Popen(["sleep", "60"]), subprocess.Popen(["sleep", "60"])
    joined: list[int] = []
    confinement = ExecutorConfinement()
    try:
        gap = confinement.apply("spark://127.0.0.1:7077", joined.append, _ids(theirs), _ids(theirs, ours))
        assert joined == [ours.pid]
        assert f"Workers {theirs.pid}, which this study did not start" in gap
        joined.clear()  # the application started again on the same dirs: the Workers left as they were are the study's
        assert confinement.apply("spark://127.0.0.1:7077", joined.append, _ids(ours), _ids(ours)) is None
        assert joined == [ours.pid]
    finally:
        for p in (theirs, ours):
            p.kill()
            p.wait()


@pytest.mark.parametrize("master, says", [
    ("local[2]", None),  # the executors: threads of the JVM its worker process starts in the group
    ("local-cluster[2,1,1024]", None),  # children of that JVM
    ("yarn", "the executors, on the nodes of the cluster yarn"),
    ("spark://other-host:7077", "the executors, on the nodes of the cluster spark://other-host:7077"),
])
def test_executors_out_of_this_machines_reach_are_said_not_held(master, says):
    joined: list[int] = []
    gap = ExecutorConfinement().apply(master, joined.append, None, None)
    assert (gap if says is None else gap[:len(says)]) == says and joined == []
    assert ExecutorConfinement().apply(master, None, None, None) is None  # no budget: nothing to say


def test_a_process_moved_into_the_budget_goes_back_to_its_own_group_after_the_study():
    import os

    from tierbench.scale.memory_budget import MemoryBudget, _memory_group_of, can_budget

    if why := can_budget():  # the test moves a real process into a real memory group and back
        pytest.skip(f"this machine cannot make tierbench's memory group, so no process can be moved into it: {why}")
    worker = subprocess.Popen(["sleep", "60"])  # as a standalone Worker the study restarted: it outlives the study
    try:
        origin = _memory_group_of(worker.pid)
        with MemoryBudget(f"release-{os.getpid()}", 4 << 20) as budget:
            budget.join(worker.pid)
            assert _memory_group_of(worker.pid) == f"/{budget.group.name}"
        assert _memory_group_of(worker.pid) == origin and not budget.group.exists()
    finally:
        worker.kill()
        worker.wait()


def test_a_killed_studys_empty_group_is_removed_and_a_live_studys_kept():
    """A study killed with SIGKILL leaves its group behind (no __exit__ ran); the next budget removes it, never the
    group of a study whose tierbench still runs, nor one still holding a process."""
    import os

    from tierbench.scale.memory_budget import MEMORY, remove_stale_groups, can_budget

    if why := can_budget():
        pytest.skip(f"this machine cannot make memory groups (root and the cgroup-v1 memory controller), so there is no "
                    f"group to leave behind or remove: {why}")
    gone = subprocess.Popen(["true"])
    gone.wait()  # (its pid: a tierbench that is gone)
    stale, busy = MEMORY / f"tierbench-stale-{gone.pid}", MEMORY / f"tierbench-busy-{gone.pid}"
    live = MEMORY / f"tierbench-live-{os.getpid()}"
    held = subprocess.Popen(["sleep", "60"])
    try:
        for group in (stale, live, busy):
            group.mkdir(exist_ok=True)
        (busy / "cgroup.procs").write_text(f"{held.pid}\n")
        removed = remove_stale_groups()
        assert stale.name in removed and not stale.exists()
        assert live.exists() and busy.exists() and live.name not in removed and busy.name not in removed
    finally:
        held.kill()
        held.wait()
        for group in (stale, live, busy):
            if group.exists():
                group.rmdir()
