"""Emulated devices: storage of a known shape (an HDD, a SATA SSD, an NVMe SSD) on any machine, as root.

A device is a sparse file under tierbench's cache dir (`emulate/NAME/disk.img`), attached as a loop device,
formatted ext4 and mounted `noatime` at `emulate/NAME/mnt`. The cgroup-v1 blkio controller's root group
throttles each emulated device to its profile (sequential MB/s and IOPS, read and write); a study whose
directories lie on emulated devices places itself in the root group (where it usually is already), so its
engine's processes (children) meet the limits.

Why the root group, measured on these machines (kernel 6.x, cgroup v1): a group's limits hold only its own
processes' requests, and v1 groups are not hierarchical. The kernel's writeback runs in the root group: with
the limits in a child group of their own, 700 MB written buffered in it were flushed by a `sync` from outside
it in 0.27 s on a 70 MB/s device; with limits in both groups, a writer's fsync and the flusher threads each
had a budget of their own (durable DFSIO ran above fio's O_DIRECT ceiling). With the limits in the root group
alone, a direct writer, an fsync'ed writer and a sync all ran at the device's pace (21.3, 20.8 MB/s and 10 s for
700 MB at 20 and 70 MB/s): one budget per device, whoever writes. Writes a job leaves in the page cache are
still memory until written back, so faithful emulation needs durable writes (spec `durability = "durable"`,
the default).

Profiles are data-sheet figures, scaled by one factor so that the fastest profile fits under what this
machine's own disk sustains (measured with fio when the first device is made): the ratios between
profiles hold, the absolute figures are this machine's. The loop device's read-ahead is 1 MiB, so a
sequential reader issues 1 MiB requests and meets the bandwidth limit before the IOPS limit, as a disk
would; small random reads meet the IOPS limit.
"""

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import processes
from ..errors import UserError
from .backing import (BACKINGS, DISK, MEMORY, choose, format_and_mount, image_path, make_image, release_image,
                      unmount_and_detach)
from .backing import machine_ceiling as backing_ceiling
from .backing import run_tool as _run
from ..ownership import check_name, remove_owned_root, valid_name
from ..toolchain import cache_dir
from ..units import MB, format_size

BLKIO = Path("/sys/fs/cgroup/blkio")
MiB = 1 << 20
FIGURES = ("read_mb_s", "write_mb_s", "read_iops", "write_iops")  # a drive's four figures, as a Profile has them
HEADROOM = 0.8  # the fastest profile at 80% of the real disk: the throttle, not the disk, sets the pace


@dataclass(frozen=True)
class Profile:
    name: str
    read_mb_s: float
    write_mb_s: float
    read_iops: float
    write_iops: float
    source: str

    def scaled(self, factor: float) -> "Profile":
        return Profile(self.name, self.read_mb_s * factor, self.write_mb_s * factor, self.read_iops * factor,
                       self.write_iops * factor, f"{self.source}; scaled x{factor:.3g} to this machine")


PROFILES = {p.name: p for p in (
    Profile("hdd", 200, 190, 180, 180,
            "7,200 rpm enterprise HDD data sheets (e.g. Seagate Exos 7E8: up to 215 MB/s sequential; ~170 random 4K IOPS "
            "from 8.5 ms seek + 4.2 ms rotation); the SanDisk 2014 studies' nodes used 7.2K rpm HDDs"),
    Profile("sata-ssd", 540, 500, 90_000, 60_000,
            "SATA III SSD data sheets (e.g. Samsung 870 EVO: 560/530 MB/s, 98K/88K 4K IOPS; SanDisk CloudSpeed "
            "in the 2014 studies: about 450-500 MB/s): the SATA link caps them"),
    Profile("nvme", 3500, 3000, 500_000, 400_000,
            "PCIe 3.0 x4 NVMe SSD data sheets (e.g. Samsung 970 PRO: 3,500/2,700 MB/s, 500K/500K 4K IOPS)"),
)}


