"""What each workload is, which parameters it takes and what it measures.

A workload is engine-neutral: it names its parameters (with units and
defaults), the data set it produces or consumes, and the metrics it reports.
Engines (tierbench.engines) declare which workloads they can run.
Every metric is defined once, here, with its unit and formula.
"""

from dataclasses import dataclass, field

from ..units import parse_size, MB


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "count" (integer >= minimum), "size" (bytes, written with units) or "choice"
    default: object
    doc: str
    minimum: int = 0
    choices: tuple = ()

    def parse(self, value):
        """The parameter's value in canonical form; ValueError saying what is accepted."""
        if self.kind == "size":
            return parse_size(value)
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"expected one of {', '.join(map(repr, self.choices))}, got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected a whole number >= {self.minimum}, got {value!r}")
        if value < self.minimum:
            raise ValueError(f"must be >= {self.minimum}, got {value}")
        return value


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    doc: str
    params: tuple[Param, ...] = ()
    produces: str | None = None  # name of the data set it writes
    consumes: str | None = None  # name of the data set it reads
    producer: str | None = None  # the workload that writes what this one consumes
    metrics: tuple[str, ...] = ()
    verifies: bool = False  # its result can fail the run (e.g. a wrong checksum)
    engines: tuple[str, ...] = ("spark", "hadoop")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Metric:
    unit: str
    doc: str
    higher_is_better: bool = True


METRICS: dict[str, Metric] = {
    "data_mb": Metric("MB", "data the job read or wrote, in MB of 2^20 bytes"),
    "rows": Metric("rows", "100-byte rows generated, sorted or validated"),
    "throughput_mb_s": Metric(
        "MB/s",
        "for Tera jobs: data_mb / wall_s. For DFSIO: TestDFSIO's 'Throughput mb/sec' = "
        "total MB / sum of the tasks' seconds, a per-task rate (not the cluster's)",
    ),
    "aggregate_throughput_mb_s": Metric(
        "MB/s", "DFSIO: total MB / wall seconds of the job, the cluster-wide rate the studies plot"
    ),
    "avg_io_rate_mb_s": Metric("MB/s", "DFSIO: mean of the per-task rates (TestDFSIO 'Average IO rate mb/sec')"),
    "io_rate_std_dev_mb_s": Metric(
        "MB/s", "DFSIO: standard deviation of the per-task rates (TestDFSIO 'IO rate std deviation')", False
    ),
    "exec_time_s": Metric("s", "DFSIO: the job's wall time as TestDFSIO prints it ('Test exec time sec')", False),
    "files": Metric("files", "DFSIO: number of files, one task each"),
    "error_count": Metric("errors", "TeraValidate: misordered rows and bad partition boundaries (0 when valid)", False),
    "map_tasks": Metric("tasks", "TeraSort: input splits read"),
    "reduce_tasks": Metric("tasks", "TeraSort: range partitions written"),
    "tasks": Metric("tasks", "TeraGen: generating tasks (output files)"),
    "process_s": Metric("s", "hadoop engine: the job's whole JVM process, start to exit (wall_s is the job itself)", False),
    "spilled_records": Metric("records", "hadoop engine: job counter Spilled Records", False),
    "shuffle_mb": Metric("MB", "hadoop engine: job counter Reduce shuffle bytes", False),
    "cpu_s": Metric("s", "hadoop engine: job counter CPU time spent (0 in local mode)", False),
    "gc_s": Metric("s", "hadoop engine: job counter GC time elapsed", False),
    "file_read_mb": Metric("MB", "hadoop engine: job counter FILE: Number of bytes read"),
    "file_written_mb": Metric("MB", "hadoop engine: job counter FILE: Number of bytes written"),
    "hdfs_read_mb": Metric("MB", "hadoop engine: job counter HDFS: Number of bytes read"),
    "hdfs_written_mb": Metric("MB", "hadoop engine: job counter HDFS: Number of bytes written"),
}

_TERA_ROWS = Param("rows", "count", 1_000_000, "rows of 100 bytes to generate (or give `size`)", 1)
_TERA_SIZE = Param("size", "size", None, "data to generate, e.g. \"1GB\" (rows = size / 100); overrides rows")

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            "teragen",
            "TeraGen",
            "Writes rows of Hadoop's TeraSort format (10-byte random key from the 128-bit LCG "
            "Random16, row id, filler), byte-identical to Hadoop's TeraGen.",
            (_TERA_ROWS, _TERA_SIZE, Param("tasks", "count", 0, "writing tasks = output files (0: one per 64 MB, at least 2)"),
             Param("filler", "choice", "hadoop", "\"hadoop\": rows byte-identical to Hadoop's TeraGen (compress to ~1/3); "
                   "\"random\": incompressible filler (Spark engine only)", choices=("hadoop", "random"))),
            produces="tera-input",
            metrics=("rows", "data_mb", "throughput_mb_s", "tasks"),
        ),
        Workload(
            "terasort",
            "TeraSort",
            "Samples keys, range-partitions, shuffles and sorts TeraGen's rows, and writes them in Tera format.",
            (
                Param("partitions", "count", 0, "reduce partitions = output files (0: one per input split)"),
                Param("split_size", "size", 128 * MB, "bytes of input per map task"),
            ),
            consumes="tera-input",
            producer="teragen",
            produces="tera-output",
            metrics=("rows", "data_mb", "throughput_mb_s", "map_tasks", "reduce_tasks"),
        ),
        Workload(
            "teravalidate",
            "TeraValidate",
            "Checks TeraSort's output: every file in key order, files in order, and the checksum "
            "(sum of the rows' CRC-32s) equal to TeraGen's. A mismatch fails the run.",
            (),
            consumes="tera-output",
            producer="terasort",
            metrics=("rows", "data_mb", "throughput_mb_s", "error_count"),
            verifies=True,
        ),
        Workload(
            "dfsio-write",
            "DFSIO write",
            "TestDFSIO write: `files` files of `file_size` each, one task per file, 100% sequential writes.",
            (
                Param("files", "count", 4, "files to write, one task each", 1),
                Param("file_size", "size", 64 * MB, "size of each file, e.g. \"64MB\""),
                Param("buffer_size", "size", 1_000_000, "bytes per write call (TestDFSIO's default: 1000000)"),
            ),
            produces="dfsio-files",
            metrics=("throughput_mb_s", "aggregate_throughput_mb_s", "avg_io_rate_mb_s",
                     "io_rate_std_dev_mb_s", "exec_time_s", "data_mb", "files"),
        ),
        Workload(
            "dfsio-read",
            "DFSIO read",
            "TestDFSIO read: reads back the files dfsio-write wrote, one task per file, 100% sequential.",
            (Param("buffer_size", "size", 1_000_000, "bytes per read call"),),
            consumes="dfsio-files",
            producer="dfsio-write",
            metrics=("throughput_mb_s", "aggregate_throughput_mb_s", "avg_io_rate_mb_s",
                     "io_rate_std_dev_mb_s", "exec_time_s", "data_mb", "files"),
        ),
    )
}


def get_workload(name: str) -> Workload | None:
    return WORKLOADS.get(name)
