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
    kind: str  # "count" (integer >= minimum), "size" (bytes, with units), "choice", "number", "text", "bool", "names"
    default: object
    doc: str
    minimum: int = 0
    choices: tuple = ()

    def parse(self, value):
        """The parameter's value in canonical form; ValueError saying what is accepted."""
        if self.kind == "size":
            return parse_size(value)
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
    "files": Metric("files", "DFSIO, datawrite: number of files, one task each; copy: files copied"),
    "error_count": Metric("errors", "TeraValidate: misordered rows and bad partition boundaries (0 when valid)", False),
    "map_tasks": Metric("tasks", "input splits read (TeraSort, WordCount, Grep, Data Read) or map tasks (Shuffle)"),
    "reduce_tasks": Metric("tasks", "reducers: TeraSort's range partitions, WordCount's output files, Shuffle's reducers"),
    "tasks": Metric("tasks", "TeraGen, textgen: generating tasks (output files)"),
    "process_s": Metric("s", "hadoop engine: the job's whole JVM process, start to exit (wall_s is the job itself)", False),
    "spilled_records": Metric("records", "hadoop engine: job counter Spilled Records", False),
    "shuffle_mb": Metric("MB", "hadoop engine: job counter Reduce shuffle bytes", False),
    "cpu_s": Metric("s", "hadoop engine: job counter CPU time spent (0 in local mode)", False),
    "gc_s": Metric("s", "hadoop engine: job counter GC time elapsed", False),
    "file_read_mb": Metric("MB", "hadoop engine: job counter FILE: Number of bytes read"),
    "file_written_mb": Metric("MB", "hadoop engine: job counter FILE: Number of bytes written"),
    "hdfs_read_mb": Metric("MB", "hadoop engine: job counter HDFS: Number of bytes read"),
    "hdfs_written_mb": Metric("MB", "hadoop engine: job counter HDFS: Number of bytes written"),
    "stored_mb": Metric("MB", "what the job left on the storage, as stored (after output compression)"),
    "words": Metric("words", "textgen: words written (the plant included); wordcount: the counts' total"),
    "distinct_words": Metric("words", "wordcount: distinct words (output lines)"),
    "lines": Metric("lines", "textgen: lines written; grep: lines scanned"),
    "matches": Metric("matches", "grep: occurrences of the pattern"),
    "block_kb": Metric("KiB", "shuffle: bytes each reducer fetches from each map (size / (maps x reducers))"),
    "copy_tasks": Metric("tasks", "copy: tasks that copied (at most one per file)"),
    "queries": Metric("queries", "sql: queries run"),
    "queries_s": Metric("s", "sql: the queries' times added up, each from submission to its last row collected", False),
    "gen_s": Metric("s", "sqlgen: tpcgen-cli's time to generate the tables locally", False),
    "upload_s": Metric("s", "sqlgen: time to write the tables to the storage under test", False),
}

CODECS = ("none", "gzip", "bzip2", "lz4", "snappy", "deflate")  # Hadoop's codecs that need no native library
_SPLIT = Param("split_size", "size", 128 * MB, "bytes of input per map task (mapreduce.input.fileinputformat.split.minsize "
               "= maxsize; for SQL spark.sql.files.maxPartitionBytes); the FlashBlade study found 512MB best on NFS")
