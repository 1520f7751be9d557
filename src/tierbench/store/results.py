"""The results folder of a study: study.json (spec, plan, machine), runs.jsonl, and the derived outputs in files of
their own (derived.py: probe.json, predictions.json).

runs.jsonl is append-only: one JSON object per line, written and fsync'ed
the moment a run ends, so a killed study loses nothing that finished.
Reports and exports are pure functions of this folder. It is read by one validating loader: `load()` gives it as
read-only values (stored.py); `study()` and `records()` give the same as dicts, for the runner's --resume and the JSON/CSV exports.

The schema version and its format history are in record.py (and docs/results.md); folders written by an
older version are upgraded as they are read (the files are not rewritten).
"""

import errno
import json
import os
import shutil
import sys
from pathlib import Path

from ..errors import UserError
from ..locks import LOCK_FILE, HeldLock
from ..redaction import mask
from ..safefiles import check_no_link, check_tree_no_link, make_dirs, open_fd, open_file, write_text
from ..units import format_size
from .reading import LINE_MAX_BYTES, STUDY_MAX_BYTES, capped_lines, last_newline, open_regular, read_capped
from .derived import CALIBRATION_FILE, CALIBRATION_MAX_BYTES, PROBE_FILE, PROBE_MAX_BYTES, is_probe_result, read_calibration, read_derived
from .record import RECORD_FIELDS, SCHEMA_VERSION, upgrade, upgrade_study  # noqa: F401 (RECORD_FIELDS: re-exported)
from .schema import record_problem, study_problem
from .stored import DERIVED_FILES, StoredStudy

STUDY_FILE = "study.json"
RUNS_FILE = "runs.jsonl"
RESERVE_FILE = ".tierbench-reserve"
RESERVE_BYTES = 1 << 20  # a few hundred run records
CALIBRATION_DIR = "calibration"  # a scale model's calibration study, a results folder inside the study's (scale/calibration.py)
PACE_CHECK_DIR = "calibration-after"  # the calibration's job again after the study (scale/calibration.py pace_check)
FIT_DIR = "calibration-fit"  # the calibration's job on the rate's own drives, before the study (scale/calibration.py)
LOGS_DIR = "logs"  # the engines' and the setup commands' logs


def _is_calibration(path: Path) -> bool:
    """The calibration of the study about to be made here: run first, in a results folder of its own."""
    return (path.name in (CALIBRATION_DIR, FIT_DIR) and (path / STUDY_FILE).is_file()) or (
        path.name == CALIBRATION_FILE and path.is_file() and not path.is_symlink())


def latest_ok(records: list[dict]) -> dict[str, dict]:
    """The last ok record of each run key (a run re-done after a failure supersedes it)."""
    out = {}
    for r in records:
        if r.get("status") == "ok":
            out[r["run_key"]] = r
    return out


MAX_WARNED = 10  # damaged records named one by one per read; past this, one line counts the rest
_said: set[str] = set()


def warn(text: str) -> None:
    """To stderr, once per process: the same folder is read more than once in a command (resume, report)."""
    if text not in _said:
        _said.add(text)
        print(f"tierbench: warning: {text}", file=sys.stderr)


def _parse_record(line: bytes, analysed: bool) -> tuple[dict | None, str | None]:
    """(the record, None), or (None, what is wrong with the line)."""
    try:
        rec = json.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return None, "not valid JSON (cut short?)"
    except RecursionError:  # (valid JSON nested thousands deep: no record is)
        return None, "JSON nested too deeply to be a run record"
    problem = record_problem(rec, analysed)
    return (None, problem) if problem else (rec, None)


