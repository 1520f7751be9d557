"""Runs a study: the plan, one run at a time, each recorded the moment it ends.

A run's lifecycle, in this order: prepare (paths; stale output of an
interrupted attempt removed) -> drop page cache -> measure (the engine runs
the job) -> verify (e.g. TeraValidate's checksum against TeraGen's) -> record
(appended and fsync'ed). When a (variant, repeat) group is complete and all
its runs are ok, its data is deleted (only under tierbench's own roots).
"""

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from .engines.base import EngineError, JobRequest
from .errors import UserError
from .machine import machine_facts, tool_facts
from .progress import StudyProgress
from .sampling.devices import device_of, storage_map
from .sampling.phases import phase_intervals
from .sampling.sampler import Sampler
from .spec import Spec, make_plan
from .spec.knobs import run_knobs
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


def make_engines(spec: Spec, log_dir: Path) -> dict:
    from .engines.hadoop import HadoopEngine
    from .engines.spark import SparkEngine

    return {e.name: SparkEngine(e, spec.name, log_dir) if e.kind == "spark" else HadoopEngine(e, log_dir) for e in spec.engines}


class StudyRunner:
    def __init__(self, spec: Spec, out_dir: Path, command_line: list[str], resume: bool = False):
        self.spec = spec
        self.results = ResultsDir(out_dir)
        self.layout = StudyLayout(spec)
        self.command_line = command_line
        self.resume = resume
        self.plan = make_plan(spec)

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
                                "(configurations, engines, workloads or repeats differ); runs cannot be pooled: use another --out")
            records = self.results.records()
            self.results.update_study(spec=spec.to_dict())  # prices and descriptions may have been edited
        else:
            self.results.create({
                "name": spec.name,
                "fingerprint": spec.fingerprint(),
                "spec": spec.to_dict(),
                "variants": [v.__dict__ for v in spec.variants()],
                "plan": [p.to_dict() for p in self.plan],
                "created_at": _now(),
                "command_line": self.command_line,
                "machine": machine_facts(),
                **tool_facts(),
            })
            records = []
        self.layout.claim()
        if not records:
            self.layout.reset()
        study = self.results.study()
        if "storage_map" not in study:
            self.results.update_study(storage_map=self._storage_map())
        if "probe" not in study and (self.results.path / "probe.json").is_file():
            import json  # `tierbench probe` ran before the study: keep its figures with it
            self.results.update_study(probe=json.loads((self.results.path / "probe.json").read_text()))
        elif spec.probe and "probe" not in study:
            self._probe()
        return records

    def _storage_map(self) -> dict:
        roles: dict[str, list[str]] = {"data": [], "intermediate": []}
        for c in self.spec.storage:
            roles["data"] += [d for d in c.local_data if d not in roles["data"]]
            roles["intermediate"] += [d for d in c.intermediate if d not in roles["intermediate"]]
        return storage_map(roles)

    def _probe(self) -> None:
        from .sampling.probe import probe_dirs
        from .storage.layout import study_root

        dirs = {}
        for c in self.spec.storage:
            for d in (*c.local_data, *c.intermediate):
                dirs.setdefault(d, study_root(d, self.spec.name) / "_probe")
        print(f"probing {len(dirs)} directories with fio ({self.spec.probe_size >> 20} MB each)...", file=sys.stderr, flush=True)
        try:
            result = probe_dirs(dirs, self.spec.probe_size, self.spec.probe_runtime_s, on_phase=lambda t: None)
        except UserError as e:  # the study itself can still run; the report says why there are no ceilings
            print(f"tierbench: warning: device ceilings skipped: {e}", file=sys.stderr)
            self.results.update_study(probe_error=str(e))
            return
        self.results.update_study(probe=result)

    # -- the study ------------------------------------------------------------
    def run(self, console=None) -> ResultsDir:
        records = self.prepare()
        done = latest_ok(records)
        todo = [p for p in self.plan if p.key not in done]
        progress = StudyProgress(len(self.plan), len(self.plan) - len(todo), console)
        if done:
            progress.info(f"resuming: {len(done)} of {len(self.plan)} runs already recorded ok, {len(todo)} to go")
        engines = make_engines(self.spec, self.results.path / "logs")
        all_ok = True
        try:
            with progress:
                for planned in todo:
                    record = self._run_one(planned, done, progress, engines[planned.engine])
                    self.results.append(record)
                    if record["status"] == "ok":
                        done[planned.key] = record
                    else:
                        all_ok = False
                    progress.finished(planned.key, record["status"], record["wall_s"],
                                      "" if record["status"] == "ok" else record["error"][:200])
                    self._cleanup_group_if_complete(planned, done)
        finally:
            for e in engines.values():
                e.close()
        if all(p.key in done for p in self.plan) and not self.spec.keep_data:
            self.layout.release()
        elif not all_ok:
            progress.info("some runs failed; their data is kept for --resume")
        return self.results

    def _duckdb_check(self, config, producer, inputs: list[str], result: dict, scratch: Path) -> dict:
        """DuckDB's answers to the same queries on the same Parquet files (fetched first from hdfs or s3)."""
        from .workloads import sql

        bench = producer.params["benchmark"]
        uris = sql.table_uris(bench, inputs)
        local = scratch / "verify-tables"
        try:
            if config.remote:
                from .storage.remote import HadoopFs

                local.mkdir(parents=True, exist_ok=True)
                HadoopFs(config.engine_settings(), s3a=config.data_type == "s3").get(list(uris.values()), local)
                dirs = {t: local / t for t in uris}
            else:
                dirs = {t: Path(u.removeprefix("file://")) for t, u in uris.items()}
            return sql.duckdb_check(bench, dirs, result["queries"])
        except Exception as e:  # the check could not run: the run fails with the reason, and its record is kept
            return {"check": f"DuckDB could not run the check: {str(e).splitlines()[0][:300]}"}
        finally:
            if config.remote:
                self.layout.remove(local)

    def _cleanup_group_if_complete(self, planned, done) -> None:
        group = [p for p in self.plan if p.repeat == planned.repeat and p.variant == planned.variant]
        if self.spec.keep_data or not all(p.key in done for p in group):
            return
        config = self.spec.config(planned.config)
        for target in self._copy_targets(config):  # copies written into other configurations' roots
            self.layout.remove_repeat(target, planned.variant, planned.repeat)
        self.layout.remove_repeat(config, planned.variant, planned.repeat)

    def _copy_targets(self, config) -> tuple:
        """Other storage configurations that this configuration's copy workloads write to."""
        names = {w.params["to"] for w in self.spec.workloads if w.name == "copy" and w.params["to"] not in ("", config.name)}
        return tuple(self.spec.config(n) for n in sorted(names))

    def _outputs(self, config, planned, wspec, wl) -> tuple[list[str], object, str | None]:
        """Where a workload writes: (URIs, the configuration they are on, data set name)."""
        if wspec.name == "copy":
            target = self.spec.config(wspec.params["to"]) if wspec.params["to"] else config
            ds = f"copy-{wspec.label}"
            return self.layout.dataset_uris(target, planned.variant, planned.repeat, ds), target, ds
        if wl.produces:
            return self.layout.dataset_uris(config, planned.variant, planned.repeat, wl.produces), config, wl.produces
        return [], config, None

    def _run_one(self, planned, done: dict, progress: StudyProgress, engine) -> dict:
        spec = self.spec
        config = spec.config(planned.config)
        wspec = next(w for w in spec.workloads if w.label == planned.label)
        wl = WORKLOADS[wspec.name]
        producer = next((w for w in spec.workloads if w.name == wl.producer), None)
        local_dirs = self.layout.intermediate_dirs(config, planned.variant)
        record = {
            "schema_version": SCHEMA_VERSION, "study": spec.name, "run_key": planned.key, "variant": planned.variant,
            "config": config.name, "workload": wspec.name, "label": wspec.label, "params": wspec.params,
            "engine": engine.name, "engine_kind": engine.kind,
            "knobs": run_knobs(spec.engine(planned.engine), config, wspec.params), "repeat": planned.repeat, "attempt": 1, "status": "failed",
            "wall_s": None, "metrics": {}, "details": {}, "started_at": _now(), "ended_at": None, "error": None,
            "page_cache_dropped": False, "command_line": self.command_line, "engine_version": None, "engine_conf": {},
            "storage": {"name": config.name, "type": config.data_type, "data": list(config.data),
                        "intermediate": list(config.intermediate), "split": config.split,
                        "local_dirs": [str(d) for d in local_dirs], "settings": config.engine_settings()},
            "machine": machine_facts(), **tool_facts(),
        }
        # prepare
        if producer is not None:
            pkey = f"r{planned.repeat}/{planned.variant}/{producer.label}"
            if pkey not in done:
                record["error"] = f"not run: {producer.label} did not complete in this repeat, so there is no input"
                record["ended_at"] = _now()
                return record
        uris = lambda ds: self.layout.dataset_uris(config, planned.variant, planned.repeat, ds)
        inputs = uris(wl.consumes) if wl.consumes else []
        outputs, out_config, out_ds = self._outputs(config, planned, wspec, wl)
        scratch = self.layout.scratch_dir(config, planned.variant, planned.repeat, wspec.label)
        # left by an interrupted attempt: engines refuse an existing output
        if out_ds:  # (a remote file system is only asked when resuming: it costs a JVM start)
            self.layout.remove_dataset(out_config, planned.variant, planned.repeat, out_ds, remote=self.resume)
        self.layout.remove(scratch)
        try:
            engine.open(planned.variant, config, local_dirs, lambda text: progress.phase(planned.key, text),
                        also=self._copy_targets(config))
        except EngineError as e:
            raise UserError(f"could not start the {engine.kind} engine for {planned.variant!r}: {e}") from None
        # drop caches
        if spec.drop_caches != "never" and can_drop_caches():
            progress.phase(planned.key, "dropping the page cache")
            record["page_cache_dropped"] = drop_page_cache()
        # measure
        progress.phase(planned.key, "running")
        record["started_at"] = _now()
        req = JobRequest(planned.key, wspec, producer, inputs, outputs, local_dirs, scratch, config.engine_settings())
        sampler = None
        if spec.sampling:
            devices = {device_of(d) for d in (*config.local_data, *config.intermediate)} - {None}
            sampler = Sampler(sorted(devices), spec.sampling_interval_s).start()
        try:
            outcome = engine.run(req, lambda e: progress.stage(planned.key, e))
        except EngineError as e:
            outcome = None
            record["error"] = str(e)
        finally:
            if sampler is not None:
                progress.phase(planned.key, "sampling the writeback (sync)")
                record["samples"] = sampler.stop(writeback=True)
        record["ended_at"] = _now()
        record["engine_version"] = engine.version
        record["engine_conf"] = engine.conf
        if outcome is None:
            return record
        record["wall_s"] = outcome.wall_s
        if outcome.log:
            record["details"]["log"] = os.path.relpath(outcome.log, self.results.path)
        if not outcome.ok:
            record["error"] = outcome.error
            return record
        # verify
        expected = {}
        same_group = lambda kind: next((r for r in done.values() if r["repeat"] == planned.repeat
                                        and r["variant"] == planned.variant and r["workload"] == kind), None)
        if wspec.name == "teravalidate":
            gen = same_group("teragen")
            if gen is not None:
                expected = {"expected_checksum": gen["details"].get("checksum"), "expected_rows": gen["details"].get("rows")}
        elif wl.verifies and producer is not None:
            expected = (same_group(producer.name) or {}).get("details", {})
        if wspec.name == "sql" and wspec.params["verify"]:
            progress.phase(planned.key, "checking the answers with DuckDB")
            outcome.result["verification"] = self._duckdb_check(config, producer, inputs, outcome.result, scratch)
        m = measure(wspec.name, outcome.result, outcome.wall_s, expected)
        record["metrics"], record["details"] = m.metrics, {**record["details"], **m.details}
        record["details"]["phases"] = phase_intervals(wspec.name, outcome.result)
        if outcome.result.get("stages"):
            record["details"]["stages"] = outcome.result["stages"]
        if m.failure:
            record["error"] = m.failure
            return record
        record["status"] = "ok"
        return record
