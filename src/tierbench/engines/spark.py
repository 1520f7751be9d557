"""The Spark engine: one Spark application per storage configuration, running tierbench's Java jobs.

Local mode by default (`local[*]`); any Spark master URL works, since the
jobs ship as a jar (spark.jars) and read/write through Hadoop FileSystem.
"""

import ctypes
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from ..spec import EngineSpec, StorageConfig, WorkloadSpec
from ..workloads import generator_tasks
from .base import EngineError, JobOutcome, JobRequest
from .jobs_jar import jobs_jar

SUPPORTED = ("teragen", "terasort", "teravalidate", "dfsio-write", "dfsio-read", "textgen", "wordcount", "grep",
             "shuffle", "datawrite", "dataread", "copy", "sqlgen", "sql")
SECRET_WORDS = ("secret", "password", "access.key", "token", "credential")


def redact(conf: dict) -> dict:
    return {k: ("<redacted>" if any(w in k.lower() for w in SECRET_WORDS) else v) for k, v in conf.items()}


def spark_conf(engine: EngineSpec, app_name: str, local_dirs: list[Path]) -> dict:
    conf = {
        "spark.master": engine.master,
        "spark.app.name": app_name,
        "spark.jars": str(jobs_jar()),
        "spark.local.dir": ",".join(str(d) for d in local_dirs),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        "spark.driver.memory": engine.driver_memory,
    }
    if engine.executor_memory:
        conf["spark.executor.memory"] = engine.executor_memory
    conf.update(engine.conf)
    return conf


