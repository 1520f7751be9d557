"""Whether a scale model's page cache budget held: per configuration and workload, the page cache its engine's
processes held at most during the runs (details.memory_budget), against the budget; never "held" where the budget
did not hold all of their processes (`not_covering`: a cluster's executors it could not confine)."""

from dataclasses import dataclass
from statistics import median

from ..store import StoredRun
from .constants import value

# the room the budget's limit leaves the page cache beside the budget (scale/memory_budget.py HEADROOM): what a
# poll leaves the group may hold the budget plus this
SLACK_BYTES = value("memory_budget.HEADROOM")


@dataclass(frozen=True)
class BudgetHeld:
    variant: str
    workload: str
    runs: int
    budget_bytes: int
    median_held_bytes: float  # the median over the runs of the page cache each held (its median over the run's polls)
    max_peak_bytes: int
    not_covering: tuple[str, ...] = ()  # what of the runs' processes the budget did not hold

    @property
    def held(self) -> bool:
        return not self.not_covering and self.median_held_bytes <= self.budget_bytes + SLACK_BYTES


def budget_held(runs: list[StoredRun]) -> list[BudgetHeld]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        b = r.details.get("memory_budget")
        if r.status == "ok" and isinstance(b, dict):
            groups.setdefault((r.variant, r.label), []).append(b)
    return [BudgetHeld(v, w, len(bs), bs[0]["page_cache_budget_bytes"],
                       median(b.get("page_cache_median_bytes", b["page_cache_peak_bytes"]) for b in bs),
                       max(b["page_cache_peak_bytes"] for b in bs),
                       tuple(dict.fromkeys(g for b in bs for g in b.get("not_covering", ()))))
            for (v, w), bs in groups.items()]
