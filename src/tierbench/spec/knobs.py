"""Knobs: the settings the studies found to change the answer, and sweeping them.

A knob lives where it acts: on the engine (shuffle compression, its codec,
task memory), on the storage (HDFS replication) or on the workload (split
size, partitions, map/copy tasks, output compression, which are workload
parameters). Any knob given as a list is a sweep: the study runs once per
value, as separate engines, storage configurations or workload entries named
`<name>.<knob>-<value>`, and the report draws the sweep as a line chart.
One knob per table is swept; a second list in the same table is an error.
"""

import re

from ..errors import SpecError
from ..fields import boolean

ENGINE_KNOBS = {
    "shuffle_compress": "compress shuffle and spill files (spark.shuffle.compress + spark.shuffle.spill.compress; "
                        "hadoop: mapreduce.map.output.compress)",
    "io_codec": "codec for shuffle/spill compression: lz4, lzf, snappy, zstd (spark.io.compression.codec; "
                "hadoop: mapreduce.map.output.compress.codec, lz4 or snappy)",
    "task_memory": "memory per task JVM, e.g. \"2g\" (spark.executor.memory, and spark.driver.memory in local mode, "
                   "where the tasks run in the driver; hadoop: mapreduce.{map,reduce}.memory.mb and -Xmx)",
}
WORKLOAD_KNOBS = ("split_size", "partitions", "map_tasks", "tasks", "files", "fetch_size", "output_codec")
SPARK_CODECS = ("lz4", "lzf", "snappy", "zstd")
HADOOP_CODECS = {"lz4": "org.apache.hadoop.io.compress.Lz4Codec", "snappy": "org.apache.hadoop.io.compress.SnappyCodec"}
JVM_SIZE = re.compile(r"^([0-9]+)([kmgtKMGT])$")


def token(value) -> str:
    """A knob value as it may appear in a name: letters, digits, '.', '_', '-'."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def swept(src: str, where: str, table: dict, candidates) -> tuple[str | None, list]:
    """The one knob of `candidates` given as a list in `table` (name, values), or (None, [])."""
    lists = [k for k in candidates if isinstance(table.get(k), list)]
    if len(lists) > 1:
        raise SpecError(src, f"{where}.{lists[1]}", f"only one knob per table can be swept (here {', '.join(lists)} are lists); "
                        "sweep the others in a copy of this table with another name or label")
    if not lists:
        return None, []
    values = table[lists[0]]
    if len(values) < 1:
        raise SpecError(src, f"{where}.{lists[0]}", "an empty list: give the values to sweep, e.g. [\"64MB\", \"512MB\"]")
    if len({token(v) for v in values}) != len(values):
        raise SpecError(src, f"{where}.{lists[0]}", f"lists the same value twice: {values!r}")
    return lists[0], values


def engine_knob_conf(src: str, where: str, kind: str, master: str, knobs: dict) -> dict:
    """Validated engine knobs -> the engine settings they stand for."""
    conf = {}
    if "shuffle_compress" in knobs:
        v = boolean(src, f"{where}.shuffle_compress", knobs["shuffle_compress"])
        if kind == "spark":
            conf["spark.shuffle.compress"] = conf["spark.shuffle.spill.compress"] = str(v).lower()
        else:
            conf["mapreduce.map.output.compress"] = str(v).lower()
    if "io_codec" in knobs:
        v = knobs["io_codec"]
        allowed = SPARK_CODECS if kind == "spark" else tuple(HADOOP_CODECS)
        if v not in allowed:
            raise SpecError(src, f"{where}.io_codec", f"expected one of {', '.join(allowed)} for the {kind} engine, got {v!r}")
        if kind == "spark":
            conf["spark.io.compression.codec"] = v
        else:
            conf["mapreduce.map.output.compress.codec"] = HADOOP_CODECS[v]
    if "task_memory" in knobs:
        v = knobs["task_memory"]
        m = JVM_SIZE.match(v) if isinstance(v, str) else None
        if not m:
            raise SpecError(src, f"{where}.task_memory", f"expected a JVM memory size such as \"2g\" or \"512m\", got {v!r}")
        if kind == "spark":
            conf["spark.executor.memory"] = v
            if master.startswith("local"):
                conf["spark.driver.memory"] = v
        else:
            mb = int(m.group(1)) * {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1 << 20}[m.group(2).lower()]
            for task in ("map", "reduce"):
                conf[f"mapreduce.{task}.memory.mb"] = str(int(mb))
                conf[f"mapreduce.{task}.java.opts"] = f"-Xmx{int(mb * 0.8)}m"
    return conf


def run_knobs(engine, config, params: dict) -> dict:
    """The knob settings a run had, for its record: the engine's, the storage's replication, the workload's."""
    knobs = dict(engine.knobs)
    if config.replication:
        knobs["replication"] = config.replication
    knobs.update({k: params[k] for k in WORKLOAD_KNOBS if k in params})
    return knobs
