"""The run matrix: repeats x storage configurations x workloads.

Repeats are the outer loop so that configurations (and engines) interleave (a slow drift of
the machine then touches every configuration alike); within one repeat and
configuration, workloads run producers first. The plan is saved with the
results and is what --resume walks again.
"""

from dataclasses import dataclass, asdict

from .schema import Spec


@dataclass(frozen=True)
class PlannedRun:
    index: int
    repeat: int  # 1-based
    config: str
    workload: str  # workload kind
    label: str  # workload label (unique in the study)
    engine: str = "spark"  # engine name
    variant: str = ""  # config, or config@engine when the study has several engines

    @property
    def key(self) -> str:
        return f"r{self.repeat}/{self.variant or self.config}/{self.label}"

    def to_dict(self) -> dict:
        return asdict(self) | {"key": self.key}


def make_plan(spec: Spec) -> list[PlannedRun]:
    plan = []
    for repeat in range(1, spec.repeats + 1):
        for v in spec.variants():
            for w in spec.workloads:
                plan.append(PlannedRun(len(plan), repeat, v.config, w.name, w.label, v.engine, v.name))
    return plan
