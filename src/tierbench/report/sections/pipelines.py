"""Pipelines: the workloads that make one job together (TeraGen + TeraSort + TeraValidate), totalled per repeat."""

from ...analysis import composites
from ...spec.composites import default_pipelines
from .. import charts
from ..context import ReportContext
from ..document import Figure, Paragraph, Section, Table
from ..formats import fmt, interval, usd

PIPELINE_HEAD = ["pipeline", "config", "complete repeats", "total median s", "interval s", "MB/s (data set / total)",
                 "vs baseline", "total $/job"]


def sections(ctx: ReportContext) -> list[Section]:
    spec = ctx.spec
    pipes = composites.pipelines(ctx.analysis, ctx.runs, spec["pipelines"] if "pipelines" in spec
                                 else default_pipelines(spec["workloads"]), ctx.costs)
    if not pipes:
        return []
    sec = Section("Pipelines", 2, [Paragraph(
        "Workloads that make one job together, timed as the sum of their runs in the same repeat (the median of "
        "those totals; a repeat counts when every member ran ok). MB/s is the first member's data set over the "
        "total; $/job adds the members' total $/job (runtime, power and wear all add up).", muted=True)])
    for name in dict.fromkeys(p.pipeline for p in pipes):
        mine = [p for p in pipes if p.pipeline == name]
        svg = charts.pipeline_totals(mine, ctx.colors)
        if svg:
            sec.add(Figure(svg, f"chart-pipeline-{name}", f"median runtime of each member of {name}, stacked, per configuration"))
    priced = any(p.usd_per_job is not None for p in pipes)  # no [cost]: no $ column
    sec.add(Table(PIPELINE_HEAD[:len(PIPELINE_HEAD) - (not priced)],
                  [[p.pipeline, p.config, str(p.runtime.n), f"{p.runtime.median:.2f}", interval(p.runtime),
                    fmt(p.mb_s) if p.mb_s else "–", f"{p.ratio:.2f}x" if p.ratio is not None else "–"]
                   + ([usd(p.usd_per_job) if p.usd_per_job is not None else "–"] if priced else []) for p in pipes]))
    return [sec]
