"""Runs a study: the plan, one run at a time through the run lifecycle (lifecycle.py), each recorded the
moment it ends; the runs read the study through a frozen run context (context.py). When a (variant, repeat) group is complete and all its runs are ok, its data is deleted
(only under tierbench's own roots); when the study is done, the roots are released.
"""

import contextlib
import os
import re
import sys
from pathlib import Path
from typing import Callable

from ..analysis.validity import study_lines
from ..errors import UserError
from ..machine import machine_facts, tool_facts
from ..progress import StudyProgress
from ..sampling.devices import storage_map
from ..sampling.nodes import ClusterObservation
from ..spec import Spec, make_plan
from ..storage import StudyLayout
from ..store import ResultsDir, latest_ok
from ..store.pooling import check_resume
from .config_commands import ConfigBlocks, run_skipped_teardown
from .context import RunContext, no_step_watcher
from .inputs import inputs_kept
from .machine_share import MachineShare
from .lifecycle import DROP_CACHES_FILE, RunLifecycle, can_drop_caches, now


def make_engines(spec: Spec, log_dir: Path) -> dict:
    from ..engines.hadoop import HadoopEngine
    from ..engines.spark import SparkEngine

    durable = spec.durability == "durable"
    return {e.name: SparkEngine(e, spec.name, log_dir, durable, spec.sampling_interval_s) if e.kind == "spark" else HadoopEngine(e, log_dir, durable)
            for e in spec.engines}


MAX_SAME_FAILURES = 3  # runs in a row failing with the same cause stop the study (a dead endpoint, a full disk)
# Under a scale model's page cache budget, cgroup v1 charges the kernel's own allocations to the budget group's limit
# and fails them there (where a page fault waits for the budget's next poll, memory_budget.py): a JVM refused a
# thread's stack ("Native memory allocation (mmap) failed", TestDFSIO) or a file's lookup failing as "does not
# exist" (TeraValidate, a file TeraSort had written) when the tasks' buffers were allocated at once. The limit
# leaves a heap room to grow between polls since 2026-11-27 (ANON_ROOM); a run that still fails under the budget is
# recorded and run once more; a job that really fails fails twice.
BUDGET_RACE = ("failed under the page cache budget, whose group can refuse the kernel's own allocations between two "
               "of its polls (cgroup v1): run once more")


# a failure that says its cause: a full disk is no budget's race, and running it once more would fail the same way
# (e.g. MapReduce's "Could not find any valid local directory for output/file.out with requested size ...")
FULL_DISK = re.compile(r"No space left on device|Could not find any valid local directory|DiskErrorException")


def _ran_and_failed(record: dict) -> bool:
    return record["status"] != "ok" and not (record["error"] or "").startswith("not run:")


def retry_under_budget(record: dict) -> bool:
    """A run that failed under the page cache budget runs once more, unless its error names another cause."""
    return _ran_and_failed(record) and not FULL_DISK.search(record["error"] or "")


class FailureStreak:
    """Counts runs in a row that failed with the same cause. A run skipped for want of its input is a
    consequence, not a cause: it neither counts nor breaks the streak."""

    def __init__(self, limit: int):
        self.limit, self.count, self.cause = limit, 0, ""

    def add(self, record: dict) -> bool:
        error = record.get("error") or ""
        if record["status"] == "ok":
            self.count, self.cause = 0, ""
        elif not error.startswith("not run:"):
            cause = re.sub(r"\d+", "N", error)[:120]  # the same failure with other numbers in it
            self.count = self.count + 1 if cause == self.cause else 1
            self.cause = cause
        return self.count >= self.limit


