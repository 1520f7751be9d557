"""Tables: the lakehouse phases (load, maintenance, compaction) per storage configuration, what each wrote, deleted
and left (small files before and after compaction), its S3 requests priced on a cloud price list, and the queries
through the tables after each phase against the first time they ran."""

from ...analysis.lakehouse import table_phases, table_queries
from ...model.cloud_catalog import load_catalog
from ...model.cloud_cost import request_cost_usd
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import usd

PRICED_ON = "aws"  # the shipped price list the $ column uses (model/cloud.toml)
FORMAT_NAMES = {"iceberg": "Iceberg", "delta": "Delta Lake"}
PHASE_HEAD = ["variant", "phase", "runs", "time s", "files written", "MB written", "files deleted", "MB deleted",
              "data files", "small files", "metadata files", "delete files live", "snapshots"]
REQUEST_HEAD = ["variant", "phase", "GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST", "requests $"]
QUERY_HEAD = ["variant", "queries", "runs", "queries s", "vs the first", "data files live", "delete files live", "snapshots"]


def _n(x) -> str:
    return "–" if x is None else f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def _with_format(head: list[str], rows: list[list[str]], formats: list[str], shown: bool):
    """A format column after the phase's, when the study has tables of more than one format."""
    if not shown:
        return head, rows
    return [*head[:2], "format", *head[2:]], [[*r[:2], FORMAT_NAMES.get(f, f), *r[2:]] for r, f in zip(rows, formats)]


def sections(ctx: ReportContext) -> list[Section]:
    phases, queries = table_phases(ctx.runs), table_queries(ctx.runs)
    if not phases and not queries:
        return []
    formats = list(dict.fromkeys(x.format for x in (*phases, *queries)))
    several = len(formats) > 1
    sec = Section("Tables", 2, [Paragraph(
        f"Lakehouse tables ({', '.join(FORMAT_NAMES.get(f, f) for f in formats)}) on each storage configuration, phase "
        "by phase (medians over repeats): the time of the phase's statements, the files and bytes it added and removed "
        "under the tables' directories (listed before and after), and what it left: data files (delete files included) "
        "and those under the workload's small_file_size, metadata files, the delete files and snapshots the tables keep"
        + (" (Delta: deletion vector files, and the versions its log keeps)" if "delta" in formats else "") + ".",
        muted=True)])
    if phases:
        sec.add(Table(*_with_format(PHASE_HEAD, [[p.variant, p.label, str(p.runs), f"{p.table_s:.2f}",
                                    *(_n(p.metrics.get(k)) if "files" in k or k == "snapshots" else f"{p.metrics.get(k) or 0:.2f}"
                                      for k in ("files_written", "written_mb", "files_deleted", "deleted_mb", "data_files",
                                                "small_files", "metadata_files", "live_delete_files", "snapshots"))]
                                   for p in phases], [p.format for p in phases], several)))
    priced = [p for p in phases if p.requests is not None]
    if priced:
        store = load_catalog()[PRICED_ON].store
        rows = [[p.variant, p.label, *(_n(p.requests[k]) for k in REQUEST_HEAD[2:9]),
                 usd(request_cost_usd(p.requests, store.usd_per_1000))] for p in priced]
        sec.add(Paragraph(f"On object storage, each phase's requests by kind (S3A's own counts, medians per run) and what "
                          f"they would cost at {store.name}'s request prices ({PRICED_ON}, model/cloud.toml, read "
                          f"{store.read}); the listings that measure the files use their own client and are not counted.",
                          muted=True), Table(*_with_format(REQUEST_HEAD, rows, [p.format for p in priced], several)))
    if queries:
        cold = "" if ctx.spec.get("warm_up", True) else (
            " This study was not warmed up (warm_up = false): the first listing's time includes the application's "
            "first queries (class loading, JIT), so the later ones look faster than the tables make them.")
        rows = [[q.variant, q.label, str(q.runs), f"{q.queries_s:.2f}", f"{q.vs_first:.2f}x", _n(q.live_data_files),
                 _n(q.live_delete_files), _n(q.snapshots)] for q in queries]
        sec.add(Paragraph("The queries through the tables, each listing of table-sql in the study's order: its queries' "
                          "time against the variant's first listing" + (" of the same format" if several else "")
                          + " (above 1: slower), with what the tables held then." + cold, muted=True),
                Table(*_with_format(QUERY_HEAD, rows, [q.format for q in queries], several)))
    return [sec]
