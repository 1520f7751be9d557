"""TestDFSIO's figures from per-task bytes and milliseconds, computed as TestDFSIO does.

TestDFSIO (Hadoop 3.4.2) keeps its accumulators in 32-bit floats and prints
with DecimalFormat("#.##") (half-even rounding); we do the same so that the
same task timings give the same printed figures. Its "Throughput mb/sec"
divides total MB by the *sum* of the tasks' seconds: it is a per-task rate,
not the cluster's; `aggregate_throughput_mb_s` (total MB / wall seconds) is
the cluster-wide figure the studies plot.
"""

from dataclasses import dataclass
from decimal import Decimal, ROUND_HALF_EVEN

import numpy as np

from ..units import MB
from .base import IORoles, Measurement, Metric, Param, Workload, define_metrics

ORDER = 20

MEGA = np.float32(1 << 20)
f32 = np.float32


@dataclass(frozen=True)
class DfsioFigures:
    files: int
    total_mb: float
    throughput_mb_s: float
    avg_io_rate_mb_s: float
    io_rate_std_dev_mb_s: float
    exec_time_s: float
    aggregate_throughput_mb_s: float

    def printed(self) -> dict[str, str]:
        """The figures as TestDFSIO prints them ("#.##")."""
        return {
            "Number of files": str(self.files),
            "Total MBytes processed": hadoop_decimal(self.total_mb),
            "Throughput mb/sec": hadoop_decimal(self.throughput_mb_s),
            "Average IO rate mb/sec": hadoop_decimal(self.avg_io_rate_mb_s),
            "IO rate std deviation": hadoop_decimal(self.io_rate_std_dev_mb_s),
            "Test exec time sec": hadoop_decimal(self.exec_time_s),
        }


