"""The report's first screen: the answer to the user's question before any table. Which configuration is fastest on
each workload and by how much (with Welch's p, a difference that is not significant said as such), $/job at the size
the study stands for with where the prices come from, and, for a scale model, what it is in three plain sentences:
what it keeps, what it predicts, what was fitted. The charts follow; the tables further down hold every figure."""

from ...analysis.stats import compare
from ...model.transfer import emulated_drives
from ...spec.scale import measured_calibration
from ...units import format_size
from ..at_size import CostsAtSize, costs_at_size
from ..context import ReportContext
from ..document import Bullets, Notice, Paragraph, Section, Strong
from ..formats import baseline_words, comparison_words, significant, usd
from . import findings

TITLE = "Answer"


def sections(ctx: ReportContext) -> list[Section]:
    fitted = calibrated_pair(ctx.spec)
    sec = Section(TITLE, 2)
    lines = [line for wl in ctx.workloads if (line := fastest_line(ctx, wl, fitted))]
    if lines:
        sec.add(Paragraph([Strong(_lead(ctx))]), Bullets(lines))
    else:
        sec.add(Paragraph("Only one configuration ran each workload: nothing to compare."))
    sec.add(*cost_blocks(ctx, fitted))
    if ctx.spec.get("scale"):
        sec.add(Paragraph(scale_sentences(ctx, fitted)))
    notices = [b for b in findings.sections(ctx)[0].blocks if isinstance(b, Notice)]
    if notices:
        failed = sum(b.kind == "fail" for b in notices)
        sec.add(Paragraph(f"Read with the {len(notices) - failed} warning(s)"
                          + (f" and {failed} failed run(s)" if failed else "") + " under Findings, below the charts.",
                          muted=True))
    return [sec]


def _fastest_config(ctx: ReportContext, wl: str) -> list[str]:
    """The configurations that ran the workload, fastest (lowest median runtime) first."""
    meds = {c: ctx.analysis.runtime[(c, wl)].median for c in ctx.configs if (c, wl) in ctx.analysis.runtime}
    return sorted(meds, key=meds.get)


def _lead(ctx: ReportContext) -> str:
    """One sentence over the workloads: the configuration with the lowest median runtime on each, called fastest only
    where that is significant (Welch p below 0.05 against the baseline)."""
    best = {wl: order[0] for wl in ctx.workloads if len(order := _fastest_config(ctx, wl)) > 1}
    comps = {(c.config, c.workload): c for c in ctx.analysis.comparisons}
    sig = {wl: c for wl, c in best.items() if (x := comps.get((c, wl))) is not None and significant(x)}
    names = set(best.values())
    which = (f"{next(iter(names))}, on every workload ({len(best)})" if len(names) == 1 and len(best) > 1 else
             next(iter(names)) if len(names) == 1 else "; ".join(f"{wl}: {c}" for wl, c in best.items()))
    if len(sig) == len(best):
        near = [f"on {wl} {tie} is within noise of it" for wl in best if (tie := _tied(ctx, wl))]
        return f"Fastest: {which}" + (f"; {', '.join(near)}." if near else ".")
    if not sig:
        return (f"No configuration is significantly faster than {baseline_words(ctx.analysis)} (Welch p >= 0.05 on every "
                f"workload); the lowest median runtime: {which}.")
    return f"Lowest median runtime: {which}; significantly faster than {baseline_words(ctx.analysis)} on {', '.join(sig)} only."


def _runner_up(ctx: ReportContext, wl: str):
    """The next fastest configuration, when it is not the baseline, and the Welch comparison of the fastest with it."""
    order = _fastest_config(ctx, wl)
    if len(order) < 2 or order[1] == ctx.analysis.baseline_of(order[0]):
        return None
    values = ctx.run_values
    return order[1], compare(values[("runtime", order[1], wl)], values[("runtime", order[0], wl)], order[0], wl, order[1])


def _tied(ctx: ReportContext, wl: str) -> str | None:
    """The next fastest, where the fastest is not significantly faster than it."""
    found = _runner_up(ctx, wl)
    return found[0] if found and not significant(found[1]) else None


def fastest_line(ctx: ReportContext, wl: str, fitted: tuple[str, str] | None = None) -> str | None:
    """The workload's fastest configuration against the baseline, then against the next fastest: whether it is
    significantly faster than that one too (a fastest that the next is within noise of is said so)."""
    an, order = ctx.analysis, _fastest_config(ctx, wl)
    if len(order) < 2:
        return None
    best, second = order[0], order[1]
    comps = {(c.config, c.workload): c for c in an.comparisons}
    base = an.baseline_of(best)
    mark = " [fitted: the calibration run]" if fitted == (best, wl) else ""
    if best == base:
        c = comps.get((second, wl))
        said = f"{wl}: {best} (the baseline) is fastest{mark}; next, {second}: " + (comparison_words(c) if c else "–")
        return said
    c = comps.get((best, wl))
    if c is None:
        return f"{wl}: {best} has the lowest median runtime{mark}"
    head = f"{wl}: {best} is fastest{mark}, " if significant(c) else f"{wl}: {best} has the lowest median runtime{mark}: "
    said = head + comparison_words(c)
    if (found := _runner_up(ctx, wl)) is not None:
        said += f". Against the next, {found[0]}: {comparison_words(found[1])}"
    return said


