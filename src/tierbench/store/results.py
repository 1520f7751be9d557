"""The results folder of a study: study.json (spec, plan, machine) and runs.jsonl.

runs.jsonl is append-only: one JSON object per line, written and fsync'ed
the moment a run ends, so a killed study loses nothing that finished.
Reports and exports are pure functions of this folder.

The schema version and its format history are in record.py (and docs/results.md); folders written by an
older version are upgraded as they are read (the files are not rewritten).
"""

import json
import os
import shutil
import sys
from pathlib import Path

from ..errors import UserError
from ..locks import LOCK_FILE, HeldLock
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


# what a record must have to be analysed (a line of valid JSON of another shape is skipped, with a warning)
RECORD_SHAPE = {"run_key": str, "status": str, "workload": str, "label": str, "repeat": int,
                "metrics": dict, "details": dict}
STUDY_SHAPE = {"name": str, "spec": dict}
SPEC_SHAPE = {"storage": list, "workloads": list, "baseline": str, "repeats": int}


def warn(text: str) -> None:
    print(f"tierbench: warning: {text}", file=sys.stderr)


def _shape_error(obj, shape: dict) -> str | None:
    if not isinstance(obj, dict):
        return f"a JSON {type(obj).__name__}, not an object"
    for key, kind in shape.items():
        if not isinstance(obj.get(key), kind):
            return f"`{key}` is missing or not a {kind.__name__}"
    return None


class ResultsDir:
    def __init__(self, path: str | os.PathLike, on_warning=warn):
        self.path = Path(path)
        self.on_warning = on_warning
        self._lock: HeldLock | None = None
        self._made_folder = None

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
        ours = {"probe.json", LOCK_FILE}  # what `tierbench probe` leaves before a study starts, and our lock
        if self.path.is_dir() and any(p.name not in ours for p in self.path.iterdir()) and not self.exists():
            raise UserError(f"{self.path} is not empty and holds no tierbench results; tierbench will not write there: choose another --out")

    def lock(self) -> None:
        """Hold the folder for this process (one line naming the holder's PID if another has it). A folder this
        makes only to hold the lock is removed again by unlock() if no study was created in it."""
        if os.path.lexists(self.path) and not os.path.exists(self.path):
            raise UserError(f"{self.path} is a dangling symbolic link (or a loop of links); --out must be a directory")
        self.check_writable_as_new()  # (a folder of someone else's files is refused before anything is written)
        self._made_folder = None  # the outermost folder this makes (the results folder or a parent of it)
        for p in (self.path.absolute(), *self.path.absolute().parents):
            if os.path.lexists(p):
                break
            self._made_folder = p
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the results folder {self.path}: {e.strerror}; choose a directory you can write to") from None
        self._lock = HeldLock(self.path / LOCK_FILE, f"the results folder {self.path}").acquire()

    def unlock(self) -> None:
        if self._lock is None:  # never held: nothing here is ours to tidy
            return
        if not self.exists():  # nothing was recorded: leave nothing behind (still holding the lock)
            if self._made_folder:
                shutil.rmtree(self._made_folder, ignore_errors=True)
            else:
                (self.path / LOCK_FILE).unlink(missing_ok=True)
        self._lock.release()
        self._lock = None
        self._made_folder = None

    def create(self, study: dict, checked: bool = False) -> None:
        """Write study.json (and runs.jsonl). `checked`: the caller checked the folder before making its own
        data roots in it (the quickstart keeps its data under --out), so those are not someone else's files."""
        if not checked:
            self.check_writable_as_new()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            (self.path / "logs").mkdir(exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the results folder {self.path}: {e.strerror}") from None
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
        except OSError as e:
            raise UserError(f"{self.study_file}: cannot read it: {e.strerror}") from None
        problem = _shape_error(study, STUDY_SHAPE) or _shape_error(study["spec"], SPEC_SHAPE)
        if problem:
            raise UserError(f"{self.study_file}: not a tierbench study ({problem})")
        version = study.get("schema_version")
        if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
            raise UserError(f"{self.study_file}: results schema version {version}, this tierbench reads 1 to {SCHEMA_VERSION} "
                            "(results of a newer tierbench: upgrade tierbench to read them)")
        return study

    def append(self, record: dict) -> None:
        """One record, on a line of its own, fsync'ed; never glued onto a torn last line."""
        line = json.dumps(record, default=str, separators=(",", ":"))
        with open(self.runs_file, "ab+") as f:
            torn = False
            if f.seek(0, os.SEEK_END) > 0:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
            f.write((b"\n" if torn else b"") + line.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def cut_torn_tail(self) -> None:
        """Before resuming: a last line cut short (a kill or a full disk mid-write) is cut off, with a warning."""
        if not self.runs_file.exists():
            return
        data = self.runs_file.read_bytes()
        end = len(data)
        if data and not data.endswith(b"\n"):
            end = data.rfind(b"\n") + 1
        else:
            start = data.rfind(b"\n", 0, max(len(data) - 1, 0)) + 1
            try:
                json.loads(data[start:])
            except ValueError:
                end = start if data[start:].strip() else end
        if end < len(data):
            with open(self.runs_file, "r+b") as f:
                f.truncate(end)
                os.fsync(f.fileno())
            self.on_warning(f"{self.runs_file}: cut off a torn last line ({len(data) - end} bytes, a run that was "
                            "being recorded when tierbench stopped): that run will run again")

    def records(self) -> list[dict]:
        """Every readable record (upgraded to this schema). A damaged line is skipped with a warning naming it."""
        self.study()
        out = []
        if not self.runs_file.exists():
            return out
        with open(self.runs_file, errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    problem = _shape_error(rec, RECORD_SHAPE)
                except ValueError:
                    problem = "not valid JSON (cut short?)"
                if problem:
                    self.on_warning(f"{self.runs_file}:{n}: damaged record skipped ({problem})")
                    continue
                out.append(upgrade(rec))
        return out

    def log_path(self, name: str) -> Path:
        (self.path / "logs").mkdir(exist_ok=True)
        return self.path / "logs" / name
