"""FakeEngine: a named fake for the fast test layer (no JVM). It replays job results that the real Spark engine
returned (tests/fixtures/job-results.json, written by tests/fixtures/capture_job_results.py), so the runner, the
run lifecycle, the workloads' checks and the report run on real results in milliseconds. It can also fail a
job or die, the two faults the lifecycle must record. Never used by `tierbench run`."""

import copy

from ..job import JobOutcome, JobRequest
from .base import EngineError


class FakeEngine:
    kind = "spark"  # it stands in for the spark engine
    sync_gaps: tuple[str, ...] = ()

    def __init__(self, results: dict[str, dict], name: str = "spark", fail: dict[str, str] | None = None,
                 die: set[str] | None = None):
        self.name, self.results = name, results  # workload name -> {"result": ..., "wall_s": ...}
        self.fail, self.die = fail or {}, die or set()
        self.version = "fake (replays recorded Spark results)"
        self.conf: dict = {}
        self.calls: list[str] = []  # what was asked, in order: "open <variant>", "run <run key>", "close"

    def open(self, variant, config, local_dirs, on_phase, also=()) -> None:
        self.calls.append(f"open {variant}")
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        name = req.workload.name
        self.calls.append(f"run {req.run_key}")
        if name in self.die:
            raise EngineError(f"the fake engine died running {name} (as the test asked)")
        if name in self.fail:
            return JobOutcome(False, 0.01, error=self.fail[name])
        recorded = self.results[name]
        return JobOutcome(True, recorded["wall_s"], copy.deepcopy(recorded["result"]))

    def close(self) -> None:
        self.calls.append("close")
