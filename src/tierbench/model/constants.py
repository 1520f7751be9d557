"""Every constant of the what-if model, in one registry: its value, unit, what it models and where the value comes
from (a data sheet or a default, a cited rule, measured, chosen, or FITTED: to what, on which runs). docs/model.md's
constants table is this registry followed by the scale model's (scale/constants.py); tests/test_scale_constants.py
checks that the table is both and that each module holds the value listed here. The modules keep their values
(they sit below this registry's readers); a value changed there without here fails that test.
"""

from dataclasses import dataclass

DATA_SHEET, RULE, MEASURED, CHOSEN, FITTED = "data sheet", "cited rule", "measured", "chosen", "FITTED"


@dataclass(frozen=True)
class Constant:
    name: str        # module.NAME, as the code names it
    value: object
    unit: str        # "" for a plain number (a ratio, a count)
    models: str      # what it stands for
    kind: str        # DATA_SHEET, RULE, MEASURED, CHOSEN or FITTED
    provenance: str  # the source, or what it was fitted to and on which runs

    def shown(self) -> str:
        """The value as the constants table shows it."""
        v = self.value
        if self.unit == "bytes":
            for size, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
                if v >= size:
                    return f"{v / size:g} {name}"
        if isinstance(v, tuple):
            return " ".join(map(str, v)) if all(isinstance(x, str) for x in v) else "-".join(f"{x:g}" for x in v)
        return f"{v:g}" if isinstance(v, float) else str(v)


_MiB = 1 << 20


def _corpus_width() -> tuple[Constant, ...]:
    """The interval a prediction to other hardware states at least: fitted on the corpus (model/corpus/errors.toml)."""
    from .trust import corpus_error

    e = corpus_error()
    return () if e is None else (Constant(
        "trust.half_width_log", e.half_width_log, "log", "the half-width that holds 80% of the validation corpus's "
        f"predicted runtimes (x{e.factor:.3g} either way), stated at least by a prediction to other hardware", FITTED,
        f"on the whole corpus, each paper one vote ({', '.join(e.papers)}; {e.figures} runtimes): {e.measured}"),)


MODEL_CONSTANTS = (
    Constant("rules.SORT_FACTOR", 10, "segments", "segments a MapReduce merge takes at once", DATA_SHEET,
             "mapreduce.task.io.sort.factor (mapred-default.xml)"),
    Constant("rules.SPILL_PERCENT", 0.8, "of the sort buffer", "how full a map's sort buffer is when it spills",
             DATA_SHEET, "mapreduce.map.sort.spill.percent (mapred-default.xml)"),
    Constant("rules.SHUFFLE_BUFFER", 0.7, "of the heap", "a reducer's heap for fetched map outputs", DATA_SHEET,
             "mapreduce.reduce.shuffle.input.buffer.percent (mapred-default.xml)"),
    Constant("rules.MERGE_PERCENT", 0.66, "of the shuffle buffer", "how full it is when the in-memory merge starts",
             DATA_SHEET, "mapreduce.reduce.shuffle.merge.percent (mapred-default.xml)"),
    Constant("rules.TARGET_SPLIT", 128 * _MiB, "bytes", "a target map's input", DATA_SHEET,
             "dfs.blocksize (hdfs-default.xml)"),
    Constant("rules.TARGET_SORT_BUFFER", 100 * _MiB, "bytes", "a target map's sort buffer", DATA_SHEET,
             "mapreduce.task.io.sort.mb (mapred-default.xml)"),
    Constant("rules.SPARK_EXECUTION_SHARE", 0.3, "of (heap - reserved)", "a Spark JVM's execution memory, shared by "
             "its tasks", DATA_SHEET, "spark.memory.fraction 0.6 x (1 - spark.memory.storageFraction 0.5)"),
    Constant("rules.SPARK_RESERVED", 300 * _MiB, "bytes", "the heap Spark keeps for itself", DATA_SHEET,
             "Spark's UnifiedMemoryManager RESERVED_SYSTEM_MEMORY_BYTES"),
    Constant("rules.HDFS_READAHEAD_KIB", 4096, "KiB", "the run of a job's input a DataNode reads per seek", DATA_SHEET,
             "dfs.datanode.readahead.bytes 4194304 (hdfs-default.xml)"),
    Constant("rules.PAGE_CACHE_FLOOR", 0.05, "of a node's memory", "the least page cache a node keeps for "
             "intermediate data, however many task heaps it holds", CHOSEN, "the kernel never gives all its pages to "
             "processes; the scale model counts the same floor"),
    Constant("advise.SSD_DATA_GAIN", 0.25, "of the runtime", "the gain from all-SSD at which advise says a job's "
             "data belongs on SSD", CHOSEN, "beyond the model's own error on the measured machine (5-10%) and "
             "round: a quarter"),
    Constant("advise.SSD_INTERMEDIATE_GAIN", 0.1, "of the runtime", "the gain from one SSD for intermediate data at "
             "which advise recommends it", CHOSEN, "the model's own error on the measured machine, 5-10%"),
    Constant("advise.HEADROOM", 1.5, "x", "an intermediate SSD's size over what one job writes to it per node",
             CHOSEN, "room for a second job's and the file system's slack"),
    Constant("cloud.STORED_COPIES_OF_DATA", 2, "data sets", "what a cloud cluster stores while a job runs",
             RULE, "the job's input and its output are both held"),
    Constant("cloud.SCRATCH_HEADROOM", 1.5, "x", "intermediate space per node over the job's share", CHOSEN,
             "as advise.HEADROOM"),
    Constant("cloud.WITHIN", 0.1, "of the runtime", "\"as fast\" in the cloud ranking", CHOSEN,
             "the model's own error on the measured machine"),
    Constant("cloud_cost.SECONDS_PER_MONTH", 730 * 3600, "s", "a month of a price list", DATA_SHEET,
             "the providers' month of 730 hours"),
    Constant("cloud_cost.S3A_READ_REQUEST", 32 * _MiB, "bytes", "one GET of a read split, where a run recorded no "
             "requests", DATA_SHEET, "fs.s3a.block.size (Hadoop 3.4)"),
    Constant("cloud_cost.S3A_PART", 64 * _MiB, "bytes", "one PUT of a written object's part", DATA_SHEET,
             "fs.s3a.multipart.size (Hadoop 3.4)"),
    Constant("cloud_cost.OBJECT_BYTES", 128 * _MiB, "bytes", "a task's object", CHOSEN, "one HDFS block's worth"),
    Constant("cloud_cost.KEYS_PER_LIST", 1000, "keys", "a LIST page", DATA_SHEET, "S3 ListObjectsV2's max-keys"),
    Constant("published.TIE", 0.01, "of the runtime", "predicted runtimes this close are a tie", CHOSEN,
             "a tie contradicts no published order"),
    Constant("transfer.STANDS_FOR_TOLERANCE", 0.02, "", "an emulated device's figures / (the catalog drive's x k) "
             "within this of a whole number of drives", CHOSEN, "rounding of recorded figures"),
    Constant("transfer.UNUSED_SHARE", 0.01, "of a run's device bytes", "a device that moved less was not used by "
             "the job", CHOSEN, "staging files"),
    Constant("trust.NEAR_SIZE", 2.0, "x", "a size within this of the largest measured, on one node, is the measured "
             "machine's question (the model's own error applies)", CHOSEN, "the model's size checks go no further"),
) + _corpus_width()