def root_dir() -> Path:
    return cache_dir() / "emulate"


def check_can_emulate() -> None:
    """One clear line when this machine cannot emulate devices."""
    if os.geteuid() != 0:
        raise UserError("device emulation needs root (loop devices, mount and the blkio cgroup): run as root")
    if not (BLKIO / "blkio.throttle.read_bps_device").exists():
        raise UserError(f"device emulation needs the cgroup-v1 blkio controller ({BLKIO}/blkio.throttle.*), which "
                        "this machine does not have (cgroup v2 io.max is not supported yet)")
    for tool in ("losetup", "mkfs.ext4", "mount", "umount", "fio"):
        if not shutil.which(tool):
            raise UserError(f"device emulation needs {tool}: install it (Debian: util-linux, e2fsprogs, mount, fio)")


@dataclass
class Device:
    name: str
    profile: Profile  # as applied (scaled)
    size_bytes: int
    loop: str  # /dev/loopN
    major_minor: str  # "7:0"
    image: str
    mount: str
    measured: dict | None = None  # fio in the throttled group: {"read_mb_s", "write_mb_s"} and whether within 10%
    backing: str = DISK  # what the image lies on: this machine's disk, or memory (storage/backing.py)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Device":
        return cls(**{**d, "profile": Profile(**d["profile"])})


STATE_FILE = "device.json"  # also the marker of a device's folder: only a folder holding it is deleted


def _state(name: str) -> Path:
    return root_dir() / check_name(name, "emulated device name") / STATE_FILE


def _load(path: Path) -> Device:
    """A device's state, checked to be as `up` wrote it: its image and mount point in its own folder, its loop
    device a /dev/loopN. `down` unmounts, detaches and deletes what the state names, so a state file that names
    anything else (edited, or written by someone else) is refused, never acted on."""
    home = path.parent
    try:
        dev = Device.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise UserError(f"{path}: not an emulated device's state as tierbench writes it ({e}); "
                        f"remove the folder {home} yourself if it is yours") from None
    expected = {"name": home.name, "image": str(image_path(home, dev.backing)), "mount": str(home / "mnt")}
    wrong = [k for k, v in expected.items() if getattr(dev, k) != v] + (["backing"] if dev.backing not in BACKINGS else [])
    if wrong or not re.fullmatch(r"/dev/loop[0-9]+", str(dev.loop)) or not re.fullmatch(r"[0-9]+:[0-9]+", str(dev.major_minor)):
        raise UserError(f"{path}: names {', '.join(wrong) or 'a loop device'} other than tierbench's own for "
                        f"{home.name!r} ({expected}); tierbench will not act on it")
    return dev


def devices() -> list[Device]:
    return [_load(p) for p in sorted(root_dir().glob(f"*/{STATE_FILE}")) if valid_name(p.parent.name)]


def device(name: str) -> Device | None:
    p = _state(name)
    return _load(p) if p.is_file() else None


def _attached(dev: Device) -> bool:
    """The loop device still holds this device's image (after a reboot, /dev/loopN may be someone else's)."""
    try:
        backing = Path(f"/sys/block/{Path(dev.loop).name}/loop/backing_file").read_text().strip()
    except OSError:
        return False
    return backing == dev.image


def machine_ceiling(on_phase=print, backing: str = DISK) -> float:
    """MB/s of fsync'ed sequential writes on what a device of this backing lies on (fio, once; backing.py)."""
    return backing_ceiling(root_dir(), on_phase, backing)


def scale_factor(ceiling_mb_s: float) -> float:
    fastest = max(p.write_mb_s for p in PROFILES.values())
    return min(1.0, HEADROOM * ceiling_mb_s / fastest)


# IOPS never cap a sequential stream below its bandwidth: reads come in requests of up to 1 MiB (the read-ahead;
# measured: 26 IOPS held a 26 MB/s stream to 20 MB/s), and the throttle counts writeback's requests before they are
# merged, ~256 KiB each (measured: 19 write IOPS held an fsync'ed 20 MB/s stream to 13 MB/s; 40 let it run at 19.5)
READ_IOPS_PER_MB_S = 2
WRITE_IOPS_PER_MB_S = 4


