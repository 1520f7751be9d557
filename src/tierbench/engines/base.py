"""What the runner needs from an engine, whichever it is."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from ..spec import StorageConfig, WorkloadSpec


class EngineError(Exception):
    """The engine itself failed (did not start, died, is missing a part): not a result of the job."""


@dataclass
class JobOutcome:
    ok: bool
    wall_s: float | None
    result: dict = field(default_factory=dict)  # engine-neutral job result, read by workloads.measure
    error: str | None = None
    log: str | None = None  # raw log kept with the run, when the engine writes one per run


@dataclass
class JobRequest:
    run_key: str
    workload: WorkloadSpec
    producer: WorkloadSpec | None  # the workload whose output this one reads
    inputs: list[str]  # data set URIs (one per data dir)
    outputs: list[str]
    local_dirs: list[Path]  # intermediate (shuffle/spill) dirs
    scratch: Path  # a directory of the engine's own for this run (under tierbench's roots)
    storage_conf: dict = field(default_factory=dict)  # Hadoop settings the storage needs (e.g. dfs.replication)


class Engine(Protocol):
    name: str
    kind: str
    version: str | None
    conf: dict  # the engine's resolved settings, secrets redacted

    def open(self, variant: str, config: StorageConfig, local_dirs: list[Path], on_phase: Callable[[str], None],
             also: tuple[StorageConfig, ...] = ()) -> None:
        """Be ready to run jobs for this variant (e.g. start its Spark application); `also`: other storage
        configurations its jobs reach (a copy's target), whose connectors and settings it needs too."""

    def run(self, req: JobRequest, on_progress: Callable[[dict], None]) -> JobOutcome: ...

    def close(self) -> None: ...
