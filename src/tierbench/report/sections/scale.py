"""Scale model: each setting derived from the target beside the target's own figure, what the model cannot keep,
and whether the page cache budget held in the runs."""

from statistics import median

from ...analysis.measures import active_seconds
from ...scale.budget_check import SLACK_BYTES, budget_held
from ...scale.model import READ_SEEK_KIB, WRITE_SEEK_KIB, seek_kib
from ...scale.pace import pace_sentence
from ...spec.scale import measured_calibration
from ...units import format_size
from ..context import ReportContext
from ..document import Paragraph, Section, Table


def sections(ctx: ReportContext) -> list[Section]:
    scale = ctx.spec.get("scale")
    if not scale:
        return []
    blocks = [
        Paragraph(f"This study is a scale model of {format_size(scale['target_size'])} on `{scale['target']}`: one of its "
                  f"nodes, shrunk to {format_size(scale['data_bytes'])} of data on this machine, keeping the ratios below "
                  "(docs/scale-model.md).", muted=True),
        Table(["setting", "here", "on the target", "keeps"],
              [[s["name"], s["here"], s["target"], s["keeps"]] for s in scale["settings"]])]
    pace = ctx.facts.pace
    blocks += [Paragraph(_kept_fitted_predicted(scale))] + _calibration(scale.get("calibration")) + _followed(ctx, scale) + ([Paragraph(pace_sentence(pace))] if pace else [])
    if scale.get("breaks"):
        blocks.append(Paragraph("Where the model breaks: " + "; ".join(scale["breaks"]) + "."))
    blocks += _work(ctx) + _budget(ctx)
    return [Section("Scale model", 2, blocks)]


def _kept_fitted_predicted(scale: dict) -> str:
    """In plain words: what the model keeps (derived from the target's figures), what was fitted to the published
    study's results, and what is left to predict (docs/scale-model.md, the constants table)."""
    c = scale.get("calibration") or {}
    reads = f", {READ_SEEK_KIB} KiB reduce-side reads" if scale.get("hold_map_output") else ""  # (direct reads only)
    seeks = (f"the request size{'s' if reads else ''} at which an emulated drive pays the target's seeks "
             f"({WRITE_SEEK_KIB} KiB writes{reads}), chosen while watching the SanDisk study's all-HDD runtimes")
    own = _own_seeks(scale)
    seeks = f"{seeks}, kept for the drives that barely seek. Derived from the drives' own figures: {own}" if own else seeks
    e = scale.get("core_speed_estimate")
    if measured_calibration(scale):
        run = f"its {c['job']} on {c['fit_count']} x {c['fit_drive']}" if c.get("fit_s") else f"its {c['job']}"
        whose = "own study's" if c.get("rate_from") == "measured on the target" else "published"
        fitted = (f"the drives' speed factor k ({scale['rate_factor']:.3g}), from this machine's {c['job']} against "
                  f"the target's {whose} rate ({c['source']}), so a ratio to that run ({run}) is the calibration, "
                  f"reproduced by construction, not a finding; and {seeks}.")
    elif e:
        fitted = (f"{seeks}. The drives' speed factor k ({scale['rate_factor']:.3g}) comes from an ESTIMATE of "
                  f"core_speed, {e['core_speed']:.3g} ({e['source']}), not from a run: k may be anywhere in "
                  f"{e['k_low']:.3g}-{e['k_high']:.3g}, and the ratios that set the drives against the CPU carry "
                  "that range (predict and advise give the target's times as a range).")
    else:
        fitted = (f"{seeks}. The drives' speed factor k ({scale['rate_factor']:.3g}) comes from the core_speed the "
                  "spec gave, not from a published run.")
    return ("What the model keeps, fits and predicts. Kept: the ratios in the table above, derived from the target's "
            "figures (nodes, cores, memory, drives), not from its results. Fitted: " + fitted + " Predicted: every "
            "other ratio between the configurations (docs/scale-model.md lists each constant and where it comes from).")


