"""What one run measured, as the analysis and the report compare it: its runtime, its throughput, the time its
job worked and the variant it belongs to. One rule each, from the facts its workload declares (workloads/base.py); no numpy, so
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


def work_seconds(details: dict, wall_s: float) -> float:
    """The part of a run the job worked: its phases (the engine's map, shuffle, reduce intervals, from the record's
    details), or the whole run when the record has none. What a scale model's runs carry to its target, and what its
    calibration times (scale/)."""
    phases = [p for p in details.get("phases", []) if p.get("level", 1) == 1]
    worked = sum(p["end_ms"] - p["start_ms"] for p in phases) / 1000
    return worked if 0 < worked <= wall_s else wall_s


def active_seconds(run: StoredRun) -> float:
    """work_seconds of a stored run."""
    return work_seconds(run.details, run.wall_s)
