"""The cgroup operations tierbench needs, on whichever hierarchy this machine has: v1 (blkio, memory) or v2 (io, memory).

Device emulation throttles each emulated device (read/write bytes/s and IOPS); the scale model bounds the engine's
page cache in a memory group of its own and moves its processes in and out. Both hierarchies do it, differently:

- v1 (these machines): the limits sit in the blkio root group's blkio.throttle.*_device files (the kernel's writeback
  runs in the root group, so limits anywhere else let buffered writes pass: storage/emulation.py says what was
  measured); a budget group is a child of the memory hierarchy (memory.limit_in_bytes, OOM killer off).
- v2 (every current distribution): io.max is refused on the root group, and v2 charges writeback to the group that
  dirtied the pages, so the limits sit on a child group of tierbench's own (`tierbench`, never holding a process
  itself: v2 lets only leaves hold processes once controllers are enabled below them) and every process that must
  meet them joins a leaf inside it: `tierbench/throttled`, or a budget group `tierbench/<name>` (io.max holds a
  whole subtree). A budget is memory.high (above it the kernel reclaims and the process waits: never an OOM kill,
  as v1's oom_control=1 gives); memory.stat is read under v1's names (file -> total_cache, ...).

tierbench enables +io +memory in the v2 root's cgroup.subtree_control when they are not (a systemd machine has them
on already) and leaves them on: turning them off would take them from every other group too. `tidy` removes its
groups once they are empty and no limit of its is recorded (storage/throttle.py's ledger), so that `emulate down`
leaves no `tierbench` group behind.
"""

import atexit
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
LIMIT_KEYS = ("read_bps_device", "write_bps_device", "read_iops_device", "write_iops_device")  # values: 0 = none
V2_KEYS = dict(zip(LIMIT_KEYS, ("rbps", "wbps", "riops", "wiops")))
TOP, THROTTLED = "tierbench", "throttled"


class CgroupV1:
    name = "cgroup v1"
    io_name = "blkio"

    def __init__(self, root: Path = ROOT):
        self.root = Path(root)
        self.blkio, self.memory = self.root / "blkio", self.root / "memory"

    def controllers(self) -> list[str]:
        return [c for c, probe in (("blkio", self.blkio / "blkio.throttle.read_bps_device"),
                                   ("memory", self.memory / "memory.limit_in_bytes")) if probe.exists()]

    def why_no_io(self) -> str | None:
        if "blkio" in self.controllers():
            return None
        return f"needs the blkio controller ({self.blkio}/blkio.throttle.*), which this machine's cgroup v1 does not have"

    def why_no_memory(self) -> str | None:
        if "memory" in self.controllers():
            return None
        return f"needs the memory controller ({self.memory}), which this machine's cgroup v1 does not have"

    def io_where(self) -> str:
        return f"{self.blkio}/blkio.throttle.*_device"

    # -- device limits -------------------------------------------------------------------------------------------
    def io_limited(self) -> set[str]:
        found = set()
        for key in LIMIT_KEYS:
            try:
                text = (self.blkio / f"blkio.throttle.{key}").read_text()
            except OSError:
                continue
            for line in text.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] != "0":
                    found.add(parts[0])
        return found

    def write_io(self, major_minor: str, values: dict[str, int]) -> None:
        for key, value in values.items():
            (self.blkio / f"blkio.throttle.{key}").write_text(f"{major_minor} {value}\n")

    def io_procs(self) -> Path:
        """The cgroup.procs a process joins to meet the limits (the root group: see the module's doc)."""
        return self.blkio / "cgroup.procs"

    def enter(self, pid: int) -> None:
        """A process into the group whose limits hold the emulated devices (its children are born in it)."""
        self.io_procs().write_text(f"{pid}\n")

    def tidy(self, limits_recorded: bool) -> list[str]:
        return []  # (v1's limits live in the root group: no group of tierbench's holds them)

    # -- memory groups ---------------------------------------------------------------------------------------------
    def memory_parent(self) -> Path:
        return self.memory

    def make_memory_group(self, name: str) -> Path:
        group = self.memory / name
        group.mkdir(exist_ok=False)  # a name of ours alone: refuse to adopt a group that exists
        # a process that meets the limit between two polls waits for the next one to raise it: never an OOM kill
        (group / "memory.oom_control").write_text("1\n")
        return group

    def memory_stat(self, group: Path) -> dict[str, int]:
        out = {}
        for line in (group / "memory.stat").read_text().splitlines():
            k, _, v = line.partition(" ")
            out[k] = int(v)
        return out

    def set_memory_limit(self, group: Path, limit: int) -> None:
        (group / "memory.limit_in_bytes").write_text(f"{limit}\n")

    def empty_memory(self, group: Path) -> None:
        (group / "memory.force_empty").write_text("0\n")

    def memory_group_of(self, pid: int) -> str | None:
        """The memory group a process is in (its path under memory_home), from /proc/<pid>/cgroup."""
        for _, controllers, path in _proc_cgroup(pid):
            if "memory" in controllers.split(","):
                return path
        return None

    def memory_home(self) -> Path:
        return self.memory


