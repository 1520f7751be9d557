"""FakeEngine: a named fake for the fast test layer (no JVM). It replays job results that the real Spark engine
returned (tests/fixtures/job-results.json, written by tests/fixtures/capture_job_results.py), so the runner, the
run lifecycle, the workloads' checks and the report run on real results in milliseconds. It can also fail a
job or die, the two faults the lifecycle must record, and stand in for an engine of long-lived applications (the
study warms a fresh one up). Never used by `tierbench run`."""

import copy

from ..job import JobOutcome, JobRequest
from .base import Engine, EngineError


class FakeEngine(Engine):
    kind = "spark"  # it stands in for the spark engine
    sync_gaps: tuple[str, ...] = ()

    def __init__(self, results: dict[str, dict], name: str = "spark", fail: dict[str, str] | None = None,
                 die: set[str] | None = None, fill: set[str] | None = None, fresh: bool = False,
                 fail_once: dict[str, str] | None = None):
        self.name, self.results = name, results  # workload name -> {"result": ..., "wall_s": ...}
        self.fail, self.die = fail or {}, die or set()
        self.fail_once = dict(fail_once or {})  # workload -> the error of its first run alone (a transient fault)
        self.fill = fill or set()  # workloads that write their output until the file system is full, then fail
        self.version = "fake (replays recorded Spark results)"
        self.conf: dict = {}
        self.calls: list[str] = []  # what was asked, in order: "open <variant>", "run <run key>", "close"
        # `fresh`: open() says it started an application (as Spark's does) when it opens another variant than the
        # last, or any after a close
        self.fresh, self._open_variant = fresh, None

    def open(self, variant, config, local_dirs, on_phase, also=()) -> bool | None:
        self.calls.append(f"open {variant}")
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)
        started, self._open_variant = variant != self._open_variant, variant
        return started if self.fresh else None

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        name = req.workload.name
        self.calls.append(f"run {req.run_key}")
        if name in self.die:
            raise EngineError(f"the fake engine died running {name} (as the test asked)")
        if name in self.fail:
            return JobOutcome(False, 0.01, error=self.fail[name])
        if name in self.fail_once:
            return JobOutcome(False, 0.01, error=self.fail_once.pop(name))
        if name in self.fill:
            return self._fill(req)
        recorded = self.results[name]
        return JobOutcome(True, recorded["wall_s"], copy.deepcopy(recorded["result"]))

    @staticmethod
    def _fill(req: JobRequest) -> JobOutcome:
        """Write the output as a job would, until the (real) file system says it is full."""
        from ..storage import local_path

        out = local_path(req.outputs[0])
        out.mkdir(parents=True, exist_ok=True)
        try:
            with open(out / "part-00000", "wb") as f:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
        except OSError as e:
            return JobOutcome(False, 0.01, error=f"java.io.IOException: {e.strerror}")
        return JobOutcome(False, 0.01, error="never full")

    def close(self) -> None:
        self.calls.append("close")
        self._open_variant = None
