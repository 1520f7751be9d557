"""Raw data: Data Write (HDFS Data Write), Data Read (TeraRead) and a DistCp-style parallel Copy.
On the hadoop engine: Hadoop's RandomWriter and DistCp (no counterpart of Data Read)."""

import zlib

from ..storage.types import local_path
from ..units import MB
from .base import SPLIT, IORoles, Measurement, Metric, Param, Workload, define_metrics, generator_tasks, rate

ORDER = 50

define_metrics(copy_tasks=Metric("tasks", "copy: tasks that copied (at most one per file)"))


def local_files(uri: str) -> dict[str, tuple[int, int]] | None:
    """Size and CRC-32 of each part file of a data set on a local file system (None elsewhere): what tierbench's own
    datawrite and copy report, so that what Hadoop's RandomWriter and DistCp wrote is checked the same way."""
    path = local_path(uri)
    if path is None:
        return None
    out = {}
    for f in sorted(path.glob("part-*")):
        crc = 0
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 20):
                crc = zlib.crc32(chunk, crc)
        out[f.name] = (f.stat().st_size, crc)
    return out


class DataWrite(Workload):
    name, title = "datawrite", "Data Write"
    doc = ("Writes a data set of random (incompressible) bytes with no input, one task per file "
           "(HDFS Data Write); records each file's CRC-32 for dataread and copy. Hadoop engine: Hadoop's "
           "RandomWriter example (random-size records in SequenceFiles).")
    params = (Param("size", "size", 256 * MB, "bytes to write"),
              Param("files", "count", 0, "files = writing tasks (0: one per 64 MB, at least 2)"))
    produces = "data"
    warm_up_overrides = {"size": 8 * MB, "files": 2}
    metrics = ("data_mb", "throughput_mb_s", "files")
    phases = ("write",)
    io = IORoles(input=None, intermediate=None, output="data_mb")
    spark_job = "DataIO.write"
    hadoop_main = "org.apache.hadoop.examples.RandomWriter"

    def data_bytes(self, params, input_bytes):
        return params["size"]

    def spark_params(self, req):
        p = req.params
        return {"bytes": p["size"], "files": generator_tasks(p["size"], p["files"]), "output": req.outputs}

    def hadoop_command(self, req, mode):
        p = req.params
        maps = generator_tasks(p["size"], p["files"]) if mode == "yarn" else 1  # local mode: one map
        return ({"mapreduce.randomwriter.totalbytes": p["size"], "mapreduce.randomwriter.bytespermap": -(-p["size"] // maps)},
                [req.outputs[0]])

    def hadoop_result(self, log, req):
        rw = log.groups.get("org.apache.hadoop.examples.RandomWriter$Counters", {})
        files = local_files(req.outputs[0])
        # on local disks the counter includes the .crc side files: the files' own sizes are what a copy must match
        return {"bytes_written": sum(b for b, _ in files.values()) if files is not None else log.counters["Bytes Written"],
                "records": rw.get("RECORDS_WRITTEN"),
                "files": len(files) if files is not None else log.counters.get("Launched map tasks", 1),
                "file_bytes": {n: b for n, (b, _) in (files or {}).items()},
                "file_crc32": {n: c for n, (_, c) in (files or {}).items()}}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_written"] / MB, wall_s), "files": job["files"]}
        return Measurement(m, {"file_crc32": job["file_crc32"], "file_bytes": job["file_bytes"], "bytes": job["bytes_written"]})


class DataRead(Workload):
    name, title = "dataread", "Data Read"
    doc = ("Reads every byte of datawrite's data set in splits of split_size (TeraRead). "
           "Fails the run when the bytes read differ from what was written.")
    params = (SPLIT,)
    consumes, producer = "data", "datawrite"
    metrics = ("data_mb", "throughput_mb_s", "map_tasks")
    phases = ("read",)
    io = IORoles(input="data_mb", intermediate=None, output=None)
    verifies = True
    spark_job = "DataIO.read"

    def spark_params(self, req):
        return {"input": req.inputs, "split_bytes": req.params["split_size"]}

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_read"] / MB, wall_s), "map_tasks": job["map_tasks"]}
        expected = produced.get("bytes", job["bytes_listed"])
        failure = None
        if job["bytes_read"] != expected:
            failure = f"Data Read: read {job['bytes_read']} bytes of the {expected} written"
        return Measurement(m, {"bytes": job["bytes_read"]}, failure)


class Copy(Workload):
    name, title = "copy", "Copy"
    doc = ("DistCp-style parallel copy of datawrite's data set, whole files dealt to `tasks` copy tasks, "
           "to the same storage or to the configuration named in `to`. Every copied file's size and CRC-32 "
           "must equal the original's, or the run fails. Hadoop engine: DistCp (-m tasks), checked the same "
           "way where the copy is on local disks, by bytes copied (and DistCp's own checksums) elsewhere.")
    params = (Param("tasks", "count", 4, "copy tasks (DistCp's -m; the NFS study went from 21 to 200)", 1),
              Param("to", "text", "", "the storage configuration to copy to (default: the one under test)"))
    consumes, producer = "data", "datawrite"
    metrics = ("data_mb", "throughput_mb_s", "files", "copy_tasks")
    phases = ("copy",)
    io = IORoles(input="data_mb", intermediate=None, output="data_mb")
    verifies = True
    spark_job = "DataIO.copy"
    hadoop_main = "org.apache.hadoop.tools.DistCp"

    def output_dataset(self, label: str, params: dict) -> str:
        return f"copy-{label}"

    def copy_target(self, params):
        return params["to"] or None

    def check_params(self, params, engine_kinds, config_names):
        if params["to"] and params["to"] not in config_names:
            return "to", f"{params['to']!r} is not a storage configuration; accepted: {', '.join(config_names)}"
        return None

    def spark_params(self, req):
        return {"input": req.inputs, "output": req.outputs, "tasks": req.params["tasks"]}

    def hadoop_command(self, req, mode):
        return {}, ["-m", str(req.params["tasks"]), req.inputs[0], req.outputs[0]]

    def hadoop_result(self, log, req):
        files = local_files(req.outputs[0])
        c = log.counters
        return {"bytes_copied": c.get("Bytes Copied", 0), "files": c.get("Files Copied", 0),
                "tasks": c.get("Launched map tasks", log.splits() or 1),
                "file_bytes": {n: b for n, (b, _) in files.items()} if files is not None else None,
                "file_crc32": {n: c for n, (_, c) in files.items()} if files is not None else None}, log.job_seconds()

    def measure(self, job, wall_s, produced):
        """Per file (size and CRC-32) where both sides were listed; else the total bytes against what was written
        (Hadoop's DistCp on a remote store: it compares lengths, and checksums where both stores have them, itself)."""
        m = {**rate(job["bytes_copied"] / MB, wall_s), "files": job["files"], "copy_tasks": job["tasks"]}
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


WORKLOADS = (DataWrite(), DataRead(), Copy())
