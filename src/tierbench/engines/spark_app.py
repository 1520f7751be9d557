"""A Spark application in a worker process of its own (spark_worker.py), as the spark engine runs it: started within
a time limit, its log masked as it is written, stopped in order."""

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from .. import processes
from ..errors import UserError
from ..redaction import MaskedLog, mask, redact
from ..toolchain import pid_alive
from .base import EngineError
from .spark_tmp import remove_app_tmp

START_TIMEOUT_ENV = "TIERBENCH_SPARK_START_TIMEOUT"
START_TIMEOUT_S = 300.0  # generous: a JVM starts in 8-14 s (spark.py), a loaded machine's may take several times that


def start_timeout_s() -> float:
    """How long an application may take to start: TIERBENCH_SPARK_START_TIMEOUT's seconds, else START_TIMEOUT_S."""
    try:
        return max(0.01, float(os.environ.get(START_TIMEOUT_ENV, START_TIMEOUT_S)))
    except ValueError:
        return START_TIMEOUT_S


class SparkStartError(EngineError, UserError):
    """The application's JVM did not start (slow machine, its gateway port refused): an engine failure for the study
    (which records it as it does any), and one line with what to try wherever it reaches the CLI, never a traceback."""


def start_failed(why: str) -> SparkStartError:
    return SparkStartError(f"{why}; try again on a less busy machine, or allow the JVM longer to start with "
                           f"{START_TIMEOUT_ENV}=SECONDS (now {start_timeout_s():g} s)")


class SparkApp:
    """A running Spark application in a worker process."""

    tmp_dir: Path | None = None  # its JVM's temporary folder (spark_tmp.py), deleted when it stops

    def __init__(self, conf: dict, log_path: Path, env: dict | None = None, confine: Callable[[int], None] | None = None,
                 uncovered: str | None = None):
        self.conf = conf
        self.uncovered = uncovered  # what of it a scale model's page cache budget does not hold (spark_confine.py)
        self.log_path = log_path
        self._log = MaskedLog(log_path, "a")  # (each line masked as it is written: never a secret on disk)
        # a group of its own (the worker and its JVM): a terminal's Ctrl-C reaches tierbench alone, which stops the
        # application in order (its JVM deletes its local dirs) and ends the group (processes.py)
        try:
            self.proc = processes.spawn(
                [sys.executable, "-m", "tierbench.engines.spark_worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log.fd, text=True,
                env=env or os.environ.copy(), die_with_parent=signal.SIGTERM,  # (its JVM exits when its stdin closes)
            )
        except BaseException:
            self._log.close()
            raise
        self._log.started()
        try:
            if confine:  # a scale model's page cache budget: the worker starts its JVM once it has its conf, so in the group
                confine(self.proc.pid)
            self._send({"conf": conf})
            ready = self._ready(start_timeout_s())
            self.spark_version = ready["spark_version"]
        except (EngineError, KeyError, TypeError) as e:  # (died starting: its gateway refused; or no "ready" said)
            self._abandon()
            why = e if isinstance(e, EngineError) else "its worker did not say it was ready"
            raise e if isinstance(e, SparkStartError) else start_failed(f"the Spark application did not start: {why}") \
                from None
        except BaseException:  # (not started, or interrupted while starting: nothing of it left running)
            self._abandon()
            raise
        self.full_conf = redact(ready["conf"])
        from ..sampling.procfs import descendants

        self.jvm_pids = descendants(self.proc.pid)  # Spark's JVM (py4j's gateway)

    def _ready(self, timeout_s: float) -> dict:
        """The worker's "ready" (its JVM up, the SparkContext made), or one line saying it did not come in time."""
        readable, _, _ = select.select([self.proc.stdout], [], [], timeout_s)
        if not readable:
            raise start_failed(f"the Spark application did not start within {timeout_s:g} s (its JVM is slow to start "
                               f"on a busy machine, or could not open its gateway port: see {self.log_path})")
        return self._next_event()

    def _abandon(self) -> None:
        processes.end_group(self.proc.pid, grace_s=2.0)
        self.proc.kill()
        self.proc.wait()
        self._log.close(timeout=2.0)

    def rss_bytes(self) -> int:
        """Resident memory of the worker and its JVM."""
        from ..sampling.procfs import parse_meminfo

        total = 0
        for pid in (self.proc.pid, *self.jvm_pids):
            try:
                total += parse_meminfo(Path(f"/proc/{pid}/status").read_text()).get("VmRSS", 0)
            except OSError:
                pass
        return total

    def idle(self) -> None:
        """Before it waits for its configuration's next turn: what its jobs left for Spark's cleaner (shuffle
        files) removed now, not during another configuration's measured runs."""
        self._send({"idle": True})
        self._next_event()

    def alive(self) -> bool:
        """The worker and its JVM both running (a JVM killed between runs would fail the next run)."""
        return self.proc.poll() is None and (not self.jvm_pids or any(pid_alive(p) for p in self.jvm_pids))

    def _send(self, obj) -> None:
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise EngineError(self._died()) from None

    def _died(self) -> str:
        self.proc.poll()
        self._log.drain()  # (what it printed last, on disk)
        tail = ""
        try:
            # its last words, less a Python traceback's frames (the error's own line says what went wrong)
            lines = [l for l in self.log_path.read_text(errors="replace").splitlines()
                     if l.strip() and not l.startswith((" ", "\t", "Traceback"))]
            tail = mask(" | ".join(lines[-3:]))
        except OSError:
            pass
        return f"the Spark application stopped (exit {self.proc.returncode}); see {self.log_path}: {tail}"

    def _next_event(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EngineError(self._died())
        try:
            return json.loads(line)
        except ValueError:  # (not the worker's protocol: something else wrote to its channel)
            raise EngineError(f"the Spark application's worker said something unexpected: {mask(line.strip())[:200]}") from None

    def run(self, job: str, params: dict, on_progress: Callable[[dict], None] | None = None) -> dict:
        self._send({"job": job, "params": params})
        while True:
            ev = self._next_event()
            if ev["event"] == "progress":
                if on_progress:
                    on_progress(ev)
            elif ev["event"] == "result":
                return ev

    def agents(self, req: dict) -> dict:
        """A request to the node agents (between jobs): see spark_worker's protocol."""
        self._send(req)
        return self._next_event()

    def s3a_counters(self) -> dict:
        """S3A's counters in the application's JVM, between jobs (S3AStatistics.java)."""
        return self.agents({"s3a": "snapshot"})

    def stop(self) -> None:
        from ..sampling.procfs import descendants

        jvms = descendants(self.proc.pid)  # Spark's JVM: it deletes its local dirs as it exits
        if self.proc.poll() is None:
            try:
                self._send({"stop": True})
                self.proc.wait(timeout=60)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        deadline = time.time() + 30
        while any(pid_alive(p) for p in jvms) and time.time() < deadline:
            time.sleep(0.1)
        processes.end_group(self.proc.pid)  # whatever of the application outlived its stop (a hung JVM)
        self._log.close()
        remove_app_tmp(self.tmp_dir)
