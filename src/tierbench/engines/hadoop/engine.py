"""Runs Hadoop 3.4.2's own jobs (each workload names its main class and arguments), one JVM per job.

Local mode (default): LocalJobRunner, `file://` data, the storage config's
intermediate dirs as `mapreduce.cluster.local.dir`. YARN mode: the jobs are
submitted with a Hadoop conf dir (a user's cluster, or tierbench's embedded
YARN); there the NodeManagers' local dirs hold intermediate data.
Durable studies in local mode write through tierbench's syncing local file system (DURABLE_LOCAL_CONF); in local
mode tasks place their map outputs through tierbench's MapOutputFiles (LOCAL_OUTPUT_CONF).
Each run's full log is kept with the results.
"""

import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from ... import processes
from ...job import JobOutcome, JobRequest
from ...redaction import MaskedLog, mask
from ...toolchain import ADD_OPENS, HADOOP_VERSION, hadoop_lib, java_bin, yarn_conf_dir
from ...units import MB
from ..base import Engine
from ..jobs_jar import jobs_jar
from . import logparse
from .. import s3a_requests
from ..cmdline import conf_value, joined, list_item
from ...storage.types import COMMITTER_KEY, hadoop_committer_settings, local_path
from .runtime import classpath
from .watch import wait_for_job
from .yarn_kill import kill_applications


# durability = "durable", local mode: Hadoop's local file system, syncing every file it writes before close
# (SyncingLocalFileSystem.java): the jobs' file:// output and the map outputs, spills and merges in the local dirs
# (MapTask and ReduceTask write those through FileSystem.getLocal, which is fs.file.impl). The spec's own engine
# settings still win. Its local runner (ParallelLocalProtocolProvider.java) is Hadoop's without forcing a job's maps
# to 1: TeraGen writes with as many maps as it is given (`tasks`), as a node's task slots do.
LOCAL_FRAMEWORK = "tierbench-local"
# Local mode, any durability: where a task puts its spills and map outputs (MapOutputFiles.java): as Hadoop's own
# (round robin over mapreduce.cluster.local.dir) but a map output's index beside its output, which Hadoop's local
# runner reads it from -- with several local dirs Hadoop's own puts it elsewhere and a TeraSort fails
LOCAL_OUTPUT_CONF = {"mapreduce.task.local.output.class": "tierbench.io.MapOutputFiles"}
# A run's time is the job's log from its first line to "completed successfully" (logparse.job_seconds), which the
# job client prints when it next polls its job: by default once a second, so every run was 0-1 s longer than its
# job (measured: 0.87 s between a TeraGen's last task and that line). A local job is polled in memory: 50 ms.
LOCAL_MONITOR_CONF = {"mapreduce.client.progressmonitor.pollinterval": "50"}
S3A_LOGGING_KEY = "fs.iostatistics.logging.level"  # Hadoop's: the level S3AFileSystem.close() logs its IOStatistics at
# Durable local mode with several data directories: the data set's location in each, over which the file system
# spreads its files as HDFS's DataNode spreads blocks over its volumes (Volumes.java)
VOLUMES_KEY = "tierbench.local.volumes"
OWN_JOBS = "tierbench."  # a workload's hadoop_main in tierbench's jobs jar (tierbench.mapreduce.*), not Hadoop's
DURABLE_LOCAL_CONF = {"fs.file.impl": "tierbench.io.SyncingLocalFileSystem", "mapreduce.framework.name": LOCAL_FRAMEWORK}
# on YARN the tasks run in the NodeManagers' JVMs, whose classpath tierbench does not set
YARN_SYNC_GAPS = ("MapReduce on YARN does not sync its map outputs (intermediate data) before a task ends",
                  "Hadoop's jobs on YARN do not sync file:// output (their task JVMs lack tierbench's syncing file system)")


