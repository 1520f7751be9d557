"""Runs Hadoop 3.4.2's own TestDFSIO and TeraGen/TeraSort/TeraValidate, one JVM per job.

Local mode (default): LocalJobRunner, `file://` data, the storage config's
intermediate dirs as `mapreduce.cluster.local.dir`. YARN mode: the jobs are
submitted with a Hadoop conf dir (a user's cluster, or tierbench's embedded
YARN); there the NodeManagers' local dirs hold intermediate data.
Each run's full log is kept with the results.
"""

import os
import re
import subprocess
import time
from pathlib import Path

from ...spec import EngineSpec, StorageConfig
from ...units import MB
from ...workloads import generator_tasks
from ..base import EngineError, JobOutcome, JobRequest
from . import logparse
from .runtime import HADOOP_VERSION, classpath, hadoop_lib, java_bin, yarn_conf_dir

MAIN = {
    "teragen": "org.apache.hadoop.examples.terasort.TeraGen",
    "terasort": "org.apache.hadoop.examples.terasort.TeraSort",
    "teravalidate": "org.apache.hadoop.examples.terasort.TeraValidate",
    "dfsio-write": "org.apache.hadoop.fs.TestDFSIO",
    "dfsio-read": "org.apache.hadoop.fs.TestDFSIO",
    "textgen": "org.apache.hadoop.examples.RandomTextWriter",
    "wordcount": "org.apache.hadoop.examples.WordCount",
    "grep": "org.apache.hadoop.examples.Grep",
    "datawrite": "org.apache.hadoop.examples.RandomWriter",
    "copy": "org.apache.hadoop.tools.DistCp",
}
CODEC_CLASSES = {"gzip": "GzipCodec", "bzip2": "BZip2Codec", "lz4": "Lz4Codec", "snappy": "SnappyCodec", "deflate": "DefaultCodec"}


def _output_codec(codec: str) -> dict:
    if codec == "none":
        return {}
    return {"mapreduce.output.fileoutputformat.compress": "true",
            "mapreduce.output.fileoutputformat.compress.codec": f"org.apache.hadoop.io.compress.{CODEC_CLASSES[codec]}"}


def _split(size: int) -> dict:
    return {"mapreduce.input.fileinputformat.split.minsize": size, "mapreduce.input.fileinputformat.split.maxsize": size}
# Java 17 closes these to reflection that Hadoop 3.4's daemons and tasks use
ADD_OPENS = " ".join(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
    "java.lang", "java.lang.reflect", "java.util", "java.util.concurrent", "java.io", "java.net", "java.nio", "sun.nio.ch"))


def _size_arg(n: int) -> str:
    return f"{n // MB}MB" if n % MB == 0 else f"{n}B"