def hadoop_decimal(x: float) -> str:
    """Java's DecimalFormat("#.##").format(double): half-even, no trailing zeros."""
    d = Decimal(float(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
    s = format(d, "f").rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def dfsio_figures(task_bytes: list[int], task_ms: list[int], exec_ms: int) -> DfsioFigures:
    if not task_bytes or len(task_bytes) != len(task_ms):
        raise ValueError("DFSIO needs one (bytes, ms) pair per task")
    rate = f32(0)
    sqrate = f32(0)
    for size, ms in zip(task_bytes, task_ms):
        # collectStats: float ioRateMbSec = (float)totalSize * 1000 / (execTime * MEGA)
        io_rate = f32(f32(size) * f32(1000)) / f32(max(ms, 1) * int(MEGA))
        rate = f32(rate + f32(io_rate * f32(1000)))
        sqrate = f32(sqrate + f32(f32(io_rate * io_rate) * f32(1000)))
    tasks = len(task_bytes)
    size = sum(task_bytes)
    time_ms = sum(task_ms)
    total_mb = f32(size) / MEGA
    med = float(f32(f32(rate / f32(1000)) / f32(tasks)))
    std = float(np.sqrt(abs(float(f32(f32(sqrate / f32(1000)) / f32(tasks))) - med * med)))
    exec_s = f32(exec_ms) / f32(1000)
    return DfsioFigures(
        files=tasks,
        total_mb=float(total_mb),
        throughput_mb_s=float(total_mb / (f32(max(time_ms, 1)) / f32(1000))),
        avg_io_rate_mb_s=med,
        io_rate_std_dev_mb_s=std,
        exec_time_s=float(exec_s),
        aggregate_throughput_mb_s=float(size) / (1 << 20) / max(exec_ms / 1000.0, 1e-9),
    )


# -- the workloads ----------------------------------------------------------------------------------------------
define_metrics(
    aggregate_throughput_mb_s=Metric("MB/s", "DFSIO: total MB / wall seconds of the job, the cluster-wide rate the studies plot"),
    avg_io_rate_mb_s=Metric("MB/s", "DFSIO: mean of the per-task rates (TestDFSIO 'Average IO rate mb/sec')"),
    io_rate_std_dev_mb_s=Metric("MB/s", "DFSIO: standard deviation of the per-task rates (TestDFSIO 'IO rate std deviation')", False),
    exec_time_s=Metric("s", "DFSIO: the job's wall time as TestDFSIO prints it ('Test exec time sec')", False),
)
_METRICS = ("throughput_mb_s", "aggregate_throughput_mb_s", "avg_io_rate_mb_s", "io_rate_std_dev_mb_s", "exec_time_s",
            "data_mb", "files")


def _size_arg(n: int) -> str:
    return f"{n // MB}MB" if n % MB == 0 else f"{n}B"


class _Dfsio(Workload):
    """TestDFSIO: one task per file; write and read share the figures and the Hadoop invocation."""
    metrics = _METRICS
    headline_throughput = "aggregate_throughput_mb_s"  # the cluster's rate, as the studies plot it
    hadoop_main = "org.apache.hadoop.fs.TestDFSIO"
    writing: bool

    def _files(self, req) -> dict:  # how many files of what size: the writer's parameters
        return req.params if self.writing else req.producer.params

    def data_bytes(self, params, input_bytes):
        return params["files"] * params["file_size"] if self.writing else input_bytes

    def spark_params(self, req):
        f = self._files(req)
        return {"dirs": req.outputs if self.writing else req.inputs, "files": f["files"], "file_bytes": f["file_size"],
                "buffer_bytes": req.params["buffer_size"]}

    def hadoop_command(self, req, mode):
        f, root = self._files(req), (req.outputs or req.inputs)[0]
        conf = {"test.build.data": root}
        if req.params.get("copies", 1) > 1:  # TestDFSIO writes its files itself, under io_data: their copies there
            conf.update({"tierbench.local.replicas": req.params["copies"],
                         "tierbench.local.replicas.under": f"{root}/io_data"})
        return (conf,
                ["-write" if self.writing else "-read", "-nrFiles", str(f["files"]), "-fileSize", _size_arg(f["file_size"]),
                 "-bufferSize", str(req.params["buffer_size"]), "-resFile", str(req.scratch / "TestDFSIO_results.log")])

    def hadoop_result(self, log, req):
        printed = log.dfsio_printed()
        if "Test exec time sec" not in printed:
            raise ValueError("TestDFSIO printed no results (is log4j.properties on the classpath?)")
        sizes, times = log.dfsio_tasks()
        return {"testdfsio": printed, "task_bytes": sizes, "task_ms": times}, float(printed["Test exec time sec"])

    def measure(self, job, wall_s, produced):
        if job.get("task_bytes"):
            fig = dfsio_figures(job["task_bytes"], job["task_ms"], int(round(wall_s * 1000)))
            metrics = {"throughput_mb_s": fig.throughput_mb_s, "aggregate_throughput_mb_s": fig.aggregate_throughput_mb_s,
                       "avg_io_rate_mb_s": fig.avg_io_rate_mb_s, "io_rate_std_dev_mb_s": fig.io_rate_std_dev_mb_s,
                       "exec_time_s": fig.exec_time_s, "data_mb": fig.total_mb, "files": fig.files}
            details = {"task_bytes": job["task_bytes"], "task_ms": job["task_ms"], "testdfsio": fig.printed()}
            if job.get("testdfsio"):
                details["testdfsio_printed"] = job["testdfsio"]  # what upstream TestDFSIO itself printed
            return Measurement(metrics, details)
        # per-task timings not visible (tasks ran in YARN containers): TestDFSIO's own printed figures
        p = {k: float(v.replace(",", "")) for k, v in job["testdfsio"].items()}
        metrics = {"throughput_mb_s": p["Throughput mb/sec"],
                   "aggregate_throughput_mb_s": p["Total MBytes processed"] / max(p["Test exec time sec"], 1e-9),
                   "avg_io_rate_mb_s": p["Average IO rate mb/sec"], "io_rate_std_dev_mb_s": p["IO rate std deviation"],
                   "exec_time_s": p["Test exec time sec"], "data_mb": p["Total MBytes processed"], "files": p["Number of files"]}
        return Measurement(metrics, {"testdfsio": job["testdfsio"]})


class DfsioWrite(_Dfsio):
    name, title = "dfsio-write", "DFSIO write"
    doc = "TestDFSIO write: `files` files of `file_size` each, one task per file, 100% sequential writes."
    params = (Param("files", "count", 4, "files to write, one task each", 1),
              Param("file_size", "size", 64 * MB, "size of each file, e.g. \"64MB\""),
              Param("buffer_size", "size", 1_000_000, "bytes per write call (TestDFSIO's default: 1000000)"),
              Param("copies", "count", 1, "times each file is written: HDFS replication on one node (hadoop engine's "
                    "durable local mode; a scale model sets it from its target)", 1))
    produces = "dfsio-files"
    warm_up_overrides = {"files": 2, "file_size": 8 * MB}
    phases = ("write",)
    io = IORoles(input=None, intermediate=None, output="data_mb")
    spark_job = "Dfsio.write"
    writing = True

    def check_params(self, params, engine_kinds, config_names):
        return self.copies_need_hadoop(params, engine_kinds)

    def scale_params(self, model) -> dict:
        # the node's data by as many writers as its slots (the target's concurrent streams per drive; its waves of
        # files are the same streams again), each file written as many times as the target's HDFS does
        per_file = max(MB, model.data_bytes // model.tasks // MB * MB)
        return {"files": model.tasks, "file_size": per_file, "copies": max(1, round(model.write_copies))}


class DfsioRead(_Dfsio):
    name, title = "dfsio-read", "DFSIO read"
    doc = "TestDFSIO read: reads back the files dfsio-write wrote, one task per file, 100% sequential."
    params = (Param("buffer_size", "size", 1_000_000, "bytes per read call"),)
    consumes, producer = "dfsio-files", "dfsio-write"
    phases = ("read",)
    io = IORoles(input="data_mb", intermediate=None, output=None)
    spark_job = "Dfsio.read"
    writing = False
    verifies = True  # a read that saw fewer files or bytes than were written (a node's local files) fails

    def measure(self, job, wall_s, produced):
        m = super().measure(job, wall_s, produced)
        written, read = produced.get("task_bytes"), job.get("task_bytes")
        if written and read is not None and (len(read) < len(written) or sum(read) != sum(written)):
            m.failure = (f"DFSIO read: read {len(read)} file(s), {sum(read):,} bytes, of the {len(written)} file(s), "
                         f"{sum(written):,} bytes written (were some written on another node's local disk?)")
        return m


WORKLOADS = (DfsioWrite(), DfsioRead())
