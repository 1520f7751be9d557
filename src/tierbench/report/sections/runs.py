"""Every run: status, wall time, key metrics, what bound it and how near its device's ceiling it came."""

from ...workloads import WORKLOADS
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import fmt

RUN_HEAD = ["run", "status", "wall s", "key metrics", "bound by", "of the device's ceiling", "started (UTC)", "cache dropped", "error"]


EMULATED_NOTE = (
    "'bound by' judges an emulated device (a loop device the throttle holds to its profile) against the throttle's "
    "limits, not its utilisation, which stays low while requests wait in the throttle: each sample interval's read and "
    "write MB/s and IOPS on it as shares of the limits, the highest the interval's load; 80% or more over the run's "
    "intervals means the device's limit set the pace. 'of the device's ceiling' puts the run's throughput against fio's "
    "probe of its data device, else, for an emulated device, the fio check run when it was brought up, else its "
    "throttle's limits; each cell says which.")


def sections(ctx: ReportContext) -> list[Section]:
    sec = Section("Every run", 2)
    if any(o and o.limit_loads for o in ctx.observations.values()):
        sec.add(Paragraph(EMULATED_NOTE, muted=True))
    return [sec.add(Table(RUN_HEAD, _run_rows(ctx.runs, ctx.observations)))]


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