def calibrated_pair(spec: dict) -> tuple[str, str] | None:
    """(configuration, job) of a scale model's run that its calibration fitted to the published one: the configuration
    whose emulated drives, data and intermediate data on them, are the drives the published rate was measured on."""
    scale = spec.get("scale") or {}
    c = measured_calibration(scale)
    if not c or not c.get("fit_drive"):
        return None
    for config in spec.get("storage", []):
        emulated = config.get("emulated") or {}
        same = sorted(config.get("intermediate") or []) == sorted(config.get("data") or [])
        if same and emulated.get("data") and \
                emulated_drives(emulated["data"], scale["rate_factor"]) == (c["fit_drive"], c["fit_count"]):
            return config["name"], c["job"]
    return None


def price_source(cost: dict) -> str:
    if cost.get("example_prices"):
        return "EXAMPLE PRICES from tierbench's example price list, not quotes: put your own in the spec's [cost]"
    return "prices from the spec's [cost]"


def duration(seconds: float) -> str:
    """A runtime with its unit, in the unit a reader would use for it."""
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.1f} s"


def cost_blocks(ctx: ReportContext, fitted: tuple[str, str] | None) -> list:
    at = costs_at_size(ctx)
    if at is None or not at.rows:
        return []
    per_wl: dict[str, list] = {}
    for row in at.rows:
        per_wl.setdefault(row.workload, []).append(row)
    items = [f"{wl}: " + ", ".join(f"{r.config} {usd(r.usd_per_job)} (runtime {duration(r.runtime_s)}"
                                   + (", fitted" if fitted == (r.config, wl) else "") + ")" for r in rows)
             for wl, rows in ((wl, per_wl[wl]) for wl in ctx.workloads if wl in per_wl)]
    return [Paragraph([Strong(_cost_lead(ctx, at))]), Bullets(items), Paragraph(_cost_how(ctx, at), muted=True)]


def _cost_lead(ctx: ReportContext, at: CostsAtSize) -> str:
    if at.how == "scale model":
        return f"$/job at {format_size(at.size_bytes)}, the size this scale model stands for (predicted)"
    if at.how == "target_size":
        return f"$/job at {format_size(at.size_bytes)} (cost.target_size; a linear extrapolation)"
    return "$/job for the jobs as run"


def _cost_how(ctx: ReportContext, at: CostsAtSize) -> str:
    years = f"over {ctx.cost['years']:g} years, power and drive wear included; {price_source(ctx.cost)}."
    if at.how == "scale model":
        return (f"Each configuration's runs carried to the target's {at.nodes} nodes, priced for {at.nodes} nodes, "
                f"{years} Cost per job, further down, has the {format_size(ctx.spec['scale']['data_bytes'])} jobs as run.")
    if at.how == "target_size":
        return ("Runtime and bytes written multiplied by the target size / the size run, which ignores what changes with "
                f"size (page cache, spills, network); {years}")
    sizes = sorted({c.job_bytes for c in ctx.costs if c.job_bytes})
    return (f"At the size run ({', '.join(format_size(s) for s in sizes) or '?'} of data per job), not a production "
            f"size: set cost.target_size (e.g. \"1TB\") for the size you care about; {years}")


def scale_sentences(ctx: ReportContext, fitted: tuple[str, str] | None) -> str:
    """What a scale model is, in three sentences: what ran and what it keeps, what is predicted, what was fitted."""
    from ..at_size import target_nodes

    scale = ctx.spec["scale"]
    nodes = target_nodes(scale)
    factor = scale["rate_factor"] * (scale["target_size"] / nodes) / scale["data_bytes"]
    what = (f"What ran: a scale model of a {format_size(scale['target_size'])} job on {scale['target']} ({nodes} nodes): one "
            f"node's share shrunk to {format_size(scale['data_bytes'])} of data on this machine, its drives emulated at "
            f"the target's drive speeds x k = {scale['rate_factor']:.3g}, keeping the target's ratios of data to page "
            "cache, task size to task memory, tasks per drive and CPU to drive speed. ")
    predicted = ("Measured: the runtimes and ratios in the first lines, on this model; predicted: the runtimes and $/job "
                 f"at {format_size(scale['target_size'])} above, each second of a job's work here (its phases, without the "
                 f"JVM's start) standing for {factor:,.0f} s there. ")
    c = scale.get("calibration") or {}
    if fitted:
        config, job = fitted
        return what + predicted + (
            f"Fitted: this machine's CPU speed (core_speed {c.get('core_speed', 0):.3g}) was calibrated so that {config}'s "
            f"{job} matches the published run ({c.get('source', 'the target description')}), so that run's runtime at the "
            "target equals the published one by construction: fitted, not a finding; the Scale model section has every "
            "setting.")
    if measured_calibration(scale):
        return what + predicted + (f"Fitted: core_speed {c.get('core_speed', 0):.3g}, from the calibration's {c['job']} "
                                   "runs (the Scale model section says how).")
    return what + predicted + ("Nothing was fitted: no calibration is recorded, so the drives ran at k for a core_speed "
                               "of 1, an assumption; the Scale model section has every setting.")