class CgroupV2(CgroupV1):
    name = "cgroup v2"
    io_name = "io.max"

    def __init__(self, root: Path = ROOT):
        self.root = Path(root)
        self.top = self.root / TOP
        self.blkio = self.memory = self.root  # (v1's names, for what the base class shares: memory_home)

    def controllers(self) -> list[str]:
        try:
            return (self.root / "cgroup.controllers").read_text().split()
        except OSError:
            return []

    def why_no_io(self) -> str | None:
        if "io" in self.controllers():
            return None
        return f"needs the io controller, which this machine's cgroup v2 does not offer ({self.root}/cgroup.controllers)"

    def why_no_memory(self) -> str | None:
        if "memory" in self.controllers():
            return None
        return (f"needs the memory controller, which this machine's cgroup v2 does not offer "
                f"({self.root}/cgroup.controllers)")

    def io_where(self) -> str:
        return f"{self.top}/io.max"

    def _ensure_top(self) -> Path:
        """tierbench's group, with io and memory enabled for it and below it (the root's first: v2 enables a
        controller in a group only when its parent has it enabled)."""
        _enable(self.root, ("io", "memory"))
        self.top.mkdir(exist_ok=True)
        _enable(self.top, ("io", "memory"))
        return self.top

    def io_limited(self) -> set[str]:
        try:
            text = (self.top / "io.max").read_text()
        except OSError:
            return set()
        found = set()
        for line in text.splitlines():
            device, *limits = line.split()
            if any(not v.endswith("=max") for v in limits):
                found.add(device)
        return found

    def write_io(self, major_minor: str, values: dict[str, int]) -> None:
        """One device's io.max line (a key not given is left as it is; 0: none, v2's "max")."""
        settings = " ".join(f"{V2_KEYS[k]}={v if v > 0 else 'max'}" for k, v in values.items())
        (self._ensure_top() / "io.max").write_text(f"{major_minor} {settings}\n")

    def io_procs(self) -> Path:
        leaf = self._ensure_top() / THROTTLED
        leaf.mkdir(exist_ok=True)
        return leaf / "cgroup.procs"

    def enter(self, pid: int) -> None:
        """As v1's; and this process, once it ends (atexit: a normal end, Ctrl-C or SIGTERM), back where it was, so
        that tierbench's empty groups go with it (after a SIGKILL, the next `emulate status`, `up` or `down`)."""
        if pid == os.getpid() and not getattr(self, "_leaving", False):
            atexit.register(self.leave, self.memory_group_of(pid) or "/")
            self._leaving = True
        super().enter(pid)

    def leave(self, origin: str) -> list[str]:
        for back in dict.fromkeys((self.root / origin.lstrip("/"), self.root)):
            try:
                (back / "cgroup.procs").write_text(f"{os.getpid()}\n")
                break
            except OSError:
                continue
        try:
            return self.tidy(limits_recorded=False)  # (the top group stays while io.max holds a device's limits)
        except OSError:
            return []

    def tidy(self, limits_recorded: bool) -> list[str]:
        """tierbench's empty groups removed (leaves first; the top one only when no limit of its is recorded:
        its io.max holds them); the groups removed. A group that holds a process stays (rmdir refuses it)."""
        if not self.top.is_dir():
            return []
        removed = []
        for group in [p for p in self.top.iterdir() if p.is_dir()]:
            if group.name == THROTTLED or _dead_owner(group.name):
                removed += [str(group)] if _rmdir(_drained(group)) else []
        if not limits_recorded and not self.io_limited() and _rmdir(self.top):
            removed.append(str(self.top))
        return removed

    def memory_parent(self) -> Path:
        return self.top

    def make_memory_group(self, name: str) -> Path:
        group = self._ensure_top() / name
        group.mkdir(exist_ok=False)
        return group

    def memory_stat(self, group: Path) -> dict[str, int]:
        """memory.stat under v1's names, the ones the budget reads (scale/memory_budget.py)."""
        raw = super().memory_stat(group)
        names = {"total_cache": "file", "total_mapped_file": "file_mapped", "total_dirty": "file_dirty",
                 "total_writeback": "file_writeback", "total_rss": "anon"}
        return raw | {v1: raw.get(v2, 0) for v1, v2 in names.items()}

    def set_memory_limit(self, group: Path, limit: int) -> None:
        """memory.high: above it the kernel reclaims and the process waits (memory.max would OOM-kill it); a
        write below what the group holds reclaims before it returns, as v1's limit does."""
        (group / "memory.high").write_text(f"{limit}\n")

    def empty_memory(self, group: Path) -> None:
        return None  # (v2 has no force_empty: a removed group's page cache goes with it)

    def memory_group_of(self, pid: int) -> str | None:
        return next((path for hid, _, path in _proc_cgroup(pid) if hid == "0"), None)


