"""What every run of a study reads: the run context, made once when the study's runs begin and frozen, so that a
step takes what it needs from it and cannot rebind any of it (the runner's own state stays the runner's)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..progress import StudyProgress
from ..sampling.nodes import ClusterObservation
from ..spec import PlannedRun, Spec
from ..storage import StudyLayout
from ..store import ResultsDir


def no_step_watcher(run_key: str, step: str) -> None:
    """The default `on_step`: nobody watches the steps (tests/test_lifecycle.py does)."""


@dataclass(frozen=True)
class RunContext:
    spec: Spec
    layout: StudyLayout  # the study's directories under tierbench's own roots
    results: ResultsDir  # where each run's record is appended the moment it ends
    nodes: ClusterObservation  # the cluster's node agents (engine plug-in, ssh)
    progress: StudyProgress
    plan: tuple[PlannedRun, ...]  # every planned run of the study, done or not
    command_line: tuple[str, ...]
    resume: bool  # continuing a study: an interrupted attempt's output may be on a remote file system
    # told (run key, step name) as each step of the lifecycle begins, setup and teardown of a block included
    on_step: Callable[[str, str], None] = no_step_watcher
    # a scale model's page cache budget, if enforced, and its drives following this machine's pace: what the study's
    # run hooks gave (hooks.py; scale/memory_budget.py MemoryBudget, scale/pace_follow.py PaceFollower)
    memory_budget: object | None = None
    pace: object | None = None

    def copy_targets(self, config) -> tuple:
        """Other storage configurations that this configuration's workloads write to (a copy's `to`)."""
        names = {t for w in self.spec.workloads if (t := w.definition.copy_target(w.params)) and t != config.name}
        return tuple(self.spec.config(n) for n in sorted(names))

    def fetch_tables(self, config, scratch: Path):
        """For a check that reads a data set locally (DuckDB): tables -> local dirs, fetched first from a
        remote store into the run's scratch dir (deleted after, with the scratch)."""
        def fetch(uris: dict[str, str]) -> dict[str, Path]:
            from ..storage import local_path
            from ..storage.remote import HadoopFs

            if not config.remote:
                return {t: local_path(u) for t, u in uris.items()}
            local = scratch / "fetched"
            self.layout.remove(local)
            local.mkdir(parents=True)
            HadoopFs.for_config(config).get(list(uris.values()), local)
            return {t: local / t for t in uris}
        return fetch

    def clean_up_group(self, planned: PlannedRun, done: dict) -> None:
        """The (variant, repeat)'s data deleted once all its runs are ok (`done`: the ok records by run key)."""
        group = [p for p in self.plan if p.repeat == planned.repeat and p.variant == planned.variant]
        if self.spec.keep_data or not all(p.key in done for p in group):
            return
        config = self.spec.config(planned.config)
        for target in self.copy_targets(config):  # copies written into other configurations' roots
            self.layout.remove_repeat(target, planned.variant, planned.repeat)
        self.layout.remove_repeat(config, planned.variant, planned.repeat)
