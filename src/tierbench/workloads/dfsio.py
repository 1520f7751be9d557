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
