"""A section per sweep of the spec: median wall time against the swept knob, as a chart and a table."""

from ...analysis.tables import sweep_medians
from .. import charts
from ..context import ReportContext
from ..document import Figure, Section, Table
from ..formats import fmt


def sections(ctx: ReportContext) -> list[Section]:
    out = []
    for i, sw in enumerate(ctx.spec.get("sweeps") or []):
        sec = Section(f"Sweep of {sw['knob']} ({sw['level']} {sw['base']})", 2)
        series = sweep_medians(sw, ctx.runs)
        svg = charts.sweep_lines(sw, series, ctx.colors)
        if svg:
            sec.add(Figure(svg, f"chart-sweep-{i}", f"median wall time against {sw['knob']}, a line per series (the numbers "
                                                     "are in the table below)"))
        sec.add(Table(*_sweep_table(sw, series)))
        out.append(sec)
    return out


def _sweep_table(sweep, series) -> tuple[list[str], list[list[str]]]:
    values = [str(m["value"]).lower() if isinstance(m["value"], bool) else str(m["value"]) for m in sweep["members"]]
    head = ["workload", "line"] + [f"{sweep['knob']} = {v} (s)" for v in values]
    return head, [[panel, line] + [fmt(y) for y in ys] for panel, lines in series.items() for line, ys in lines.items()]