def _own_seeks(scale: dict) -> str:
    """The target's rotating drives' own seek figures (the catalog's), where any differs from the fitted sizes: each
    with where it comes from; "" for a target whose drives all seek as the 2014 HDD was fitted to (SanDisk's)."""
    from ...model.hardware import stored_target

    try:
        target = stored_target(scale)
    except Exception:  # (a description this tierbench no longer has: the fitted sizes are said)
        return ""
    drives = list({d.name: d for d in (target.data.drive, target.intermediate.drive)}.values())
    if all((seek_kib(d, "write"), seek_kib(d, "read")) == (WRITE_SEEK_KIB, READ_SEEK_KIB) for d in drives):
        return ""
    return "; ".join(f"{d.name}: {seek_kib(d, 'write'):g} KiB writes, {seek_kib(d, 'read'):g} KiB reads ("
                     + (f"{d.seek_kind}: {d.seek_source}" if d.write_seek_kib else "the default: it barely seeks") + ")"
                     for d in drives)


def _work(ctx: ReportContext) -> list:
    """Each configuration's work (the job's phases) beside its runtime, and its work as a multiple of the baseline's:
    what a scale model carries to the target. A run's fixed cost (the JVM's start, the job's setup and commit) does
    not shrink with the model, so a short run's runtime ratio is nearer 1 than the target's would be."""
    base = ctx.spec["baseline"]
    groups: dict[tuple[str, str], list] = {}
    for r in ctx.runs:
        if r.status == "ok" and r.wall_s:
            groups.setdefault((r.label, r.variant), []).append(r)
    work = {key: median([active_seconds(r) for r in runs]) for key, runs in groups.items()}
    rows = []
    for label, variant in ((w, v) for w in ctx.workloads for v in ctx.configs if (w, v) in groups):  # the spec's order
        runs, base_work = groups[(label, variant)], work.get((label, base))
        ratio = f"{work[(label, variant)] / base_work:.2f}" if base_work and variant != base else ""
        rows.append([label, variant, str(len(runs)), f"{median([r.wall_s for r in runs]):.1f} s",
                     f"{work[(label, variant)]:.1f} s", ratio])
    if not rows:
        return []
    return [Paragraph(f"The jobs' work: their phases, without the JVM's start and the job's setup, which take about the "
                      f"same seconds at any size and so do not shrink with the model; the work is what `tierbench predict` "
                      f"carries to the target (x k x its data per node / the model's). Medians; work / {base}'s:", muted=True),
            Table(["workload", "configuration", "runs", "runtime", "work", f"work / {base}'s"], rows)]


def _calibration(c: dict | None) -> list:
    """Where core_speed came from, and what that makes of the finding its source is (a fitted figure, not one found)."""
    if not c:
        return []
    if not measured_calibration({"calibration": c}):
        return [Paragraph(f"core_speed was to be measured ({c['job']}) but no calibration is recorded: the drives ran at "
                          "k for core_speed 1.")]
    return [Paragraph(f"core_speed {c['core_speed']:.3g} was measured, not assumed: {c['job']} ran at the model's size "
                      "with no drive's limits (under the model's page cache budget), so that the CPU set the pace "
                      f"({len(c['runs_s'])} runs, {', '.join(f'{t:.1f}' for t in c['runs_s'])} s of work, without the "
                      "JVM's start: calibration/ in the results folder, whose study.json says on what storage), and the "
                      f"target's rate per thread is {c['target_mb_s_per_thread']:.3g} MB/s ({c['source']}). "
                      + _fit_sentence(c) + "That run's "
                      "figure is therefore the model's calibration, not a finding: a ratio to it is fitted, the others "
                      "are not (docs/scale-model.md).")]


