"""What the runner needs from an engine, whichever it is."""

from pathlib import Path
from typing import Callable, Protocol

from ..job import JobOutcome, JobRequest  # noqa: F401 (engines return these)


class EngineError(Exception):
    """The engine itself failed (did not start, died, is missing a part): not a result of the job."""


class Engine(Protocol):
    name: str
    kind: str
    version: str | None
    conf: dict  # the engine's resolved settings, secrets redacted
    sync_gaps: tuple[str, ...]  # durable mode: writes this engine cannot sync before a task ends, on any storage

    def open(self, variant: str, config, local_dirs: list[Path], on_phase: Callable[[str], None],
             also: tuple = ()) -> bool | None:
        """Be ready to run jobs for this variant (e.g. start its Spark application); `config` is its storage
        configuration, `also`: other storage configurations its jobs reach (a copy's target), whose connectors
        and settings it needs too. True when it started a long-lived process whose jobs run in it (a Spark
        application): the study warms it up before its first measured run (warmup.py)."""

    def run(self, req: JobRequest, on_progress: Callable[[dict], None]) -> JobOutcome: ...

    def close(self) -> None: ...
