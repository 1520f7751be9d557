"""Runs a study: the plan, one run at a time through the run lifecycle (lifecycle.py), each recorded the moment it
ends; the runs read the study through a frozen run context (context.py). A (variant, repeat) group complete with all
its runs ok has its data deleted (only under tierbench's own roots); when the study is done, the roots are released.
Before the runs: preparation.py; around them: the hooks the study was given (hooks.py)."""

from pathlib import Path
from typing import Callable

from ..errors import UserError
from ..progress import StudyProgress
from ..sampling.nodes import ClusterObservation
from ..spec import Spec, make_plan
from ..storage import StudyLayout
from ..store import ResultsDir, latest_ok
from . import devices
from .config_commands import ConfigBlocks, run_skipped_teardown
from .context import RunContext, no_step_watcher
from .failures import MAX_SAME_FAILURES, FailureStreak, budget_race_line, retry_under_budget
from .hooks import StudyState, first, stacked
from .host_memory import reporting_off_for
from .inputs import inputs_kept
from .lifecycle import RunLifecycle
from .machine_share import MachineShare
from .preparation import prepare


def make_engines(spec: Spec, log_dir: Path) -> dict:
    from ..engines.hadoop import HadoopEngine
    from ..engines.spark import SparkEngine

    durable = spec.durability == "durable"
    return {e.name: SparkEngine(e, spec.name, log_dir, durable, spec.sampling_interval_s, spark_runtimes(spec))
            if e.kind == "spark" else HadoopEngine(e, log_dir, durable) for e in spec.engines}


def spark_runtimes(spec: Spec) -> tuple:
    """The runtimes the study's workloads need on a Spark application's classpath (a table format's), each once."""
    return tuple(dict.fromkeys(r for w in spec.workloads if (r := w.definition.spark_runtime(w.params))))


class StudyRunner:
    def __init__(self, spec: Spec, out_dir: Path, command_line: list[str], resume: bool = False,
                 allow_mixed: bool = False, engines: dict | None = None, unemulated: bool = False,
                 on_step: Callable[[str, str], None] = no_step_watcher, side_study: bool = False, hooks=()):
        self.spec = spec
        self.results = ResultsDir(out_dir)
        self.layout = StudyLayout(spec)
        self.command_line = command_line
        self.resume = resume
        self.plan = make_plan(spec)
        self.allow_mixed = allow_mixed  # pool runs of another machine or tool version on --resume
        self._engines = engines  # given by tests (a fake engine); else made from the spec
        self.emulated: dict = {}  # loop device name -> the emulated device's facts (devices.py)
        # the nodes of a cluster: agents in the Spark executors, and over ssh for the spec's [cluster] nodes
        self.nodes = ClusterObservation(spec.sampling_interval_s, spec.cluster,
                                        [d for c in spec.storage for d in (*c.local_data, *c.intermediate)])
        self.unemulated = unemulated  # run a spec's emulated devices as plain directories (asked for, and said so)
        self.on_step = on_step  # told (run key, step) as each step of each run begins (lifecycle.py's STEPS)
        self.side_study = side_study  # a study's calibration (scale/calibration.py): its warnings and node check are the study's
        self.hooks = tuple(hooks)  # entered around the runs, told of each (hooks.py; a scale model's: scale/hooks.py)

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

    def _run(self, console) -> ResultsDir:
        if self.resume:  # a teardown a killed session owed: before anything else (config_commands.py)
            run_skipped_teardown(self.spec, self.layout, self.results)
        records = prepare(self)  # (every check that can refuse the study first: the memory touch takes a while)
        self.devices_done = False  # set by _run_plan when every run is done: the devices may go
        state = StudyState(self.spec, self.results, self.emulated, tuple(records))
        with reporting_off_for(self.spec, self.results), stacked(self.hooks, state) as hooks:
            results = self._run_plan(records, console, hooks)
        if self.devices_done:  # only once the hooks (the shared-time controller) have stopped writing their limits
            devices.down(self.spec)
        return results

    def _run_plan(self, records: list, console, hooks=()) -> ResultsDir:
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
        budget, all_ok = first(hooks, "memory_budget"), True
        for e in engines.values():
            e.confine, e.unconfined = (budget.join, budget.not_covering) if budget else (None, None)
        context = RunContext(self.spec, self.layout, self.results, self.nodes, progress, tuple(self.plan),
                             tuple(self.command_line), self.resume, self.on_step, budget, first(hooks, "pace"))
        blocks = ConfigBlocks(context)  # storage.NAME.setup / teardown around each block of a configuration's runs
        try:
            with progress:
                streak = FailureStreak(MAX_SAME_FAILURES)
                for planned in todo:
                    for hook in hooks:  # (the scale model's drives at the k this run goes at: scale/pace_follow.py)
                        hook.before(planned)
                    setup = blocks.enter(planned, engines)
                    record = RunLifecycle(context, planned, engines[planned.engine], done, setup=setup).execute()
                    if budget is not None and retry_under_budget(record):
                        progress.info(f"  FAILED {planned.key}: {budget_race_line()}")  # (the bar counts the run once)
                        record = RunLifecycle(context, planned, engines[planned.engine], done, setup=setup).execute()
                    all_ok = all_ok and record["status"] == "ok"
                    progress.finished(planned.key, record["status"], record["wall_s"],
                                      "" if record["status"] == "ok" else (record["error"] or "")[:200])
                    for said in [said for hook in hooks if (said := hook.after(record))]:
                        progress.info(f"  {said}")
                    if streak.add(record):
                        raise UserError(f"stopped: {streak.count} runs in a row failed the same way ({streak.cause[:300]}); "
                                        f"they are recorded: fix the cause and continue with --resume")
        finally:
            self._close(engines, blocks)
        if all(p.key in done for p in self.plan) and not self.spec.keep_data:
            self.layout.release()
            self.devices_done = True  # (brought down by _run, after the hooks that write their limits)
        elif not all_ok:
            progress.info("some runs failed; their data is kept for --resume" + devices.kept_up(self.spec))
        return self.results

    def _close(self, engines: dict, blocks: ConfigBlocks) -> None:
        blocks.leave(engines)  # the last block's teardown, also when the study stops early
        self._record_applications(engines)
        for e in engines.values():
            e.close()
        self.nodes.close()
        for e in engines.values():  # (the spark engine: an embedded cluster's Workers back on their own dirs)
            e.restore_cluster()

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
