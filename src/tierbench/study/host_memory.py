"""A virtual machine's free page reporting, and keeping it off while something is measured.

A VM whose virtio balloon reports free pages hands every page it frees back to its host (the page cache dropped
before each step, a finished JVM's heap). Taking such a page anew is then a fault on the host as well: measured on a
2-core VM of this kind, fresh memory is first touched at 0.4 GB/s when it was handed back and 7.8 GB/s when it was
not, and a durable 8 GB TeraSort spent 47 s of kernel CPU instead of 16 s (docs/performance.md). That cost grows
faster than the data and no storage device shows it, so a benchmark of tierbench's own jobs, or a test that compares
sizes, runs with reporting off. `tierbench check` tells users the same (analysis/node_check.py)."""

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ORDER = Path("/sys/module/page_reporting/parameters/page_reporting_order")
GiB = 1 << 30


def max_order() -> int | None:
    """The largest free block's order (columns of /proc/buddyinfo: orders 0..max)."""
    try:
        return len(Path("/proc/buddyinfo").read_text().splitlines()[0].split()) - 5
    except (OSError, IndexError):
        return None


def balloon_reports_free_pages() -> bool:
    """A virtio balloon (device 0x0005) with free page reporting (feature bit 5) negotiated."""
    for dev in Path("/sys/bus/virtio/devices").glob("*"):
        try:
            if (dev / "device").read_text().strip() == "0x0005":
                return (dev / "features").read_text()[5:6] == "1"
        except OSError:
            continue
    return False


def reporting_on() -> bool:
    top = max_order()
    try:
        return balloon_reports_free_pages() and top is not None and int(ORDER.read_text()) <= top
    except (OSError, ValueError):
        return False


def first_touch_gb_s(gb: float = 2) -> float:
    """GB/s at which this process takes fresh memory: a NumPy array, which asks for transparent huge pages, so the
    guest's own faults are few and what is left is the host's (where it took the pages back)."""
    t = time.perf_counter()
    a = np.ones(int(gb * GiB), dtype=np.uint8)
    rate = gb / (time.perf_counter() - t)
    del a
    return rate


def _touch_free_memory(leave: int = 2 * GiB) -> int:
    """Takes all but `leave` of the available memory once and frees it, so that the pages the host took back are
    backed again before anything is measured; returns the GB touched."""
    avail = next(int(line.split()[1]) * 1024 for line in Path("/proc/meminfo").read_text().splitlines()
                 if line.startswith("MemAvailable:"))
    chunks = [np.ones(GiB, dtype=np.uint8) for _ in range(max(0, (avail - leave) // GiB))]
    n = len(chunks)
    del chunks
    return n


@contextmanager
def freed_pages_kept(touch: bool = True):
    """Free page reporting off for the block (as root, where it is on), then set back as it was; `touch` first takes
    the free memory once so the host backs it again. Yields a line saying what was done ("" when nothing was)."""
    if os.geteuid() != 0 or not reporting_on():
        yield ""
        return
    was = ORDER.read_text().strip()
    ORDER.write_text(str(max_order() + 1))
    try:
        t = time.perf_counter()
        gb = _touch_free_memory() if touch else 0
        yield (f"free page reporting off (page_reporting_order {was} -> {max_order() + 1}, set back after)"
               + (f"; {gb} GB of free memory taken once in {time.perf_counter() - t:.1f} s" if touch else ""))
    finally:
        ORDER.write_text(was)


@contextmanager
def reporting_off_for(spec, results):
    """free_page_reporting = "off": this machine's free page reporting off while the study runs, what was done kept
    in study.json. Cluster nodes are left as they are (`tierbench check` lists them)."""
    if spec.free_page_reporting != "off":
        yield
        return
    if reporting_on() and os.geteuid() != 0:
        print("tierbench: warning: free_page_reporting = \"off\" needs root: this VM's free page reporting is left "
              "on", file=sys.stderr, flush=True)
    with freed_pages_kept() as done:
        said = done or "not in use here (no virtio balloon reporting free pages, or off already)"
        print(f"tierbench: free page reporting: {said}", file=sys.stderr, flush=True)
        results.update_study(free_page_reporting=said)
        yield
