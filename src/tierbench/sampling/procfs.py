"""Counters from /proc: per-device IO (diskstats), CPU time (stat), network bytes (net/dev), a process's IO."""

from __future__ import annotations  # the ssh agent runs this text on nodes whose Python may be older than 3.10

import os
from pathlib import Path

SECTOR = 512
# /proc/diskstats fields after major, minor, name (Documentation/admin-guide/iostats.rst)
DISK_FIELDS = ("rd_ios", "rd_merges", "rd_sectors", "rd_ms", "wr_ios", "wr_merges", "wr_sectors", "wr_ms",
               "in_flight", "io_ms", "weighted_ms")
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


# Each counter has a parser of the file's text (what a node agent ships: sampling/nodes.py) and a reader of this
# machine's file. The parsers must stay standard-library Python: the ssh agent runs this module's text on nodes
# that have no tierbench.


def parse_diskstats(text: str, devices: set[str] | None = None) -> dict[str, tuple[int, ...]]:
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue
        name = parts[2]
        if devices is not None and name not in devices:
            continue
        out[name] = tuple(int(x) for x in parts[3:14])
    return out


def parse_cpu(text: str) -> tuple[int, ...]:
    parts = text.splitlines()[0].split()
    return tuple(int(x) for x in parts[1:9])


def parse_net(text: str) -> dict[str, tuple[int, int]]:
    out = {}
    for line in text.splitlines()[2:]:
        if ":" not in line:
            continue
        name, data = line.split(":", 1)
        cols = data.split()
        out[name.strip()] = (int(cols[0]), int(cols[8]))
    return out


def parse_meminfo(text: str) -> dict[str, int]:
    """Bytes of the /proc/meminfo lines (MemTotal, MemAvailable, Cached, Dirty, Writeback...)."""
    out = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        vals = rest.split()
        if vals and vals[0].isdigit():
            out[key.strip()] = int(vals[0]) * (1024 if vals[1:2] == ["kB"] else 1)
    return out


def parse_process_io(text: str) -> tuple[int, int] | None:
    try:
        vals = dict(line.split(": ") for line in text.splitlines() if ": " in line)
        return int(vals["read_bytes"]), int(vals["write_bytes"])
    except (KeyError, ValueError):
        return None


def _text(path: str) -> str:
    with open(path) as f:
        return f.read()


def diskstats(devices: set[str] | None = None) -> dict[str, tuple[int, ...]]:
    return parse_diskstats(_text("/proc/diskstats"), devices)


def cpu_times() -> tuple[int, ...]:
    with open("/proc/stat") as f:
        return parse_cpu(f.readline())


def net_bytes() -> dict[str, tuple[int, int]]:
    return parse_net(_text("/proc/net/dev"))


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
        return parse_process_io(Path(f"/proc/{pid}/io").read_text())
    except OSError:
        return None
