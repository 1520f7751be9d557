"""What-if: what `tierbench predict` stored, the predictions and how well the model reproduced what was measured."""

from ...units import format_size
from .. import charts
from ..context import ReportContext
from ..document import Figure, Paragraph, Section, Table
from ..formats import fmt, usd

WHATIF_HEAD = ["job", "hardware", "nodes", "size", "predicted s", "MB/s", "jobs/day", "$/job", "bottleneck (phase: resource)"]
WHATIF_CHECK_HEAD = ["job", "configuration", "predicted from", "predicted s", "measured s (median)", "error"]


def sections(ctx: ReportContext) -> list[Section]:
    p = ctx.facts.predictions
    if not p or not p["predictions"]:  # (`predict --cloud` alone: the cloud section has its own)
        return []
    sec = Section("What-if: predicted on other hardware", 2, [
        Paragraph(f"From `tierbench predict`, calibrated on {', '.join(p['calibrated_on'])}. Hardware: {_hardware(p)}. "
                  f"{_trust(p['validation'])} "
                  "Each phase takes its slowest resource's time (CPU, each pool of drives, network), plus the others' "
                  "divided by its waves of tasks; demands grow in proportion to the data (docs/model.md).", muted=True),
        Table(WHATIF_HEAD, [[r["job"], r["hardware"], str(r["nodes"]), format_size(r["size_bytes"]), fmt(r["seconds"]),
                             fmt(r["mb_s"]) if r.get("mb_s") else "-",
                             fmt(r["jobs_per_day"]) if "jobs_per_day" in r else "-",
                             usd(r["usd_per_job"]) if "usd_per_job" in r else "-", r["bottleneck"]]
                            for r in p["predictions"]])])
    svg = charts.predicted_runtime(p["predictions"])
    if svg:
        sec.add(Figure(svg, "chart-whatif", "predicted runtime per job on each hardware description (the table's "
                                            "'predicted s' column)"))
    checks = _check_rows(p["validation"])
    if checks:
        sec.add(Section("How the model reproduced the measured runs", 3, [Table(WHATIF_CHECK_HEAD, checks)]))
    return [sec]


def _hardware(p: dict) -> str:
    return "; ".join(f"{h['name']}: {h['nodes']} nodes x {h['cores']} cores, data on {h['data']}, intermediate on "
                     f"{h['intermediate']}, {h['write_copies']:g} copies written" for h in p["hardware"])


def _trust(v: dict) -> str:
    err = v.get("hardware_median_abs_error")
    trust = (f"Reproducing each measured configuration from the others, the model's median error was {err:.0%} "
             f"({len(v['hardware'])} jobs x configurations)." if err is not None else
             "Only one configuration had devices of known speed: there is no error estimate across hardware.")
    if v.get("size_median_abs_error") is not None:
        trust += f" Predicting the largest measured size from the smaller ones: median error {v['size_median_abs_error']:.0%}."
    return trust


def _check_rows(v: dict) -> list[list[str]]:
    checks = [[r["job"], r["config"], ", ".join(r["from"]), fmt(r["predicted_s"]), fmt(r["measured_s"]), f"{r['error']:+.0%}"]
              for r in v["hardware"]]
    return checks + [[r["job"], r["config"], "sizes " + ", ".join(format_size(x) for x in r["from_sizes"])
                      + f" -> {format_size(r['size_bytes'])}", fmt(r["predicted_s"]), fmt(r["measured_s"]), f"{r['error']:+.0%}"]
                     for r in v["size"]]
