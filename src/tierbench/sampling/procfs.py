"""Counters from /proc: per-device IO (diskstats), CPU time (stat), network bytes (net/dev), a process's IO."""

import os
from pathlib import Path

SECTOR = 512
# /proc/diskstats fields after major, minor, name (Documentation/admin-guide/iostats.rst)
DISK_FIELDS = ("rd_ios", "rd_merges", "rd_sectors", "rd_ms", "wr_ios", "wr_merges", "wr_sectors", "wr_ms",
               "in_flight", "io_ms", "weighted_ms")
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def diskstats(devices: set[str] | None = None) -> dict[str, tuple[int, ...]]:
    out = {}
    with open("/proc/diskstats") as f:
        for line in f:
            parts = line.split()
            name = parts[2]
            if devices is not None and name not in devices:
                continue
            out[name] = tuple(int(x) for x in parts[3:14])
    return out


def cpu_times() -> tuple[int, ...]:
    with open("/proc/stat") as f:
        parts = f.readline().split()
    return tuple(int(x) for x in parts[1:9])


def net_bytes() -> dict[str, tuple[int, int]]:
    out = {}
    with open("/proc/net/dev") as f:
        for line in f.readlines()[2:]:
            name, data = line.split(":", 1)
            cols = data.split()
            out[name.strip()] = (int(cols[0]), int(cols[8]))
    return out


def descendants(pid: int) -> list[int]:
    """pid's child processes, recursively (the engine's JVMs below tierbench)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def process_io(pid: int) -> tuple[int, int] | None:
    """(read_bytes, write_bytes) the process caused at the storage layer; None if gone or not permitted."""
    try:
        vals = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
        return int(vals["read_bytes"]), int(vals["write_bytes"])
    except (OSError, KeyError, ValueError):
        return None
