"""The TeraSort suite: TeraGen, TeraSort, TeraValidate (Hadoop's examples; tierbench's Java jobs are byte-compatible)."""

import re

from ..units import MB
from .base import IORoles, Measurement, Metric, Param, Workload, define_metrics, generator_tasks, split_conf

ORDER = 10  # where the family is listed (tierbench workloads, docs)

define_metrics(
    rows=Metric("rows", "100-byte rows generated, sorted or validated"),
    error_count=Metric("errors", "TeraValidate: misordered rows and bad partition boundaries (0 when valid)", False),
)
_ROWS = Param("rows", "count", 1_000_000, "rows of 100 bytes to generate (or give `size`)", 1, maximum=(1 << 50) // 100)
_SIZE = Param("size", "size", None, "data to generate, e.g. \"1GB\" (rows = size / 100); overrides rows")
EXAMPLES = "org.apache.hadoop.examples.terasort."


def _rows_measure(job: dict, wall_s: float) -> tuple[int, dict]:
    rows = int(job["rows"])
    data_mb = rows * 100 / MB
    return rows, {"rows": rows, "data_mb": data_mb, "throughput_mb_s": data_mb / max(wall_s, 1e-9)}


class TeraGen(Workload):
    name, title = "teragen", "TeraGen"
    doc = ("Writes rows of Hadoop's TeraSort format (10-byte random key from the 128-bit LCG "
           "Random16, row id, filler), byte-identical to Hadoop's TeraGen.")
    params = (_ROWS, _SIZE, Param("tasks", "count", 0, "writing tasks = output files (0: one per 64 MB, at least 2)"),
              Param("filler", "choice", "hadoop", "\"hadoop\": rows byte-identical to Hadoop's TeraGen (compress to ~1/3); "
                    "\"random\": incompressible filler (Spark engine only)", choices=("hadoop", "random")),
              Param("copies", "count", 1, "copies of the output the data drive takes: a scale model's HDFS replication "
                    "(hadoop engine, durable local mode; [scale] sets the target's)", 1, maximum=16))
    produces = "tera-input"
    warm_up_overrides = {"rows": 100_000, "size": None, "tasks": 2}
    metrics = ("rows", "data_mb", "throughput_mb_s", "tasks")
    phases = ("generate + write",)
    io = IORoles(input=None, intermediate=None, output="data_mb")
    spark_job = "TeraGen.run"
    hadoop_main = EXAMPLES + "TeraGen"

    @staticmethod
    def rows(p: dict) -> int:
        return p["size"] // 100 if p.get("size") else p["rows"]

    def data_bytes(self, params, input_bytes):
        return self.rows(params) * 100

    def check_params(self, params, engine_kinds, config_names):
        if bad := self.copies_need_hadoop(params, engine_kinds):
            return bad
        if params["filler"] == "random" and "hadoop" in engine_kinds:
            return "filler", ("\"random\" is tierbench's own TeraGen: Hadoop's TeraGen writes only its own filler; "
                              "use \"hadoop\" or run this study on the spark engine only")
        return None

    def spark_params(self, req):
        p, rows = req.params, self.rows(req.params)
        return {"rows": rows, "tasks": generator_tasks(rows * 100, p["tasks"]), "output": req.outputs, "filler": p["filler"]}

    def scale_params(self, model) -> dict:
        # the node's data, each block written as many times as the target's HDFS does, by as many writers as the
        # model has splits (at most the node's slots): each file is then at most a split, and TeraSort reads them
        # as the target's maps read its blocks (its slots' 12 writers would cut 12 files smaller than a split:
        # measured, 12 maps of 10.7 MB, each fetch half the target's, all-HDD TeraSort 41-48 s where 7 maps took 34-39 s)
        return {"size": model.data_bytes, "tasks": min(model.tasks, model.maps),
                "copies": max(1, round(model.write_copies))}

    def hadoop_command(self, req, mode):
        extra = {"mapreduce.job.maps": req.params["tasks"]} if req.params["tasks"] else {}
        if req.params.get("copies", 1) > 1:  # (read by tierbench.io.SyncingLocalFileSystem)
            extra["tierbench.local.replicas"] = req.params["copies"]
        return extra, [str(self.rows(req.params)), req.outputs[0]]

    def hadoop_result(self, log, req):
        c = log.counters
        return {"rows": c["Map output records"], "checksum": format(c["CHECKSUM"] & (2**64 - 1), "x"),
                "tasks": c.get("Launched map tasks", log.maps_done() or 1)}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        rows, m = _rows_measure(job, wall_s)
        m["tasks"] = job["tasks"]
        return Measurement(m, {"rows": rows, "checksum": job["checksum"]})


class TeraSort(Workload):
    name, title = "terasort", "TeraSort"
    doc = "Samples keys, range-partitions, shuffles and sorts TeraGen's rows, and writes them in Tera format."
    params = (Param("partitions", "count", 0, "reduce partitions = output files (0: one per input split)"),
              Param("split_size", "size", 128 * MB, "bytes of input per map task"))
    consumes, producer, produces = "tera-input", "teragen", "tera-output"
    metrics = ("rows", "data_mb", "throughput_mb_s", "map_tasks", "reduce_tasks")
    phases = ("map", "reduce/output")
    io = IORoles(input="data_mb", intermediate="data_mb", output="data_mb")  # the shuffle is about the input's size
    spark_job = "TeraSort.run"
    hadoop_main = EXAMPLES + "TeraSort"

    def spark_params(self, req):
        p = req.params
        return {"input": req.inputs, "output": req.outputs, "partitions": p["partitions"], "split_bytes": p["split_size"]}

    def scale_params(self, model) -> dict:
        return {"split_size": model.split_bytes, "partitions": model.reducers}

    def hadoop_command(self, req, mode):
        extra = split_conf(req.params["split_size"])
        if req.params["partitions"]:
            extra["mapreduce.job.reduces"] = req.params["partitions"]
        return extra, [req.inputs[0], req.outputs[0]]

    def hadoop_result(self, log, req):
        c = log.counters
        splits = re.findall(r"number of splits:(\d+)", log.text)
        return {"rows": c["Reduce output records"],
                "map_tasks": c.get("Launched map tasks", int(splits[-1]) if splits else 0),
                "reduce_tasks": c.get("Launched reduce tasks", req.params["partitions"] or 1)}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        rows, m = _rows_measure(job, wall_s)
        m.update(map_tasks=job["map_tasks"], reduce_tasks=job["reduce_tasks"])
        details = {"rows": rows}
        if "partition_rows" in job:
            details["partition_rows"] = job["partition_rows"]
        return Measurement(m, details)


class TeraValidate(Workload):
    name, title = "teravalidate", "TeraValidate"
    doc = ("Checks TeraSort's output: every file in key order, files in order, and the checksum "
           "(sum of the rows' CRC-32s) equal to TeraGen's. A mismatch fails the run.")
    params = ()
    consumes, producer = "tera-output", "terasort"
    metrics = ("rows", "data_mb", "throughput_mb_s", "error_count")
    phases = ("read + check",)
    io = IORoles(input="data_mb", intermediate=None, output=None)
    verifies = True
    verify_against = "teragen"  # the checksum and row count TeraGen recorded
    spark_job = "TeraValidate.run"
    hadoop_main = EXAMPLES + "TeraValidate"

    def spark_params(self, req):
        return {"input": req.inputs}

    def hadoop_command(self, req, mode):
        return {}, [req.inputs[0], "file://" + str(req.scratch / "teravalidate-report")]

    def hadoop_result(self, log, req):
        lines = []
        for part in sorted((req.scratch / "teravalidate-report").glob("part-r-*")):
            lines += part.read_text().splitlines()
        errors = [l.split("\t", 1)[1] for l in lines if l.startswith("error\t")]
        return {"checksum": next(l.split("\t", 1)[1] for l in lines if l.startswith("checksum\t")),
                "errors": errors[:20], "error_count": len(errors), "rows": log.counters["Map input records"]}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        rows, m = _rows_measure(job, wall_s)
        m["error_count"] = job["error_count"]
        problems = list(job["errors"][:3])
        if job["error_count"]:
            problems.insert(0, f"{job['error_count']} ordering error(s)")
        if produced.get("checksum") is not None and job["checksum"] != produced["checksum"]:
            problems.append(f"checksum {job['checksum']} differs from TeraGen's {produced['checksum']}")
        if produced.get("rows") is not None and rows != produced["rows"]:
            problems.append(f"{rows} rows where TeraGen wrote {produced['rows']}")
        failure = "TeraValidate: " + "; ".join(problems) if problems else None
        return Measurement(m, {"rows": rows, "checksum": job["checksum"], "errors": job["errors"]}, failure)


WORKLOADS = (TeraGen(), TeraSort(), TeraValidate())
