"""The Spark engine: one Spark application per storage configuration, running tierbench's Java jobs.

Local mode by default (`local[*]`); any Spark master URL works, since the
jobs ship as a jar (spark.jars) and read/write through Hadoop FileSystem.

Repeats are interleaved (r1: every configuration, r2: every configuration...) so that drift over the study
falls on all of them alike; with one application at a time each switch of configuration would start a JVM
(8-14 s). In local mode the applications of the configurations not running stay alive, idle, within the
engine's keep_alive_memory (their resident memory, least recently used stopped first).
"""

import os
import shutil
import sys
import weakref
from pathlib import Path

from ..job import JobOutcome, JobRequest
from . import s3a_requests
from .base import Engine, EngineError
from .cmdline import joined
from .jobs_jar import jobs_jar
from .spark_app import SparkApp
from .spark_confine import ExecutorConfinement, worker_ids
from .spark_tmp import jvm_tmp_conf, make_app_tmp, remove_app_tmp, study_tmp_root
from .spark_versions import worker_env

DURABLE_CONF = {  # durability = "durable": see Durable.java; the spec's own engine settings still win
    "spark.hadoop.tierbench.durable": "true",  # tierbench's jobs sync every file they write before the task ends
    "spark.shuffle.sync": "true",  # spill files and the bypass-merge writer's per-reducer files synced
    "spark.shuffle.sort.io.plugin.class": "tierbench.shuffle.DurableShuffleDataIO",  # and each map output file
    # no bypass-merge writer: it writes one file per reducer, which spark.shuffle.sync syncs, then copies them
    # all into the map output, synced again: every shuffle byte reached the device twice (a 1 GB TeraSort's map
    # stage 4.0 s -> 3.5 s without it). The sort writers write the map output once (Spark's choice above 200
    # reducers anyway).
    "spark.shuffle.sort.bypassMergeThreshold": "0",
}


def spark_conf(engine, app_name: str, local_dirs: list[Path], durable: bool = False) -> dict:
    conf = {
        "spark.master": engine.master,
        "spark.app.name": app_name,
        "spark.jars": joined([jobs_jar(engine.spark)], "spark.jars"),  # (compiled against that release's jars)
        # the driver's scratch; the executors' local dirs only in local mode (a cluster manager gives executors
        # its own: see spec/cluster.py for what applies the intermediate dirs where)
        "spark.local.dir": joined(local_dirs, "spark.local.dir"),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        "spark.driver.memory": engine.driver_memory,
    }
    if engine.executor_memory:
        conf["spark.executor.memory"] = engine.executor_memory
    if engine.master.startswith("k8s://"):  # executors in pods use the volumes named spark-local-dir-* as local dirs:
        for n, d in enumerate(local_dirs, 1):  # each intermediate dir, from the node, at the same path
            volume = f"spark.kubernetes.executor.volumes.hostPath.spark-local-dir-{n}"
            conf[f"{volume}.mount.path"] = conf[f"{volume}.options.path"] = str(d)
    if durable:
        conf.update(DURABLE_CONF)
    conf.update(engine.conf)
    return conf


NODE_AGENT_PLUGIN = "tierbench.agent.NodeAgentPlugin"
# settings a runtime adds to rather than replaces (Spark takes a comma-separated list): the engine's own stay
LIST_SETTINGS = ("spark.sql.extensions",)


def node_agent_conf(master: str, dirs, interval_s: float) -> dict:
    """On a cluster, the node agent rides in every executor (spark.plugins); local mode keeps tierbench's own
    sampler, which sees the one machine there is."""
    if master.startswith("local"):
        return {}
    return {"spark.plugins": NODE_AGENT_PLUGIN, "spark.tierbench.agent.interval": f"{interval_s:g}",
            "spark.tierbench.agent.dirs": joined(dirs, "spark.tierbench.agent.dirs")}


class SparkNodeAgents:
    """The node agents of one Spark application, as sampling/nodes.py's observers: messages, commands, hosts."""

    def __init__(self, app: "SparkApp", expected: int | None = None):
        self.app = app
        self.expected = expected  # executor hosts to wait for, when the engine knows (an embedded cluster's Workers)

    def messages(self) -> list[dict]:
        return self.app.agents({"agents": "drain"})["messages"]

    def command(self, cmd: dict) -> None:
        self.app.agents({"agents": "command", "cmd": cmd})

    def hosts(self) -> list[str]:
        return self.app.agents({"agents": "hosts"})["hosts"]


def engine_env(engine) -> dict:
    env = worker_env(engine.spark, os.environ.copy())  # (another release than the project's: its pyspark, its JVM)
    if engine.master.startswith("local"):
        # the host name may resolve to an address that is not this machine's; local mode needs none
        env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return env


def default_keep_alive_memory() -> int:
    """A quarter of this machine's memory: the rest stays for the running application and the page cache."""
    from ..machine import machine_facts

    return (machine_facts().get("memory_bytes") or 0) // 4


