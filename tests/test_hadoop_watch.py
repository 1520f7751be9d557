"""The hadoop engine ends a job whose JVM can no longer finish (engines/hadoop/watch.py), and a job's JVM does not
outlive tierbench (processes.spawn's die_with_parent). The jobs here are real processes that print what a JVM
prints: a dead SpillThread cannot be caused on purpose in Hadoop (it was a JDK fault, seen once)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from tierbench import processes
from tierbench.engines.hadoop.watch import wait_for_job

DEAD = 'Exception in thread "SpillThread" java.lang.ClassFormatError: Incompatible magic value 1784772193'


def _job(tmp_path, body: str):
    log = tmp_path / "job.log"
    out = open(log, "w")
    proc = processes.spawn([sys.executable, "-u", "-c", textwrap.dedent(body)], stdout=out, stderr=subprocess.STDOUT)
    return proc, log


def test_a_job_whose_thread_died_and_whose_log_stands_still_is_ended_with_the_threads_error(tmp_path):
    proc, log = _job(tmp_path, f"""
        import time
        print("INFO mapreduce.Job:  map 0% reduce 0%")
        print('{DEAD}')
        time.sleep(120)""")
    t0 = time.monotonic()
    try:
        why = wait_for_job(proc, log, lambda _: None, stall_s=1.0)
    finally:
        processes.end_group(proc.pid)
    assert why is not None and time.monotonic() - t0 < 30
    assert 'thread "SpillThread" died: java.lang.ClassFormatError: Incompatible magic value' in why
    assert "no log line for 1 s" in why
    assert proc.wait(timeout=10) is not None  # ended by its group


def test_a_job_that_goes_on_after_a_dead_thread_or_has_none_is_waited_for(tmp_path):
    for body in (f"""
        import time
        print('{DEAD}')
        for i in range(4):
            time.sleep(0.6)
            print("INFO mapred.LocalJobRunner: map > sort", i)
        """, """
        import time
        time.sleep(2.5)
        print("INFO mapreduce.Job: Job job_local1_0001 completed successfully")
        """):
        proc, log = _job(tmp_path, body)
        try:
            assert wait_for_job(proc, log, lambda _: None, stall_s=1.0) is None
        finally:
            processes.end_group(proc.pid)
        assert proc.returncode == 0


def test_a_child_spawned_to_die_with_its_parent_does_not_outlive_a_killed_parent(tmp_path):
    """tierbench killed with SIGKILL (no handler runs, no end_all): the engine's job process it spawned ends too."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import signal, sys, time
        from tierbench import processes
        child = processes.spawn([sys.executable, "-c", "import time; time.sleep(120)"], die_with_parent=signal.SIGKILL)
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(120)""")])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (pid_file.exists() and pid_file.read_text()):
        time.sleep(0.05)
    child = processes.identity(int(pid_file.read_text()))
    assert child and processes.is_same(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and processes.is_same(child):
        time.sleep(0.05)
    assert not processes.is_same(child), "the child outlived its killed parent"
