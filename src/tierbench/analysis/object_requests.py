"""Requests to the object store per run, from the records' `details.s3a_requests` (S3A's own counts by HTTP kind,
engines/s3a_requests.py): medians per (workload, configuration), per GB the run moved on its data storage, and
HAProxy's count of the same runs beside them (its lbtot over the gateways, when the run went through it)."""

import statistics
from dataclasses import dataclass

from ..store import StoredRun
from .tables import ok_runs_per_pair

KINDS = ("GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST")  # the record's keys (docs/results.md)


@dataclass(frozen=True)
class ObjectRequests:
    """One (workload, configuration)'s S3 requests, over its ok runs that counted them."""
    workload: str
    config: str
    runs: int
    by_kind: dict[str, float]  # median requests per run, per kind
    total: float  # median of the runs' totals
    per_gb: float | None  # median of total / GB moved (input + output on the data storage), when it moved any
    balancer: float | None  # median of the requests HAProxy gave the gateways in the same runs, when recorded
    not_covering: tuple[str, ...]  # what the counts leave out (the runs' `s3a_not_covering`, each once)


def _counted(run: StoredRun) -> dict[str, int] | None:
    counts = run.details.get("s3a_requests")
    if not isinstance(counts, dict):
        return None
    return {k: int(counts.get(k) or 0) for k in KINDS}


def _balancer_total(run: StoredRun) -> int | None:
    gateways = run.details.get("gateways")
    requests = gateways.get("requests") if isinstance(gateways, dict) else None
    return sum(requests.values()) if isinstance(requests, dict) and requests else None


def _gb_moved(run: StoredRun) -> float:
    return ((run.io.get("input_mb") or 0) + (run.io.get("output_mb") or 0)) / 1024


def object_requests(runs: list[StoredRun], configs: list[str], workloads: list[str]) -> list[ObjectRequests]:
    out = []
    for wl, config, ok in ok_runs_per_pair(runs, configs, workloads, _counted):
        counts = [_counted(r) for r in ok]
        totals = [sum(c.values()) for c in counts]
        per_gb = [t / _gb_moved(r) for t, r in zip(totals, ok) if _gb_moved(r) > 0]
        balancer = [n for n in map(_balancer_total, ok) if n is not None]
        gaps = dict.fromkeys(g for r in ok for g in (r.details.get("s3a_not_covering") or []))
        out.append(ObjectRequests(wl, config, len(ok), {k: statistics.median(c[k] for c in counts) for k in KINDS},
                                  statistics.median(totals), statistics.median(per_gb) if per_gb else None,
                                  statistics.median(balancer) if balancer else None, tuple(gaps)))
    return out
