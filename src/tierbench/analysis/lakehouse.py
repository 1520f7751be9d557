"""The lakehouse tables' phases (workloads/tables.py) from stored records: per variant and phase (a table workload's
label, in the study's order), the medians over repeats of its time, the files and bytes it wrote and deleted, the
data, small and metadata files it left, and its S3 requests by kind; and the queries through the tables, each
listing's time against the first of the same format's (how much the maintenance degraded them, how much compaction
gave back). Each carries its table format (the workload's `format`: Iceberg or Delta Lake)."""

import statistics
from dataclasses import dataclass

from ..store import StoredRun
from .object_requests import KINDS

TABLE_PHASES = ("table-load", "table-maintain", "table-optimize")
TABLE_QUERIES = "table-sql"


@dataclass(frozen=True)
class TablePhase:
    """One (variant, table workload label)'s medians over its ok runs."""
    variant: str
    label: str
    workload: str
    format: str
    runs: int
    table_s: float
    metrics: dict[str, float]  # the phase's metrics (workloads/tables.py PHASE_METRICS), medians
    requests: dict[str, float] | None  # S3 requests per kind, medians (None: not on S3A)


@dataclass(frozen=True)
class TableQueries:
    """One (variant, table-sql label)'s queries: median time, against the variant's first table-sql listing of the
    same table format."""
    variant: str
    label: str
    format: str
    runs: int
    queries_s: float
    vs_first: float  # queries_s / the variant's first table-sql's queries_s (of this format)
    live_data_files: float | None
    live_delete_files: float | None
    snapshots: float | None


def _groups(runs: list[StoredRun], workloads) -> dict[tuple[str, str], list[StoredRun]]:
    groups: dict[tuple[str, str], list[StoredRun]] = {}
    for r in runs:  # (in the study's order: runs are stored as they ran)
        if r.status == "ok" and r.workload in workloads:
            groups.setdefault((r.variant, r.label), []).append(r)
    return groups


def _format(rs: list[StoredRun]) -> str:
    return (rs[0].params or {}).get("format", "iceberg")  # (records from before Delta: Iceberg's)


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def table_phases(runs: list[StoredRun]) -> list[TablePhase]:
    out = []
    for (variant, label), rs in _groups(runs, TABLE_PHASES).items():
        names = dict.fromkeys(k for r in rs for k in r.metrics)
        metrics = {k: _median(r.metrics.get(k) for r in rs) for k in names}
        counted = [r.details["s3a_requests"] for r in rs if isinstance(r.details.get("s3a_requests"), dict)]
        requests = {k: statistics.median(int(c.get(k) or 0) for c in counted) for k in KINDS} if counted else None
        out.append(TablePhase(variant, label, rs[0].workload, _format(rs), len(rs), metrics.get("table_s") or 0.0,
                              metrics, requests))
    return out


def table_queries(runs: list[StoredRun]) -> list[TableQueries]:
    out, first = [], {}
    for (variant, label), rs in _groups(runs, (TABLE_QUERIES,)).items():
        q, fmt = statistics.median(r.metrics["queries_s"] for r in rs), _format(rs)
        base = first.setdefault((variant, fmt), q)
        state = lambda key: _median((r.details.get("table_state") or {}).get(key) for r in rs)
        out.append(TableQueries(variant, label, fmt, len(rs), q, q / base if base > 0 else 1.0,
                                state("live_data_files"), state("live_delete_files"), state("snapshots")))
    return out
