"""The three comparison charts, a section each: normalised runtime, runtime and throughput per workload."""

from .. import charts
from ..context import ReportContext
from ..document import Figure, Section
from ..formats import baseline_words, whiskers


def sections(ctx: ReportContext) -> list[Section]:
    an, colors = ctx.analysis, ctx.colors
    comparison_charts = (  # (figure id, heading, svg or None, caption)
        ("normalised", "Normalised runtime", charts.normalised_runtime(an, colors),
         f"median runtime of each configuration divided by {baseline_words(an)}'s, per workload (below 1.00 is faster; "
         "the numbers are the summary table's last column)"),
        ("runtime", "Runtime",
         charts.per_workload_bars(an, "runtime", ctx.run_values, f"Runtime per workload (bar: median; whiskers: {whiskers(an)}; "
                                  "dots: runs)", "wall time (s)", colors),
         f"median wall time per configuration and workload, whiskers {whiskers(an)}, and every run (the numbers are in the "
         "summary table)"),
        ("throughput", "Throughput",
         charts.per_workload_bars(an, "throughput", ctx.run_values, "Throughput per workload (median; DFSIO: aggregate MB/s)",
                                  "MB/s", colors),
         "median throughput per configuration and workload, MB/s (DFSIO: aggregate)"),
    )
    return [Section(heading, 2, [Figure(svg, f"chart-{key}", caption)])
            for key, heading, svg, caption in comparison_charts if svg]
