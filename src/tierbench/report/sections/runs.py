"""Every run: status, wall time, key metrics, what bound it and how near its device's ceiling it came."""

from ...workloads import WORKLOADS
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import fmt

CEILING_HEAD = "job's data MB/s, of the device's sequential ceiling"
RUN_HEAD = ["run", "status", "wall s", "key metrics", "bound by", CEILING_HEAD, "started (UTC)", "cache dropped", "error"]


EMULATED_NOTE = (
    "'bound by' and the ceiling column are shares of different things, so a run can be at 90% of one and 11% of the "
    "other. 'bound by' judges an emulated device (a loop device the throttle holds to its profile) by how busy it was "
    "against the throttle's limits: all of its IO (the job's data, spills, shuffle, replicated copies, small syncs) in "
    "each sample interval as a share of the limit it came nearest, often IOPS, averaged over the job's intervals; 80% or "
    "more means the device's limit set the pace (its utilisation says nothing: it stays low while requests wait in the "
    f"throttle). '{CEILING_HEAD}' divides only the job's own data (times its copies) by the whole run's wall time, JVM "
    "start included, and puts that against the device's sequential MB/s: fio's probe of its data device, else, for "
    "an emulated device, the fio check run when it was brought up, else its throttle's limits; each cell says which. "
    "A device kept at its limit by small or random IO moves far fewer MB/s than its sequential ceiling.")


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
