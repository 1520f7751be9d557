"""Runs a study: the plan, one run at a time, each recorded the moment it ends.

A run's lifecycle, in this order: prepare (paths, stale output) -> drop page
cache -> measure (the engine runs the job) -> verify (e.g. TeraValidate's
checksum against TeraGen's) -> record (appended and fsync'ed) ; when a
(configuration, repeat) group is complete and all its runs are ok, its data
is deleted (only under tierbench's own roots).
"""

import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from .engines.spark import EngineError, SparkApp, engine_env, job_params, spark_conf
from .errors import UserError
from .machine import machine_facts, tool_facts
from .progress import StudyProgress
from .spec import Spec, make_plan
from .storage import StudyLayout
from .store import ResultsDir, SCHEMA_VERSION
from .workloads import WORKLOADS
from .workloads.measure import measure

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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def latest_ok(records: list[dict]) -> dict[str, dict]:
    """The last ok record of each run key (a run re-done after a failure supersedes it)."""
    out = {}
    for r in records:
        if r.get("status") == "ok":
            out[r["run_key"]] = r
    return out


class StudyRunner:
    def __init__(self, spec: Spec, out_dir: Path, command_line: list[str], resume: bool = False):
        self.spec = spec
        self.results = ResultsDir(out_dir)
        self.layout = StudyLayout(spec)
        self.command_line = command_line
        self.resume = resume
        self.plan = make_plan(spec)
        self._app: SparkApp | None = None
        self._app_config: str | None = None

    # -- before anything runs -----------------------------------------------
    def prepare(self) -> list[dict]:
        spec = self.spec
        if spec.drop_caches == "always" and not can_drop_caches():
            raise UserError(f"{spec.source}: drop_caches: \"always\" needs root (writing {DROP_CACHES_FILE}); use \"auto\" or \"never\"")
        self.layout.check()
        if self.results.exists():
            study = self.results.study()
            if not self.resume:
                raise UserError(f"{self.results.path} already holds results of study {study.get('name')!r}; "
                                "pass --resume to continue it, or choose another --out")
            if study.get("fingerprint") != spec.fingerprint():
                raise UserError(f"{self.results.path}: the spec changed since these results were recorded "
                                "(configurations, workloads or repeats differ); runs cannot be pooled: use another --out")
            records = self.results.records()
            self.results.update_study(spec=spec.to_dict())  # prices and descriptions may have been edited
        else:
            self.results.create({
                "name": spec.name,
                "fingerprint": spec.fingerprint(),
                "spec": spec.to_dict(),
                "plan": [p.to_dict() for p in self.plan],
                "created_at": _now(),
                "command_line": self.command_line,
                "machine": machine_facts(),
                **tool_facts(),
            })
            records = []
        self.layout.claim()
        return records

    # -- the study ------------------------------------------------------------
    def run(self, console=None) -> ResultsDir:
        records = self.prepare()
        done = latest_ok(records)
        todo = [p for p in self.plan if p.key not in done]
        progress = StudyProgress(len(self.plan), len(self.plan) - len(todo), console)
        if done:
            progress.info(f"resuming: {len(done)} of {len(self.plan)} runs already recorded ok, {len(todo)} to go")
        all_ok = True
        try:
            with progress:
                for planned in todo:
                    record = self._run_one(planned, done, progress)
                    self.results.append(record)
                    if record["status"] == "ok":
                        done[planned.key] = record
                    else:
                        all_ok = False
                    progress.finished(planned.key, record["status"], record["wall_s"],
                                      "" if record["status"] == "ok" else record["error"][:200])
                    self._cleanup_group_if_complete(planned, done)
        finally:
            self._stop_app()
        if all(p.key in done for p in self.plan) and not self.spec.keep_data:
            self.layout.release()
        elif not all_ok:
            progress.info("some runs failed; their data is kept for --resume")
        return self.results

    def _group_runs(self, planned):
        return [p for p in self.plan if p.repeat == planned.repeat and p.config == planned.config]

    def _cleanup_group_if_complete(self, planned, done) -> None:
        group = self._group_runs(planned)
        if self.spec.keep_data or not all(p.key in done for p in group):
            return
        config = self.spec.config(planned.config)
        for d in self.layout.repeat_dirs(config, planned.repeat):
            self.layout.remove(d)

    def _app_for(self, config_name: str, progress: StudyProgress, run_key: str) -> SparkApp:
        if self._app is not None and self._app_config == config_name:
            return self._app
        self._stop_app()
        progress.phase(run_key, f"starting Spark for {config_name}")
        config = self.spec.config(config_name)
        local_dirs = self.layout.intermediate_dirs(config)
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)
        conf = spark_conf(self.spec.engine, f"tierbench {self.spec.name} {config_name}", local_dirs)
        self._app = SparkApp(conf, self.results.log_path(f"spark-{config_name}.log"), engine_env(self.spec.engine))
        self._app_config = config_name
        return self._app

    def _stop_app(self) -> None:
        if self._app is not None:
            self._app.stop()
            self._app, self._app_config = None, None

    def _run_one(self, planned, done: dict, progress: StudyProgress) -> dict:
        spec = self.spec
        config = spec.config(planned.config)
        wspec = next(w for w in spec.workloads if w.label == planned.label)
        wl = WORKLOADS[wspec.name]
        producer = next((w for w in spec.workloads if w.name == wl.producer), None)
        record = {
            "schema_version": SCHEMA_VERSION, "study": spec.name, "run_key": planned.key, "config": config.name,
            "workload": wspec.name, "label": wspec.label, "params": wspec.params, "engine": spec.engine.kind,
            "repeat": planned.repeat, "attempt": 1, "status": "failed", "wall_s": None, "metrics": {}, "details": {},
            "started_at": _now(), "ended_at": None, "error": None, "page_cache_dropped": False,
            "command_line": self.command_line, "engine_version": None, "engine_conf": {},
            "storage": {"name": config.name, "data": list(config.data), "intermediate": list(config.intermediate),
                        "split": config.split, "local_dirs": [str(d) for d in self.layout.intermediate_dirs(config)]},
            "machine": machine_facts(), **tool_facts(),
        }
        # prepare
        if producer is not None:
            pkey = f"r{planned.repeat}/{config.name}/{producer.label}"
            if pkey not in done:
                record["error"] = f"not run: {producer.label} did not complete in this repeat, so there is no input"
                record["ended_at"] = _now()
                return record
        inputs = [d.as_uri() for d in self.layout.dataset_dirs(config, planned.repeat, wl.consumes)] if wl.consumes else []
        outputs = [d.as_uri() for d in self.layout.dataset_dirs(config, planned.repeat, wl.produces)] if wl.produces else []
        params = job_params(wspec, inputs, outputs, producer)
        try:
            app = self._app_for(config.name, progress, planned.key)
        except (EngineError, OSError, RuntimeError) as e:
            raise UserError(f"could not start Spark for storage configuration {config.name!r}: {e}") from None
        record["engine_version"] = f"spark {app.spark_version}"
        record["engine_conf"] = app.full_conf
        # drop caches
        if spec.drop_caches != "never" and can_drop_caches():
            progress.phase(planned.key, "dropping the page cache")
            record["page_cache_dropped"] = drop_page_cache()
        # measure
        progress.phase(planned.key, "running")
        record["started_at"] = _now()
        try:
            ev = app.run(wspec.name, params, lambda e: progress.stage(planned.key, e))
        except EngineError as e:
            self._app, self._app_config = None, None
            record["error"] = str(e)
            record["ended_at"] = _now()
            return record
        record["ended_at"] = _now()
        record["wall_s"] = ev["wall_s"]
        if not ev["ok"]:
            record["error"] = ev["error"]
            return record
        # verify
        expected = {}
        if wl.verifies:
            gen = next((r for r in done.values() if r["repeat"] == planned.repeat and r["config"] == config.name
                        and r["workload"] == "teragen"), None)
            if gen is not None:
                expected = {"expected_checksum": gen["details"].get("checksum"), "expected_rows": gen["details"].get("rows")}
        m = measure(wspec.name, ev["result"], ev["wall_s"], expected)
        record["metrics"], record["details"] = m.metrics, m.details
        if m.failure:
            record["error"] = m.failure
            return record
        record["status"] = "ok"
        return record
