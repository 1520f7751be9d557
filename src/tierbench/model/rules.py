"""The rules the what-if model applies at the target: what the engine writes and reads of its intermediate data at
the target's task memory and data per task, how much of it a node's page cache holds, and what a drive does with
several streams at once. Each rule is the engine's or the device's documented behaviour (sources inline) in
the fewest terms that decide the bytes and the request pattern; docs/model.md lists them with their checks.
"""

import math
from dataclasses import dataclass

from .hardware import Drive

# Hadoop MapReduce 2 defaults (mapred-default.xml)
SORT_FACTOR = 10             # mapreduce.task.io.sort.factor: segments merged at once
SPILL_PERCENT = 0.80         # mapreduce.map.sort.spill.percent: the sort buffer spills when this full
SHUFFLE_BUFFER = 0.70        # mapreduce.reduce.shuffle.input.buffer.percent: a reducer's heap for fetched maps
MERGE_PERCENT = 0.66         # mapreduce.reduce.shuffle.merge.percent: the in-memory merge starts when this full
# What a Hadoop job of the studies' time used when the study names no figure of its own (Hadoop's defaults)
TARGET_SPLIT = 128 << 20        # dfs.blocksize: one map per block
TARGET_SORT_BUFFER = 100 << 20  # mapreduce.task.io.sort.mb
# Spark: spark.memory.fraction 0.6 of (heap - 300 MB), half of it for execution by default; shared by a JVM's tasks
SPARK_EXECUTION_SHARE = 0.6 * 0.5
SPARK_RESERVED = 300 << 20
# Hadoop's TeraSort writes its output with replication 1, whatever dfs.replication says: Hadoop 1's TeraSort.java
# sets `job.setInt("dfs.replication", 1)`, Hadoop 2 and 3's `mapreduce.terasort.output.replication` defaults to 1
# (TeraSortConfigKeys.DEFAULT_OUTPUT_REPLICATION). Other jobs' output takes the file system's replication.
ONE_COPY_OUTPUT = {("hadoop", "terasort")}
# A DataNode reads ahead of its clients 4 MiB at a time (hdfs-default.xml: dfs.datanode.readahead.bytes 4194304,
# posix_fadvise WILLNEED): a job's input reaches a rotating drive in runs of 4 MiB, however small its reads
HDFS_READAHEAD_KIB = 4096
PAGE_CACHE_FLOOR = 0.05  # the least share of a node's memory its page cache keeps, whatever the task heaps


@dataclass(frozen=True)
class Intermediate:
    """Bytes a job writes to and reads from its intermediate drives per byte of shuffle, beyond the fetch itself."""
    written: float
    read: float
    map_spills: int
    map_passes: int
    reduce_passes: int

    @property
    def spilled_records(self) -> float:
        """Records written to local disk per map output record, as Hadoop's "Spilled Records" counts them."""
        return self.written


def output_copies(workload: str, engine: str | None, copies: float) -> float:
    """Bytes the target's data drives take per byte of a job's output: the file system's copies, except where the
    job sets its own replication (Hadoop's TeraSort: one copy). `engine` None (a measured machine) keeps `copies`."""
    return 1.0 if (engine, workload) in ONE_COPY_OUTPUT else copies


def merge_passes(segments: int, factor: int = SORT_FACTOR) -> int:
    """Passes over the data a merge of `segments` sorted files takes, `factor` at a time (0 for one file: nothing
    to merge)."""
    return 0 if segments <= 1 else math.ceil(math.log(segments) / math.log(factor))


def hadoop_intermediate(map_output: float, sort_buffer: float, reduce_input: float, reducer_memory: float,
                        factor: int = SORT_FACTOR) -> Intermediate:
    """MapReduce's sort and spill (Hadoop's MapTask.MapOutputBuffer and MergeManagerImpl): a map's output is
    sorted in the buffer and spilled each time it is SPILL_PERCENT full; more than one spill is merged into one
    file, `factor` at a time, each pass writing and reading all of it. A reducer keeps fetched outputs in
    SHUFFLE_BUFFER of its memory and merges them to disk when MERGE_PERCENT of that is full; the files on disk are
    merged in passes until the final merge, which feeds the reduce from disk.

    Per byte of map output: written = the map's spill and merge passes + the reducer's spill and merge passes;
    read = the map's merge passes + the reducer's (the shuffle's own read of the map output is not counted)."""
    spills = max(1, math.ceil(map_output / (SPILL_PERCENT * sort_buffer)))
    map_passes = merge_passes(spills, factor)
    in_memory = SHUFFLE_BUFFER * reducer_memory
    if reduce_input <= in_memory:  # the whole input fits the reducer's buffer: merged in memory, never on disk
        reduce_written = reduce_read = 0.0
        reduce_passes = 0
    else:
        segments = math.ceil(reduce_input / (MERGE_PERCENT * in_memory))
        # each pass but the final one rewrites the data; the final merge reads it once into the reduce
        reduce_passes = max(1, merge_passes(segments, factor))
        reduce_written, reduce_read = float(reduce_passes), float(reduce_passes)
    return Intermediate(1 + map_passes + reduce_written, map_passes + reduce_read, spills, map_passes, reduce_passes)


