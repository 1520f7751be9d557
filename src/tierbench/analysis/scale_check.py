"""Whether a scale model's page cache budget held: per configuration and workload, the page cache its engine's
processes held at most during the runs (details.memory_budget), against the budget."""

from dataclasses import dataclass
from statistics import median

from ..store import StoredRun

# what the budget's follower lets a JVM allocate between two polls (study/memory_budget.py HEADROOM): the page
# cache may reach the budget plus this before the kernel takes it back
SLACK_BYTES = 32 << 20


@dataclass(frozen=True)
class BudgetHeld:
    variant: str
    workload: str
    runs: int
    budget_bytes: int
    median_peak_bytes: float
    max_peak_bytes: int

    @property
    def held(self) -> bool:
        return self.max_peak_bytes <= self.budget_bytes + SLACK_BYTES


def budget_held(runs: list[StoredRun]) -> list[BudgetHeld]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        b = r.details.get("memory_budget")
        if r.status == "ok" and isinstance(b, dict):
            groups.setdefault((r.variant, r.label), []).append(b)
    return [BudgetHeld(v, w, len(bs), bs[0]["page_cache_budget_bytes"], median(b["page_cache_peak_bytes"] for b in bs),
                       max(b["page_cache_peak_bytes"] for b in bs)) for (v, w), bs in groups.items()]
