"""The device limits tierbench writes (cgroup v1 blkio or v2 io.max: storage/cgroups.py), and its record of them, so
that it leaves the machine as found.

The limits live in the blkio root group's blkio.throttle.*_device files (v1) or tierbench's own group's io.max (v2),
one rule per device (major:minor), and stay there when the loop device is detached: blkio accepts a limit for a
detached /dev/loopN too, and the next disk someone attaches there meets it (measured on 9a95184: 71 MB/s instead of
2.2 GB/s). So:

- a limit is written only for a loop device that holds the image of the tierbench device it was written for
  (`set_limits`: the study's shared-time controller may outlive a device by a tick, and must not reach another's);
- every major:minor tierbench limits is recorded first in a small ledger (`Ledger`, in the emulation's cache
  folder, with the boot it was written in: limits do not outlive a reboot, its records must not either);
- `clear_leftovers` (run by `emulate status`, `emulate up` and each study) clears the limits of the ledger's
  devices that no loop device holds any more, saying so in one line, and names limits it did not write, untouched.
"""

import contextlib
import fcntl
import json
import os
from pathlib import Path

from ..errors import UserError
from ..safefiles import open_fd
from ..units import MB
from . import cgroups
from .cgroups import LIMIT_KEYS as LIMIT_FILES

BLKIO = cgroups.ROOT / "blkio"  # (v1's; where v1 keeps the limits: cgroups.CgroupV1)


def listed() -> set[str]:
    """The major:minor of every device the throttle holds to a limit (v1: the root group's; v2: tierbench's group's)."""
    return cgroups.current().io_limited()


def backing_file(major_minor: str) -> str | None:
    """The file a loop device of this major:minor holds, or None (not a loop device, or detached)."""
    try:
        text = Path(f"/sys/dev/block/{major_minor}/loop/backing_file").read_text().strip()
    except OSError:
        return None
    return text or None


def holds(major_minor: str, image: str) -> bool:
    """The loop device of this major:minor holds this image (the kernel names it by its real path)."""
    held = backing_file(major_minor)
    return held is not None and held in (image, os.path.realpath(image))


def limit_values(applied: dict) -> dict[str, int]:
    """The limit files' values for limits in MB/s and IOPS (a missing or 0 one: none). A limit below one unit is
    written as one: 0 would lift it (scale/shared_time.py lowers them while a study runs)."""
    def at_least_one(key: str, unit: float) -> int:
        value = applied.get(key, 0) * unit
        return max(1, int(value)) if value > 0 else 0

    return {"read_bps_device": at_least_one("read_mb_s", MB), "write_bps_device": at_least_one("write_mb_s", MB),
            "read_iops_device": at_least_one("read_iops", 1), "write_iops_device": at_least_one("write_iops", 1)}


def write_raw(major_minor: str, values: dict[str, int]) -> None:
    cgroups.current().write_io(major_minor, values)


def clear(major_minor: str) -> None:
    write_raw(major_minor, dict.fromkeys(LIMIT_FILES, 0))


def check_cleared(major_minor: str) -> None:
    """Read back: the device is in none of the limit files (cleared once more if it still is), or one line."""
    if major_minor in listed():
        clear(major_minor)
    if major_minor in listed():
        h = cgroups.current()
        raise UserError(f"the {h.io_name} limits of {major_minor} are still listed in {h.io_where()} after clearing "
                        f"them; clear them yourself (v1: echo '{major_minor} 0' > each file; v2: echo "
                        f"'{major_minor} rbps=max wbps=max riops=max wiops=max' > io.max)")


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


class Ledger:
    """major:minor -> {"device", "image"}: the devices whose limits tierbench wrote in this boot (a JSON file,
    read and rewritten under an flock; opened without following links, as every file root writes)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @contextlib.contextmanager
    def _held(self, write: bool):
        if not write and not self.path.exists():
            yield {}
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_fd(self.path, "rw" if write else "r", perm=0o600, what="the record of its blkio limits")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            entries = self._parse(os.pread(fd, 1 << 20, 0))
            yield entries
            if write:
                data = json.dumps({"boot_id": boot_id(), "limits": entries}, indent=1).encode()
                os.ftruncate(fd, 0)
                os.pwrite(fd, data, 0)
        finally:
            os.close(fd)

    @staticmethod
    def _parse(raw: bytes) -> dict:
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            return {}  # (a damaged record: what it held is unknown; the limits it named are reported as others')
        if not isinstance(data, dict) or data.get("boot_id") != boot_id() or not isinstance(data.get("limits"), dict):
            return {}
        return {k: v for k, v in data["limits"].items() if isinstance(v, dict) and isinstance(v.get("image"), str)}

    def entries(self) -> dict:
        with self._held(write=False) as entries:
            return dict(entries)

    def record(self, major_minor: str, device: str, image: str) -> None:
        with self._held(write=True) as entries:
            entries[major_minor] = {"device": device, "image": image}

    def forget(self, major_minor: str, image: str | None = None) -> None:
        """The record of one device's limits dropped (only if it is that image's, when one is named)."""
        with self._held(write=True) as entries:
            if major_minor in entries and (image is None or entries[major_minor]["image"] == image):
                del entries[major_minor]


def set_limits(ledger: Ledger, major_minor: str, values: dict[str, int]) -> bool:
    """Write one device's limits (0: none), only while its loop device holds the image the ledger records for it;
    False, and nothing written, otherwise (a device taken down, or its /dev/loopN someone else's now)."""
    owner = ledger.entries().get(major_minor)
    if owner is None or not holds(major_minor, owner["image"]):
        return False
    write_raw(major_minor, values)
    return True


def clear_leftovers(ledger: Ledger, say=print, only: set[str] | None = None, report_others: bool = True) -> list[str]:
    """Clear the limits tierbench wrote for devices no loop device holds any more (its records of them dropped),
    one line saying so; one line naming limits on devices it has no record of, left untouched (unless asked not
    to, or when only some devices are looked at). The major:minors cleared."""
    h = cgroups.current()
    if h.why_no_io() is not None or os.geteuid() != 0:
        return []
    limited, cleared = listed(), []
    for major_minor, owner in ledger.entries().items():
        if (only is not None and major_minor not in only) or holds(major_minor, owner["image"]):
            continue
        if major_minor in limited:
            clear(major_minor)
            check_cleared(major_minor)
            cleared.append(f"{major_minor} ({owner.get('device', '?')})")
        ledger.forget(major_minor, owner["image"])
    if cleared:
        say(f"cleared tierbench's own {h.io_name} limits left on {', '.join(cleared)}: no emulated device holds them any more")
    if only is None and report_others:
        recorded = ledger.entries()
        foreign = sorted(mm for mm in limited if mm not in recorded and mm not in {c.split()[0] for c in cleared})
        if foreign:
            say(f"{h.io_name} limits on {', '.join(foreign)} were not written by tierbench (none in its record): left as "
                "they are")
    tidy(ledger)
    return [c.split()[0] for c in cleared]


def tidy(ledger: Ledger) -> list[str]:
    """tierbench's empty cgroups removed (v2: its group goes once no limit of its is recorded; v1 has none)."""
    try:
        return cgroups.current().tidy(limits_recorded=bool(ledger.entries()))
    except OSError:
        return []
