"""Working set vs memory: planned from the spec, each workload's data set and shuffle against a node's memory."""

from ...analysis.validity import working_sets
from ...units import format_size
from ..context import ReportContext
from ..document import Paragraph, Section, Table

WORKING_SET_HEAD = ["workload", "engine", "data set", "nodes", "RAM per node", "fits in RAM", "shuffle", "task memory",
                    "shuffle in memory", "would not fit from"]


def sections(ctx: ReportContext) -> list[Section]:
    rows = working_set_rows(ctx.spec, ctx.machine)
    if not rows:
        return []
    return [Section("Working set vs memory", 2, [
        Paragraph("Planned from the spec (before the runs): the data set each workload reads or writes per node, against "
                  "a node's RAM; its shuffle against the execution memory of one executor (Spark: (heap - 300 MB) x 0.6). "
                  "Data that fits in RAM is served by the page cache unless it is dropped; durable mode still times "
                  "every write to the device.", muted=True),
        Table(WORKING_SET_HEAD, rows)])]


def working_set_rows(spec, machine) -> list[list[str]]:
    rows = []
    for w in working_sets(spec, machine):
        p = w.placement
        size = lambda b: format_size(b) if b else "–"
        rows.append([w.workload, w.engine, size(w.data_bytes), str(p.nodes) if p.nodes else f"? ({p.where})",
                     size(p.ram_bytes), f"{w.fits_times:,.0f}x over" if w.fits_times and w.fits_times >= 1
                     else ("no" if w.fits_times else "–"), size(w.shuffle_bytes), size(p.task_memory),
                     {True: "yes (no spill)", False: "no (spills)", None: "–"}[w.shuffle_in_memory], size(w.would_not_fit)])
    return rows
