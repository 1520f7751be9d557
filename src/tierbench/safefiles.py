"""One rule for the files tierbench creates, truncates or appends to as root in folders it does not fully own
(results folders, data roots, services dirs, the emulation's cache): never through a symbolic link, never into
anything but a regular file.

Why: tierbench runs as root, and a results folder or a shared data directory may be writable by others. A
`.tierbench-lock` that is a link to /etc/passwd would be truncated to a PID if opened the usual way; a `logs/` that is
a link to /etc would receive appended logs. O_NOFOLLOW refuses a link as the last component; the folders on the way
inside the owned root are checked with lstat (`check_no_link`), and what was opened is checked to be a regular file
(a FIFO would block, a device would be written to). Each refusal is one line naming the path.
"""

import errno
import os
import stat
from pathlib import Path

from .errors import UserError

_FLAGS = {"r": os.O_RDONLY, "r+": os.O_RDWR, "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
          "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND, "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
          "rw": os.O_RDWR | os.O_CREAT, "a+": os.O_RDWR | os.O_CREAT | os.O_APPEND}


def _refuse_link(path: Path, what: str) -> UserError:
    return UserError(f"{path} is a symbolic link; tierbench will not write {what} through it (as root it could "
                     "change any file on the machine): remove the link, or choose another folder")


def _not_regular(path: Path, what: str) -> UserError:
    return UserError(f"{path} is not a regular file; tierbench will not write {what} there: remove it, or choose "
                     "another folder")


def open_fd(path, mode: str = "a", perm: int = 0o644, what: str = "its file") -> int:
    """An fd on `path` opened as `mode` ("r", "r+", "w", "a", "a+", "x", "rw": read-write, created if missing), refused in
    one line (UserError) when the path is a symbolic link or not a regular file."""
    path = Path(path)
    try:
        fd = os.open(path, _FLAGS[mode] | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, perm)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EEXIST and path.is_symlink()):
            raise _refuse_link(path, what) from None
        if e.errno == errno.ENXIO:  # (a FIFO nobody reads: not a file either)
            raise _not_regular(path, what) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_regular(path, what)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path, mode: str = "a", what: str = "its file", encoding: str | None = "utf-8", perm: int = 0o644):
    """open_fd as a Python file object (text with an encoding, else binary)."""
    fd = open_fd(path, mode, perm, what=what)
    pymode = {"r": "r", "r+": "r+", "w": "w", "a": "a", "a+": "a+", "x": "w", "rw": "r+"}[mode]
    if encoding is None:
        return os.fdopen(fd, pymode + "b")
    return os.fdopen(fd, pymode, encoding=encoding)


def write_text(path, text: str, what: str = "its file", perm: int = 0o644) -> None:
    """Path.write_text, refusing a link or a non-regular file."""
    with open_file(path, "w", what=what, perm=perm) as f:
        f.write(text)


def check_no_link(path, root, what: str = "its files") -> None:
    """Every component of `path` from `root` down (root included) that exists is a real folder or file, not a
    symbolic link: one line naming the first link otherwise. `root` itself may be reached through links above it
    (a user's --out may be a link to their folder); what lies inside it may not."""
    path, root = Path(path), Path(root)
    parts = path.relative_to(root).parts if path != root else ()
    p = root
    for part in ("", *parts):
        p = p / part if part else p
        if part and os.path.islink(p):
            raise _refuse_link(p, what)
        if not os.path.lexists(p):
            return


def make_dirs(path, root, what: str = "its files") -> Path:
    """mkdir -p of `path` under `root`, refusing a symbolic link on the way (before and after making it)."""
    path = Path(path)
    check_no_link(path, root, what)
    path.mkdir(parents=True, exist_ok=True)
    check_no_link(path, root, what)
    return path


def check_tree_no_link(path, root, what: str = "its files") -> None:
    """check_no_link of `path`, and no symbolic link anywhere below it (a folder such as a results folder's logs/,
    whose files are opened later by engines and daemons: a link planted inside is refused before any is written)."""
    check_no_link(path, root, what)
    if os.path.islink(path) or not os.path.isdir(path):
        return
    for folder, dirs, files in os.walk(path):  # (links to folders are listed in `dirs`, never walked into)
        for name in (*dirs, *files):
            if os.path.islink(os.path.join(folder, name)):
                raise _refuse_link(Path(folder) / name, what)
