"""Which block device holds a directory, and what that device is (rotational, scheduler, mount)."""

import os
from pathlib import Path


def _existing(path: str) -> Path:
    p = Path(path)
    while not p.exists():
        p = p.parent
    return p


def device_of(path: str) -> str | None:
    """The /proc/diskstats name of the block device holding `path` (None for tmpfs, overlay, NFS...)."""
    st = os.stat(_existing(path))
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    if major == 0:
        return None
    link = Path(f"/sys/dev/block/{major}:{minor}")
    try:
        return link.resolve().name
    except OSError:
        return None


def whole_disk(dev: str) -> str:
    """vda1 -> vda (the disk whose queue settings apply); a whole disk maps to itself."""
    p = Path(f"/sys/class/block/{dev}")
    if (p / "partition").exists():
        return p.resolve().parent.name
    return dev


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def mount_of(path: str) -> dict:
    """The mount holding `path`: mount point, file system type and options (noatime etc.)."""
    target = str(_existing(path).resolve())
    best = None
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) < 4:
                continue
            mnt = parts[1].replace("\\040", " ")
            if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) and (best is None or len(mnt) > len(best[1])):
                best = (parts[0], mnt, parts[2], parts[3])
    except OSError:
        return {}
    if best is None:
        return {}
    return {"source": best[0], "mount_point": best[1], "fs_type": best[2], "options": best[3]}


def device_facts(dev: str) -> dict:
    disk = whole_disk(dev)
    q = Path(f"/sys/block/{disk}/queue")
    sched = _read(q / "scheduler")
    if sched and "[" in sched:
        sched = sched[sched.index("[") + 1:sched.index("]")]
    size = _read(Path(f"/sys/class/block/{dev}/size"))
    return {
        "device": dev,
        "disk": disk,
        "rotational": _read(q / "rotational") == "1",
        "scheduler": sched,
        "model": _read(Path(f"/sys/block/{disk}/device/model")),
        "size_bytes": int(size) * 512 if size and size.isdigit() else None,
    }


def storage_map(dirs: dict[str, list[str]]) -> dict:
    """{role: [dirs]} -> per dir its roles ("data", "intermediate" or "data+intermediate"), device and mount, and per
    device its facts."""
    out = {"dirs": {}, "devices": {}}
    for role, paths in dirs.items():
        for path in paths:
            if path in out["dirs"]:  # one directory holding data and intermediate data has both roles
                out["dirs"][path]["role"] += f"+{role}"
                continue
            dev = device_of(path)
            out["dirs"][path] = {"role": role, "device": dev, "mount": mount_of(path)}
            if dev and dev not in out["devices"]:
                out["devices"][dev] = device_facts(dev)
    return out
