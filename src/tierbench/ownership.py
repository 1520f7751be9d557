"""What tierbench owns, and the one way it deletes: names that become paths, and trees removed only inside a
marked root of its own.

tierbench runs as root and deletes directories. Every delete goes through `remove_owned`, which resolves the
path (symbolic links followed) and refuses it unless it lies strictly inside a root that carries tierbench's
marker file. A name that becomes a path component (a study, a configuration, an emulated device) must match
NAME_RE as a whole: no '/', no '..', no newline (a `$` would have let "x\\n" through).
"""

import os
import re
import shutil
import time
from pathlib import Path

from .errors import UserError

NAME_RE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
NAME_RULE = "letters, digits, '.', '_' or '-', starting with a letter or digit, up to 64"


def valid_name(name) -> bool:
    return isinstance(name, str) and NAME_RE.match(name) is not None


def check_name(name, what: str) -> str:
    """A name that will become a folder name, or one line saying what is accepted."""
    if not valid_name(name):
        raise UserError(f"{what}: {name!r} is not a valid name: use {NAME_RULE}")
    return name


class OwnershipError(UserError):
    pass


def _real(path: Path) -> Path:
    """`path` with its directories' links resolved but not its last component (a link is itself, not its target).
    Lexically normalised first, and it is this path that is checked and then deleted: what is checked is acted on."""
    path = Path(os.path.normpath(os.path.abspath(path)))
    return Path(os.path.realpath(path.parent)) / path.name


def owned_root_of(path: Path, roots, marker: str) -> Path | None:
    """The marked root (of `roots`) that `path` lies strictly inside, both resolved; None if there is none."""
    real = _real(path)
    for root in roots:
        real_root = Path(os.path.realpath(root))
        if real != real_root and real.is_relative_to(real_root) and (real_root / marker).is_file():
            return real_root
    return None


def remove_owned(path: Path, roots, marker: str, attempts: int = 5) -> None:
    """Delete a file or tree that lies inside one of `roots` carrying `marker`; refuse anything else.
    A symbolic link is removed as a link (never followed into someone else's tree)."""
    real = _real(path)
    if owned_root_of(real, roots, marker) is None:
        raise OwnershipError(f"refusing to delete {path}: it is not inside a directory tierbench created "
                             f"(one holding {marker})")
    if real.is_symlink() or real.is_file():
        real.unlink()
    elif real.exists():
        _rmtree_retrying(real, attempts)


def remove_owned_root(root: Path, marker: str, attempts: int = 5) -> bool:
    """Delete a whole root of ours: only a real directory (not a link) that carries the marker. True if deleted."""
    root = Path(root)
    if root.is_symlink() or not root.is_dir() or not (root / marker).is_file():
        return False
    _rmtree_retrying(root, attempts)
    return True


def _rmtree_retrying(path: Path, attempts: int) -> None:
    """rmtree that tolerates a process still tidying the same tree (Spark's JVM deleting its block dirs)."""
    for i in range(attempts):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            if i == attempts - 1:
                raise
            time.sleep(0.5)
