"""A results folder's id: what makes a study's emulated devices and data roots its own.

Two studies of one spec (two quickstarts) in two --out folders took the same devices (named by the spec alone) and
the same data roots (named by the study's name): the second stopped the first, or their data mixed. The id goes in
those names (emulated_spec.device_name, Spec.root_name). It is the folder's absolute path hashed when the folder is
new -- known before anything is written, so a study interrupted before its study.json (during its calibration, or
its devices' bring-up) finds the same names on --resume -- and is recorded in study.json from then on, so that a
folder moved elsewhere keeps its names too. A folder recorded before ids existed has none ("": the old names, which
its recorded fingerprint holds)."""

import hashlib
import json
import os
import re
from pathlib import Path

from ..errors import UserError
from ..store.results import CALIBRATION_DIR, STUDY_FILE

ID_KEY = "study_id"
ID_RE = re.compile(r"\A[0-9a-f]{8}\Z")


def new_study_id(out_dir: Path) -> str:
    """8 hex digits of the SHA-256 of the folder's absolute path (links resolved: one folder, one id)."""
    return hashlib.sha256(os.path.realpath(out_dir).encode()).hexdigest()[:8]


def study_id(out_dir: Path) -> str:
    """The id of the study in `out_dir`: as its study.json (or, a study stopped in its calibration, the calibration's)
    records it; "" for a folder recorded before ids; a new one for a folder with no study yet."""
    for folder in (Path(out_dir), Path(out_dir) / CALIBRATION_DIR):
        study_file = folder / STUDY_FILE
        if study_file.is_file() and not study_file.is_symlink():
            return _recorded(study_file)
    return new_study_id(out_dir)


def _recorded(study_file: Path) -> str:
    """The id a study.json records, checked: it becomes part of paths that tierbench, as root, creates and deletes."""
    try:
        study = json.loads(study_file.read_text())
    except (OSError, ValueError) as e:
        raise UserError(f"{study_file}: not readable as a study's record ({e}); use another --out") from None
    recorded = study.get(ID_KEY, "") if isinstance(study, dict) else None
    if recorded != "" and not (isinstance(recorded, str) and ID_RE.match(recorded)):
        raise UserError(f"{study_file}: {ID_KEY} {recorded!r} is not an id tierbench writes (8 hex digits); "
                        "tierbench will not name devices or data roots after it")
    return recorded
