"""Intermediate data per node: what each job wrote as shuffle and spills, to size a device for it."""

from ...analysis import composites
from ...units import format_size
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import share

INTERMEDIATE_HEAD = ["workload", "config", "data set (read)", "intermediate written", "of the data set", "nodes",
                     "per node (largest)", "SSD per node for it (x1.5)", "measured by"]


def sections(ctx: ReportContext) -> list[Section]:
    from ...model.advise import HEADROOM

    rows = composites.intermediate_per_node(ctx.analysis, ctx.runs)
    if not rows:
        return []
    return [Section("Intermediate data per node", 2, [
        Paragraph("What each job wrote as intermediate data (shuffle files and spills), to size a device for it: the "
                  "SanDisk study found about 60% of the data set. 'engine': Spark's shuffle-write and spill metrics "
                  "(per executor host on a cluster); 'model': the workload's own count. Median over runs; the SSD "
                  f"column allows x{HEADROOM:g} for a second job and file-system slack.", muted=True),
        Table(INTERMEDIATE_HEAD, [[r.workload, r.config, format_size(r.data_set_bytes) if r.data_set_bytes else "–",
                                   format_size(r.written_bytes), share(r.share_of_data_set),
                                   str(r.nodes), format_size(r.per_node_bytes), format_size(r.per_node_bytes * HEADROOM),
                                   r.source] for r in rows])])]