def read_iops_limit(read_iops: float, read_mb_s: float) -> float:
    """The read IOPS the throttle holds a device of these figures to (raised from its own: READ_IOPS_PER_MB_S)."""
    return max(read_iops, READ_IOPS_PER_MB_S * read_mb_s)


def throttle_limits(p: Profile) -> dict[str, float]:
    """The limits the root group's throttle holds a device of this profile to (what `_throttle` writes): its MB/s
    (tierbench's MB, 2^20 bytes), and its IOPS, raised where they would cap a sequential stream below its bandwidth."""
    return {"read_mb_s": p.read_mb_s, "write_mb_s": p.write_mb_s,
            "read_iops": read_iops_limit(p.read_iops, p.read_mb_s),
            "write_iops": max(p.write_iops, WRITE_IOPS_PER_MB_S * p.write_mb_s)}


def stored_limits(entry: dict) -> dict[str, float]:
    """The throttle's limits of an emulated device as study.json's `emulated` holds it: those recorded when the
    study ran, else (results from before they were recorded) worked out from its profile as applied."""
    if entry.get("limits"):
        return dict(entry["limits"])
    p = entry["profile"]
    return throttle_limits(Profile(p.get("name", "?"), p["read_mb_s"], p["write_mb_s"], p["read_iops"], p["write_iops"],
                                   p.get("source", "")))


def _throttle(major_minor: str, p: Profile | None) -> None:
    """Write (or, with p=None, clear) the root group's limits for one device."""
    set_limits(major_minor, throttle_limits(p) if p else {})


def set_limits(major_minor: str, applied: dict) -> None:
    """The root group's limits for one device (as throttle_limits gives them; a missing or 0 one: none). A limit
    below one unit is written as one: 0 would lift it (storage/shared_time.py lowers them while a study runs)."""
    def at_least_one(key: str, unit: float) -> int:
        value = applied.get(key, 0) * unit
        return max(1, int(value)) if value > 0 else 0

    limits = {"read_bps_device": at_least_one("read_mb_s", MB), "write_bps_device": at_least_one("write_mb_s", MB),
              "read_iops_device": at_least_one("read_iops", 1), "write_iops_device": at_least_one("write_iops", 1)}
    for key, value in limits.items():
        (BLKIO / f"blkio.throttle.{key}").write_text(f"{major_minor} {value}\n")


def up(name: str, profile: str, size_bytes: int, custom: Profile | None = None, on_phase=print,
       backing: str = DISK) -> Device:
    check_can_emulate()
    if device(name):
        raise UserError(f"emulated device {name!r} is already up: tierbench emulate status; tierbench emulate down {name}")
    if custom is None and profile not in PROFILES:
        raise UserError(f"unknown profile {profile!r}; accepted: {', '.join(PROFILES)}, custom")
    # a named profile is scaled to this machine's disk whatever the backing, so that it means the same speeds
    prof = custom or PROFILES[profile].scaled(scale_factor(machine_ceiling(on_phase)))
    home = _state(name).parent
    loop = None
    try:
        image = make_image(home, size_bytes, backing)
        loop, major_minor = format_and_mount(image, home / "mnt", backing)
        _throttle(major_minor, prof)
    except (UserError, OSError):
        if loop:
            unmount_and_detach(home / "mnt", loop)
        release_image(home, backing)
        raise
    dev = Device(name, prof, size_bytes, loop, major_minor, str(image), str(home / "mnt"), backing=backing)
    _state(name).write_text(json.dumps(dev.to_dict(), indent=2))
    return dev