def _followed(ctx: ReportContext, scale: dict) -> list:
    """The k the runs went at, where the drives followed this machine's pace through the study (pace_follow.py)."""
    steps: dict[str, float] = {}
    for r in sorted((r for r in ctx.runs if (r.details.get("pace") or {}).get("k")), key=lambda r: r.started_at or ""):
        steps.setdefault(r.details["pace"]["from"], r.details["pace"]["k"])
    if len(steps) < 2 and not any(source != "the calibration" for source in steps):
        return []
    said = "; ".join(f"k {k:.3g} ({k / scale['rate_factor'] - 1:+.0%}) from {source}" for source, k in steps.items())
    return [Paragraph("The drives followed this machine's pace through the study: each run of the calibrated job on the "
                      "rate's own drives measured it again, and that job's runs after it went at the k it gave, the other "
                      "jobs' at the calibration's (the runs' details.pace; predict carries each run at its own k): "
                      f"{said}.")]


def _fit_sentence(c: dict) -> str:
    """The calibration's runs on the rate's own drives, where it had them: this machine's rate is theirs."""
    fit = c.get("fit_s") or []
    if not fit:
        return "This machine's rate is those runs' median. "
    return (f"Then on the drives of the run that rate comes from ({c['fit_count']} x {c['fit_drive']}, emulated at the "
            f"k the runs above give: {len(fit)} runs, {', '.join(f'{t:.1f}' for t in fit)} s of work, calibration-fit/): "
            f"this machine's rate, {c['here_mb_s_per_core']:.3g} MB/s per core, is their median's, so that the model's "
            "run on those drives is the published run. ")


def _budget(ctx: ReportContext) -> list:
    said = ctx.facts.memory_budget
    if said and not said.get("enforced"):
        return [Paragraph(f"The page cache budget ({format_size(said['bytes'])}) was NOT enforced: {said.get('why')}. "
                          "The runs' shuffle may have been read from memory, unlike the target's.")]
    checked = budget_held(ctx.runs)
    rows = [[h.variant, h.workload, str(h.runs), format_size(h.budget_bytes), format_size(h.median_held_bytes),
             format_size(h.max_peak_bytes), "not covered" if h.not_covering else "yes" if h.held else "NO"] for h in checked]
    if not rows:
        return []
    held, data = sorted(h.median_held_bytes for h in checked)[len(rows) // 2], ctx.spec["scale"]["data_bytes"]
    gaps = list(dict.fromkeys(g for h in checked for g in h.not_covering))
    uncovered = [Paragraph("Not covered: the budget did not hold " + "; ".join(gaps) + ". Their page cache is not in the "
                           "figures above: those runs' shuffle may have been read from memory, unlike the target's.")] if gaps else []
    return [Paragraph(_budget_words(checked[0].budget_bytes, data), muted=True),
            Table(["configuration", "workload", "runs", "budget", "median held", "max", "held"], rows),
            Paragraph(_held_words(held, data, checked[0].budget_bytes), muted=True), *uncovered]


def _budget_words(budget: int, data: int) -> str:
    """What the budget is and why a 'yes' may sit beside a median held above it."""
    return (f"Page cache: the budget, {format_size(budget)}, is the page cache a target node has for its data, scaled "
            f"to this model's {format_size(data)} (data / page cache = {_ratio(data / budget)}, as there). The engine's "
            f"processes ran in a memory cgroup whose limit is the budget plus {format_size(SLACK_BYTES)} of room every "
            "JVM needs for its own files (its jars, the streams' read-ahead). 'median held' is the page cache they held, "
            "the median of polls every 50 ms; 'held' is yes when that stayed within the budget and the room, which is "
            "why a median above the budget can still be yes; the max is a JVM reading its jars as it starts.")


def _held_words(held: float, data: int, budget: int) -> str:
    if not held:
        return ("data / page cache held here: no page cache was held in the group (its processes took none: no ratio "
                "to give)")
    return (f"So the job's data met about {format_size(held)} of page cache here: data / page cache held "
            f"{format_size(data)} / {format_size(held)} = {data / held:.1f}, against {_ratio(data / budget)} at the target "
            "(the budget keeps the target's ratio; the JVM's room above it does not).")


def _ratio(r: float) -> str:
    return f"{r:.0f}" if r >= 0.5 else f"{r:.2g}"  # (a target whose cache holds its data many times: not "0")
