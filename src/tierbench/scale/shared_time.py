"""An emulated drive's reads and writes share one drive's time, as a real drive's head (an HDD) or its channels do.

The throttle (emulation.py) holds a device's reads and its writes to budgets of their own: a device of R MB/s read
and W MB/s write moved R of reads and W of writes in the same second, where a drive that reads for half a second
writes for the other half at most. Measured on the quickstart's all-HDD TeraSort (a fresh clone of 968b681), whose
map outputs, merges, input and output all lie on the one device: read/R + write/W of each second reached 1.3-1.9
for 8 s of its 17, a drive and a half. A job whose phases read and write on separate devices (the hybrid) gained
nothing of it, so the all-HDD configuration ran too fast beside the others. The what-if model charges a drive pool
the time of its reads plus its writes (model/predict.py `phase_times`); the emulated drive now does too.

While a study runs, a thread follows each of its emulated devices' counters (/sys/block/loopN/stat) every TICK_S,
works out the share of the drive's time each direction took (its bytes over its MB/s or its requests over its IOPS,
smoothed over about half a second) and holds both directions to one share of their full limits (`Shares.step`):
lowered while the two together take more than OVER of the drive's time, raised while they take less than all of
it. A direction alone (the other under ALONE) keeps the whole drive; two that both press take equal shares of its
time. A share never falls under FLOOR (0 would lift the limit: blkio's "no limit"). A limit is rewritten only when
it moves by more than REWRITE (each write starts the throttle's time slice anew). The devices' full limits are set
when the study starts (a study killed in mid-run leaves a share behind) and again when it ends, before the study
takes its devices down (study/runner.py, after its hooks are left): `apply` (emulation.set_limits) writes a limit only while the loop device
still holds that device's image, so a tick or an exit that comes after a device went never limits a detached
/dev/loopN, nor whatever disk is attached there next.
"""

import time
from pathlib import Path

from ..following import Following
from .constants import value

TICK_S = value("shared_time.TICK_S")  # blk-throttle's own time slice is 100 ms
SMOOTHING = value("shared_time.SMOOTHING")  # weight of the last tick in the drive's time taken (a tick holds few requests)
ALONE = value("shared_time.ALONE")  # a direction taking less of the drive's time than this leaves the other alone
DAMPING = value("shared_time.DAMPING")  # how far one tick moves the share toward what would fill the drive's time
OVER = value("shared_time.OVER")  # a drive's time taken (smoothed) up to this is one drive's, give or take a request
FLOOR = value("shared_time.FLOOR")  # the least share of its limits a direction keeps (a drive never takes five times longer)
REWRITE = value("shared_time.REWRITE")  # a limit that moves by less (relative) is left as written
SECTOR = 512          # /sys/block/*/stat counts 512-byte sectors
MiB = 1 << 20         # the limits' MB (tierbench's, as the throttle is given them)


def time_used(limits: dict, read_bytes: float, read_ios: float, write_bytes: float, write_ios: float,
              seconds: float) -> tuple[float, float]:
    """The shares of the drive's time the reads and the writes took over `seconds`: each its bytes over its MB/s
    or its requests over its IOPS, whichever is more (the limit that held it)."""
    read = max(read_bytes / MiB / limits["read_mb_s"], read_ios / limits["read_iops"]) / seconds
    write = max(write_bytes / MiB / limits["write_mb_s"], write_ios / limits["write_iops"]) / seconds
    return read, write


class Shares:
    """The share of its full limits a drive's reads and writes may take next tick (one for both: each direction
    f of its own rate, so that two pressing directions take equal shares of the drive's time), from the drive's
    time they took (`step`)."""

    def __init__(self):
        self.share = 1.0
        self.used = (0.0, 0.0)  # smoothed: the drive's time the reads and the writes took (1: all of it)

    def step(self, read: float, write: float) -> float:
        self.used = tuple(SMOOTHING * now + (1 - SMOOTHING) * before for now, before in zip((read, write), self.used))
        busy = sum(self.used)
        if min(self.used) < ALONE:  # one direction alone: nothing to share (its writeback's bursts are not a second)
            self.share = 1.0
        elif busy > OVER or (busy < 1.0 and self.share < 1.0):  # over its time: less each; under it: more
            self.share *= (1.0 / max(busy, 0.5)) ** DAMPING
        self.share = min(1.0, max(FLOOR, self.share))
        return self.share


def shared_limits(limits: dict, share: float) -> dict:
    """A device's limits with reads and writes each held to `share` of its full rate."""
    return {k: v * share for k, v in limits.items() if k in ("read_mb_s", "write_mb_s", "read_iops", "write_iops")}


def moved_enough(old: dict, new: dict) -> bool:
    return any(abs(new[k] - old[k]) > REWRITE * old[k] for k in new)


def _counters(loop: str) -> tuple[int, int, int, int]:
    """(read bytes, read requests, written bytes, write requests) of a block device since it was attached."""
    f = Path(f"/sys/block/{loop}/stat").read_text().split()
    return int(f[2]) * SECTOR, int(f[0]), int(f[6]) * SECTOR, int(f[4])


class SharedTime(Following):
    """The study's emulated devices (loop name -> (major:minor, full limits)) time-shared while it is entered."""
    THREAD = "tierbench-shared-time"

    def __init__(self, devices: dict[str, tuple[str, dict]], apply_limits):
        super().__init__()
        self.devices = devices
        self.given = {loop: dict(full) for loop, (_, full) in devices.items()}  # the full limits at the study's k
        self.apply = apply_limits  # (major_minor, limits) -> written or not: emulation.set_limits

    def __enter__(self) -> "SharedTime":
        for major_minor, full in self.devices.values():
            self.apply(major_minor, full)
        if self.devices:
            self._start_following()
        return self

    def __exit__(self, *exc) -> None:
        self._stop_following()
        for major_minor, full in self.devices.values():
            try:
                self.apply(major_minor, full)
            except OSError:  # (apply refuses a device no longer attached itself, writing nothing)
                continue

    def rescale(self, factor: float) -> None:
        """Every device's full limits at `factor` x those it was given, from now on (a scale model's drives following
        this machine's pace: scale/pace_follow.py); the shares follow them at the next tick."""
        for loop, (major_minor, _) in list(self.devices.items()):
            full = {k: v * factor for k, v in self.given[loop].items()}
            self.devices[loop] = (major_minor, full)
            try:
                self.apply(major_minor, full)
            except OSError:  # a device taken down meanwhile: nothing to hold
                continue

    def _follow(self) -> None:
        state = {}
        for loop, (_, full) in self.devices.items():
            try:
                state[loop] = {"last": _counters(loop), "at": time.monotonic(), "shares": Shares(), "applied": dict(full)}
            except OSError:  # (not a block device of this machine: nothing to share)
                continue
        while state and not self._stop.wait(TICK_S):
            for loop in state:
                major_minor, full = self.devices[loop]
                try:
                    self._tick(loop, major_minor, full, state[loop])
                except OSError:  # a device detached under us (the study ends): its limits go with it
                    continue

    def _tick(self, loop: str, major_minor: str, full: dict, st: dict) -> None:
        now, at = _counters(loop), time.monotonic()
        delta = [b - a for a, b in zip(st["last"], now)]
        seconds, st["last"], st["at"] = max(at - st["at"], 1e-3), now, at
        new = shared_limits(full, st["shares"].step(*time_used(full, *delta, seconds=seconds)))
        if moved_enough(st["applied"], new):
            self.apply(major_minor, new)
            st["applied"] = new