class SparkEngine(Engine):
    """The Spark application of the variant being run; in local mode the other variants' applications are kept,
    idle, within keep_alive_memory (see the module's doc), elsewhere one at a time."""

    kind = "spark"

    sync_gaps: tuple[str, ...] = ()  # durable mode: Spark syncs its shuffle files (spark.shuffle.sync)

    def __init__(self, spec, study: str, log_dir: Path, durable: bool = False, sampling_interval_s: float = 1.0,
                 runtimes: tuple = ()):
        # spec: a spec.EngineSpec; runtimes: the workloads' (workloads.base.SparkRuntime), on every application
        self.spec, self.name, self.study, self.log_dir, self.durable = spec, spec.name, study, log_dir, durable
        self.runtimes = runtimes
        self.sampling_interval_s = sampling_interval_s
        self.version: str | None = None
        self.conf: dict = {}
        self._app: SparkApp | None = None
        self._variant: str | None = None
        self._idle: dict[str, SparkApp] = {}  # variant -> its idle application, least recently used first
        budget = spec.keep_alive_memory
        self.keep_alive_memory = (default_keep_alive_memory() if budget is None else budget) \
            if spec.master.startswith("local") else 0  # a cluster's executors hold its resources: one at a time
        self.apps_started = self.apps_resumed = 0
        self._workers: int | None = None  # an embedded standalone cluster's Workers: one executor host each
        self._confinement = ExecutorConfinement()
        # its applications' JVM temporary folders: tierbench's, one per results folder and engine (spark_tmp.py)
        self._tmp_root = study_tmp_root(study, f"{Path(log_dir).resolve()}:{self.name}")
        # (and removed at the latest when the engine goes or tierbench exits: an engine never closed leaves none)
        weakref.finalize(self, shutil.rmtree, self._tmp_root, True)

    def open(self, variant: str, config, local_dirs: list[Path], on_phase, also=()) -> bool:
        """True when it started a fresh application (cold: the study warms it up), False when it kept one."""
        if self._app is not None and self._variant == variant and self._app.alive():
            return False
        if self._app is not None and self._variant == variant:
            on_phase("the Spark application had died: starting a fresh one")
            self._stop_current()
        kept = self._idle.pop(variant, None)  # (taken before the current one is set aside: it does not compete for room)
        self._set_current_aside(on_phase)
        if kept is not None and kept.alive():
            self._app, self._variant = kept, variant
            self.version, self.conf = f"spark {kept.spark_version}", kept.full_conf
            self.apps_resumed += 1
            return False
        if kept is not None:
            on_phase(f"the idle Spark application of {variant} had died: starting a fresh one")
            kept.stop()
        on_phase(f"starting Spark for {variant}")
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)
        from ..errors import UserError
        from ..services.spark import embedded_standalone

        cluster = embedded_standalone(self.spec.master)
        self._workers = cluster.registered_workers() if cluster is not None else None
        before = worker_ids(cluster) if cluster is not None and self.confine else set()
        if cluster is not None:  # standalone executors use their Worker's local dirs: put the Workers on this variant's
            try:
                cluster.restart_workers(local_dirs, on_phase)
            except UserError as e:
                raise EngineError(str(e)) from None
        now = worker_ids(cluster) if cluster is not None and self.confine else None
        uncovered = self._confinement.apply(self.spec.master, self.confine, before, now)
        conf = self.application_conf(variant, config, local_dirs, on_phase, also)
        tmp = make_app_tmp(self._tmp_root, variant)  # (a folder of tierbench's: no user's path in a split option)
        conf.update(jvm_tmp_conf(conf, tmp, self.spec.master.startswith("local")))
        try:
            env = engine_env(self.spec)
            env.pop("SPARK_LOCAL_DIRS", None)  # Spark would take it over spark.local.dir
            self._app = SparkApp(conf, self.log_dir / f"spark-{variant}.log", env, self.confine, uncovered)
        except (OSError, RuntimeError) as e:
            remove_app_tmp(tmp)
            raise EngineError(str(e)) from None
        except BaseException:
            remove_app_tmp(tmp)
            raise
        self._app.tmp_dir = tmp
        self._variant = variant
        self.version = f"spark {self._app.spark_version}"
        self.conf = self._app.full_conf
        self.apps_started += 1
        return True

    def application_conf(self, variant: str, config, local_dirs: list[Path], on_phase, also=()) -> dict:
        """The settings of the variant's application but its JVMs' temporary folder (jvm_tmp_conf): the storages'
        connectors and Hadoop settings, the node agents'. Each path in a comma-separated list is checked to stay one
        item (engines/cmdline.py), else refused in one line."""
        conf = spark_conf(self.spec, f"tierbench {self.study} {variant}", local_dirs, self.durable)
        for connector in dict.fromkeys(c.type.connector("spark") for c in (config, *also)):  # (each once)
            if connector.fetch_jars:  # a storage's connector (S3A's) rides along with the jobs jar
                on_phase(f"checking {connector.title} (fetched from Maven Central on first use)")
                conf["spark.jars"] = joined([conf["spark.jars"], *connector.jars()], "spark.jars")
            for k, v in connector.settings:
                conf.setdefault(f"spark.hadoop.{k}", v)
        for runtime in self.runtimes:  # (a table format's: the catalogs its jobs name load from it)
            on_phase(f"checking {runtime.title} (fetched from Maven Central on first use)")
            conf["spark.jars"] += "," + joined(list(map(str, runtime.jars())), "spark.jars")  # (each new path checked)
            for k, v in runtime.conf:  # (a list setting, the extensions, keeps the engine's own too)
                conf[k] = v if k not in conf or k not in LIST_SETTINGS else ",".join(dict.fromkeys([*conf[k].split(","), v]))
        for c in (config, *also):  # the storages' own Hadoop settings, unless the engine sets them
            for k, v in c.engine_settings().items():
                conf.setdefault(f"spark.hadoop.{k}", v)
        conf.update(node_agent_conf(self.spec.master, [*config.local_data, *local_dirs], self.sampling_interval_s))
        return conf

    def _set_current_aside(self, on_phase) -> None:
        """The current application kept idle when its memory fits keep_alive_memory beside the other idle ones
        (the least recently used stopped to make room), else stopped."""
        app, variant = self._app, self._variant
        self._app, self._variant = None, None
        if app is None:
            return
        if self.keep_alive_memory <= 0 or not app.alive():
            app.stop()
            return
        on_phase(f"keeping the Spark application of {variant} idle")
        try:
            app.idle()
        except EngineError:
            app.stop()
            return
        self._idle[variant] = app
        while self._idle and sum(a.rss_bytes() for a in self._idle.values()) > self.keep_alive_memory:
            oldest = next(iter(self._idle))
            on_phase(f"stopping the idle Spark application of {oldest} (keep_alive_memory)")
            self._idle.pop(oldest).stop()

    def _stop_current(self) -> None:
        if self._app is not None:
            self._app.stop()
            self._app, self._variant = None, None

    @property
    def node_agents(self) -> SparkNodeAgents | None:
        """The executors' node agents, on a cluster master (None in local mode and before open)."""
        if self._app is None or NODE_AGENT_PLUGIN not in self._app.conf.get("spark.plugins", ""):
            return None
        return SparkNodeAgents(self._app, self._workers)

    def run(self, req: JobRequest, on_progress) -> JobOutcome:
        if self.unconfined and self._app is not None and self._app.uncovered:  # the run does not claim a budget held
            self.unconfined(self._app.uncovered)
        before = self._s3a_counters()
        outcome = req.workload.definition.spark_run(req, self._job, on_progress)
        if outcome.ok and self._app is not None:  # the requests S3A made during the run, by kind
            outcome.result.update(s3a_requests.from_snapshots(before, self._s3a_counters(),
                                                                    s3a_requests.spark_not_covering(self.spec.master)))
        return outcome

    def _s3a_counters(self) -> dict:
        try:
            return self._app.s3a_counters()
        except EngineError:  # (as _job: the application is gone, the next run starts a fresh one)
            self._app, self._variant = None, None
            raise

    def _job(self, job: str, params: dict, on_progress) -> JobOutcome:
        try:
            ev = self._app.run(job, params, on_progress)
        except EngineError:
            self._app, self._variant = None, None
            raise
        if not ev["ok"]:
            if ev.get("engine_dead"):  # the application is gone: the next run starts a fresh one
                self.close()
                return JobOutcome(False, ev["wall_s"], error=ev["error"] + "; a fresh Spark application is started for the next run")
            return JobOutcome(False, ev["wall_s"], error=ev["error"])
        return JobOutcome(True, ev["wall_s"], ev["result"])

    def close(self) -> None:
        """Every application stopped, the idle ones too."""
        self._stop_current()
        while self._idle:
            self._idle.popitem()[1].stop()
        shutil.rmtree(self._tmp_root, ignore_errors=True)  # (an application's left by a stand-in or a crash)

    def applications_lived(self) -> dict:
        return {"keep_alive_memory": self.keep_alive_memory, "started": self.apps_started, "resumed": self.apps_resumed}

    def restore_cluster(self) -> None:
        """An embedded standalone cluster's Workers, put on the configurations' intermediate dirs (open), back on
        their own: those dirs are deleted with the study, and a later application would recreate them."""
        from ..errors import UserError
        from ..services.spark import embedded_standalone

        cluster = embedded_standalone(self.spec.master) if self.spec.master.startswith("spark://") else None
        if cluster is not None and cluster.master.pid():
            try:
                cluster.restart_workers(None)
            except UserError as err:
                print(f"tierbench: warning: {err}", file=sys.stderr, flush=True)