def _die_with_parent() -> None:
    # the worker (and its JVM, which exits when its stdin closes) must not outlive tierbench
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class SparkApp:
    """A running Spark application in a worker process."""

    def __init__(self, conf: dict, log_path: Path, env: dict | None = None):
        self.conf = conf
        self.log_path = log_path
        self._log = open(log_path, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tierbench.engines.spark_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
            env=env or os.environ.copy(), preexec_fn=_die_with_parent,
        )
        self._send({"conf": conf})
        ready = self._next_event()
        self.spark_version = ready["spark_version"]
        self.full_conf = redact(ready["conf"])

    def _send(self, obj) -> None:
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise EngineError(self._died()) from None

    def _died(self) -> str:
        self.proc.poll()
        tail = ""
        try:
            lines = [l for l in self.log_path.read_text(errors="replace").splitlines() if l.strip()]
            tail = " | ".join(lines[-3:])
        except OSError:
            pass
        return f"the Spark application stopped (exit {self.proc.returncode}); see {self.log_path}: {tail}"

    def _next_event(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EngineError(self._died())
        return json.loads(line)

    def run(self, job: str, params: dict, on_progress: Callable[[dict], None] | None = None) -> dict:
        self._send({"job": job, "params": params})
        while True:
            ev = self._next_event()
            if ev["event"] == "progress":
                if on_progress:
                    on_progress(ev)
            elif ev["event"] == "result":
                return ev

    def stop(self) -> None:
        from ..sampling.procfs import descendants
        from ..services.base import pid_alive

        jvms = descendants(self.proc.pid)  # Spark's JVM: it deletes its local dirs as it exits
        if self.proc.poll() is None:
            try:
                self._send({"stop": True})
                self.proc.wait(timeout=60)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        deadline = time.time() + 30
        while any(pid_alive(p) for p in jvms) and time.time() < deadline:
            time.sleep(0.1)
        self._log.close()


def job_params(w: WorkloadSpec, inputs: list[str], outputs: list[str], producer: WorkloadSpec | None) -> dict:
    """The Java job's parameters for a workload; data sets are lists of URIs (one per data dir)."""
    p = w.params
    if w.name == "textgen":
        return {"bytes": p["size"], "tasks": generator_tasks(p["size"], p["tasks"]), "output": outputs, "vocabulary": p["vocabulary"],
                "zipf": p["zipf"], "plant": p["plant"], "plant_every": p["plant_every"], "codec": p["output_codec"]}
    if w.name == "wordcount":
        return {"input": inputs, "output": outputs, "split_bytes": p["split_size"], "partitions": p["partitions"],
                "codec": p["output_codec"]}
    if w.name == "grep":
        return {"input": inputs, "pattern": p["pattern"], "split_bytes": p["split_size"]}
    if w.name == "shuffle":
        maps = generator_tasks(p["size"], p["map_tasks"])
        reducers = p["partitions"] or (max(1, math.ceil(p["size"] / (maps * p["fetch_size"]))) if p.get("fetch_size") else maps)
        return {"bytes": p["size"], "maps": maps, "reducers": reducers,
                "record_bytes": max(1, min(1 << 20, p["size"] // (maps * reducers) or 1))}
    if w.name == "datawrite":
        return {"bytes": p["size"], "files": generator_tasks(p["size"], p["files"]), "output": outputs}
    if w.name == "dataread":
        return {"input": inputs, "split_bytes": p["split_size"]}
    if w.name == "copy":
        return {"input": inputs, "output": outputs, "tasks": p["tasks"]}
    if w.name == "sql":
        from ..workloads import sql

        bench = producer.params["benchmark"]
        return {"tables": sql.table_uris(bench, inputs), "queries": sql.queries(bench, p["queries"] or sql.query_names(bench)),
                "split_bytes": p["split_size"], "partitions": p["partitions"]}
    if w.name == "teragen":
        rows = p["size"] // 100 if p.get("size") else p["rows"]
        return {"rows": rows, "tasks": generator_tasks(rows * 100, p["tasks"]), "output": outputs, "filler": p["filler"]}
    if w.name == "terasort":
        return {"input": inputs, "output": outputs, "partitions": p["partitions"], "split_bytes": p["split_size"]}
    if w.name == "teravalidate":
        return {"input": inputs}
    if w.name == "dfsio-write":
        return {"dirs": outputs, "files": p["files"], "file_bytes": p["file_size"], "buffer_bytes": p["buffer_size"]}
    if w.name == "dfsio-read":
        pp = producer.params
        return {"dirs": inputs, "files": pp["files"], "file_bytes": pp["file_size"], "buffer_bytes": p["buffer_size"]}
    raise ValueError(f"the Spark engine does not run {w.name}")


def engine_env(engine: EngineSpec) -> dict:
    env = os.environ.copy()
    if engine.master.startswith("local"):
        # the host name may resolve to an address that is not this machine's; local mode needs none
        env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return env


class SparkEngine:
    """One Spark application at a time, for the variant being run; restarted when the variant changes."""

    kind = "spark"

    def __init__(self, spec: EngineSpec, study: str, log_dir: Path):
        self.spec, self.name, self.study, self.log_dir = spec, spec.name, study, log_dir
        self.version: str | None = None
        self.conf: dict = {}
        self._app: SparkApp | None = None
        self._variant: str | None = None

    def open(self, variant: str, config: StorageConfig, local_dirs: list[Path], on_phase, also=()) -> None:
        if self._app is not None and self._variant == variant and self._app.proc.poll() is None:
            return
        self.close()
        on_phase(f"starting Spark for {variant}")
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)
        conf = spark_conf(self.spec, f"tierbench {self.study} {variant}", local_dirs)
        if any(c.data_type == "s3" for c in (config, *also)):  # the S3A connector rides along with the jobs jar
            from .s3a import s3a_jars

            on_phase("checking the S3A connector (fetched from Maven Central on first use)")
            conf["spark.jars"] = ",".join([conf["spark.jars"], *(str(j) for j in s3a_jars())])
        for c in (config, *also):  # the storages' own Hadoop settings, unless the engine sets them
            for k, v in c.engine_settings().items():
                conf.setdefault(f"spark.hadoop.{k}", v)
        try:
            self._app = SparkApp(conf, self.log_dir / f"spark-{variant}.log", engine_env(self.spec))
        except (OSError, RuntimeError) as e:
            raise EngineError(str(e)) from None
        self._variant = variant
        self.version = f"spark {self._app.spark_version}"
        self.conf = self._app.full_conf

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        if req.workload.name == "sqlgen":
            return self._sqlgen(req, on_progress)
        return self._job(req.workload.name, job_params(req.workload, req.inputs, req.outputs, req.producer), on_progress)

    def _job(self, job: str, params: dict, on_progress) -> JobOutcome:
        try:
            ev = self._app.run(job, params, on_progress)
        except EngineError:
            self._app, self._variant = None, None
            raise
        if not ev["ok"]:
            return JobOutcome(False, ev["wall_s"], error=ev["error"])
        return JobOutcome(True, ev["wall_s"], ev["result"])

    def _sqlgen(self, req: JobRequest, on_progress) -> JobOutcome:
        """tpcgen-cli writes the tables locally (in the run's scratch dir), then the driver copies them to the
        storage under test through Hadoop's FileSystem, as a loader would; both times are recorded."""
        from ..workloads import sql

        p = req.workload.params
        t0 = time.perf_counter()
        try:
            local = sql.generate(p["benchmark"], p["scale"], p["parts"], p["output_codec"], req.scratch / "tables")
        except RuntimeError as e:
            return JobOutcome(False, time.perf_counter() - t0, error=str(e))
        gen_s = time.perf_counter() - t0
        targets = sql.table_uris(p["benchmark"], req.outputs)
        copies = [["file://" + str(local[t]), targets[t]] for t in local]
        out = self._job("upload", {"copies": copies}, on_progress)
        shutil.rmtree(req.scratch / "tables", ignore_errors=True)  # the local copy was only a staging area
        if out.ok:
            out.result.update(gen_s=gen_s, upload_s=out.wall_s, tables=sorted(local))
            out.wall_s = gen_s + out.wall_s
        return out

    def close(self) -> None:
        if self._app is not None:
            self._app.stop()
            self._app, self._variant = None, None