def down(name: str) -> None:
    dev = device(name)
    if dev is None:
        raise UserError(f"no emulated device {name!r}; up: {', '.join(d.name for d in devices()) or 'none'}")
    if not _attached(dev):  # detached already (a reboot): the loop device and its limits may be another's now
        if Path(dev.mount).is_mount():
            raise UserError(f"{dev.mount} is mounted but {dev.loop} no longer holds {dev.image}; unmount it yourself")
        release_image(_state(name).parent, dev.backing)
        remove_owned_root(_state(name).parent, STATE_FILE)
        return
    _throttle(dev.major_minor, None)
    for _ in range(20):  # a JVM that just ended a study may hold its files for a moment longer
        out = subprocess.run(["umount", dev.mount], capture_output=True, text=True)
        if out.returncode == 0 or "busy" not in out.stderr:
            break
        time.sleep(0.5)
    if out.returncode != 0 and Path(dev.mount).is_mount():
        raise UserError(f"cannot unmount {dev.mount}: {out.stderr.strip()} (is a study still using it?)")
    subprocess.run(["losetup", "-d", dev.loop], capture_output=True)
    if Path(dev.mount).is_mount():  # never delete through a mount point (the rmtree would empty the device's files)
        raise UserError(f"{dev.mount} is still mounted; unmount it, then tierbench emulate down {name}")
    release_image(_state(name).parent, dev.backing)  # (refuses, so nothing is deleted, while the tmpfs stays mounted)
    remove_owned_root(_state(name).parent, STATE_FILE)  # ours alone: the image, the mount point, the state


def enter_group(pid: int | None = None) -> None:
    """Place a process (default: this one) in the group whose limits hold the emulated devices: the root
    group (a process a service manager put in a child group would pass unthrottled); children inherit it."""
    (BLKIO / "cgroup.procs").write_text(f"{pid or os.getpid()}\n")


def device_of_path(path: str) -> Device | None:
    """The emulated device a directory lies on, if any."""
    p = str(Path(path).resolve())
    return next((d for d in devices() if p == d.mount or p.startswith(d.mount.rstrip("/") + "/")), None)


def fio_check(dev: Device, seconds: int = 3, on_phase=print) -> dict:
    """fio on the device, in the throttled group: sequential write (synced) and read, against its profile."""
    work = Path(dev.mount) / "tierbench-fio-check"
    work.mkdir(exist_ok=True)
    # `seconds` at the profile's pace, but never more than 40% of the device (a fast nvme of 1 GB would fill up)
    size = max(16, min(int(min(dev.profile.write_mb_s, dev.profile.read_mb_s) * seconds), int(0.4 * dev.size_bytes / MiB)))
    # several streams over memory: the throttle holds each request until its budget has come, so one synchronous
    # stream of 1 MiB reads met 400-490 MB/s of a 700 MB/s limit, four 774 (measured; a study's tasks are many)
    jobs = 4 if dev.backing == MEMORY else 1
    results = {}
    try:
        for rw, key in (("write", "write_mb_s"), ("read", "read_mb_s")):
            on_phase(f"fio {rw} on {dev.name} ({size} MB)")
            if rw == "read":
                os.sync()
                Path("/proc/sys/vm/drop_caches").write_text("3\n")
            cmd = ["fio", "--name=tierbench-check", f"--directory={work}", f"--rw={rw}", "--bs=1M", f"--size={max(4, size // jobs)}M",
                   f"--numjobs={jobs}", "--group_reporting", "--ioengine=psync", "--direct=0", "--output-format=json", *(["--end_fsync=1"] if rw == "write" else [])]
            out = processes.run(["sh", "-c", f'echo $$ > {BLKIO}/cgroup.procs && exec "$@"', "fio", *cmd],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise UserError(f"fio on {dev.mount} failed: {out.stderr.strip()[-300:]}")
            job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0]
            results[key] = job[rw]["bw_bytes"] / MB
    finally:
        shutil.rmtree(work, ignore_errors=True)
    want = {"write_mb_s": dev.profile.write_mb_s, "read_mb_s": dev.profile.read_mb_s}
    results["within_10pct"] = all(abs(results[k] / want[k] - 1) <= 0.10 for k in want)
    dev.measured = results
    _state(dev.name).write_text(json.dumps(dev.to_dict(), indent=2))
    return results


