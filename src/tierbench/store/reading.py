"""Reading stored files with bounds: only regular files, and never more than a cap.

study.json or runs.jsonl can be anything a path can name: a link to /dev/zero (endless: memory grows
until the machine kills something), a FIFO (opening it waits for a writer forever), a directory. So a
stored file is read only when it is a regular file (checked after following links, and again on the open
file, so it cannot be swapped in between), study.json only up to STUDY_MAX_BYTES and runs.jsonl one line
of at most LINE_MAX_BYTES at a time. Refusals are one line naming the file, as UserError.
"""

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import UserError
from ..units import format_size

STUDY_MAX_BYTES = 64 * 10**6  # study.json of a 100,000-run plan with its storage map, probe and predictions: ~40 MB
LINE_MAX_BYTES = 16 * 10**6  # one run record: its samples at 1 s for a few hours on a dozen devices and nodes
CHUNK = 1 << 20

KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def _refuse(path: Path, mode: int, target: str = "") -> UserError:
    what = f"a link to {target} ({_kind(mode)})" if target else _kind(mode)
    return UserError(f"{path} is {what}, not a regular file: tierbench reads results only from regular files (a device "
                     "or a FIFO can be endless or never answer)")


def open_regular(path: str | os.PathLike):
    """path opened for reading in binary, when it is a regular file (after following links); else UserError.
    FileNotFoundError and other OSErrors are the caller's to word."""
    path = Path(path)
    st = os.stat(path)  # (follows links: a link to a regular file is fine)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode, os.path.realpath(path) if os.path.islink(path) else "")
    # O_NONBLOCK: if a FIFO was put there since the stat, opening it must not wait for a writer
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, st.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The whole of a regular file of at most `limit` bytes (`what` names it in the refusal)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(limit + 1) if size <= limit else b""
        if size > limit or len(data) > limit:  # (the second: it grew since the stat)
            raise UserError(f"{path}: {format_size(max(size, len(data)))}, more than a {what} can be "
                            f"({format_size(limit)}): not a tierbench {what}, or damaged")
        return data


def capped_lines(f, limit: int = LINE_MAX_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """(line number, the line) of a binary file, each line read only up to `limit` bytes: a longer line is given
    as None (and read past, a chunk at a time, without keeping it)."""
    n = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        n += 1
        if len(line) <= limit or line.endswith(b"\n"):
            yield n, line
            continue
        while True:  # the rest of the long line, up to its newline
            rest = f.readline(CHUNK)
            if not rest or rest.endswith(b"\n"):
                break
        yield n, None


def last_newline(f, end: int) -> int:
    """The offset of the last b"\\n" before `end` in a binary file, or -1: read backwards a chunk at a time,
    so a long last line costs no memory."""
    pos = end
    while pos > 0:
        start = max(0, pos - CHUNK)
        f.seek(start)
        found = f.read(pos - start).rfind(b"\n")
        if found >= 0:
            return start + found
        pos = start
    return -1