def _proc_cgroup(pid: int) -> list[tuple[str, str, str]]:
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return []
    return [tuple(line.split(":", 2)) for line in lines if line.count(":") >= 2]


def _enable(group: Path, controllers: tuple[str, ...]) -> None:
    control = group / "cgroup.subtree_control"
    have = control.read_text().split() if control.exists() else []
    missing = [c for c in controllers if c not in have]
    if missing:
        control.write_text(" ".join(f"+{c}" for c in missing) + "\n")


DRAIN_S = 3.0  # a process killed a moment ago (its tierbench SIGKILLed) leaves its group within a few polls


def _drained(group: Path, wait_s: float = DRAIN_S) -> Path:
    """The group, once no process is in it or wait_s has passed (v2's cgroup.events says `populated 0`)."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            if "populated 0" in (group / "cgroup.events").read_text():
                break
        except OSError:
            break
        time.sleep(0.1)
    return group


def _rmdir(group: Path) -> bool:
    try:
        group.rmdir()
        return True
    except OSError:
        return False


def _dead_owner(name: str) -> bool:
    """A budget group (`tierbench-<study>-<pid>`) whose tierbench is gone."""
    pid = name.rsplit("-", 1)[-1]
    return name.startswith("tierbench-") and pid.isdigit() and not Path(f"/proc/{pid}").exists()


def detect(root: Path = ROOT) -> CgroupV1 | CgroupV2:
    """The hierarchy mounted at root: v2 when the unified hierarchy is mounted there (its root has
    cgroup.controllers), else v1 (a v1 machine's /sys/fs/cgroup is a tmpfs of per-controller mounts)."""
    root = Path(root)
    return CgroupV2(root) if (root / "cgroup.controllers").exists() else CgroupV1(root)


_CURRENT: list = []


def current() -> CgroupV1 | CgroupV2:
    """This machine's hierarchy (detected once per process)."""
    if not _CURRENT:
        _CURRENT.append(detect())
    return _CURRENT[0]


def describe(h: CgroupV1 | CgroupV2 | None = None) -> list[str]:
    """What this machine's cgroups offer and what tierbench can do with them, one line each."""
    h = h or current()
    io, memory = h.why_no_io(), h.why_no_memory()
    lines = [f"cgroups: {h.name} at {h.root}, controllers: {', '.join(h.controllers()) or 'none'}"]
    lines.append("device emulation (emulate up, emulated studies): " + (
        f"yes ({h.io_name} limits in {h.io_where()})" if io is None else f"no: {io}"))
    lines.append("scale model page cache budget: " + (
        f"yes (a memory group under {h.memory_parent()})" if memory is None else f"no: {memory}"))
    if os.geteuid() != 0:
        lines.append("both need root: run tierbench as root")
    return lines
