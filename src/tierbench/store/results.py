"""The results folder of a study: study.json (spec, plan, machine) and runs.jsonl.

runs.jsonl is append-only: one JSON object per line, written and fsync'ed
the moment a run ends, so a killed study loses nothing that finished.
Reports and exports are pure functions of this folder.

Format history (schema_version):
  1 - first version (tierbench 0.1.0).
"""

import json
import os
from pathlib import Path

from ..errors import UserError

SCHEMA_VERSION = 1
STUDY_FILE = "study.json"
RUNS_FILE = "runs.jsonl"

# The fields every run record has; see docs/results.md.
RECORD_FIELDS = (
    "schema_version", "study", "run_key", "variant", "config", "workload", "label", "params", "engine", "engine_kind", "knobs", "repeat", "attempt",
    "status", "wall_s", "metrics", "details", "started_at", "ended_at", "error", "page_cache_dropped",
    "tool_version", "git_commit", "command_line", "engine_version", "engine_conf", "storage", "machine",
)


class ResultsDir:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    @property
    def study_file(self) -> Path:
        return self.path / STUDY_FILE

    @property
    def runs_file(self) -> Path:
        return self.path / RUNS_FILE

    def exists(self) -> bool:
        return self.study_file.is_file()

    def check_writable_as_new(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise UserError(f"{self.path} is a file; --out must be a directory")
        ours = {"probe.json"}  # what `tierbench probe` leaves before a study starts
        if self.path.is_dir() and any(p.name not in ours for p in self.path.iterdir()) and not self.exists():
            raise UserError(f"{self.path} is not empty and holds no tierbench results; tierbench will not write there: choose another --out")

    def create(self, study: dict) -> None:
        self.check_writable_as_new()
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "logs").mkdir(exist_ok=True)
        self._write_json(self.study_file, {"schema_version": SCHEMA_VERSION} | study)
        self.runs_file.touch()

    def update_study(self, **fields) -> None:
        study = self.study()
        study.update(fields)
        self._write_json(self.study_file, study)

    def _write_json(self, path: Path, obj) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(obj, indent=2, default=str))
        os.replace(tmp, path)

    def study(self) -> dict:
        if not self.exists():
            raise UserError(f"{self.path}: no tierbench results here (no {STUDY_FILE})")
        try:
            study = json.loads(self.study_file.read_text())
        except ValueError as e:
            raise UserError(f"{self.study_file}: damaged ({e})") from None
        version = study.get("schema_version")
        if version != SCHEMA_VERSION:
            raise UserError(f"{self.study_file}: results schema version {version}, this tierbench reads {SCHEMA_VERSION}")
        return study

    def append(self, record: dict) -> None:
        line = json.dumps(record, default=str, separators=(",", ":"))
        with open(self.runs_file, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def records(self) -> list[dict]:
        self.study()
        out = []
        if not self.runs_file.exists():
            return out
        with open(self.runs_file) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append(json.loads(line))
                except ValueError:
                    # a line cut short by a kill mid-write: everything before it is intact
                    if n == sum(1 for _ in open(self.runs_file)):
                        continue
                    raise UserError(f"{self.runs_file}:{n}: damaged record") from None
        return out

    def log_path(self, name: str) -> Path:
        (self.path / "logs").mkdir(exist_ok=True)
        return self.path / "logs" / name
