#!/usr/bin/env python3
"""CI: after the e2e layer, the throttle (cgroup v1 blkio, v2 tierbench's io.max) limits no device that is not an
attached loop device.

Every limit tierbench writes is on a loop device of its own (an emulated device) and goes with it; a limit left on a
detached /dev/loopN slows whatever disk is attached there next. This lists every major:minor in the root group's
blkio.throttle.*_device files whose device is not a loop device currently holding a file (its sysfs backing_file),
and exits 1 when there is any. Plain python3, standard library only: it runs outside tierbench's venv.
"""

import sys
from pathlib import Path

BLKIO = Path("/sys/fs/cgroup/blkio")
IO_MAX = Path("/sys/fs/cgroup/tierbench/io.max")  # (v2: where tierbench writes its limits, storage/cgroups.py)
LIMIT_FILES = ("read_bps_device", "write_bps_device", "read_iops_device", "write_iops_device")


def limited(blkio: Path) -> dict:
    """major:minor -> the limit files that list it (a rule of 0 is no limit)."""
    found = {}
    for key in LIMIT_FILES:
        try:
            lines = (blkio / f"blkio.throttle.{key}").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) == 2 and parts[1] != "0":
                found.setdefault(parts[0], []).append(f"{key} {parts[1]}")
    return found


def limited_v2(io_max: Path) -> dict:
    """major:minor -> its io.max settings that are a limit (not "max")."""
    try:
        lines = io_max.read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        device, *settings = line.split()
        held = [s for s in settings if not s.endswith("=max")]
        if held:
            found[device] = held
    return found


def attached_loop(major_minor: str) -> bool:
    try:
        return bool(Path(f"/sys/dev/block/{major_minor}/loop/backing_file").read_text().strip())
    except OSError:
        return False


def main() -> int:
    v2 = Path("/sys/fs/cgroup/cgroup.controllers").exists()
    if not v2 and not (BLKIO / "blkio.throttle.read_bps_device").exists():
        print(f"check_limits: no cgroup-v1 blkio throttle at {BLKIO}: nothing to check")
        return 0
    found = limited_v2(IO_MAX) if v2 else limited(BLKIO)
    left = {mm: where for mm, where in found.items() if not attached_loop(mm)}
    for mm, where in sorted(left.items()):
        print(f"check_limits: {mm} is limited ({', '.join(where)}) but is not an attached loop device")
    if left:
        print(f"check_limits: {len(left)} device(s) left throttled in {IO_MAX if v2 else BLKIO}")
        return 1
    print("check_limits: no limit on a device that is not an attached loop device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