class HadoopEngine(Engine):
    kind = "hadoop"

    def __init__(self, spec, log_dir: Path, durable: bool = False):  # spec: a spec.EngineSpec
        self.spec, self.name, self.log_dir = spec, spec.name, log_dir
        # durable mode: what this engine cannot sync whatever the storage (the storage's own: StorageType.sync_gaps)
        self.durable_local = durable and spec.mode == "local"
        self.sync_gaps: tuple[str, ...] = () if spec.mode == "local" else YARN_SYNC_GAPS
        self.conf_dir = yarn_conf_dir(spec.hadoop_conf_dir) if spec.mode == "yarn" else None
        self.version = f"hadoop {HADOOP_VERSION} ({'local' if spec.mode == 'local' else 'yarn, conf ' + str(self.conf_dir)})"
        self.conf: dict = {}
        self._local_dirs: list[Path] = []
        self._connectors: tuple = ()  # the storages' connectors (S3A's for s3a://), each once

    def open(self, variant: str, config, local_dirs: list[Path], on_phase, also=()) -> None:
        on_phase("checking Hadoop's jars (fetched from Maven Central on first use)")
        hadoop_lib()
        if self.spec.mode == "local":
            on_phase("building tierbench's Java classes (the map outputs' placement, the syncing local file system)")
            jobs_jar()
        self._local_dirs = local_dirs
        self._connectors = tuple(dict.fromkeys(c.type.connector("hadoop") for c in (config, *also)))

    def _generic(self, req: JobRequest) -> dict:
        d = {}
        if self.spec.mode == "local":
            for p in req.local_dirs:
                p.mkdir(parents=True, exist_ok=True)
            d.update({
                "mapreduce.framework.name": "local",
                # TestDFSIO works on the default file system: make it the data's
                "fs.defaultFS": req.default_fs,
                "hadoop.tmp.dir": conf_value(req.scratch / "hadoop-tmp", "hadoop.tmp.dir"),
                "mapreduce.cluster.local.dir": joined(req.local_dirs, "mapreduce.cluster.local.dir", hadoop=True),
                # the job's staging files on this host even when the default file system is a bucket
                "mapreduce.jobtracker.staging.root.dir": "file://" + conf_value(
                    req.scratch / "staging", "mapreduce.jobtracker.staging.root.dir"),
                **LOCAL_OUTPUT_CONF,
                **LOCAL_MONITOR_CONF,
            })
        else:
            d.update({
                "mapreduce.map.java.opts": f"-Xmx768m {ADD_OPENS}",
                "mapreduce.reduce.java.opts": f"-Xmx768m {ADD_OPENS}",
                "yarn.app.mapreduce.am.command-opts": f"-Xmx768m {ADD_OPENS}",
            })
        if self.durable_local:
            d.update(DURABLE_LOCAL_CONF)
            if len(req.outputs) > 1:  # several data dirs: the data set's files spread over them (Volumes.java)
                d[VOLUMES_KEY] = joined((local_path(u) or u for u in req.outputs), VOLUMES_KEY, hadoop=True)
        d.update(req.storage_conf)
        d.update(hadoop_committer_settings(req.storage_conf.get(COMMITTER_KEY)))
        for connector in self._connectors:
            d.update(connector.settings)
        if self._logs_s3a:  # each S3A file system logs its request counters as the JVM closes it (s3a_requests.py)
            d[S3A_LOGGING_KEY] = "info"
        d.update(self.spec.conf)
        return d

    def _command(self, req: JobRequest, generic: dict) -> list[str]:
        wl = req.workload.definition
        for path in (*req.inputs, *req.outputs):  # (FileInputFormat splits a job's input paths at commas)
            list_item(path, ",", "a Hadoop job's input or output paths", hadoop=True)
        extra, args = wl.hadoop_command(req, self.spec.mode)
        opts = []
        for k, v in {**generic, **extra}.items():
            opts += ["-D", f"{k}={v}"]
        jars = tuple(jar for c in self._connectors for jar in c.jars())
        if self.spec.mode == "local" or wl.hadoop_main.startswith(OWN_JOBS):
            # MapOutputFiles, SyncingLocalFileSystem, the tierbench-local runner; tierbench's own jobs (which ship
            # the jar to YARN's tasks themselves: Job.setJarByClass)
            jars += (str(jobs_jar()),)
        # the job client's (and in local mode the tasks') temporary files in the run's scratch, deleted with it:
        # in /tmp they would outlive the study (lz4-java's native library unpacks there at every start)
        tmp = f"-Djava.io.tmpdir={req.scratch / 'jvm-tmp'}"
        return [java_bin(), "-Xmx1g", *self.spec.java_options, tmp, *ADD_OPENS.split(), "-cp", classpath(self.conf_dir, jars),
                wl.hadoop_main, *opts, *args]

    @property
    def _logs_s3a(self) -> bool:
        """A storage of the run needs a connector: S3A's, whose statistics the job's log is to hold."""
        return any(c.fetch_jars for c in self._connectors)

    def _s3a_details(self, text: str) -> dict:
        if not self._logs_s3a:
            return {}
        not_covering = [] if self.spec.mode == "local" else [
            "the tasks' and the MapReduce ApplicationMaster's requests: on YARN they run in containers of their own, "
            "whose logs tierbench does not read (these are the job client's)"]
        return s3a_requests.from_log(text, not_covering)

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        (req.scratch / "jvm-tmp").mkdir(parents=True, exist_ok=True)
        generic = self._generic(req)
        self.conf = dict(generic)
        cmd = self._command(req, generic)
        log_path = self.log_dir / "runs" / (req.run_key.replace("/", "_") + ".log")
        log_path.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        # each line masked as the job prints it (never a credential on disk, even if tierbench is killed)
        log = MaskedLog(log_path, "w", header="# " + shlex.join(cmd) + "\n")
        try:
            proc = processes.spawn(cmd, stdout=log.fd, stderr=subprocess.STDOUT, cwd=req.scratch, stdin=subprocess.DEVNULL,
                                   die_with_parent=signal.SIGKILL)  # (a JVM's shutdown hooks may hang on a dead store)
        except BaseException:
            log.close()
            raise
        log.started()
        if self.confine:  # a scale model's page cache budget holds the job's JVM
            self.confine(proc.pid)
        ended_early = True  # (interrupted, or stalled: the client ended before its job did)
        try:
            stalled = wait_for_job(proc, log_path, on_progress)
            ended_early = stalled is not None
        finally:
            processes.end_group(proc.pid)  # (the job's JVM, also when tierbench is interrupted mid-job)
            log.close()
            if ended_early and self.spec.mode == "yarn":
                self._kill_yarn_application(log_path)
        process_s = time.perf_counter() - t0
        if stalled:
            return JobOutcome(False, process_s, error=mask(stalled), log=str(log_path))
        text = log_path.read_text(errors="replace")
        if proc.returncode != 0:
            return JobOutcome(False, process_s, error=_failure_line(text, proc.returncode), log=str(log_path))
        try:
            result, wall = _result(text, req)
        except (ValueError, KeyError, OSError) as e:
            return JobOutcome(False, process_s, error=f"could not read the job's results from its log: {e}", log=str(log_path))
        result["process_s"] = process_s
        result.update(self._s3a_details(text))
        return JobOutcome(True, wall if wall is not None else process_s, result, log=str(log_path))

    def _kill_yarn_application(self, log_path: Path) -> None:
        """The YARN application the ended client had submitted, killed (it would run on: yarn_kill.py)."""
        try:
            text = log_path.read_text(errors="replace")
        except OSError:
            return
        for why in kill_applications(text, self.conf_dir):
            print(f"tierbench: warning: {why}: kill it with `yarn application -kill`", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def _failure_line(text: str, code: int) -> str:
    lines = text.splitlines()
    # a task failed: the job client's last line says only "... failed with state FAILED due to: NA"; the local
    # runner logged the task's stack trace before it, whose last "Caused by" is the cause (a missing file, a full disk)
    causes = [line for line in lines if line.startswith("Caused by: ")]
    if causes and any("failed with state" in line for line in lines):
        return f"hadoop job exited {code}: {causes[-1].strip()[:300]}"
    for line in reversed(lines):
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


def _result(text: str, req: JobRequest) -> tuple[dict, float | None]:
    """What any Hadoop job reports (counters, task phases), plus what the workload reads from its log."""
    log = logparse.HadoopLog(text)
    out: dict = {"counters": log.groups, "counter_metrics": {}}
    for name, metric, div in COUNTER_METRICS:
        if name in log.counters:
            out["counter_metrics"][metric] = log.counters[name] / div
    out["task_phases"] = logparse.task_phases(text)
    if held := logparse.held_bytes(text):  # a scale model's spills and map outputs read back from memory
        out["held_mb"] = held / MB
    if direct := logparse.direct_read_bytes(text):  # its reduce inputs read from the drive past the page cache
        out["direct_read_mb"] = direct / MB
    result, wall = req.workload.definition.hadoop_result(log, req)
    out.update(result)
    return out, wall