class ResultsDir:
    def __init__(self, path: str | os.PathLike, on_warning=warn):
        self.path = Path(path)
        self.on_warning = on_warning
        self._lock: HeldLock | None = None
        self._made_folder = None
        self._warned: set[str] = set()  # what on_warning was told already: each damaged line once

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
        ours = {LOCK_FILE, RESERVE_FILE}  # our lock and the room kept for records; and `tierbench probe`'s result
        if self.path.is_dir() and any(p.name not in ours and not is_probe_result(p) and not _is_calibration(p)
                                      for p in self.path.iterdir()) and not self.exists():
            raise UserError(f"{self.path} is not empty and holds no tierbench results; tierbench will not write there: choose another --out")

    def check_may_run(self, resume: bool) -> None:
        """A new study may be made here, or (with resume) the one here continued: else one line saying what to do."""
        self.check_writable_as_new()
        if self.exists() and not resume:
            raise UserError(f"{self.path} already holds results of study {self.study().get('name')!r}; "
                            "pass --resume to continue it, or choose another --out")

    def lock(self) -> None:
        """Hold the folder for this process (one line naming the holder's PID if another has it). A folder this
        makes only to hold the lock is removed again by unlock() if no study was created in it."""
        if os.path.lexists(self.path) and not os.path.exists(self.path):
            raise UserError(f"{self.path} is a dangling symbolic link (or a loop of links); --out must be a directory")
        self.check_writable_as_new()  # (a folder of someone else's files is refused before anything is written)
        self.check_no_links()
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

    def check_no_links(self) -> None:
        """Nothing this writes to here is a symbolic link (one line naming it otherwise): a --resume's runs.jsonl or
        logs/ linked out of the folder would have root append records or logs to the link's target."""
        if not self.path.is_dir():
            return
        for name in (STUDY_FILE, RUNS_FILE, RESERVE_FILE, *DERIVED_FILES.values()):
            check_no_link(self.path / name, self.path, "its results")
        check_tree_no_link(self.path / LOGS_DIR, self.path, "its logs")

    def unlock(self) -> None:
        if self._lock is None:  # never held: nothing here is ours to tidy
            return
        (self.path / RESERVE_FILE).unlink(missing_ok=True)
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
            make_dirs(self.path / LOGS_DIR, self.path, "its logs")
        except OSError as e:
            raise UserError(f"cannot create the results folder {self.path}: {e.strerror}") from None
        self._write_json(self.study_file, {"schema_version": SCHEMA_VERSION} | study)
        os.close(open_fd(self.runs_file, "a", what="its run records"))

    def update_study(self, **fields) -> None:
        """study.json with `fields` set. A derived output among them (`probe`, `predictions`) goes to its own file
        instead (save_derived): the callers that stored it in study.json before version 5 keep working."""
        for key in DERIVED_FILES.keys() & fields.keys():
            self.save_derived(key, fields.pop(key))
        if fields:
            study = self._read_study()  # (as stored: what study() adds on reading is not written back)
            study.update(fields)
            self._write_json(self.study_file, study)

    def save_derived(self, key: str, value: dict) -> None:
        """A derived output (`probe`: tierbench probe's, `predictions`: tierbench predict's) in its own file beside
        runs.jsonl. A copy an older version kept in study.json is dropped, so that the file is what is read."""
        self._write_json(self.path / DERIVED_FILES[key], value, PROBE_MAX_BYTES if key == "probe" else STUDY_MAX_BYTES)
        study = self._read_study()
        if key in study:
            del study[key]
            self._write_json(self.study_file, study)

    def _write_json(self, path: Path, obj, limit: int = STUDY_MAX_BYTES) -> None:
        """`obj` as `path` (through a temporary file, replaced: never half written), refused in one line when it would
        be larger than its reader takes (`limit`): a file written too large would make the folder read as damaged."""
        text = mask(json.dumps(obj, indent=2, default=str))
        size = len(text.encode())
        if size > limit:
            raise UserError(f"{path}: would be {format_size(size)}, more than tierbench reads back ({format_size(limit)}); "
                            "not written: ask for fewer results at once")
        tmp = path.with_suffix(".tmp")
        try:
            write_text(tmp, text, "its results")
            os.replace(tmp, path)  # (replaces a link at `path` itself, never its target)
        except OSError as e:  # a full disk: no partial file left, the runs recorded so far intact
            tmp.unlink(missing_ok=True)
            raise UserError(f"cannot write {path}: {e.strerror}; the runs recorded so far are intact in {RUNS_FILE}: "
                            "free space, then continue with --resume") from None

    def save_calibration(self, value: dict) -> None:
        """A scale model's calibration (calibration.json, derived.py), written before the study's study.json."""
        self._write_json(self.path / CALIBRATION_FILE, value, CALIBRATION_MAX_BYTES)

    def calibration(self) -> dict | None:
        """The calibration.json here (read_calibration), or None."""
        return read_calibration(self.path)

    def probe_result(self) -> dict | None:
        """What `tierbench probe` left here (None when there is none, or the file is not one)."""
        path = self.path / PROBE_FILE
        return json.loads(path.read_text()) if is_probe_result(path) else None

    def keep_room(self) -> None:
        """Room kept on the results folder's disk for run records (a preallocated file): when a run fills the disk,
        its record still goes in, in this room, before the study stops."""
        path = self.path / RESERVE_FILE
        try:
            with open_file(path, "w", "its reserve", encoding=None) as f:
                os.posix_fallocate(f.fileno(), 0, RESERVE_BYTES)
        except OSError:  # no room even for that: records take their chance
            path.unlink(missing_ok=True)

    def _give_room(self) -> bool:
        try:
            (self.path / RESERVE_FILE).unlink()
            return True
        except OSError:
            return False

    def load(self, analysed: bool = False) -> StoredStudy:
        """The folder as read-only values: study.json, the readable runs (records(analysed)), the derived outputs."""
        return StoredStudy.from_dicts(self.path, self.study(), self._read_records(analysed))

    def study(self) -> dict:
        """study.json, checked and upgraded to this version (record.upgrade_study; the file is not rewritten), with
        the derived outputs under the keys study.json held them in before version 5 (`probe`, `predictions`). A
        file that is not a study (wrong shape, too large, not a regular file) is a UserError naming it and what is
        wrong; so is a derived output's file of the wrong shape."""
        stored = self._read_study()
        return upgrade_study(stored) | read_derived(self.path, stored)

    def _read_study(self) -> dict:
        if not os.path.lexists(self.study_file):
            raise UserError(f"{self.path}: no tierbench results here (no {STUDY_FILE})")
        try:
            study = json.loads(read_capped(self.study_file, STUDY_MAX_BYTES, STUDY_FILE))
        except (ValueError, RecursionError) as e:
            raise UserError(f"{self.study_file}: damaged ({e})") from None
        except OSError as e:  # (a dangling link too)
            raise UserError(f"{self.study_file}: cannot read it: {e.strerror}") from None
        problem = study_problem(study)
        if problem:
            raise UserError(f"{self.study_file}: not a tierbench study ({problem})")
        version = study.get("schema_version")
        if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
            raise UserError(f"{self.study_file}: results schema version {version}, this tierbench reads 1 to {SCHEMA_VERSION} "
                            "(results of a newer tierbench: upgrade tierbench to read them)")
        return study

    def append(self, record: dict) -> None:
        """One record, on a line of its own, fsync'ed; never glued onto a torn last line. On a full disk the record
        goes into the room keep_room() kept, and the study stops in one line (the record is saved)."""
        line = mask(json.dumps(record, default=str, separators=(",", ":"))).encode()
        try:
            self._append_line(line)
        except OSError as e:
            if e.errno != errno.ENOSPC or not self._give_room():
                raise UserError(f"{self.runs_file}: cannot record the run that just ended: {e.strerror}") from None
            try:
                self._append_line(line)
            except OSError as e2:
                raise UserError(f"{self.runs_file}: cannot record the run that just ended: {e2.strerror}") from None
            raise UserError(f"the disk of {self.path} is full: the run that just ended is recorded (in the room tierbench "
                            "keeps for records) with every run before it; free space, then continue with --resume") from None

    def _append_line(self, line: bytes) -> None:
        with open_file(self.runs_file, "a+", "its run records", encoding=None) as f:
            size = f.seek(0, os.SEEK_END)
            torn = False
            if size > 0:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
            try:
                f.write((b"\n" if torn else b"") + line + b"\n")
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                f.truncate(size)  # no half record left behind for the next attempt
                raise

    def _open_runs(self):
        """runs.jsonl opened for reading (a regular file only), or None when there is none."""
        if not os.path.lexists(self.runs_file):
            return None
        try:
            return open_regular(self.runs_file)
        except OSError as e:  # (a dangling link too)
            raise UserError(f"{self.runs_file}: cannot read it: {e.strerror}") from None

    def cut_torn_tail(self) -> None:
        """Before resuming: a last line cut short (a kill or a full disk mid-write) is cut off, with a warning."""
        f = self._open_runs()
        if f is None:
            return
        with f:
            size = os.fstat(f.fileno()).st_size
            end = _torn_tail(f, size)
        if end < size:
            with open_file(self.runs_file, "r+", "its run records", encoding=None) as w:
                w.truncate(end)
                os.fsync(w.fileno())
            self.on_warning(f"{self.runs_file}: cut off a torn last line ({size - end} bytes, a run that was "
                            "being recorded when tierbench stopped): that run will run again")

    def records(self, analysed: bool = False) -> list[dict]:
        """Every readable record (upgraded to this schema). A line that is not a record (damaged, of the wrong
        shape, too long) is skipped with a warning naming it and what is wrong. `analysed`: for the report and the
        model, which also skip a successful run without a runtime (the export and --resume keep it)."""
        self._read_study()  # (a folder whose study.json is not one is refused whole)
        return self._read_records(analysed)

    def _read_records(self, analysed: bool) -> list[dict]:
        out, skipped = [], []
        f = self._open_runs()
        if f is None:
            return out
        with f:
            for n, line in capped_lines(f, LINE_MAX_BYTES):
                if line is None:
                    skipped.append((n, f"longer than {format_size(LINE_MAX_BYTES)}: no run record is"))
                    continue
                if not line.strip():
                    continue
                rec, problem = _parse_record(line, analysed)
                if problem:
                    skipped.append((n, problem))
                    continue
                out.append(upgrade(rec))
        for n, problem in skipped[:MAX_WARNED]:
            self._warn_once(f"{self.runs_file}:{n}: damaged record skipped ({problem})")
        if len(skipped) > MAX_WARNED:
            self._warn_once(f"{self.runs_file}: {len(skipped) - MAX_WARNED} more damaged records skipped (lines "
                            f"{skipped[MAX_WARNED][0]} to {skipped[-1][0]})")
        return out

    def _warn_once(self, text: str) -> None:
        if text not in self._warned:
            self._warned.add(text)
            self.on_warning(text)

    def log_path(self, name: str) -> Path:
        make_dirs(self.path / LOGS_DIR, self.path, "its logs")
        return self.path / LOGS_DIR / name


def _torn_tail(f, size: int) -> int:
    """Where runs.jsonl should end: before a last line cut short (no newline, or a whole line of bad JSON)."""
    if size == 0:
        return 0
    f.seek(size - 1)
    if f.read(1) != b"\n":
        return last_newline(f, size) + 1
    start = last_newline(f, size - 1) + 1
    if size - start > LINE_MAX_BYTES:  # a whole line, only too long to be a record: records() skips it
        return size
    f.seek(start)
    line = f.read(size - start)
    try:
        json.loads(line)
    except ValueError:
        return start if line.strip() else size
    except RecursionError:  # (whole, and valid)
        return size
    return size
