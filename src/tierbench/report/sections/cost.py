"""Cost per job: the studies' formulas (price over jobs in a period), power and drive wear, per configuration."""

from ...analysis.cost import cost_vs_baseline
from ...units import format_size
from .. import charts
from ..context import ReportContext
from ..document import Figure, Notice, Paragraph, Section, Table
from ..formats import baseline_words, usd

COST_HEAD = ["workload", "config", "data per job", "price $", "median runtime s", "jobs/day", "jobs in period", "hardware $/job",
             "power $/job", "total $/job", "$ per MB/s", "$ per usable TB", "drive wear per job"]
TARGET_HEAD = ["at target: runtime s (linear)", "at target: total $/job (linear)"]


def sections(ctx: ReportContext) -> list[Section]:
    cost, costs = ctx.cost, ctx.costs
    if not costs:
        return []
    sec = Section("Cost per job", 2)
    sec.add(Notice("warn", _cost_intro(cost)) if cost.get("example_prices") else Paragraph(_cost_intro(cost), muted=True))
    sec.add(_scale_notice(cost, costs, ctx.machine, ctx.spec.get("scale")))
    vs = _cost_vs_baseline_table(costs, ctx.analysis.baseline_of)
    if vs:
        sec.add(Paragraph(f"Each configuration's price and total $/job as a multiple of {baseline_words(ctx.analysis)}'s "
                          f"(below 1.00x: cheaper; over {costs[0].base.years:g} years).", muted=True), vs)
    svg = charts.cost_per_job(costs, ctx.colors)
    if svg:
        sec.add(Figure(svg, "chart-cost", "total $ per job (hardware + power + drive replacements) per configuration and workload"))
    sec.add(Table(*_cost_table(costs)))
    return [sec]


def _scale_notice(cost, costs, machine, scale: dict | None = None) -> Notice | Paragraph:
    """Say what job size the figures are for: as run (scaled down, when it fits in memory) or extrapolated. A scale
    model's jobs are small by design: the Answer gives them at its target, so no hint to set cost.target_size."""
    sizes = sorted(c.job_bytes for c in costs if c.job_bytes)
    as_run = (f"{format_size(sizes[0])} to {format_size(sizes[-1])}" if sizes[0] != sizes[-1] else format_size(sizes[0])) if sizes else "?"
    if scale:
        return Paragraph(f"Figures for the scale model's jobs as run on this machine ({as_run} of data per job, one "
                         "node): the Answer, at the top, gives $/job at the size the model stands for.", muted=True)
    target = cost.get("target_bytes")
    if target:
        return Notice("warn", f"at target_size = {format_size(target)}: a linear extrapolation from the jobs as run ({as_run} "
                      "of data per job): runtime and bytes written are multiplied by target / as run, throughput is kept; "
                      "it ignores what changes with size (the page cache, spills, the network)")
    ram = machine.get("memory_bytes") or 0
    if sizes and ram and sizes[-1] < ram:
        return Notice("warn", f"scaled-down jobs: these figures are for the jobs as run ({as_run} of data per job, which fits "
                      f"in this machine's {format_size(ram)} of RAM), not for a production-size job; set cost.target_size "
                      "(e.g. \"1TB\") to see them at the size you care about (a linear extrapolation)")
    return Paragraph(f"Figures for the jobs as run ({as_run} of data per job).", muted=True)


def _cost_vs_baseline_table(costs, baseline_of) -> Table | None:
    ratios = cost_vs_baseline(costs, baseline_of)
    if not ratios:
        return None
    workloads = list(dict.fromkeys(c.workload for c in costs))
    return Table(["configuration", "price"] + [f"$/job: {w}" for w in workloads],
                 [[config, f"{r['price']:.2f}x"] + [f"{r[w]:.2f}x" if w in r else "–" for w in workloads]
                  for config, r in ratios.items()])


def _cost_table(costs) -> tuple[list[str], list[list[str]]]:
    """The cost table; with cost.target_size, two more columns: the same job at that size."""
    at_target = any(c.at_target for c in costs)
    return COST_HEAD + (TARGET_HEAD if at_target else []), _cost_rows(costs, at_target)


def _wear(c) -> str:
    wear = "; ".join(
        f"{w.drive}: {format_size(w.bytes_per_job_per_drive)}/drive, "
        + (f"worn after {w.jobs_until_worn:,.0f} jobs" + (f" (before the period ends: {w.replacements} replacement(s) added)"
                                                          if w.worn_before_period_ends else " (after the period)")
           if w.jobs_until_worn is not None else "no rated endurance")
        for w in c.wear) or "–"
    return wear + (f" [{c.written_source}]" if c.wear else "")


def _cost_rows(costs, at_target: bool = False) -> list[list[str]]:
    rows = []
    for c in sorted(costs, key=lambda c: c.workload):
        rows.append([c.workload, c.config, format_size(c.job_bytes) if c.job_bytes else "–", f"{c.base.price_usd:,.0f}",
                     f"{c.base.runtime_s:.2f}", f"{c.base.jobs_per_day:,.1f}", f"{c.base.jobs_in_period:,.0f}",
                     usd(c.base.usd_per_job), usd(c.power_usd_per_job), usd(c.usd_per_job_total),
                     f"{c.usd_per_mb_s:,.0f}" if c.usd_per_mb_s else "–",
                     f"{c.usd_per_usable_tb:,.0f}" if c.usd_per_usable_tb else "–", _wear(c)])
        if at_target:
            t = c.at_target
            rows[-1] += [f"{t.base.runtime_s:,.0f}" if t else "–", usd(t.usd_per_job_total) if t else "–"]
    return rows


def _cost_intro(cost) -> str:
    label = "EXAMPLE PRICES — from the spec's example price list, not quotes: put your own in [cost]. " if cost.get("example_prices") else ""
    return (f"{label}Formulas of the studies: jobs/day = 86400 / median runtime x utilisation ({cost['utilisation']:g}); "
            f"jobs in {cost['years']:g} years = jobs/day x 365 x {cost['years']:g}; $/job = price / jobs in the period. Added: power at "
            f"${cost['usd_per_kwh']:g}/kWh, and drive wear: bytes written per job ([sampled]: median of what the run's devices took, "
            "writeback included — the machine may be shared, so an upper bound; [model]: data written x replication, TeraSort's "
            "shuffle once to the intermediate drives) against rated endurance, with replacements added to $/job "
            "when endurance ends before the period. $ per MB/s is price / median throughput; $ per usable TB is price / "
            "data-drive capacity after replication or erasure coding.")
