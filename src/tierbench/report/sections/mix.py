"""Workload mix: Cloudera's cost per performance (price x the mix's runtime) beside cost per capacity."""

from ...analysis import composites
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import baseline_words, usd

MIX_HEAD = ["config", "mix runtime s (weighted)", "vs baseline", "$ per mix", "$/performance vs baseline",
            "$ per usable TB vs baseline"]


def sections(ctx: ReportContext) -> list[Section]:
    weights = ctx.spec.get("mix") or {}
    mixed = composites.mix(ctx.analysis, weights, ctx.costs)
    if not mixed:
        return []
    x = lambda v: f"{v:.2f}x" if v is not None else "–"
    return [Section("Workload mix", 2, [
        Paragraph("The spec's [mix]: " + ", ".join(f"{w} x {k:g}" for w, k in weights.items()) + ". Its runtime is the "
                  "weighted sum of the workloads' median runtimes; $/performance is price x that runtime, and $ per usable TB "
                  f"price / capacity after replication, both as multiples of {baseline_words(ctx.analysis)}'s: a tier can cost "
                  "little more per unit of work while costing many times more per TB.", muted=True),
        Table(MIX_HEAD, [[m.config, f"{m.seconds:.2f}", x(m.ratio), usd(m.usd_per_mix) if m.usd_per_mix is not None else "–",
                          x(m.perf_cost_ratio), x(m.tb_cost_ratio)] for m in mixed])])]
