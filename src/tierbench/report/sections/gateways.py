"""Gateways: how many S3 gateways behind HAProxy served each run, and how HAProxy spread the requests."""

from ...analysis.tables import gateway_use
from ..context import ReportContext
from ..document import Paragraph, Section, Table

GATEWAY_HEAD = ["workload", "config", "balancer", "gateways serving", "requests per gateway", "runtime s (median)", "MB/s (median)"]


def sections(ctx: ReportContext) -> list[Section]:
    rows = [[g.workload, g.config, g.balancer, str(g.serving),
             ", ".join(f"{name} {n}" for name, n in g.requests.items()) or g.endpoint or "–",
             f"{g.runtime_s:.2f}", f"{g.mb_s:.1f}" if g.mb_s is not None else "–"]
            for g in gateway_use(ctx.runs, ctx.configs, ctx.workloads)]
    if not rows:
        return []
    return [Section("Gateways", 2, [
        Paragraph("S3 behind HAProxy (storage `gateways`, `balancer`): how many gateways served each run and how many "
                  "requests HAProxy gave each (its lbtot counter, added over the runs); 'none' went straight to one "
                  "gateway. Runtime (as compared everywhere: a SQL run's is its queries' time) and throughput: medians "
                  "over the runs. A gateway count that no longer raises throughput is the study's 'stops scaling' point.",
                  muted=True),
        Table(GATEWAY_HEAD, rows)])]
