"""The results folder as read-only values: what `ResultsDir.load()` gives (StoredStudy: study.json, the runs and the
derived outputs), each made from what the one validating loader read, checked (schema.py) and upgraded (record.py).

Frozen: a field is never reassigned. The JSON values inside the fields (metrics, details, samples, spec) are the
dicts and lists as read: not copied (a record's samples can be megabytes), and nothing else holds them, since every
load reads the files anew. A field the stored JSON lacks (a record of an older version, a hand-made one) has the
default given here; fields of a newer version that this one does not name are kept in `extra`.
"""

from dataclasses import dataclass, field, fields
from pathlib import Path

from .record import SCHEMA_VERSION

DERIVED_FILES = {"probe": "probe.json", "predictions": "predictions.json"}  # study.json's key before version 5 -> file


def _named_and_extra(cls, stored: dict) -> dict:
    """cls's keyword arguments from a stored JSON object: the fields cls names as stored, the rest in `extra`."""
    names = {f.name for f in fields(cls)} - {"extra"}
    return {k: v for k, v in stored.items() if k in names} | {"extra": {k: v for k, v in stored.items() if k not in names}}


@dataclass(frozen=True)
class StoredRun:
    """One record of runs.jsonl (record.RunRecord says what each field holds; docs/results.md too)."""
    # what every readable record has: checked by schema.RECORD, `variant` and `config` set by record.upgrade
    run_key: str
    status: str  # "ok" or "failed"
    workload: str
    label: str
    repeat: int
    metrics: dict
    details: dict
    variant: str
    config: str
    schema_version: int = SCHEMA_VERSION  # (record.upgrade brings every record to this one)
    # what tierbench writes in every record; a hand-made record may lack them
    study: str | None = None
    params: dict = field(default_factory=dict)
    engine: str | None = None
    engine_kind: str | None = None
    knobs: dict = field(default_factory=dict)
    storage: dict = field(default_factory=dict)
    machine: dict | None = None
    tool_version: str | None = None
    git_commit: str | None = None
    command_line: list = field(default_factory=list)
    started_at: str | None = None
    attempt: int = 1
    wall_s: float | None = None
    io: dict = field(default_factory=dict)
    ended_at: str | None = None
    error: str | None = None
    page_cache_dropped: bool = False
    durability: str = "engine"
    sync_gaps: list = field(default_factory=list)
    engine_version: str | None = None
    engine_conf: dict | None = field(default_factory=dict)
    samples: dict | None = None
    nodes: dict | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, record: dict) -> "StoredRun":
        """From a record the loader read (checked and upgraded)."""
        return cls(**_named_and_extra(cls, record))

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_record_dict(self) -> dict:
        """Its fields as a record dict, shallow: for the exports (JSON, CSV), which write records as dicts."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"} | self.extra


@dataclass(frozen=True)
class StudyFile:
    """study.json (docs/results.md has each key). Before version 5 it also held the derived outputs `probe` and
    `predictions`: those are StoredStudy's, wherever they were stored."""
    name: str
    spec: dict  # the validated spec; each workload's parameters at their defaults where an older spec lacks them
    schema_version: int = 1  # the version the folder was created with
    fingerprint: str | None = None  # what --resume compares: configurations, engines, workloads, repeats
    created_at: str | None = None
    study_id: str = ""  # the folder's id, in its devices' and data roots' names (study/identity.py); "" before ids
    command_line: list = field(default_factory=list)
    tool_version: str | None = None
    git_commit: str | None = None
    machine: dict = field(default_factory=dict)
    variants: list | None = None  # [{name, config, engine}]; absent in early folders: one per configuration
    plan: list = field(default_factory=list)
    storage_map: dict = field(default_factory=dict)
    emulated: dict | None = None
    emulation_skipped: bool = False
    node_check: dict | None = None
    probe_error: str | None = None
    free_page_reporting: str | None = None
    memory_budget: dict | None = None  # a scale model's page cache budget: {"bytes", "enforced", "group" or "why"}
    engine_applications: dict | None = None
    config_commands: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, study: dict) -> "StudyFile":
        """From study.json as the loader read it (checked and upgraded), less the derived outputs."""
        return cls(**_named_and_extra(cls, {k: v for k, v in study.items() if k not in DERIVED_FILES}))


@dataclass(frozen=True)
class StoredStudy:
    """A results folder: study.json, the readable runs in the order recorded, and the derived outputs, each from
    its own file (probe.json, predictions.json) or, in a folder of an older version, from study.json."""
    path: Path
    study: StudyFile
    runs: tuple[StoredRun, ...]
    probe: dict | None = None  # device -> `tierbench probe`'s fio figures (the device ceilings)
    predictions: dict | None = None  # the last `tierbench predict`'s result

    @classmethod
    def from_dicts(cls, path, study: dict, records: list[dict]) -> "StoredStudy":
        """From what the loader read: study.json with the derived outputs presented in it, and the records."""
        return cls(Path(path), StudyFile.from_dict(study), tuple(StoredRun.from_dict(r) for r in records),
                   **{key: study.get(key) for key in DERIVED_FILES})

    def latest_ok(self) -> dict[str, StoredRun]:
        """The last ok run of each run key (a run re-done after a failure supersedes it)."""
        return {r.run_key: r for r in self.runs if r.ok}
