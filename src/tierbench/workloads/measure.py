"""From an engine's raw job result to a run's named metrics (units in the names)."""

from dataclasses import dataclass, field

from ..units import MB
from .dfsio import dfsio_figures


@dataclass
class Measurement:
    metrics: dict[str, float]
    details: dict = field(default_factory=dict)  # non-numeric facts: checksum, per-task times, errors
    failure: str | None = None  # set when the job ran but its result is wrong


def measure(workload: str, job: dict, wall_s: float, producer_details: dict | None = None) -> Measurement:
    m = _measure(workload, job, wall_s, producer_details)
    # engine-side facts that come with any workload (Hadoop's job counters, the JVM's whole time)
    m.metrics.update(job.get("counter_metrics", {}))
    if "process_s" in job:
        m.metrics["process_s"] = job["process_s"]
    if job.get("counters"):
        m.details["counters"] = job["counters"]
    return m


def _measure(workload: str, job: dict, wall_s: float, producer_details: dict | None) -> Measurement:
    if workload in ("dfsio-write", "dfsio-read"):
        if job.get("task_bytes"):
            fig = dfsio_figures(job["task_bytes"], job["task_ms"], int(round(wall_s * 1000)))
            metrics = {
                "throughput_mb_s": fig.throughput_mb_s,
                "aggregate_throughput_mb_s": fig.aggregate_throughput_mb_s,
                "avg_io_rate_mb_s": fig.avg_io_rate_mb_s,
                "io_rate_std_dev_mb_s": fig.io_rate_std_dev_mb_s,
                "exec_time_s": fig.exec_time_s,
                "data_mb": fig.total_mb,
                "files": fig.files,
            }
            details = {"task_bytes": job["task_bytes"], "task_ms": job["task_ms"], "testdfsio": fig.printed()}
            if job.get("testdfsio"):
                details["testdfsio_printed"] = job["testdfsio"]  # what upstream TestDFSIO itself printed
            return Measurement(metrics, details)
        # per-task timings not visible (tasks ran in YARN containers): TestDFSIO's own printed figures
        p = {k: float(v.replace(",", "")) for k, v in job["testdfsio"].items()}
        metrics = {
            "throughput_mb_s": p["Throughput mb/sec"],
            "aggregate_throughput_mb_s": p["Total MBytes processed"] / max(p["Test exec time sec"], 1e-9),
            "avg_io_rate_mb_s": p["Average IO rate mb/sec"],
            "io_rate_std_dev_mb_s": p["IO rate std deviation"],
            "exec_time_s": p["Test exec time sec"],
            "data_mb": p["Total MBytes processed"],
            "files": p["Number of files"],
        }
        return Measurement(metrics, {"testdfsio": job["testdfsio"]})

    rows = int(job["rows"])
    data_mb = rows * 100 / MB
    metrics = {"rows": rows, "data_mb": data_mb, "throughput_mb_s": data_mb / max(wall_s, 1e-9)}
    details = {"rows": rows}
    failure = None
    if workload == "teragen":
        metrics["tasks"] = job["tasks"]
        details["checksum"] = job["checksum"]
    elif workload == "terasort":
        metrics["map_tasks"] = job["map_tasks"]
        metrics["reduce_tasks"] = job["reduce_tasks"]
        if "partition_rows" in job:
            details["partition_rows"] = job["partition_rows"]
    elif workload == "teravalidate":
        metrics["error_count"] = job["error_count"]
        details["checksum"] = job["checksum"]
        details["errors"] = job["errors"]
        problems = list(job["errors"][:3])
        if job["error_count"]:
            problems.insert(0, f"{job['error_count']} ordering error(s)")
        expected = (producer_details or {}).get("expected_checksum")
        expected_rows = (producer_details or {}).get("expected_rows")
        if expected is not None and job["checksum"] != expected:
            problems.append(f"checksum {job['checksum']} differs from TeraGen's {expected}")
        if expected_rows is not None and rows != expected_rows:
            problems.append(f"{rows} rows where TeraGen wrote {expected_rows}")
        if problems:
            failure = "TeraValidate: " + "; ".join(problems)
    return Measurement(metrics, details, failure)
