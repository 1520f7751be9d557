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

    if workload in OTHER:
        return OTHER[workload](job, wall_s, producer_details or {})
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


# -- the workloads beyond Tera and DFSIO: each checks its output against what its producer recorded ---------------
TEXT_ALPHABET = set("abcdefghijklmnopqrstuvwxyz \n")  # all textgen ever writes, besides the plant


def _rate(mb: float, wall_s: float) -> dict:
    return {"data_mb": mb, "throughput_mb_s": mb / max(wall_s, 1e-9)}


def _textgen(job, wall_s, _):
    m = {**_rate(job["bytes_generated"] / MB, wall_s), "stored_mb": job["bytes_written"] / MB, "lines": job["lines"],
         "tasks": job["tasks"]}
    if job["words"] is not None:  # Hadoop's RandomTextWriter does not count its words
        m["words"] = job["words"]
    keys = ("words", "lines", "planted", "plant", "bytes_generated", "bytes_written")
    return Measurement(m, {k: job[k] for k in keys} | {"generator": job.get("generator", "tierbench")})


def _wordcount(job, wall_s, produced):
    m = {**_rate(job["bytes_read"] / MB, wall_s), "words": job["words"], "distinct_words": job["distinct_words"],
         "stored_mb": job["bytes_written"] / MB, "map_tasks": job["map_tasks"], "reduce_tasks": job["reduce_tasks"]}
    failure = None
    if produced.get("words") is not None and job["words"] != produced["words"]:
        failure = f"WordCount: the counts total {job['words']} words, but textgen wrote {produced['words']}"
    return Measurement(m, {"words": job["words"], "distinct_words": job["distinct_words"]}, failure)


def grep_expected(pattern: str, plant: str | None, planted: int) -> int | None:
    """The matches grep must find in textgen's text, when that is knowable."""
    if plant and pattern == plant and not set(plant) <= TEXT_ALPHABET:
        return planted  # a plant with a character the text never has can only match where it was planted
    if not set(pattern) <= TEXT_ALPHABET and (not plant or pattern not in plant):
        return 0
    return None


def _grep(job, wall_s, produced):
    m = {**_rate(job["bytes_read"] / MB, wall_s), "matches": job["matches"], "lines": job["lines"],
         "map_tasks": job["map_tasks"]}
    details = {k: job[k] for k in ("matches", "matching_lines", "bytes_scanned", "lines", "pattern")}
    # what the text can hold is known only for tierbench's own generator (Hadoop's draws from its own word list)
    ours = produced.get("generator", "tierbench") == "tierbench" if produced else False
    expected = grep_expected(job["pattern"], produced.get("plant"), produced.get("planted", 0)) if ours else None
    details["expected_matches"] = expected
    failure = None
    if expected is not None and job["matches"] != expected:
        failure = f"Grep: found {job['matches']} matches of {job['pattern']!r}, expected {expected}"
    elif "lines" in produced and job["lines"] != produced["lines"]:
        failure = f"Grep: scanned {job['lines']} lines, textgen wrote {produced['lines']}"
    return Measurement(m, details, failure)


def _shuffle(job, wall_s, _):
    m = {**_rate(job["bytes_shuffled"] / MB, wall_s), "block_kb": job["block_bytes"] / 1024,
         "map_tasks": job["map_tasks"], "reduce_tasks": job["reduce_tasks"]}
    failure = None
    if job["bytes_shuffled"] != job["bytes_expected"]:
        failure = f"Shuffle: reducers received {job['bytes_shuffled']} bytes of the {job['bytes_expected']} the maps sent"
    return Measurement(m, {"reducer_bytes": job["reducer_bytes"]}, failure)


def _datawrite(job, wall_s, _):
    m = {**_rate(job["bytes_written"] / MB, wall_s), "files": job["files"]}
    return Measurement(m, {"file_crc32": job["file_crc32"], "file_bytes": job["file_bytes"], "bytes": job["bytes_written"]})


def _dataread(job, wall_s, produced):
    m = {**_rate(job["bytes_read"] / MB, wall_s), "map_tasks": job["map_tasks"]}
    expected = produced.get("bytes", job["bytes_listed"])
    failure = None
    if job["bytes_read"] != expected:
        failure = f"Data Read: read {job['bytes_read']} bytes of the {expected} written"
    return Measurement(m, {"bytes": job["bytes_read"]}, failure)


def _copy(job, wall_s, produced):
    """Per file (size and CRC-32) where both sides were listed; else the total bytes against what was written
    (Hadoop's DistCp on a remote store: it compares lengths, and checksums where both stores have them, itself)."""
    m = {**_rate(job["bytes_copied"] / MB, wall_s), "files": job["files"], "copy_tasks": job["tasks"]}
    problems = []
    originals, copies = produced.get("file_bytes") or {}, job.get("file_bytes")
    if originals and copies is not None:
        for name, size in originals.items():
            if name not in copies:
                problems.append(f"{name} was not copied")
            elif copies[name] != size:
                problems.append(f"{name}: {copies[name]} bytes in the copy, {size} in the original")
            elif job["file_crc32"][name] != produced["file_crc32"][name]:
                problems.append(f"{name}: CRC-32 {job['file_crc32'][name]} in the copy, {produced['file_crc32'][name]} in the original")
        checked = f"{len(originals)} files: size and CRC-32"
    else:
        total = sum(copies.values()) if copies is not None else job["bytes_copied"]
        if produced.get("bytes") is not None and total != produced["bytes"]:
            problems.append(f"{total} bytes in the copy, {produced['bytes']} written")
        checked = "total bytes" if produced.get("bytes") is not None else "nothing to compare with"
    failure = f"Copy: {len(problems)} difference(s): " + "; ".join(problems[:3]) if problems else None
    return Measurement(m, {"file_crc32": job.get("file_crc32"), "file_bytes": copies, "checked": checked}, failure)


def _sqlgen(job, wall_s, _):
    m = {"stored_mb": job["bytes_written"] / MB, "gen_s": job["gen_s"], "upload_s": job["upload_s"]}
    return Measurement(m, {"tables": job["tables"]})


def _sql(job, wall_s, _):
    qs = job["queries"]
    m = {"queries_s": sum(q["ms"] for q in qs) / 1000, "queries": len(qs)}
    if "bytes_read" in job:
        m["data_mb"] = job["bytes_read"] / MB
    details = {"queries": [{"name": q["name"], "s": q["ms"] / 1000, "rows": q["rows"]} for q in qs]}
    failure = None
    if "verification" in job:
        details["verification"] = job["verification"]
        bad = {k: v for k, v in job["verification"].items() if v}
        if bad:
            failure = "SQL: Spark's answers not confirmed by DuckDB: " + "; ".join(f"{k}: {v}" for k, v in list(bad.items())[:3])
    return Measurement(m, details, failure)


OTHER = {"textgen": _textgen, "wordcount": _wordcount, "grep": _grep, "shuffle": _shuffle, "datawrite": _datawrite,
         "dataread": _dataread, "copy": _copy, "sqlgen": _sqlgen, "sql": _sql}
