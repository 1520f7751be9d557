"""One run's lifecycle, as named steps in a fixed order (tests/test_lifecycle.py holds the order):

  setup           before the first run of a block of a configuration's runs: its storage.NAME.setup command
                  (config_commands.py; the runner opens and closes the blocks)
  prepare         paths and inputs; stale output of an interrupted attempt removed; the engine ready
  warm_up         when the engine started a fresh application (and the spec does not say warm_up = false): the
                  study's workloads run in it at a small size, unrecorded (warmup.py)
  drop_caches     the page cache dropped (as root, unless the spec says never)
  start_sampling  devices, CPU, network and the engine's process IO sampled from here
  run             the engine runs the job
  stop_sampling   sampling stops after a sync (the job's writeback is its own phase)
  verify          the workload's checks (its measure(), and e.g. DuckDB for SQL); may fail the run
  record          the storage's health after a write (HDFS: dead DataNodes, under-replicated blocks) noted, and
                  the record appended to runs.jsonl and fsync'ed, the moment the run ends
  clean_up        the (variant, repeat)'s data deleted once all its runs are ok (only under tierbench's roots)
  teardown        after the last run of a block: the configuration's storage.NAME.teardown command

A step that cannot go on (no input, the job failed) skips to `record`; `record` and `clean_up` always run; setup,
warm_up and teardown only where they apply. Each step is told to the context's `on_step` as it begins.
"""

import os
import sys
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from ..engines.base import Engine, EngineError
from ..errors import UserError
from ..job import JobRequest
from ..machine import machine_facts, tool_facts
from ..sampling.devices import device_of
from ..sampling.phases import phase_intervals
from ..sampling.sampler import Sampler
from ..spec.cluster import intermediate_applied
from ..spec.knobs import run_knobs
from ..store.record import RunRecord, io_of
from ..workloads import measure, producer_of
from .context import RunContext
from .warmup import warm_up

STEPS = ("setup", "prepare", "warm_up", "drop_caches", "start_sampling", "run", "stop_sampling", "verify", "record",
         "clean_up", "teardown")
MEASURED_STEPS = STEPS[1:8]  # prepare .. verify: the steps that can stop the run (then it skips to `record`)
DROP_CACHES_FILE = Path("/proc/sys/vm/drop_caches")


def can_drop_caches() -> bool:
    return os.geteuid() == 0 and os.access(DROP_CACHES_FILE, os.W_OK)


def drop_page_cache() -> bool:
    try:
        subprocess.run(["sync"], check=False, timeout=120)
        DROP_CACHES_FILE.write_text("3\n")
        return True
    except (OSError, subprocess.TimeoutExpired):
        return False


def sync_gaps(durability: str, engine, config) -> list[str]:
    """What durable mode cannot sync for this engine on this storage (the engine's and the storage's own gaps)."""
    if durability != "durable":
        return []
    gap = config.type.sync_gaps.get(engine.kind)
    return [*engine.sync_gaps, *([gap] if gap else [])]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Stop(Exception):
    """The run cannot go on: what is known is recorded."""


