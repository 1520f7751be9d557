"""Waiting for a Hadoop job's JVM, and ending it when it can no longer finish.

Hadoop's local runner waits for ever on a thread that died: a map's SpillThread killed by an uncaught error leaves
the map waiting for its spill, and the JVM alive, idle, never ending (seen in the e2e layer: a JDK
`ClassFormatError: Incompatible magic value` loading a java.base class in six SpillThreads at once; the study then
stood for 15 minutes until its caller killed it). A job is ended when a thread of its JVM died of an uncaught
exception (the JVM prints `Exception in thread "NAME"`) and its log has not grown since for `stall_s`: a job that
goes on despite a dead thread is left alone.
"""

import re
import subprocess
import time
from pathlib import Path

DEAD_THREAD = re.compile(r'^Exception in thread "([^"]+)" (\S.*)$', re.M)
STALL_S = 30.0  # (Hadoop's own task timeout, mapreduce.task.timeout, is 600 s, and the local runner ignores it)


class LogWatch:
    """Reads a growing log from where it was last read: the first dead thread's line, and when it last grew."""

    def __init__(self, path: Path):
        self.path, self._offset, self._tail = path, 0, ""
        self.dead_thread: str | None = None
        self.grew_at = time.monotonic()

    def poll(self) -> None:
        try:
            with open(self.path, errors="replace") as f:
                f.seek(self._offset)
                new = f.read()
                self._offset = f.tell()
        except OSError:
            return
        if not new:
            return
        self.grew_at = time.monotonic()
        text = self._tail + new  # (a line may arrive in two reads: the last partial one is kept for the next)
        self._tail = text.rsplit("\n", 1)[-1]
        if self.dead_thread is None and (m := DEAD_THREAD.search(text)):
            self.dead_thread = f'thread "{m.group(1)}" died: {m.group(2)[:300]}'

    def stalled(self, stall_s: float) -> str | None:
        """Why the job cannot finish, or None."""
        self.poll()
        if self.dead_thread and time.monotonic() - self.grew_at >= stall_s:
            return f"the job's JVM stopped making progress after a {self.dead_thread} (no log line for {stall_s:.0f} s)"
        return None


def wait_for_job(proc: subprocess.Popen, log_path: Path, on_progress, stall_s: float = STALL_S) -> str | None:
    """Wait for the job's JVM to exit: None, or why it is to be ended without waiting (the caller ends it)."""
    watch = LogWatch(log_path)
    while True:
        try:
            proc.wait(timeout=0.5)
            return None
        except subprocess.TimeoutExpired:
            on_progress({"stage": 1, "name": "MapReduce job", "done": 0, "total": 0})
        if why := watch.stalled(stall_s):
            return why