class HadoopEngine:
    kind = "hadoop"

    def __init__(self, spec: EngineSpec, log_dir: Path):
        self.spec, self.name, self.log_dir = spec, spec.name, log_dir
        self.conf_dir = yarn_conf_dir(spec.hadoop_conf_dir) if spec.mode == "yarn" else None
        self.version = f"hadoop {HADOOP_VERSION} ({'local' if spec.mode == 'local' else 'yarn, conf ' + str(self.conf_dir)})"
        self.conf: dict = {}
        self._local_dirs: list[Path] = []

    def open(self, variant: str, config: StorageConfig, local_dirs: list[Path], on_phase, also=()) -> None:
        on_phase("checking Hadoop's jars (fetched from Maven Central on first use)")
        hadoop_lib()
        self._local_dirs = local_dirs

    def _generic(self, req: JobRequest) -> dict:
        d = {}
        if self.spec.mode == "local":
            for p in req.local_dirs:
                p.mkdir(parents=True, exist_ok=True)
            remote = next((u for u in (*req.inputs, *req.outputs) if u.startswith("hdfs://")), None)
            d.update({
                "mapreduce.framework.name": "local",
                # TestDFSIO works on the default file system: make it the data's
                "fs.defaultFS": re.match(r"^hdfs://[^/]+", remote).group(0) if remote else "file:///",
                "hadoop.tmp.dir": str(req.scratch / "hadoop-tmp"),
                "mapreduce.cluster.local.dir": ",".join(str(p) for p in req.local_dirs),
            })
        else:
            d.update({
                "mapreduce.map.java.opts": f"-Xmx768m {ADD_OPENS}",
                "mapreduce.reduce.java.opts": f"-Xmx768m {ADD_OPENS}",
                "yarn.app.mapreduce.am.command-opts": f"-Xmx768m {ADD_OPENS}",
            })
        d.update(req.storage_conf)
        d.update(self.spec.conf)
        return d

    def _command(self, req: JobRequest, generic: dict) -> list[str]:
        w, p = req.workload.name, req.workload.params
        extra: dict = {}
        if w == "teragen":
            rows = p["size"] // 100 if p.get("size") else p["rows"]
            if p["tasks"]:
                extra["mapreduce.job.maps"] = p["tasks"]
            args = [str(rows), req.outputs[0]]
        elif w == "terasort":
            if p["partitions"]:
                extra["mapreduce.job.reduces"] = p["partitions"]
            extra["mapreduce.input.fileinputformat.split.minsize"] = p["split_size"]
            extra["mapreduce.input.fileinputformat.split.maxsize"] = p["split_size"]
            args = [req.inputs[0], req.outputs[0]]
        elif w == "teravalidate":
            args = [req.inputs[0], "file://" + str(req.scratch / "teravalidate-report")]
        elif w == "textgen":
            # local mode runs a single map whatever is asked (LocalClientProtocolProvider): it must write it all
            maps = generator_tasks(p["size"], p["tasks"]) if self.spec.mode == "yarn" else 1
            extra.update({"mapreduce.randomtextwriter.totalbytes": p["size"],
                          "mapreduce.randomtextwriter.bytespermap": -(-p["size"] // maps), **_output_codec(p["output_codec"])})
            args = ["-outFormat", "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat", req.outputs[0]]
        elif w == "datawrite":
            maps = generator_tasks(p["size"], p["files"]) if self.spec.mode == "yarn" else 1  # local mode: one map
            extra.update({"mapreduce.randomwriter.totalbytes": p["size"], "mapreduce.randomwriter.bytespermap": -(-p["size"] // maps)})
            args = [req.outputs[0]]
        elif w == "copy":
            args = ["-m", str(p["tasks"]), req.inputs[0], req.outputs[0]]
        elif w == "wordcount":
            extra.update({**_split(p["split_size"]), **_output_codec(p["output_codec"])})
            if p["partitions"]:
                extra["mapreduce.job.reduces"] = p["partitions"]
            args = [req.inputs[0], req.outputs[0]]
        elif w == "grep":
            extra.update(_split(p["split_size"]))
            if self.spec.mode == "local":  # Grep's temporary dir is relative: keep it in the run's scratch (the cwd)
                extra["fs.defaultFS"] = "file:///"
            # Hadoop's Grep takes a regular expression; tierbench's pattern is a literal string
            args = [req.inputs[0], req.outputs[0], "\\Q" + p["pattern"] + "\\E"]
        else:
            src = req.producer.params if w == "dfsio-read" else p
            extra["test.build.data"] = (req.outputs or req.inputs)[0]
            args = ["-write" if w == "dfsio-write" else "-read", "-nrFiles", str(src["files"]), "-fileSize",
                    _size_arg(src["file_size"]), "-bufferSize", str(p["buffer_size"]),
                    "-resFile", str(req.scratch / "TestDFSIO_results.log")]
        opts = []
        for k, v in {**generic, **extra}.items():
            opts += ["-D", f"{k}={v}"]
        return [java_bin(), f"-Xmx1g", *ADD_OPENS.split(), "-cp", classpath(self.conf_dir), MAIN[w], *opts, *args]

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        req.scratch.mkdir(parents=True, exist_ok=True)
        generic = self._generic(req)
        self.conf = dict(generic)
        cmd = self._command(req, generic)
        log_path = self.log_dir / "runs" / (req.run_key.replace("/", "_") + ".log")
        log_path.parent.mkdir(parents=True, exist_ok=True)
        w = req.workload.name
        t0 = time.perf_counter()
        with open(log_path, "w") as log:
            log.write("# " + " ".join(cmd) + "\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=req.scratch)
            while True:
                try:
                    proc.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    on_progress({"stage": 1, "name": "MapReduce job", "done": 0, "total": 0})
        process_s = time.perf_counter() - t0
        text = log_path.read_text(errors="replace")
        if proc.returncode != 0:
            return JobOutcome(False, process_s, error=_failure_line(text, proc.returncode), log=str(log_path))
        try:
            result, wall = _result(w, text, req)
        except (ValueError, KeyError, OSError) as e:
            return JobOutcome(False, process_s, error=f"could not read the job's results from its log: {e}", log=str(log_path))
        result["process_s"] = process_s
        return JobOutcome(True, wall if wall is not None else process_s, result, log=str(log_path))

    def close(self) -> None:
        pass


def _local_files(uri: str) -> dict[str, tuple[int, int]] | None:
    """Size and CRC-32 of each part file of a local data set (None when it is not local): what tierbench's own
    datawrite and copy report, so that a copy made by DistCp is checked the same way."""
    if not uri.startswith("file://"):
        return None
    import zlib

    out = {}
    for f in sorted(Path(uri.removeprefix("file://")).glob("part-*")):
        crc = 0
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 20):
                crc = zlib.crc32(chunk, crc)
        out[f.name] = (f.stat().st_size, crc)
    return out


def _splits(text: str) -> int:
    found = re.findall(r"number of splits:(\d+)", text)
    return int(found[0]) if found else 0


def _failure_line(text: str, code: int) -> str:
    for line in reversed(text.splitlines()):
        if re.search(r"(Exception|ERROR|failed|Error:)", line) and "at " not in line[:6]:
            return f"hadoop job exited {code}: {line.strip()[:300]}"
    return f"hadoop job exited {code}"


COUNTER_METRICS = (  # counter name -> (metric, divisor)
    ("Spilled Records", "spilled_records", 1),
    ("Reduce shuffle bytes", "shuffle_mb", MB),
    ("CPU time spent (ms)", "cpu_s", 1000),
    ("GC time elapsed (ms)", "gc_s", 1000),
    ("FILE: Number of bytes read", "file_read_mb", MB),
    ("FILE: Number of bytes written", "file_written_mb", MB),
    ("HDFS: Number of bytes read", "hdfs_read_mb", MB),
    ("HDFS: Number of bytes written", "hdfs_written_mb", MB),
)


def _result(workload: str, text: str, req: JobRequest) -> tuple[dict, float | None]:
    groups = logparse.counters(text)
    counters = {name: v for g in groups.values() for name, v in g.items()}
    out: dict = {"counters": groups, "counter_metrics": {}}
    for name, metric, div in COUNTER_METRICS:
        if name in counters:
            out["counter_metrics"][metric] = counters[name] / div
    wall = logparse.job_seconds(text)
    out["task_phases"] = logparse.task_phases(text)
    if workload == "teragen":
        out["rows"] = counters["Map output records"]
        out["checksum"] = format(counters["CHECKSUM"] & (2**64 - 1), "x")
        out["tasks"] = counters.get("Launched map tasks", len(re.findall(r"Task 'attempt_\S+_m_\d+_\d+' done", text)) or 1)
    elif workload == "terasort":
        out["rows"] = counters["Reduce output records"]
        splits = re.findall(r"number of splits:(\d+)", text)
        out["map_tasks"] = counters.get("Launched map tasks", int(splits[-1]) if splits else 0)
        out["reduce_tasks"] = counters.get("Launched reduce tasks", req.workload.params["partitions"] or 1)
    elif workload == "textgen":
        rtw = groups.get("org.apache.hadoop.examples.RandomTextWriter$Counters", {})
        out.update(bytes_generated=rtw["BYTES_WRITTEN"], lines=rtw["RECORDS_WRITTEN"], words=None, planted=0, plant="",
                   bytes_written=counters["Bytes Written"], generator="hadoop RandomTextWriter",
                   tasks=counters.get("Launched map tasks", len(re.findall(r"Task 'attempt_\S+_m_\d+_\d+' done", text)) or 1))
    elif workload == "datawrite":
        rw = groups.get("org.apache.hadoop.examples.RandomWriter$Counters", {})
        files = _local_files(req.outputs[0])
        # on local disks the counter includes the .crc side files: the files' own sizes are what a copy must match
        out.update(bytes_written=sum(b for b, _ in files.values()) if files is not None else counters["Bytes Written"],
                   records=rw.get("RECORDS_WRITTEN"),
                   files=len(files) if files is not None else counters.get("Launched map tasks", 1),
                   file_bytes={n: b for n, (b, _) in (files or {}).items()},
                   file_crc32={n: c for n, (_, c) in (files or {}).items()})
    elif workload == "copy":
        files = _local_files(req.outputs[0])
        out.update(bytes_copied=counters.get("Bytes Copied", 0), files=counters.get("Files Copied", 0),
                   tasks=counters.get("Launched map tasks", _splits(text) or 1),
                   file_bytes={n: b for n, (b, _) in files.items()} if files is not None else None,
                   file_crc32={n: c for n, (_, c) in files.items()} if files is not None else None)
    elif workload == "wordcount":
        out.update(words=counters["Map output records"], distinct_words=counters["Reduce output records"],
                   bytes_read=counters["Bytes Read"], bytes_written=counters["Bytes Written"],
                   map_tasks=counters.get("Launched map tasks", _splits(text)),
                   reduce_tasks=counters.get("Launched reduce tasks", req.workload.params["partitions"] or 1))
    elif workload == "grep":
        search = {name: v for g in logparse.counters(text, block=0).values() for name, v in g.items()}  # job 1 of 2: the search
        out.update(matches=search["Map output records"], matching_lines=None, lines=search["Map input records"],
                   bytes_read=search["Bytes Read"], bytes_scanned=None, pattern=req.workload.params["pattern"],
                   map_tasks=search.get("Launched map tasks", _splits(text)))
    elif workload == "teravalidate":
        report = Path(req.scratch / "teravalidate-report")
        lines = []
        for part in sorted(report.glob("part-r-*")):
            lines += part.read_text().splitlines()
        out["checksum"] = next(l.split("\t", 1)[1] for l in lines if l.startswith("checksum\t"))
        errors = [l.split("\t", 1)[1] for l in lines if l.startswith("error\t")]
        out["errors"] = errors[:20]
        out["error_count"] = len(errors)
        out["rows"] = counters["Map input records"]
    else:
        printed = logparse.dfsio_printed(text)
        if "Test exec time sec" not in printed:
            raise ValueError("TestDFSIO printed no results (is log4j.properties on the classpath?)")
        out["testdfsio"] = printed
        sizes, times = logparse.dfsio_tasks(text)
        out["task_bytes"], out["task_ms"] = sizes, times
        wall = float(printed["Test exec time sec"])
    return out, wall