def spark_intermediate(map_output: float, reduce_input: float, task_heap: float, tasks_per_jvm: int) -> Intermediate:
    """Spark's sort-based shuffle (ExternalSorter): a map task keeps its output in execution memory (its share of
    the executor's) and writes it once; more than fits is spilled and merged into one file (written twice, the
    spills read once). A reducer that sorts (TeraSort's sortByKey) does the same with its fetched input."""
    per_task = max(1.0, SPARK_EXECUTION_SHARE * max(0.0, task_heap * tasks_per_jvm - SPARK_RESERVED) / tasks_per_jvm)
    map_spills = max(1, math.ceil(map_output / per_task))
    map_extra = 1 if map_spills > 1 else 0
    reduce_extra = 1 if reduce_input > per_task else 0
    return Intermediate(1 + map_extra + reduce_extra, map_extra + reduce_extra, map_spills, map_extra, reduce_extra)


def read_back_share(written_per_node: float, cache_per_node: float) -> float:
    """The share of a node's intermediate data read back from its drives, not from its page cache: what the cache
    could not keep of it (the least recently written is evicted first, and a shuffle is read after it is written:
    the cache keeps its last `cache_per_node` bytes, the rest comes from the drives)."""
    if written_per_node <= 0:
        return 0.0
    return max(0.0, 1.0 - cache_per_node / written_per_node)


def request_kib(drive: Drive, key: str, measured_kib: float, on_hdfs: bool) -> float:
    """The run of bytes a target's rotating drive moves per seek where several streams share it: what the measured
    run asked, or more where the target's system gathers it - writeback merges a stream's pages into the drive's
    write run (its `write_seek_kib`), a DataNode reads a job's input ahead 4 MiB at a time, and other reads come in
    the drive's read run (read-ahead windows: `read_seek_kib`). A drive without seek figures (an SSD, a throttle):
    as measured."""
    if not drive.seeks or drive.write_seek_kib is None:
        return measured_kib
    role, rw = key.split(".")
    if rw == "write":
        return max(measured_kib, drive.write_seek_kib)
    if role == "data" and on_hdfs:
        return max(measured_kib, HDFS_READAHEAD_KIB)
    return max(measured_kib, drive.read_seek_kib or 0.0)


def stream_mb_s(drive: Drive, rw: str, io_kib: float, streams: float) -> float:
    """MB/s a drive gives `streams` concurrent sequential streams of `io_kib` requests. One stream reads or writes
    in order, at the drive's sequential rate. Several streams interleave their requests, so each request first
    moves the head (an HDD) or pays the command's fixed cost (an SSD): a request takes size / sequential rate +
    1 / IOPS (the 4 KiB random IOPS figure, whose time is almost all access). 12 fetch streams of 64 KiB on a 2014
    HDD: 0.5 ms of transfer + 6.7 ms of seek each, 9 MB/s of its 130. An emulated device (a throttle: `seeks`
    False) gives each request its limits whichever stream it is of."""
    seq = drive.read_mb_s if rw == "read" else drive.write_mb_s
    if streams <= 1 or io_kib <= 0 or not drive.seeks:
        return drive.mb_s(rw, io_kib)
    iops = drive.read_iops if rw == "read" else drive.write_iops
    size_mb = io_kib * 1024 / 1e6
    return size_mb / (size_mb / seq + 1 / iops)


def node_page_cache(memory_bytes: float, cores: int, task_heap: float) -> float:
    """A node's page cache: its memory less its task slots' heaps (never under PAGE_CACHE_FLOOR of it, as the scale
    model counts it: scale/model.py)."""
    return max(memory_bytes * PAGE_CACHE_FLOOR, memory_bytes - cores * task_heap)
