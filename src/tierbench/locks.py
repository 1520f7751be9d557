"""Exclusive locks on what one study writes: its results folder and each namespaced data root.

Two tierbench processes on one results folder, or on one data root, would delete each other's data and
pool each other's records; the second one refuses in one line naming the first's PID. The lock is an
flock on a small file holding the holder's PID: the kernel releases it when the holder dies, so a killed
study never leaves a stale lock. The lock file is opened without following a symbolic link (safefiles.py).
"""

import fcntl
import os
from pathlib import Path

from .errors import UserError
from .safefiles import open_fd

LOCK_FILE = ".tierbench-lock"


class HeldLock:
    def __init__(self, path: Path, what: str):
        self.path, self.what = Path(path), what
        self._fd: int | None = None

    def acquire(self) -> "HeldLock":
        try:
            # never through a link: in a folder others can write to, a planted link would have root truncate its target
            fd = open_fd(self.path, "rw", what="its lock")
        except OSError as e:
            raise UserError(f"{self.what}: cannot create its lock file {self.path}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise UserError(f"{self.what} is in use by another tierbench (PID {holder}); wait for it to finish, "
                            "or use another --out / study name") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None
