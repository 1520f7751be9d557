"""What two studies would share on one machine even in two results folders, held by one of them at a time.

A study's devices and data roots are its folder's own (identity.py), but an embedded Spark cluster (`tierbench
services up spark`) is the machine's: a study puts its Workers on each configuration's directories as it opens it,
and back on their own when it ends, so a second study on it would move the first's executors under its runs. The
second is refused in one line naming the first (its study, PID and results folder) rather than breaking it. The
lock is an flock on a file in tierbench's cache dir: the kernel drops it when its holder dies."""

import fcntl
import hashlib
import json
import os
from pathlib import Path

from ..errors import UserError
from ..toolchain import cache_dir, embedded_spark_dir

LOCK_DIR = "studies"  # under the cache dir: one lock file per shared thing


def shared_with_others(spec) -> list[tuple[str, str]]:
    """(a key, what it is) of each thing of the machine's the study would work on that another study could too."""
    shared = []
    for e in spec.engines:
        master = getattr(e, "master", "") or ""
        if e.kind == "spark" and master.startswith("spark://") and embedded_spark_dir(master) is not None:
            shared.append((f"spark-{hashlib.sha256(master.encode()).hexdigest()[:12]}",
                           f"the Spark cluster at {master} (tierbench services up spark)"))
    return shared


class MachineShare:
    """Holds the locks of what the study shares with the machine while it runs; use as a context manager."""

    def __init__(self, spec, out_dir: Path):
        self.spec, self.out_dir = spec, Path(out_dir)
        self._fds: list[int] = []

    def __enter__(self) -> "MachineShare":
        try:
            for key, what in shared_with_others(self.spec):
                self._fds.append(self._hold(key, what))
        except BaseException:
            self.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def _hold(self, key: str, what: str) -> int:
        folder = cache_dir() / LOCK_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{key}.lock"
        try:  # (no link followed: tierbench runs as root)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise UserError(f"{what}: cannot open its lock file {path}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise UserError(f"{what} is in use by study {holder.get('study', '?')!r} (PID {holder.get('pid', '?')}, "
                            f"results in {holder.get('out', '?')}): wait for it to finish; two studies on it at once "
                            "would move each other's executors") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"study": self.spec.name, "pid": os.getpid(),
                                  "out": str(self.out_dir.resolve())}).encode(), 0)
        return fd

    def release(self) -> None:
        while self._fds:
            os.close(self._fds.pop())  # (closing drops the flock)


def _holder(fd: int) -> dict:
    try:
        holder = json.loads(os.pread(fd, 4096, 0).decode(errors="replace") or "{}")
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}