class RunLifecycle:
    """Runs one planned run of a study through its STEPS (of which the runner's blocks run setup and teardown).
    `context`: the study as the runs read it (context.py); `done`: the ok records so far by run key;
    `setup`: what its configuration's setup command did before this block of runs (config_commands.py), if any."""

    def __init__(self, context: RunContext, planned, engine: Engine, done: dict, setup: dict | None = None):
        self.context, self.planned, self.engine, self.done = context, planned, engine, done
        self.setup = setup
        spec = context.spec
        self.config = spec.config(planned.config)
        self.wspec = next(w for w in spec.workloads if w.label == planned.label)
        self.wl = self.wspec.definition
        self.producer = producer_of(self.wspec.name, self.wspec.params, spec.workloads)
        self.local_dirs = context.layout.intermediate_dirs(self.config, planned.variant)
        self.record = RunRecord(
            study=spec.name, run_key=planned.key, variant=planned.variant, config=self.config.name, workload=self.wspec.name,
            label=self.wspec.label, params=self.wspec.params, engine=engine.name, engine_kind=engine.kind,
            knobs=run_knobs(spec.engine(planned.engine), self.config, self.wspec.params), repeat=planned.repeat,
            storage={"name": self.config.name, "type": self.config.data_type, "data": list(self.config.data),
                     "intermediate": list(self.config.intermediate), "split": self.config.split,
                     "local_dirs": [str(d) for d in self.local_dirs], "settings": self.config.engine_settings(),
                     "intermediate_applied": intermediate_applied(spec.engine(planned.engine), self.config)},
            machine=machine_facts(), command_line=list(context.command_line), started_at=now(), durability=spec.durability,
            sync_gaps=sync_gaps(spec.durability, engine, self.config), **tool_facts())
        if setup is not None:
            self.record.details["setup"] = setup
        self.req: JobRequest | None = None
        self.sampler = None
        self.outcome = None
        self.gateways = None
        self.fresh = False  # the engine started a fresh application for this run (to be warmed up)

    def _phase(self, text: str) -> None:
        self.context.progress.phase(self.planned.key, text)

    def on_step(self, step: str) -> None:
        self.context.on_step(self.planned.key, step)

    def _applies(self, step: str) -> bool:
        return step != "warm_up" or (self.fresh and self.context.spec.warm_up)

    def execute(self) -> dict:
        done = []
        try:
            for step in MEASURED_STEPS:
                if not self._applies(step):
                    continue
                self.on_step(step)
                done.append(step)
                getattr(self, step)()
            self.record.status = "ok"
        except _Stop as stop:
            self.record.error = self.record.error or str(stop)
        finally:
            if "start_sampling" in done and "stop_sampling" not in done:  # the run failed while sampled: stop first
                self.on_step("stop_sampling")
                self.stop_sampling()
        self.record.ended_at = self.record.ended_at or now()
        self.on_step("record")
        if self.req is not None and self.req.outputs:  # what the storage says after a write (HDFS: under-replication)
            health = self.config.type.health(self.config.store_conf, self.req.outputs)
            if health is not None:
                self.record.details["storage_health"] = health
        rec = self.record.to_dict()
        self.context.results.append(rec)
        if rec["status"] == "ok":
            self.done[self.planned.key] = rec
        elif self.req is not None:
            self._remove_partial_output()
        self.on_step("clean_up")
        self.context.clean_up_group(self.planned, self.done)
        return rec

    def _remove_partial_output(self) -> None:
        """A failed run's output and scratch, deleted once its record is saved: what a full disk cut short would
        otherwise keep the device full, through --resume too (only under tierbench's roots, as every delete)."""
        out_config, out_ds, scratch = self._output
        layout, planned = self.context.layout, self.planned
        try:
            if out_ds:
                layout.remove_dataset(out_config, planned.variant, planned.repeat, out_ds)
            layout.remove(scratch)
        except (UserError, OSError) as e:
            print(f"tierbench: warning: could not delete the failed run's partial output: {e}", file=sys.stderr, flush=True)

    # -- the steps --------------------------------------------------------------------------------------
    def prepare(self) -> None:
        planned, layout, config, wl = self.planned, self.context.layout, self.config, self.wl
        if self.setup is not None and self.setup["exit_code"] != 0:  # the cluster is not as the configuration says
            raise _Stop(f"not run: storage.{config.name}.{self.setup['cause']}")
        if self.producer is not None and f"r{planned.repeat}/{planned.variant}/{self.producer.label}" not in self.done:
            raise _Stop(f"not run: {self.producer.label} did not complete in this repeat, so there is no input")
        uris = lambda c, ds: layout.dataset_uris(c, planned.variant, planned.repeat, ds)
        in_ds = wl.input_dataset(self.wspec.params)
        inputs = uris(config, in_ds) if in_ds else []
        target = wl.copy_target(self.wspec.params)  # a copy may write to another configuration
        out_config = self.context.spec.config(target) if target else config
        out_ds = wl.output_dataset(self.wspec.label, self.wspec.params)
        outputs = uris(out_config, out_ds) if out_ds else []
        scratch = layout.scratch_dir(config, planned.variant, planned.repeat, self.wspec.label)
        self._output = (out_config, out_ds, scratch)
        # left by an interrupted attempt: engines refuse an existing output
        if out_ds:  # (a remote file system is only asked when resuming: it costs a JVM start)
            layout.remove_dataset(out_config, planned.variant, planned.repeat, out_ds, remote=self.context.resume)
        layout.remove(scratch)
        self.gateways = config.type.gateways_for_run(config.store_conf)  # S3 behind HAProxy: how many gateways serve
        if self.gateways is not None:
            self._phase("setting the gateways that serve")
            self.gateways.apply()
        try:
            self.fresh = bool(self.engine.open(planned.variant, config, self.local_dirs, self._phase,
                                               also=self.context.copy_targets(config)))
        except EngineError as e:
            raise self._not_started(e) from None
        self.req = JobRequest(planned.key, self.wspec, self.producer, inputs, outputs, self.local_dirs, scratch,
                              config.engine_settings(), config.default_fs)

    def _not_started(self, e: EngineError) -> UserError:
        """The engine failed to start (or died warming up): the study cannot go on, and nothing is recorded."""
        return UserError(f"could not start the {self.engine.kind} engine for {self.planned.variant!r}: {e}")

    def warm_up(self) -> None:
        try:
            self.record.details["warm_up"] = warm_up(self.context, self.engine, self.planned, self._phase)
        except EngineError as e:
            raise self._not_started(e) from None

    def drop_caches(self) -> None:
        nodes = self.context.nodes
        if nodes.observers(self.engine):
            self._phase("waiting for the node agents")
            missing = nodes.await_agents(self.engine)
            if missing:
                self.record.details["nodes_unobserved"] = missing
        if self.context.spec.drop_caches == "never":
            return
        if can_drop_caches():
            self._phase("dropping the page cache")
            self.record.page_cache_dropped = drop_page_cache()
        if nodes.observers(self.engine):
            self._phase("dropping the page cache on every node")
            dropped = nodes.drop_caches(self.engine)
            self.record.details["nodes_page_cache_dropped"] = dropped
            self.record.page_cache_dropped = self.record.page_cache_dropped and all(d["ok"] for d in dropped.values())

    def start_sampling(self) -> None:
        spec = self.context.spec
        if spec.sampling:
            devices = {device_of(d) for d in (*self.config.local_data, *self.config.intermediate)} - {None}
            self.sampler = Sampler(sorted(devices), spec.sampling_interval_s).start()
            self.context.nodes.start(self.engine)
        if self.context.memory_budget is not None:
            self.context.memory_budget.start_run()
        if self.context.pace is not None:  # the k the run's drives go at (scale/pace_follow.py)
            self.record.details["pace"] = self.context.pace.current()

    def run(self) -> None:
        self._phase("running")
        if self.gateways is not None:
            self.gateways.start()
        self.record.started_at = now()
        try:
            self.outcome = self.engine.run(self.req, lambda e: self.context.progress.stage(self.planned.key, e))
        except EngineError as e:
            raise _Stop(str(e)) from None
        finally:
            self.record.ended_at = now()
            if self.gateways is not None:
                self.record.details["gateways"] = self.gateways.details()
            self.record.engine_version = self.engine.version
            self.record.engine_conf = self.engine.conf
        self.record.wall_s = self.outcome.wall_s
        if self.outcome.log:
            self.record.details["log"] = os.path.relpath(self.outcome.log, self.context.results.path)
        if not self.outcome.ok:
            raise _Stop(self.outcome.error)

    def stop_sampling(self) -> None:
        if self.context.memory_budget is not None:  # the page cache the engine's processes held at most, vs the budget
            self.record.details["memory_budget"] = self.context.memory_budget.end_run()
        if self.sampler is not None:
            self._phase("sampling the writeback (sync)")
            self.record.samples = self.sampler.stop(writeback=True)
            self.sampler = None
            if self.context.nodes.observers(self.engine):
                self._phase("collecting every node's samples (sync on each)")
                dirs = {"data": list(self.config.local_data), "intermediate": [str(d) for d in self.local_dirs]}
                self.record.nodes = self.context.nodes.stop(self.engine, dirs) or None

    def verify(self) -> None:
        wl, result, planned = self.wl, self.outcome.result, self.planned
        produced = {}
        if wl.verifies and wl.checked_against:
            match = next((r for r in self.done.values() if r["repeat"] == planned.repeat and r["variant"] == planned.variant
                          and r["workload"] == wl.checked_against), None)
            produced = (match or {}).get("details", {})
        phase = wl.extra_check_phase(self.wspec.params)
        if phase:
            self._phase(phase)
            wl.extra_check(self.req, result, self.context.fetch_tables(self.config, self.req.scratch))
        m = measure(self.wspec.name, result, self.outcome.wall_s, produced)
        self.record.metrics = m.metrics
        self.record.io = io_of(self.wspec.name, m.metrics)
        self.record.details.update(m.details)
        self.record.details["phases"] = phase_intervals(wl.phases, result)
        if result.get("stages"):
            self.record.details["stages"] = result["stages"]
        commit = result.get("commit")
        if commit and commit.get("committer") not in (None, "none"):  # output committed through a committer
            self.record.details["commit"] = commit
            self.record.metrics["job_commit_s"] = commit["job_commit_ms"] / 1000
            self.record.metrics["task_commit_s"] = sum(commit["task_commit_ms"]) / 1000
        if m.failure:
            raise _Stop(m.failure)
