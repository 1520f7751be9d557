"""What one run measured, as the analysis and the report compare it: its runtime, its throughput and the
variant it belongs to. One rule each, from the facts its workload declares (workloads/base.py); no numpy, so
that the per-run observations (observation.py) can use them without the statistics' imports."""

from ..workloads import WORKLOADS


def runtime_of(record: dict) -> float:
    """The run's runtime as the report compares it: its workload's headline metric when it has one and the run
    recorded it (SQL: the queries' time, without registering the tables), else the wall time."""
    wl = WORKLOADS.get(record.get("workload"))
    key = wl.headline if wl else None
    return record["metrics"][key] if key and key in (record.get("metrics") or {}) else record["wall_s"]


def throughput_of(record: dict) -> float | None:
    """The run's throughput as the report compares it: its workload's headline throughput (DFSIO: the aggregate,
    total MB / wall s) when the run recorded it, else its throughput_mb_s; None when it has neither."""
    wl = WORKLOADS.get(record.get("workload"))
    metrics = record["metrics"]
    return metrics.get(wl.headline_throughput if wl else "throughput_mb_s", metrics.get("throughput_mb_s"))


def variant_of(record: dict) -> str:
    """The compared unit: the storage configuration, or config@engine in a study of several engines."""
    return record.get("variant") or record["config"]
