"""Derived outputs, in files of their own beside runs.jsonl: what a command worked out from a study after (or
before) it ran, kept apart from what the study recorded, so study.json holds the same whichever commands ran.

  probe.json        `tierbench probe`: each device's fio figures (the report's device ceilings). Written before
                    a study too, in the folder the study then runs in.
  predictions.json  `tierbench predict`: its result, as `--json` prints it (the report's what-if section).
  calibration.json  a scale model's calibration (scale/calibration.py): its runs' work times, from which the study
                    takes its k. Written before the study, in the folder the study then runs in; the study's spec
                    in study.json holds the k it ran at, as before the file existed.

Before schema version 5 both were keys of study.json (`probe`, `predictions`); such a folder still reads the same:
study.json's key when it holds one (a folder whose output was not made again since), else the file. Writing the
file drops the key from study.json (results.ResultsDir.save_derived), so the newest is the one read.
"""

import json
import os
from pathlib import Path

from ..errors import UserError
from .reading import STUDY_MAX_BYTES, read_capped
from .schema import PREDICTIONS, PROBE
from .shape import problem
from .stored import DERIVED_FILES

PROBE_FILE = DERIVED_FILES["probe"]
PREDICTIONS_FILE = DERIVED_FILES["predictions"]
PROBE_MAX_BYTES = 1 << 20  # a probe of a hundred devices is ~50 KB
CALIBRATION_FILE = "calibration.json"
CALIBRATION_MAX_BYTES = 64 << 10  # a few lists of times


def read_calibration(folder: Path) -> dict | None:
    """A scale model's calibration (calibration.json: {"runs_s": [...], "fit_s": [...]}), or None when there is
    none; a file of that name that is a link, too large, or not of that shape is a UserError naming it."""
    path = folder / CALIBRATION_FILE
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        raise UserError(f"{path}: not a regular file; tierbench reads its own calibration.json only")
    try:
        value = json.loads(read_capped(path, CALIBRATION_MAX_BYTES, path.name))
    except (ValueError, RecursionError, OSError) as e:
        raise UserError(f"{path}: damaged ({e})") from None
    if not (isinstance(value, dict) and all(isinstance(value.get(k, []), list) and all(
            isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0 for t in value.get(k, []))
            for k in ("runs_s", "fit_s")) and value.get("runs_s")):
        raise UserError(f"{path}: not a calibration's result (runs_s and fit_s: lists of seconds)")
    return value


def is_probe_result(path: Path) -> bool:
    """`tierbench probe`'s result, by its content: a stray file of that name is the user's, not ours."""
    if path.name != PROBE_FILE or not path.is_file() or path.is_symlink() or path.stat().st_size > PROBE_MAX_BYTES:
        return False
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(result, dict) and bool(result) and all(
        isinstance(e, dict) and {"device", "dirs", "tests"} <= set(e) for e in result.values())


def read_derived(folder: Path, stored_study: dict) -> dict:
    """key -> the derived output, for each key study.json does not hold and whose file is there (checked: a file of
    the wrong shape is a UserError naming it, as study.json would be)."""
    out = {}
    if "probe" not in stored_study and is_probe_result(folder / PROBE_FILE):
        out["probe"] = _read_checked(folder / PROBE_FILE, PROBE, "tierbench probe result")
    if "predictions" not in stored_study and os.path.lexists(folder / PREDICTIONS_FILE):
        out["predictions"] = _read_checked(folder / PREDICTIONS_FILE, PREDICTIONS, "tierbench predict result")
    return out


def _read_checked(path: Path, kind, what: str):
    try:
        value = json.loads(read_capped(path, STUDY_MAX_BYTES, path.name))
    except (ValueError, RecursionError) as e:
        raise UserError(f"{path}: damaged ({e})") from None
    except OSError as e:  # (a dangling link too)
        raise UserError(f"{path}: cannot read it: {e.strerror}") from None
    found = problem(kind, value)
    if found:
        raise UserError(f"{path}: not a {what} ({found})")
    return value
