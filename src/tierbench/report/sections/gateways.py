"""Gateways and requests: how many S3 gateways behind HAProxy served each run and how HAProxy spread the requests;
and the requests S3A itself made of the object store per run, by HTTP kind (what a cloud store bills)."""

from ...analysis.object_requests import KINDS, object_requests
from ...analysis.tables import gateway_use
from ..context import ReportContext
from ..document import Bullets, Paragraph, Section, Table

GATEWAY_HEAD = ["workload", "config", "balancer", "gateways serving", "requests per gateway", "runtime s (median)", "MB/s (median)"]
REQUESTS_HEAD = ["workload", "config", "runs", *KINDS, "total", "per GB moved", "HAProxy's count"]


def sections(ctx: ReportContext) -> list[Section]:
    return [*_gateways(ctx), *_requests(ctx)]


def _gateways(ctx: ReportContext) -> list[Section]:
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


def _count(n: float) -> str:
    return f"{n:.0f}" if n == int(n) else f"{n:.1f}"


def _requests(ctx: ReportContext) -> list[Section]:
    found = object_requests(ctx.runs, ctx.configs, ctx.workloads)
    if not found:
        return []
    rows = [[o.workload, o.config, str(o.runs), *(_count(o.by_kind[k]) for k in KINDS), _count(o.total),
             f"{o.per_gb:.0f}" if o.per_gb is not None else "–", _count(o.balancer) if o.balancer is not None else "–"]
            for o in found]
    gaps = list(dict.fromkeys(f"{o.workload} on {o.config}: not counted: {g}" for o in found for g in o.not_covering))
    return [Section("Object store requests", 2, [
        Paragraph("The HTTP requests S3A made of the object store in each run, by kind, from its own statistics "
                  "(details.s3a_requests; docs/results.md maps S3A's counters to the kinds): medians per run, the total "
                  "per GB the run read and wrote on its data storage, and, when the run went through HAProxy, the "
                  "requests HAProxy counted in the same runs (which also sees what S3A does not count).", muted=True),
        Table(REQUESTS_HEAD, rows), *([Bullets(gaps)] if gaps else [])])]