class StudyRunner:
    def __init__(self, spec: Spec, out_dir: Path, command_line: list[str], resume: bool = False,
                 allow_mixed: bool = False, engines: dict | None = None, unemulated: bool = False,
                 on_step: Callable[[str, str], None] = no_step_watcher, side_study: bool = False,
                 page_cache_budget: int | None = None):
        self.spec = spec
        self.results = ResultsDir(out_dir)
        self.layout = StudyLayout(spec)
        self.command_line = command_line
        self.resume = resume
        self.plan = make_plan(spec)
        self.allow_mixed = allow_mixed  # pool runs of another machine or tool version on --resume
        self._engines = engines  # given by tests (a fake engine); else made from the spec
        self.emulated: dict = {}  # loop device name -> the emulated device's facts
        # the nodes of a cluster: agents in the Spark executors, and over ssh for the spec's [cluster] nodes
        self.nodes = ClusterObservation(spec.sampling_interval_s, spec.cluster,
                                        [d for c in spec.storage for d in (*c.local_data, *c.intermediate)])
        self.unemulated = unemulated  # run a spec's emulated devices as plain directories (asked for, and said so)
        self.on_step = on_step  # told (run key, step) as each step of each run begins (lifecycle.py's STEPS)
        self.side_study = side_study  # a study's calibration (calibration.py): its warnings and node check are the study's
        # bytes of page cache the engines may hold: the scale model's, or a calibration's, run in its study's conditions
        self.page_cache_budget = page_cache_budget or (spec.scale or {}).get("page_cache_bytes")

    # -- before anything runs -----------------------------------------------
    def prepare(self) -> list[dict]:
        spec = self.spec
        if spec.drop_caches == "always" and not can_drop_caches():
            raise UserError(f"{spec.source}: drop_caches: \"always\" needs root (writing {DROP_CACHES_FILE}); use \"auto\" or \"never\"")
        self._emulate()
        self.layout.check()
        self._check_gateways()
        self.nodes.start_ssh()  # the spec's [cluster] nodes reachable, or one line before anything is written
        if self.results.exists():
            self.results.check_may_run(self.resume)
            study = self.results.study()
            if study.get("fingerprint") != spec.fingerprint():
                raise UserError(f"{self.results.path}: the spec changed since these results were recorded "
                                "(configurations, engines, workloads or repeats differ); runs cannot be pooled: use another --out")
            self.layout.claim()  # (locks the data roots: a second study on them stops here)
            self.results.cut_torn_tail()
            records = self.results.records()
            check_resume(study, records, machine_facts(), tool_facts(), self.allow_mixed)
            self.results.update_study(spec=spec.to_dict())  # prices and descriptions may have been edited
        else:
            self.results.check_writable_as_new()
            self.layout.claim()  # (the data roots may lie inside the results folder: the quickstart's do)
            self.results.create(checked=True, study={
                "name": spec.name,
                "fingerprint": spec.fingerprint(),
                "spec": spec.to_dict(),
                "variants": [v.__dict__ for v in spec.variants()],
                "plan": [p.to_dict() for p in self.plan],
                "created_at": now(),
                "study_id": spec.study_id,  # (in its devices' and data roots' names: identity.py)
                "command_line": self.command_line,
                "machine": machine_facts(),
                **tool_facts(),
            })
            records = []
        self.results.keep_room()  # (a run that fills the disk is still recorded)
        if not records:
            self.layout.reset()
        if self.emulated:
            self.results.update_study(emulated=self.emulated)
        if self.unemulated and any(c.emulated for c in spec.storage):
            self.results.update_study(emulation_skipped=True)  # device name -> profile, as applied and as fio measured it
        study = self.results.study()
        if "storage_map" not in study:
            self.results.update_study(storage_map=self._storage_map())
            # what the figures will measure, said before anything runs (the report says it again); a calibration
            # runs in memory on purpose
            for line in [] if self.side_study else study_lines(spec.to_dict(), machine_facts(), self.results.study()["storage_map"]):
                print(f"tierbench: warning: {line}", file=sys.stderr, flush=True)
        if self.side_study:  # (the study itself checks the node, and probes its devices)
            return records
        if "node_check" not in study:
            self._node_check()
        if spec.probe and "probe" not in study:  # (a probe.json `tierbench probe` left here counts: study() reads it)
            self._probe()
        return records

    def _check_gateways(self) -> None:
        """S3 behind HAProxy: its admin socket answers and has the gateways each configuration asks for, or one
        line before anything is written."""
        for c in self.spec.storage:
            gateways = c.type.gateways_for_run(c.store_conf)
            if gateways is not None:
                have = len(gateways.admin.servers())
                if (gateways.count or 1) > have:
                    raise UserError(f"{self.spec.source}: storage.{c.name}.data.gateways = {gateways.count}: the HAProxy at "
                                    f"{gateways.admin.address} has {have} gateway server(s); start more "
                                    "(`tierbench services up s3 --gateways N --balancer haproxy`) or sweep fewer")

    def _emulate(self) -> None:
        """Devices the spec declares (data = { emulate = "hdd" }) up, and this process -- so the engines it starts --
        in the group whose limits hold them when any of the study's dirs lies on an emulated device."""
        from ..storage import emulation

        declared = list({e["device"]: e for c in self.spec.storage for es in c.emulated.values() for e in es}.values())
        emulation.clear_leftovers(say=lambda t: print(f"tierbench: {t}", file=sys.stderr, flush=True),
                                  report_others=bool(declared) and not self.unemulated)  # (others' matter to its devices)
        if declared and self.unemulated:
            print("tierbench: warning: --unemulated: the spec's emulated devices are plain directories on this "
                  "machine's disk; the configurations do not differ in their devices", file=sys.stderr, flush=True)
            return
        if declared:
            emulation.bring_up(declared, on_phase=lambda t: print(f"  {t}", file=sys.stderr, flush=True))
        dirs = [d for c in self.spec.storage for d in (*c.local_data, *c.intermediate)]
        used = emulation.devices_under(dirs)
        if used:
            emulation.check_can_emulate()
            emulation.enter_group()
            # with the limits the throttle applied (its IOPS may exceed the profile's): the report judges the runs by them
            # (reads and writes share each device's time while the runs go: storage/shared_time.py)
            self.emulated = {Path(d.loop).name: {**d.to_dict(), "limits": emulation.throttle_limits(d.profile),
                                                 "time_shared": True} for d in used}

    def _storage_map(self) -> dict:
        roles: dict[str, list[str]] = {"data": [], "intermediate": []}
        for c in self.spec.storage:
            roles["data"] += [d for d in c.local_data if d not in roles["data"]]
            roles["intermediate"] += [d for d in c.intermediate if d not in roles["intermediate"]]
        return storage_map(roles)

    def _node_check(self) -> None:
        """The studies' OS advice checked on this machine and the [cluster] nodes (tierbench check), stored with the
        study for its report; a check that cannot run is recorded as such, never stops the study."""
        from ..analysis.node_check import check_study

        try:
            result = check_study(self.spec)
        except Exception as e:  # noqa: BLE001 - advice only: the study goes on without it
            result = {"error": f"{type(e).__name__}: {e}", "checks": [], "summary": {}}
        self.results.update_study(node_check=result)
        s = result.get("summary") or {}
        if s.get("fail") or s.get("warn"):
            print(f"tierbench: node check: {s.get('fail', 0)} fail, {s.get('warn', 0)} warn (the report lists each with its "
                  "fix; tierbench check SPEC prints them)", file=sys.stderr, flush=True)

    def _probe(self) -> None:
        from ..sampling.probe import probe_dirs
        from .probe import scratch_dirs

        dirs = scratch_dirs(self.spec)
        print(f"probing {len(dirs)} directories with fio ({self.spec.probe_size >> 20} MB each)...", file=sys.stderr, flush=True)
        try:
            result = probe_dirs(dirs, self.spec.probe_size, self.spec.probe_runtime_s, on_phase=lambda t: None)
        except UserError as e:  # the study itself can still run; the report says why there are no ceilings
            print(f"tierbench: warning: device ceilings skipped: {e}", file=sys.stderr)
            self.results.update_study(probe_error=str(e))
            return
        self.results.save_derived("probe", result)

    # -- the study ------------------------------------------------------------
    def run(self, console=None) -> ResultsDir:
        """The whole study, holding the results folder and the data roots for this process only."""
        self.layout.check_outside(self.results.path, "--out")  # before the lock makes the folder:
        self.layout.check()  # a refusal leaves nothing behind, not even a folder made and removed again
        with MachineShare(self.spec, self.results.path):  # (an embedded Spark cluster: one study on it at a time)
            self.results.lock()
            try:
                return self._run(console)
            finally:
                self.layout.unlock()
                self.results.unlock()

    @contextlib.contextmanager
    def _host_memory(self):
        """free_page_reporting = "off": this machine's free page reporting off while the study runs (host_memory.py),
        what was done kept in study.json. Cluster nodes are left as they are (`tierbench check` lists them)."""
        if self.spec.free_page_reporting != "off":
            yield
            return
        from .host_memory import freed_pages_kept, reporting_on

        if reporting_on() and os.geteuid() != 0:
            print("tierbench: warning: free_page_reporting = \"off\" needs root: this VM's free page reporting is left "
                  "on", file=sys.stderr, flush=True)
        with freed_pages_kept() as done:
            said = done or "not in use here (no virtio balloon reporting free pages, or off already)"
            print(f"tierbench: free page reporting: {said}", file=sys.stderr, flush=True)
            self.results.update_study(free_page_reporting=said)
            yield

    def _run(self, console) -> ResultsDir:
        if self.resume:  # a teardown a killed session owed: before anything else (config_commands.py)
            run_skipped_teardown(self.spec, self.layout, self.results)
        records = self.prepare()  # (every check that can refuse the study first: the memory touch takes a while)
        from .pace_follow import PaceFollower

        self.devices_done = False  # set by _run_plan when every run is done: the devices may go
        with self._host_memory(), self._memory_budget() as budget, self._shared_time() as shared:
            results = self._run_plan(records, console, budget, PaceFollower.for_study(self.spec, shared, records))
        if self.devices_done:  # only once the shared-time controller has stopped writing their limits
            self._emulation_down()
        return results

    def _shared_time(self):
        """The emulated devices' reads and writes held to one drive's time together while the runs go."""
        from ..storage.emulation import set_limits
        from ..storage.shared_time import SharedTime

        return SharedTime({loop: (e["major_minor"], e["limits"]) for loop, e in self.emulated.items()}, set_limits)

    @contextlib.contextmanager
    def _memory_budget(self):
        """A scale model's page cache budget on the engines' processes while the study runs (memory_budget.py);
        study.json says whether it was enforced."""
        if not self.page_cache_budget:
            yield None
            return
        from .memory_budget import MemoryBudget, can_budget

        budget, why = self.page_cache_budget, can_budget()
        if why:
            print(f"tierbench: warning: {why}: the scale model's page cache is not bounded", file=sys.stderr, flush=True)
            self.results.update_study(memory_budget={"bytes": budget, "enforced": False, "why": why})
            yield None
            return
        with MemoryBudget(self.spec.name, budget) as b:
            self.results.update_study(memory_budget={"bytes": budget, "enforced": True, "group": str(b.group)})
            yield b

    def _run_plan(self, records: list, console, budget=None, pace=None) -> ResultsDir:
        # (a run whose output went with its data root -- a device rebuilt since -- runs again before its readers)
        done, again = inputs_kept(self.spec, self.plan, latest_ok(records))
        todo = [p for p in self.plan if p.key not in done]
        progress = StudyProgress(len(self.plan), len(self.plan) - len(todo), console)
        if done:
            progress.info(f"resuming: {len(done)} of {len(self.plan)} runs already recorded ok, {len(todo)} to go")
        if again:
            progress.info(f"run again: {', '.join(again)} (what they wrote, the input of runs to do, was in a data "
                          "root made since: a device rebuilt)")
        engines = self._engines or make_engines(self.spec, self.results.path / "logs")
        all_ok = True
        for e in engines.values():
            e.confine, e.unconfined = (budget.join, budget.not_covering) if budget else (None, None)
        context = RunContext(self.spec, self.layout, self.results, self.nodes, progress, tuple(self.plan),
                             tuple(self.command_line), self.resume, self.on_step, budget, pace)
        blocks = ConfigBlocks(context)  # storage.NAME.setup / teardown around each block of a configuration's runs
        try:
            with progress:
                streak = FailureStreak(MAX_SAME_FAILURES)
                for planned in todo:
                    if pace is not None:  # the devices at the k this run goes at (pace_follow.py)
                        pace.before(planned.label)
                    setup = blocks.enter(planned, engines)
                    record = RunLifecycle(context, planned, engines[planned.engine], done, setup=setup).execute()
                    if budget is not None and retry_under_budget(record):
                        progress.info(f"  FAILED {planned.key}: {BUDGET_RACE}")  # (the bar counts the run once)
                        record = RunLifecycle(context, planned, engines[planned.engine], done, setup=setup).execute()
                    all_ok = all_ok and record["status"] == "ok"
                    progress.finished(planned.key, record["status"], record["wall_s"],
                                      "" if record["status"] == "ok" else (record["error"] or "")[:200])
                    if pace is not None and (said := pace.after(record)):
                        progress.info(f"  {said}")
                    if streak.add(record):
                        raise UserError(f"stopped: {streak.count} runs in a row failed the same way ({streak.cause[:300]}); "
                                        f"they are recorded: fix the cause and continue with --resume")
        finally:
            blocks.leave(engines)  # the last block's teardown, also when the study stops early
            self._record_applications(engines)
            for e in engines.values():
                e.close()
            self.nodes.close()
            for e in engines.values():  # (the spark engine: an embedded cluster's Workers back on their own dirs)
                e.restore_cluster()
        if all(p.key in done for p in self.plan) and not self.spec.keep_data:
            self.layout.release()
            self.devices_done = True  # (brought down by _run, after the controllers that write their limits)
        elif not all_ok:
            from ..storage import emulation
            progress.info("some runs failed; their data is kept for --resume" + emulation.kept_up(self._device_names()))
        return self.results

    def _record_applications(self, engines: dict) -> None:
        """study.json: how each long-lived engine's applications lived (started, resumed after idling; the
        memory budget of the idle ones), added up over the sessions of a resumed study."""
        lived = self.results.study().get("engine_applications", {})
        for name, e in engines.items():
            counts = e.applications_lived()
            if counts is not None:
                before = lived.get(name, {})
                lived[name] = {"keep_alive_memory": counts["keep_alive_memory"],
                               "started": before.get("started", 0) + counts["started"],
                               "resumed": before.get("resumed", 0) + counts["resumed"]}
        if lived:
            self.results.update_study(engine_applications=lived)

    def _device_names(self) -> set[str]:
        return {e["device"] for c in self.spec.storage for es in c.emulated.values() for e in es}

    def _emulation_down(self) -> None:
        """The devices the spec declared, down once the study is done (their data with them). Devices of the
        same names left from an interrupted run of this study are the study's too. Called once the study's
        shared-time controller has stopped: after it, nothing writes their limits again (emulation.down clears them
        and checks they are gone)."""
        from ..storage import emulation

        for name in sorted(self._device_names()):
            if emulation.device(name) is not None:
                emulation.down(name)