def describe(dev: Device) -> str:
    p = dev.profile
    m = dev.measured
    measured = (f"; fio on it: write {m['write_mb_s']:.0f}, read {m['read_mb_s']:.0f} MB/s "
                f"({'within' if m['within_10pct'] else 'NOT within'} 10% of the profile)") if m else ""
    return (f"{dev.name}: {p.name} at {dev.mount} ({dev.loop}, {format_size(dev.size_bytes)} sparse{', in memory' if dev.backing == MEMORY else ''}): read {p.read_mb_s:.0f} MB/s "
            f"{p.read_iops:,.0f} IOPS, write {p.write_mb_s:.0f} MB/s {p.write_iops:,.0f} IOPS{measured}")


# -- devices a spec declares: data = { emulate = "hdd", size = "8GB" } -------------------------------------------
def bring_up(entries: list[dict], on_phase=print) -> list[str]:
    """Each declared device up (made and checked with fio if it is not), refused if one of that name differs;
    memory-backed where the entry asks (`backing`) and there is room (backing.choose), else on disk, said.
    Returns the names this call made (the study brings those down when it is done)."""
    check_can_emulate()
    made = []
    for e in entries:
        dev = device(e["device"])
        backing, why_not = choose(e.get("backing", DISK), e["size"], memory_backed_bytes())
        custom = _custom_profile(e, on_phase, dev.backing if dev else backing)
        if dev is not None:
            if dev.profile.name != e["profile"] or dev.size_bytes != e["size"] or (custom and custom != dev.profile):
                raise UserError(f"emulated device {e['device']} is up as {dev.profile.name}, {format_size(dev.size_bytes)}, "
                                f"not {e['profile']}, {format_size(e['size'])}: tierbench emulate down {e['device']}")
            continue
        on_phase(f"emulating {e['profile']} as {e['device']}" + (f" ({why_not})" if why_not else
                                                                  " (over memory)" if backing == MEMORY else ""))
        fio_check(up(e["device"], e["profile"], e["size"], custom, on_phase=on_phase, backing=backing), on_phase=on_phase)
        made.append(e["device"])
    return made


def memory_backed_bytes() -> int:
    return sum(d.size_bytes for d in devices() if d.backing == MEMORY)


def _custom_profile(entry: dict, on_phase, backing: str) -> Profile | None:
    """A device entry's own figures, slowed alike only where what it lies on (disk or memory) could not keep their
    pace."""
    if "figures" not in entry:
        return None
    f = entry["figures"]
    factor = min(1.0, HEADROOM * machine_ceiling(on_phase, backing) / max(f["read_mb_s"], f["write_mb_s"]))
    source = "the study's own figures" + (f"; slowed x{factor:.3g} to this machine's {backing}" if factor < 1 else "")
    return Profile(entry["profile"], *(round(f[k] * factor, 3) for k in FIGURES), source)


def devices_under(paths) -> list[Device]:
    """The emulated devices that hold any of these directories."""
    found = {}
    for p in paths:
        d = device_of_path(p)
        if d is not None:
            found[d.name] = d
    return list(found.values())


def kept_up(names) -> str:
    """What the devices of a study that stopped with failed runs hold while kept up for --resume (a memory-backed
    one's data is in this machine's memory until it goes down), and how to free them; "" when none is up."""
    kept = sorted((d for d in map(device, names) if d is not None), key=lambda d: d.name)
    if not kept:
        return ""
    in_memory = sum(d.size_bytes for d in kept if d.backing == MEMORY)
    held = f", up to {format_size(in_memory)} of them in this machine's memory" if in_memory else ""
    return (f", on the emulated devices {', '.join(d.name for d in kept)}{held}: --resume finishes the study and "
            f"takes them down; `tierbench emulate down NAME` frees one without it")
