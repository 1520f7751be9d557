"""What a workload is: the facts every workload module declares, and the shared vocabulary (parameters, metrics).

A workload is one class in one module of this package (a family shares a module:
tera, dfsio, text, data, shuffle, sql). It owns everything about itself:
its parameters (defaults, units, validation), which engines run it and how
(the Spark job and its arguments; Hadoop's main class, arguments and result
parsing), its metrics, its output checks, its phase names and its IO roles
(what it reads and writes per data class). Nothing outside this package
branches on a workload's name: engines, sampling, analysis and the report ask
the workload. `tests/test_layout.py` fails when a workload leaves a fact out.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from ..units import MB, parse_size

MAX_COUNT = 1_000_000  # tasks, files, partitions: a million is past any cluster the studies or users run
MAX_SIZE = 1 << 50  # 1 PiB per workload


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "count" (integer >= minimum), "size" (bytes, with units), "choice", "number", "text", "bool", "names"
    default: object
    doc: str
    minimum: int = 0
    choices: tuple = ()
    maximum: int | None = None  # counts: default MAX_COUNT; sizes: MAX_SIZE (more cannot be planned on any cluster)

    def parse(self, value):
        """The parameter's value in canonical form; ValueError saying what is accepted."""
        if self.kind == "size":
            size = parse_size(value)
            if size > (self.maximum or MAX_SIZE):
                raise ValueError(f"at most {(self.maximum or MAX_SIZE):,} bytes (1 PiB), got {size:,} bytes ({value})")
            return size
        if self.kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"expected a number > 0, got {value!r}")
            return float(value)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {value!r}")
            return value
        if self.kind == "text":
            if not isinstance(value, str) or any(c.isspace() for c in value):
                raise ValueError(f"expected a string without spaces, got {value!r}")
            return value
        if self.kind == "names":
            if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
                raise ValueError(f"expected a non-empty list of names, got {value!r}")
            bad = [v for v in value if self.choices and v not in self.choices]
            if bad:
                raise ValueError(f"unknown {', '.join(map(repr, bad))}; accepted: {', '.join(self.choices)}")
            return list(value)
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"expected one of {', '.join(map(repr, self.choices))}, got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected a whole number >= {self.minimum}, got {value!r}")
        if value < self.minimum:
            raise ValueError(f"must be >= {self.minimum}, got {value}")
        if value > (self.maximum or MAX_COUNT):
            raise ValueError(f"at most {self.maximum or MAX_COUNT:,}, got {value:,}")
        return value


@dataclass(frozen=True)
class Metric:
    unit: str
    doc: str
    higher_is_better: bool = True


