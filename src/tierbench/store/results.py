"""The results folder of a study: study.json (spec, plan, machine) and runs.jsonl.

runs.jsonl is append-only: one JSON object per line, written and fsync'ed
the moment a run ends, so a killed study loses nothing that finished.
Reports and exports are pure functions of this folder.

The schema version and its format history are in record.py (and docs/results.md); folders written by an
older version are upgraded as they are read (the files are not rewritten).
"""

import json
import os
from pathlib import Path

from ..errors import UserError
from .record import RECORD_FIELDS, SCHEMA_VERSION, upgrade  # noqa: F401 (RECORD_FIELDS: re-exported)

STUDY_FILE = "study.json"
RUNS_FILE = "runs.jsonl"

def latest_ok(records: list[dict]) -> dict[str, dict]:
    """The last ok record of each run key (a run re-done after a failure supersedes it)."""
    out = {}
    for r in records:
        if r.get("status") == "ok":
            out[r["run_key"]] = r
    return out


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
        if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
            raise UserError(f"{self.study_file}: results schema version {version}, this tierbench reads 1 to {SCHEMA_VERSION} "
                            "(results of a newer tierbench: upgrade tierbench to read them)")
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
                    out.append(upgrade(json.loads(line)))
                except ValueError:
                    # a line cut short by a kill mid-write: everything before it is intact
                    if n == sum(1 for _ in open(self.runs_file)):
                        continue
                    raise UserError(f"{self.runs_file}:{n}: damaged record") from None
        return out

    def log_path(self, name: str) -> Path:
        (self.path / "logs").mkdir(exist_ok=True)
        return self.path / "logs" / name
