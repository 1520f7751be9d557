"""What the report's findings warn about, decided from the analysis and the runs: the analysis' warnings folded
for a reader (many alike become one), and runs after which the storage was degraded."""

from dataclasses import dataclass

from ..store import StoredRun
from .stats import Analysis, AnalysisWarning

MAX_UNSTABLE = 6  # past this many 'unstable' pairs, one warning names the worst
MAX_NAMED = 3  # a folded warning names this many of the places it applies to


def summarised_warnings(an: Analysis) -> list[AnalysisWarning]:
    """The analysis' warnings; many 'unstable' ones become one line naming the worst."""
    unstable = [w for w in an.warnings if w.text.startswith("unstable")]
    if len(unstable) <= MAX_UNSTABLE:
        return an.warnings
    cvs = {(s.config, s.workload): s.cv for s in an.runtime.values()}
    worst = max(unstable, key=lambda w: cvs.get((w.config, w.workload), 0))
    line = AnalysisWarning("all", "all", f"unstable: runtime spread (std dev) above 10% of the mean in {len(unstable)} of "
                           f"{len(an.runtime)} (configuration, workload) pairs, the most {cvs.get((worst.config, worst.workload), 0):.0%} "
                           f"({worst.config} / {worst.workload}); add repeats, make the jobs larger, or check for other load on the machine")
    return [w for w in an.warnings if w not in unstable] + [line]


def fold_warnings(warnings: list[AnalysisWarning]) -> list[AnalysisWarning]:
    """The same advice for several (configuration, workload) pairs: one warning naming how many and the first few."""
    by_text: dict[str, list] = {}
    for w in warnings:
        by_text.setdefault(w.text, []).append(w)
    out = []
    for text, ws in by_text.items():
        if len(ws) == 1:
            out.append(ws[0])
            continue
        where = ", ".join(f"{w.config} / {w.workload}" for w in ws[:MAX_NAMED]) + (", ..." if len(ws) > MAX_NAMED else "")
        out.append(AnalysisWarning("all", "all", f"{text} (in {len(ws)} configuration/workload pairs: {where})"))
    return out


@dataclass(frozen=True)
class DegradedStorage:
    """Runs after which HDFS (the storage type that reports its health: storage/types.py) was degraded: dead
    DataNodes or under-replicated blocks; the figures are the first such run's."""
    runs: int
    first_run: str
    dead_datanodes: int
    under_replicated_blocks: int
    blocks_written: int


def degraded_storage(runs: list[StoredRun]) -> DegradedStorage | None:
    bad = [(r.run_key, h) for r in runs for h in [r.details.get("storage_health") or {}]
           if h.get("checked") and (h.get("under_replicated_blocks") or h.get("dead_datanodes"))]
    if not bad:
        return None
    key, h = bad[0]
    return DegradedStorage(len(bad), key, h["dead_datanodes"], h["under_replicated_blocks"], h["blocks_written"])