METRICS: dict[str, Metric] = {  # metrics more than one workload reports; each module defines its own beside its class
    "data_mb": Metric("MB", "data the job read or wrote, in MB of 2^20 bytes"),
    "throughput_mb_s": Metric(
        "MB/s",
        "data_mb / wall_s, except DFSIO: TestDFSIO's 'Throughput mb/sec' = total MB / sum of the tasks' seconds, "
        "a per-task rate (not the cluster's)",
    ),
    "stored_mb": Metric("MB", "what the job left on the storage, as stored (after output compression)"),
    "map_tasks": Metric("tasks", "input splits read (TeraSort, WordCount, Grep, Data Read) or map tasks (Shuffle)"),
    "reduce_tasks": Metric("tasks", "reducers: TeraSort's range partitions, WordCount's output files, Shuffle's reducers"),
    "tasks": Metric("tasks", "TeraGen, textgen: generating tasks (output files)"),
    "files": Metric("files", "DFSIO, datawrite: number of files, one task each; copy: files copied"),
    "lines": Metric("lines", "textgen: lines written; grep: lines scanned"),
    "words": Metric("words", "textgen: words written (the plant included); wordcount: the counts' total"),
    # any workload on the hadoop engine: Hadoop's job counters and the JVM's whole time
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


def define_metrics(**metrics: Metric) -> None:
    """A workload module's own metrics, defined once beside the workload that reports them."""
    for name, m in metrics.items():
        if name in METRICS and METRICS[name] != m:
            raise ValueError(f"metric {name} is defined twice, differently")
        METRICS[name] = m


@dataclass(frozen=True)
class IORoles:
    """What a workload moves, per data class, each given as the metric (in MB) that measures it:
    `input` read from the data storage, `intermediate` written to (and read back from) the local
    shuffle/spill dirs, `output` written to the data storage (before replication).
    The page-cache check (reads), the efficiency column (read/write ceilings), the wear model
    (bytes written per drive class) and the what-if model read these; None: the workload moves none."""
    input: str | None
    intermediate: str | None
    output: str | None

    def mb(self, metrics: dict) -> dict[str, float]:
        """{"input", "intermediate", "output"}: MB one run moved of each class, from its metrics."""
        return {k: float(metrics.get(m, 0.0) or 0.0) if m else 0.0
                for k, m in (("input", self.input), ("intermediate", self.intermediate), ("output", self.output))}

    @property
    def reads(self) -> bool:
        return self.input is not None

    @property
    def writes(self) -> bool:
        return self.output is not None


@dataclass
class Measurement:
    metrics: dict[str, float]
    details: dict = field(default_factory=dict)  # non-numeric facts: checksum, per-task times, errors
    failure: str | None = None  # set when the job ran but its result is wrong


def rate(mb: float, wall_s: float) -> dict:
    return {"data_mb": mb, "throughput_mb_s": mb / max(wall_s, 1e-9)}


def generator_tasks(size: int, tasks: int) -> int:
    """Writing tasks for a generator (teragen, textgen, shuffle maps, datawrite): as given, else one per 64 MB, at least 2."""
    return tasks or max(2, -(-size // (64 * MB)))


def split_conf(size: int) -> dict:
    """Hadoop's settings for input splits of `size` bytes."""
    return {"mapreduce.input.fileinputformat.split.minsize": size, "mapreduce.input.fileinputformat.split.maxsize": size}


CODECS = ("none", "gzip", "bzip2", "lz4", "snappy", "deflate")  # Hadoop's codecs that need no native library
CODEC_CLASSES = {"gzip": "GzipCodec", "bzip2": "BZip2Codec", "lz4": "Lz4Codec", "snappy": "SnappyCodec", "deflate": "DefaultCodec"}


def output_codec_conf(codec: str) -> dict:
    """Hadoop's settings for compressed job output."""
    if codec == "none":
        return {}
    return {"mapreduce.output.fileoutputformat.compress": "true",
            "mapreduce.output.fileoutputformat.compress.codec": f"org.apache.hadoop.io.compress.{CODEC_CLASSES[codec]}"}


SPLIT = Param("split_size", "size", 128 * MB, "bytes of input per map task (mapreduce.input.fileinputformat.split.minsize "
              "= maxsize; for SQL spark.sql.files.maxPartitionBytes); the FlashBlade study found 512MB best on NFS")
OUTPUT_CODEC = Param("output_codec", "choice", "none", "job-output compression (a Hadoop codec; files get its extension)",
                     choices=CODECS)


@dataclass(frozen=True)
class SparkRuntime:
    """Jars a workload's Spark job needs beside the jobs jar (a table format's runtime), built for some Spark
    releases only: `releases` accepted as the engine's `spark`, `jars()` fetching them (Maven, tierbench's cache),
    `conf` the settings the application starts with (static ones: a session extension, the session catalog)."""
    title: str
    releases: tuple[str, ...]
    jars: object  # () -> list[Path]
    conf: tuple[tuple[str, str], ...] = ()


class Workload(ABC):
    """One workload. Subclasses set the class attributes below and implement the engine hooks they support.

    Facts every workload declares (checked by tests/test_layout.py):
      name, title, doc, params, metrics, phases, io; produces / consumes / producer when it has a data flow.
    Engines: a workload runs on the engines whose hooks it defines (the spec refuses the others):
      Spark: `spark_job` ("Class.method" of tierbench's Java jobs, tierbench.jobs.*) and
        `spark_params(req) -> dict` (the job's parameters; data sets are lists of URIs, one per data dir);
      Hadoop: `hadoop_main` (Hadoop's own class), `hadoop_command(req, mode) -> (-D settings, arguments)`
        (mode "local" or "yarn") and `hadoop_result(log, req) -> (job result, the job's own seconds or None)`
        from a finished job's HadoopLog.
    Checks: `measure` turns the engine's job result into metrics and fails the run when the output is
      wrong; `verify_against` names the workload whose recorded details it checks against (default: its producer).
    """

    name: str
    title: str
    doc: str
    params: tuple[Param, ...]
    metrics: tuple[str, ...]
    phases: tuple[str, ...]  # names of its Spark stages, in order (the IO profile's phases)
    io: IORoles
    produces: str | None = None  # name of the data set it writes
    consumes: str | None = None  # name of the data set it reads
    producer: str | None = None  # the workload that writes what this one consumes
    verifies: bool = False  # its result can fail the run (e.g. a wrong checksum)
    # the metric (seconds) the report compares as the run's runtime, when not its wall time: what the workload is
    # about without its fixed setup (SQL: the queries, not the registration of the tables)
    headline: str | None = None
    # the metric (MB/s) the report compares as the run's throughput: the rate of the whole job (DFSIO: its aggregate,
    # not TestDFSIO's per-task rate); analysis/stats.py's throughput_of is the one place that reads it
    headline_throughput: str = "throughput_mb_s"
    verify_against: str | None = None  # whose details `measure` checks against (default: the producer)
    spark_job: str | None = None  # "Class.method" in tierbench.jobs, e.g. "TeraGen.run"
    hadoop_main: str | None = None  # Hadoop's own main class

    # -- what the spec and the docs read ------------------------------------------------------
    @property
    def engines(self) -> tuple[str, ...]:
        spark = (self.spark_job and hasattr(self, "spark_params")) or type(self).spark_run is not Workload.spark_run
        hadoop = self.hadoop_main and hasattr(self, "hadoop_command") and hasattr(self, "hadoop_result")
        return tuple(e for e, ok in (("spark", spark), ("hadoop", hadoop)) if ok)

    @property
    def checked_against(self) -> str | None:
        return self.verify_against or self.producer

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def check_params(self, params: dict, engine_kinds: set[str], config_names: list[str]) -> tuple[str, str] | None:
        """Checks across parameters or against the study: (field, message) when something cannot run."""
        return None

    @staticmethod
    def copies_need_hadoop(params: dict, engine_kinds: set[str]) -> tuple[str, str] | None:
        """A workload's `copies` (HDFS replication on one node) are written by the hadoop engine's local mode only."""
        if params.get("copies", 1) > 1 and "spark" in engine_kinds:
            return "copies", "the spark engine writes one copy: copies > 1 needs the hadoop engine (durable, local mode)"
        return None

    def spark_runtime(self, params: dict) -> SparkRuntime | None:
        """The runtime its Spark job needs on the application's classpath, or None (the jobs jar is enough)."""
        return None

    def reads_from(self, params: dict, producer_params: dict) -> bool:
        """Whether it reads the output of a `producer` of these parameters: of several of its producer's kind in a
        study, the one it reads (table-maintain reads the table-load of its own table format)."""
        return True

    def reads_what(self, params: dict) -> str:
        """How the spec's refusal names the producer it reads when reads_from chooses (e.g. "of format delta")."""
        return ""

    def check_with_producer(self, params: dict, producer_params: dict) -> tuple[str, str] | None:
        """Checks against the producer's parameters (e.g. SQL query names of the generated benchmark)."""
        return None

    # -- planned sizes (the working-set check, before anything runs) -----------------------------------
    def data_bytes(self, params: dict, input_bytes: int) -> int:
        """Bytes of the data set a run writes (before compression and replication): a generator's from its
        parameters; by default as many as it reads (TeraSort, Copy)."""
        return input_bytes

    def planned_io(self, params: dict, input_bytes: int) -> dict[str, int]:
        """Bytes one run is planned to move per data class ({"input", "intermediate", "output"}), from its
        parameters and the size of the data set it reads (`input_bytes`, its producer's data_bytes)."""
        return {"input": input_bytes if self.io.input else 0,
                "intermediate": input_bytes if self.io.intermediate else 0,  # a sort shuffles all it reads
                "output": self.data_bytes(params, input_bytes) if self.io.output else 0}

    def scale_params(self, model) -> dict:
        """The parameters a scale model (scale/model.py ScaleModel) derives for this workload: its data size, task
        counts and splits as the full-size job's, shrunk. {}: the workload runs as the spec says."""
        return {}

    # -- the warm-up of a fresh engine application (study/warmup.py) ------------------------------------
    warm_up_overrides: dict | None = {}  # parameters that make a run small (a generator's size); None: not warmed up

    def warm_up_params(self, params: dict) -> dict | None:
        """This workload's parameters for an unrecorded warm-up run (a few MB), or None when it is not run."""
        if self.warm_up_overrides is None or self.copy_target(params):
            return None
        return {**params, **self.warm_up_overrides}

    def output_dataset(self, label: str, params: dict) -> str | None:
        """The data set a run writes (a copy names its own after its label, so that copies do not collide)."""
        return self.produces

    def input_dataset(self, params: dict) -> str | None:
        """The data set a run reads (a table's: its format's warehouse)."""
        return self.consumes

    def copy_target(self, params: dict) -> str | None:
        """The storage configuration it writes to when that is not the one under test (copy's `to`)."""
        return None

    # -- engines ---------------------------------------------------------------------------------
    def spark_run(self, req, run_job, on_progress):
        """The Spark side of a run: its job with `spark_params(req)`. Override when it is more than one job
        call (sqlgen: generate locally, then upload). `run_job(job, params, on_progress) -> JobOutcome`."""
        return run_job(self.spark_job, self.spark_params(req), on_progress)

    # -- results -------------------------------------------------------------------------------------
    @abstractmethod
    def measure(self, job: dict, wall_s: float, produced: dict) -> Measurement:
        """The run's metrics from the engine's job result; `produced`: the recorded details of
        `checked_against` in the same repeat (empty when there is none)."""

    def extra_check_phase(self, params: dict) -> str | None:
        """Progress text when this run needs a check beyond its job's result (see extra_check), else None."""
        return None

    def extra_check(self, req, result: dict, fetch_tables) -> None:
        """A check that needs more than the job's result (sql: DuckDB on the same files); adds to `result`.
        `fetch_tables(uris: dict[name, uri]) -> dict[name, local Path]`."""
        return None

    def __repr__(self) -> str:
        return f"<workload {self.name}>"
