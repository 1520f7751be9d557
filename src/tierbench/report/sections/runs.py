"""Every run: status, wall time, key metrics, what bound it and how near its device's ceiling it came."""

from ...workloads import WORKLOADS
from ..context import ReportContext
from ..document import Section, Table
from ..formats import fmt

RUN_HEAD = ["run", "status", "wall s", "key metrics", "bound by", "of the device's ceiling", "started (UTC)", "cache dropped", "error"]


def sections(ctx: ReportContext) -> list[Section]:
    return [Section("Every run", 2, [Table(RUN_HEAD, _run_rows(ctx.runs, ctx.observations))])]


def _key_metrics(r) -> str:
    wl = WORKLOADS.get(r.workload)
    names = wl.metrics[:3] if wl else ()
    return ", ".join(f"{n}={fmt(r.metrics[n])}" for n in names if n in r.metrics)


def _observed(o) -> list[str]:
    if o is None:
        return ["–", "–"]
    return [o.character, f"{o.efficiency:.0%} ({o.ceiling_note})" if o.efficiency is not None else "–"]


def _run_rows(runs, obs) -> list[list[str]]:
    out = []
    for r in sorted(runs, key=lambda r: r.started_at or ""):
        out.append([r.run_key, r.status, fmt(r.wall_s), _key_metrics(r), *_observed(obs.get(r.run_key)),
                    (r.started_at or "")[:19], "yes" if r.page_cache_dropped else "no", r.error or ""])
    return out
