"""What one run measured, as the analysis and the report compare it: its runtime, its throughput and the
variant it belongs to. One rule each, from the facts its workload declares (workloads/base.py); no numpy, so
that the per-run observations (observation.py) can use them without the statistics' imports."""

from ..store import StoredRun
from ..workloads import WORKLOADS


def runtime_of(record: StoredRun) -> float:
    """The run's runtime as the report compares it: its workload's headline metric when it has one and the run
    recorded it (SQL: the queries' time, without registering the tables), else the wall time."""
    wl = WORKLOADS.get(record.workload)
    key = wl.headline if wl else None
    return record.metrics[key] if key and key in (record.metrics or {}) else record.wall_s


def throughput_of(record: StoredRun) -> float | None:
    """The run's throughput as the report compares it: its workload's headline throughput (DFSIO: the aggregate,
    total MB / wall s) when the run recorded it, else its throughput_mb_s; None when it has neither."""
    wl = WORKLOADS.get(record.workload)
    metrics = record.metrics
    return metrics.get(wl.headline_throughput if wl else "throughput_mb_s", metrics.get("throughput_mb_s"))


def variant_of(record: StoredRun) -> str:
    """The compared unit: the storage configuration, or config@engine in a study of several engines."""
    return record.variant or record.config
