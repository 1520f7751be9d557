"""What the study needs from an engine, whichever it is."""

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from ..job import JobOutcome, JobRequest  # noqa: F401 (engines return these)

if TYPE_CHECKING:
    from ..sampling.nodes import NodeAgents


class EngineError(Exception):
    """The engine itself failed (did not start, died, is missing a part): not a result of the job."""


class Engine(Protocol):
    """Every engine subclasses this: the optional hooks below are then the no-ops it does not override, so the
    study asks each engine the same things instead of testing which engine it has."""

    name: str
    kind: str
    version: str | None
    conf: dict  # the engine's resolved settings, secrets redacted
    sync_gaps: tuple[str, ...]  # durable mode: writes this engine cannot sync before a task ends, on any storage
    # a scale model's page cache budget (scale/memory_budget.py): told the pid of each process the engine starts,
    # before it starts the processes that do the job's IO (children are born in their parent's group)
    confine: Callable[[int], None] | None = None
    # and told, during each run, what of the run's processes it does not hold and why (executors on a cluster's
    # nodes, or of daemons tierbench did not start: never moved), so that the run does not claim the budget held
    unconfined: Callable[[str], None] | None = None

    def open(self, variant: str, config, local_dirs: list[Path], on_phase: Callable[[str], None],
             also: tuple = ()) -> bool | None:
        """Be ready to run jobs for this variant (e.g. start its Spark application); `config` is its storage
        configuration, `also`: other storage configurations its jobs reach (a copy's target), whose connectors
        and settings it needs too. True when it started a long-lived process whose jobs run in it (a Spark
        application): the study warms it up before its first measured run (study/warmup.py)."""

    def run(self, req: JobRequest, on_progress: Callable[[dict], None]) -> JobOutcome: ...

    def close(self) -> None: ...

    # -- optional hooks -------------------------------------------------------------------------------------
    @property
    def node_agents(self) -> "NodeAgents | None":
        """The agents its executors run on the cluster's nodes (sampling/nodes.py observes them), if any."""
        return None

    def applications_lived(self) -> dict | None:
        """An engine of long-lived applications: {"keep_alive_memory", "started", "resumed"} since it was made, for
        study.json; None for an engine whose every job is a process of its own."""
        return None

    def restore_cluster(self) -> None:
        """After the study: what the engine changed on its cluster to run the configurations put back."""