_OUTPUT_CODEC = Param("output_codec", "choice", "none", "job-output compression (a Hadoop codec; files get its extension)",
                      choices=CODECS)
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
        Workload(
            "textgen",
            "Text generation",
            "Writes text for wordcount and grep: Zipf-distributed words from a fixed vocabulary of pseudo-words, "
            "lines of 1-24 words (compresses to about 40%, like natural text). On the hadoop engine: Hadoop's "
            "RandomTextWriter (sentences from its own 1000-word list) with TextOutputFormat.",
            (Param("size", "size", 64 * MB, "bytes of text to generate (before output compression)"),
             Param("tasks", "count", 0, "writing tasks = output files (0: one per 64 MB, at least 2)"),
             Param("vocabulary", "count", 50_000, "distinct words to draw from", 1),
             Param("zipf", "number", 1.0, "Zipf exponent of word frequencies (1.0: natural-language-like)"),
             Param("plant", "text", "", "a string planted in every `plant_every`-th line (grep then has a known count)"),
             Param("plant_every", "count", 0, "plant the string once in every N-th line (0: never)"),
             _OUTPUT_CODEC),
            produces="text",
            metrics=("data_mb", "stored_mb", "throughput_mb_s", "words", "lines", "tasks"),
        ),
        Workload(
            "wordcount",
            "WordCount",
            "Counts the words of textgen's text with a map-side combiner and writes word<TAB>count lines. "
            "Fails the run when the counts do not total the words tierbench's textgen wrote (Hadoop's "
            "RandomTextWriter does not count them). Hadoop engine: Hadoop's WordCount example.",
            (_SPLIT, Param("partitions", "count", 0, "reduce tasks = output files (0: one per input split)"), _OUTPUT_CODEC),
            consumes="text",
            producer="textgen",
            produces="wordcount-output",  # hadoop engine: Hadoop's WordCount example
            metrics=("data_mb", "throughput_mb_s", "words", "distinct_words", "stored_mb", "map_tasks", "reduce_tasks"),
            verifies=True,
        ),
        Workload(
            "grep",
            "Grep",
            "Scans textgen's text for a literal string, a pure read; reports bytes scanned and matches. "
            "tierbench's text has only a-z and spaces, so a pattern with any other character must find 0, "
            "and textgen's plant must be found exactly as often as it was planted. Hadoop engine: Hadoop's Grep "
            "example (two jobs: search and sort; the pattern is quoted as a literal).",
            (Param("pattern", "text", "tierbench-absent", "the literal string to look for"), _SPLIT),
            consumes="text",
            producer="textgen",
            produces="grep-output",  # hadoop engine: Hadoop's Grep example writes its counts here
            metrics=("data_mb", "throughput_mb_s", "matches", "lines", "map_tasks"),
            verifies=True,
        ),
        Workload(
            "shuffle",
            "Shuffle",
            "A shuffle and nothing else: map tasks generate random bytes for every reducer, reducers fetch and "
            "count them; nothing is read before or written after, so only the intermediate storage is exercised.",
            (Param("size", "size", 256 * MB, "bytes shuffled (map output)"),
             Param("map_tasks", "count", 0, "map tasks (0: one per 64 MB, at least 2)"),
             Param("partitions", "count", 0, "reducers (0: as many as map tasks, or from fetch_size)"),
             Param("fetch_size", "size", None, "bytes each reducer fetches from each map, e.g. 512KB; "
                   "sets the reducers (size / (map_tasks x fetch_size)) unless partitions is given")),
            metrics=("data_mb", "throughput_mb_s", "block_kb", "map_tasks", "reduce_tasks"),
            verifies=True,
            engines=("spark",),
        ),
        Workload(
            "datawrite",
            "Data Write",
            "Writes a data set of random (incompressible) bytes with no input, one task per file "
            "(HDFS Data Write); records each file's CRC-32 for dataread and copy. Hadoop engine: Hadoop's "
            "RandomWriter example (random-size records in SequenceFiles).",
            (Param("size", "size", 256 * MB, "bytes to write"),
             Param("files", "count", 0, "files = writing tasks (0: one per 64 MB, at least 2)")),
            produces="data",
            metrics=("data_mb", "throughput_mb_s", "files"),
        ),
        Workload(
            "dataread",
            "Data Read",
            "Reads every byte of datawrite's data set in splits of split_size (TeraRead). "
            "Fails the run when the bytes read differ from what was written.",
            (_SPLIT,),
            consumes="data",
            producer="datawrite",
            metrics=("data_mb", "throughput_mb_s", "map_tasks"),
            verifies=True,
            engines=("spark",),
        ),
        Workload(
            "copy",
            "Copy",
            "DistCp-style parallel copy of datawrite's data set, whole files dealt to `tasks` copy tasks, "
            "to the same storage or to the configuration named in `to`. Every copied file's size and CRC-32 "
            "must equal the original's, or the run fails. Hadoop engine: DistCp (-m tasks), checked the same "
            "way where the copy is on local disks, by bytes copied (and DistCp's own checksums) elsewhere.",
            (Param("tasks", "count", 4, "copy tasks (DistCp's -m; the NFS study went from 21 to 200)", 1),
             Param("to", "text", "", "the storage configuration to copy to (default: the one under test)")),
            consumes="data",
            producer="datawrite",
            metrics=("data_mb", "throughput_mb_s", "files", "copy_tasks"),
            verifies=True,
        ),
        Workload(
            "sqlgen",
            "SQL data generation",
            "Generates TPC-H or TPC-DS tables as Parquet with tpcgen-cli and writes them to the storage under test.",
            (Param("benchmark", "choice", "tpch", "which schema and queries", choices=("tpch", "tpcds")),
             Param("scale", "number", 0.1, "scale factor (1: about 1 GB of TPC-H text data)"),
             Param("parts", "count", 2, "Parquet files per table", 1),
             Param("output_codec", "choice", "snappy", "Parquet compression",
                   choices=("none", "snappy", "gzip", "zstd", "lz4"))),
            produces="sql-tables",
            metrics=("stored_mb", "gen_s", "upload_s"),
            engines=("spark",),
        ),
        Workload(
            "sql",
            "SQL queries",
            "Runs a batch of TPC-H or TPC-DS queries on Spark SQL over sqlgen's Parquet tables, timing each. "
            "With verify = true the answers are checked against DuckDB on the same files (a tiny scale factor: "
            "remote tables are fetched to do it) and a difference fails the run.",
            (Param("queries", "names", None, "query names (default: all that tierbench ships for the benchmark: "
                   "TPC-H q01 q03 q04 q05 q06 q10 q12 q14; TPC-DS q03 q42 q52 q55 q96)"),
             _SPLIT,
             Param("partitions", "count", 0, "spark.sql.shuffle.partitions (0: Spark's default)"),
             Param("verify", "bool", False, "check every answer against DuckDB reading the same Parquet")),
            consumes="sql-tables",
            producer="sqlgen",
            metrics=("queries_s", "queries", "data_mb"),
            verifies=True,
            engines=("spark",),
        ),
    )
}


def generator_tasks(size: int, tasks: int) -> int:
    """Writing tasks for a generator (teragen, textgen, shuffle maps, datawrite): as given, else one per 64 MB, at least 2."""
    return tasks or max(2, -(-size // (64 * MB)))


def get_workload(name: str) -> Workload | None:
    return WORKLOADS.get(name)
