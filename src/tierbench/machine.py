"""Facts about the machine and the tool, stamped into every run record."""

import functools
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

from . import __version__


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@functools.cache
def machine_facts() -> dict:
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_cores": os.cpu_count(),
        "memory_bytes": _memory_bytes(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
    }


@functools.cache
def tool_facts() -> dict:
    src = Path(__file__).resolve().parent
    commit = None
    try:
        out = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            commit = out.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--", "."],
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            if dirty:
                commit += "+dirty"
    except (OSError, subprocess.TimeoutExpired):
        pass
    return {"tool_version": __version__, "git_commit": commit}
