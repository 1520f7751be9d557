"""A job: what the runner asks an engine to run, and what comes back. Engines and workloads share these."""

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class JobOutcome:
    ok: bool
    wall_s: float | None
    result: dict = field(default_factory=dict)  # engine-neutral job result, read by the workload's measure()
    error: str | None = None
    log: str | None = None  # raw log kept with the run, when the engine writes one per run


@dataclass
class JobRequest:
    run_key: str
    workload: object  # spec.WorkloadSpec: name, label, params (its definition: .definition)
    producer: object | None  # the WorkloadSpec whose output this one reads
    inputs: list[str]  # data set URIs (one per data dir)
    outputs: list[str]
    local_dirs: list[Path]  # intermediate (shuffle/spill) dirs
    scratch: Path  # a directory of the engine's own for this run (under tierbench's roots)
    storage_conf: dict = field(default_factory=dict)  # Hadoop settings the storage needs (e.g. dfs.replication)
    default_fs: str = "file:///"  # the data's file system, for jobs that work on the default one (TestDFSIO)

    @property
    def params(self) -> dict:
        return self.workload.params
