"""Emulated devices: storage of a known shape (an HDD, a SATA SSD, an NVMe SSD) on any machine, as root.

A device is a sparse file under tierbench's cache dir (`emulate/NAME/disk.img`), attached as a loop device,
formatted ext4 and mounted `noatime` at `emulate/NAME/mnt`. The cgroup throttle (v1 blkio's root group, v2 io.max
on tierbench's group: storage/cgroups.py) holds each device to its profile (sequential MB/s and IOPS, read and
write); a study on emulated devices joins the group the limits hold (`enter_group`), and so do its engine's processes.

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

Leaving the machine as found: one tierbench at a time makes or removes a device (`device_lock`: two `up` of one name
once attached two loop devices to one image). A device is recorded (state "making") before anything of it exists, so
`status` shows and `down` removes one a `kill -9` interrupted (its loops by `losetup -j IMAGE`). `down` unmounts first
(a busy mount refused, limits untouched), then clears the limits, detaches and reads the limit files back. Limits go
only to a loop holding the device's image, each recorded, and leftovers are cleared by that record (throttle.py).
"""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import processes
from ..errors import UserError
from ..locks import HeldLock
from ..ownership import check_name, remove_owned_root, valid_name
from ..toolchain import cache_dir
from ..units import MB, format_size
from .backing import (BACKINGS, DISK, MEMORY, check_room, choose, format_and_mount, image_path, loops_holding,
                      make_image, release_image)
from .backing import machine_ceiling as backing_ceiling
from .profiles import (FIGURES, HEADROOM, PROFILES, Profile, custom_profile, read_iops_limit,  # noqa: F401 (theirs)
                       scale_factor, stored_limits, throttle_limits)
from . import cgroups, throttle
from .throttle import BLKIO, Ledger  # noqa: F401 (BLKIO: v1's, the e2e tests read its files)

MiB, LEDGER_FILE = 1 << 20, "limits.json"  # (the record of the limits tierbench wrote: throttle.py)


def root_dir() -> Path:
    return cache_dir() / "emulate"


def check_can_emulate() -> None:
    """One clear line when this machine cannot emulate devices."""
    if os.geteuid() != 0:
        raise UserError("device emulation needs root (loop devices, mount and a cgroup's device limits): run as root")
    why = cgroups.current().why_no_io()
    if why:
        raise UserError(f"device emulation {why}")
    for tool in ("losetup", "mkfs.ext4", "mount", "umount", "fio"):
        if not shutil.which(tool):
            raise UserError(f"device emulation needs {tool}: install it (Debian: util-linux, e2fsprogs, mount, fio)")


MAKING, UP = "making", "up"  # a device's state: recorded as MAKING before anything is attached, UP once it is whole


@dataclass
class Device:
    name: str
    profile: Profile  # as applied (scaled)
    size_bytes: int
    loop: str  # /dev/loopN ("" while a device being made is not attached yet)
    major_minor: str  # "7:0" (likewise)
    image: str
    mount: str
    measured: dict | None = None  # fio in the throttled group: {"read_mb_s", "write_mb_s"} and whether within 10%
    backing: str = DISK  # what the image lies on: this machine's disk, or memory (storage/backing.py)
    state: str = UP  # MAKING: an `up` was interrupted (a kill); `down` removes what it made

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Device":
        return cls(**{**d, "profile": Profile(**d["profile"])})


STATE_FILE = "device.json"  # also the marker of a device's folder: only a folder holding it is deleted


def _state(name: str) -> Path:
    return root_dir() / check_name(name, "emulated device name") / STATE_FILE


def _save(dev: Device) -> None:
    """The state written whole or not at all (a kill mid-write leaves the one before)."""
    path = _state(dev.name)
    part = path.with_name(STATE_FILE + ".part")
    part.write_text(json.dumps(dev.to_dict(), indent=2))
    os.replace(part, path)


def _load(path: Path) -> Device:
    """A device's state, checked to be as `up` wrote it: its image and mount point in its own folder, its loop
    device a /dev/loopN. `down` unmounts, detaches and deletes what the state names, so a state file that names
    anything else (edited, or written by someone else) is refused, never acted on."""
    home = path.parent
    try:
        dev = Device.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        raise UserError(f"{path}: not an emulated device's state as tierbench writes it ({e}); "
                        f"remove the folder {home} yourself if it is yours") from None
    expected = {"name": home.name, "image": str(image_path(home, dev.backing)), "mount": str(home / "mnt")}
    wrong = [k for k, v in expected.items() if getattr(dev, k) != v] + (["backing"] if dev.backing not in BACKINGS else [])
    wrong += [] if dev.state in (MAKING, UP) else ["state"]
    unset = dev.state == MAKING and dev.loop == dev.major_minor == ""  # (made, not attached yet)
    if wrong or not unset and (not re.fullmatch(r"/dev/loop[0-9]+", str(dev.loop))
                               or not re.fullmatch(r"[0-9]+:[0-9]+", str(dev.major_minor))):
        raise UserError(f"{path}: names {', '.join(wrong) or 'a loop device'} other than tierbench's own for "
                        f"{home.name!r} ({expected}); tierbench will not act on it")
    return dev


_SAID_DAMAGED: set[str] = set()  # each damaged state said once per process (devices() is asked often)


def devices() -> list[Device]:
    """Every device whose state is as tierbench writes it; a damaged one is said in one warning line and skipped:
    it is never fatal to the others, nor to a study on plain directories (`down NAME` still names its fault)."""
    found = []
    for p in sorted(root_dir().glob(f"*/{STATE_FILE}")):
        if not valid_name(p.parent.name):
            continue
        try:
            found.append(_load(p))
        except UserError as e:
            if str(p) not in _SAID_DAMAGED:
                _SAID_DAMAGED.add(str(p))
                print(f"tierbench: warning: {e}; skipped", file=sys.stderr, flush=True)
    return found


def device(name: str) -> Device | None:
    p = _state(name)
    return _load(p) if p.is_file() else None


def machine_ceiling(on_phase=print, backing: str = DISK) -> float:
    """MB/s of fsync'ed sequential writes on what a device of this backing lies on (fio, once; backing.py)."""
    return backing_ceiling(root_dir(), on_phase, backing)


def _ledger() -> Ledger:
    return Ledger(root_dir() / LEDGER_FILE)


def _throttle(major_minor: str, p: Profile | None) -> None:
    """Write (or, with p=None, clear) the root group's limits for one device."""
    set_limits(major_minor, throttle_limits(p) if p else {})


def set_limits(major_minor: str, applied: dict) -> bool:
    """The root group's limits for one device (as throttle_limits gives them; a missing or 0 one: none), written
    only while its loop device holds the image tierbench recorded for it (throttle.py); False when it does not."""
    return throttle.set_limits(_ledger(), major_minor, throttle.limit_values(applied))


def clear_leftovers(say=print, report_others: bool = True) -> list[str]:
    """tierbench's own limits left on devices no emulated device holds any more, cleared (one line saying so);
    limits it did not write named and left alone (throttle.py). Safe to call anywhere: without root, nothing."""
    return throttle.clear_leftovers(_ledger(), say, report_others=report_others)


@contextlib.contextmanager
def device_lock(name: str):
    """The device's lock, held while it is made, checked or taken down: a second tierbench refuses in one line. The
    lock files lie beside the devices' folders, in one no device can be named (a `down` never deletes a held one)."""
    locks = root_dir() / "_locks"
    check_name(name, "emulated device name")  # (before anything is made)
    locks.mkdir(parents=True, exist_ok=True)
    lock = HeldLock(locks / name, f"emulated device {name!r}").acquire()
    try:
        yield
    finally:
        lock.release()


def up(name: str, profile: str, size_bytes: int, custom: Profile | None = None, on_phase=print,
       backing: str = DISK) -> Device:
    check_can_emulate()
    if custom is None and profile not in PROFILES:
        raise UserError(f"unknown profile {profile!r}; accepted: {', '.join(PROFILES)}, custom")
    check_room(root_dir(), size_bytes, backing)  # before anything is made
    clear_leftovers(on_phase)
    with device_lock(name):
        return _up_locked(name, profile, size_bytes, custom, on_phase, backing)


def _up_locked(name: str, profile: str, size_bytes: int, custom: Profile | None, on_phase, backing: str) -> Device:
    if device(name):
        raise UserError(f"emulated device {name!r} is already up: tierbench emulate status; tierbench emulate down {name}")
    # a named profile is scaled to this machine's disk whatever the backing, so that it means the same speeds
    prof = custom or PROFILES[profile].scaled(scale_factor(machine_ceiling(on_phase)))
    home = _state(name).parent
    dev = Device(name, prof, size_bytes, "", "", str(image_path(home, backing)), str(home / "mnt"), backing=backing,
                 state=MAKING)
    home.mkdir(parents=True, exist_ok=True)
    _save(dev)  # before anything is attached or mounted: a kill from here on leaves a device `down` can see

    def attached(loop: str, major_minor: str) -> None:
        dev.loop, dev.major_minor = loop, major_minor
        _save(dev)

    try:
        make_image(home, size_bytes, backing)
        format_and_mount(Path(dev.image), home / "mnt", backing, on_attached=attached)
        _ledger().record(dev.major_minor, name, dev.image)  # before the limit: it is tierbench's to clear
        _throttle(dev.major_minor, prof)
    except (UserError, OSError) as e:
        _take_down(dev)
        if isinstance(e, UserError):
            raise
        raise UserError(f"emulate up {name}: {e}") from None
    dev.state = UP
    _save(dev)
    return dev


UNMOUNT_TRIES = 20  # half a second apart: a JVM that just ended a study may hold its files for a moment longer


def down(name: str) -> None:
    with device_lock(name):
        dev = device(name)
        if dev is None:
            raise UserError(f"no emulated device {name!r}; up: {', '.join(d.name for d in devices()) or 'none'}")
        _take_down(dev)


def _take_down(dev: Device) -> None:
    """Unmount (a busy mount refused before anything changes), clear the limits, detach, check the limit files no
    longer list it; then the tmpfs and the folder. The loop devices are those that hold the image (`losetup -j`):
    a half-made device may have one its state does not name, a detached one (a reboot) none."""
    home = _state(dev.name).parent
    loops = loops_holding(Path(dev.image))
    if Path(dev.mount).is_mount():
        if not loops:
            raise UserError(f"{dev.mount} is mounted but no loop device holds {dev.image}; unmount it yourself")
        for _ in range(UNMOUNT_TRIES):
            out = subprocess.run(["umount", dev.mount], capture_output=True, text=True)
            if out.returncode == 0 or "busy" not in out.stderr:
                break
            time.sleep(0.5)
        if out.returncode != 0 and Path(dev.mount).is_mount():
            raise UserError(f"cannot unmount {dev.mount}: {out.stderr.strip()} (is a study still using it?); its "
                            "limits are left as they are")
    for loop, major_minor in loops:
        throttle.clear(major_minor)  # (the loop holds this device's image: whatever limits it are this device's)
        subprocess.run(["losetup", "-d", loop], capture_output=True)
        throttle.check_cleared(major_minor)
        _ledger().forget(major_minor, dev.image)
    if dev.major_minor and dev.major_minor not in {mm for _, mm in loops}:  # detached before: its limits, if still ours
        throttle.clear_leftovers(_ledger(), say=lambda _: None, only={dev.major_minor})
    for _ in range(UNMOUNT_TRIES):  # a detach waits for the device's last opener (a killed up's mkfs, udev's probe)
        if not loops_holding(Path(dev.image)):
            break
        time.sleep(0.2)
    else:
        raise UserError(f"{dev.image} is still attached to a loop device (losetup -j {dev.image}); detach it, then "
                        f"tierbench emulate down {dev.name}")
    if Path(dev.mount).is_mount():  # never delete through a mount point (the rmtree would empty the device's files)
        raise UserError(f"{dev.mount} is still mounted; unmount it, then tierbench emulate down {dev.name}")
    release_image(home, dev.backing)  # (refuses, so nothing is deleted, while the tmpfs stays mounted)
    remove_owned_root(home, STATE_FILE)  # ours alone: the image, the mount point, the state
    throttle.tidy(_ledger())  # (v2: tierbench's group, once no device's limits are left in it)


def enter_group(pid: int | None = None) -> None:
    """Place a process (default: this one) in the group whose limits hold the emulated devices: v1's root group (a
    process a service manager put in a child group would pass unthrottled), v2's tierbench/throttled (v2 charges a
    write to the group that dirtied the page); children inherit it."""
    cgroups.current().enter(pid or os.getpid())


def device_of_path(path: str) -> Device | None:
    """The emulated device a directory lies on, if any (a whole one: a half-made device holds no study)."""
    p = str(Path(path).resolve())
    return next((d for d in devices() if d.state == UP and p == d.mount or p.startswith(d.mount.rstrip("/") + "/")), None)


def fio_check(dev: Device, seconds: int = 3, on_phase=print) -> dict:
    """fio on the device, in the throttled group: sequential write (synced) and read, against its profile."""
    work = Path(dev.mount) / "tierbench-fio-check"
    work.mkdir(exist_ok=True)
    # `seconds` at the profile's pace, but never more than 40% of the device (a fast nvme of 1 GB would fill up)
    size = max(16, min(int(min(dev.profile.write_mb_s, dev.profile.read_mb_s) * seconds), int(0.4 * dev.size_bytes / MiB)))
    # several streams where the loop device is buffered (memory, a tmpfs image: backing.py): the throttle holds each
    # request until its budget has come, so one stream of 1 MiB reads met 400-490 MB/s of a 700 MB/s limit, four 774
    dio = Path(f"/sys/block/{Path(dev.loop).name}/loop/dio")
    jobs = 4 if dev.backing == MEMORY or dio.read_text().strip() == "0" else 1
    results = {}
    try:
        for rw, key in (("write", "write_mb_s"), ("read", "read_mb_s")):
            on_phase(f"fio {rw} on {dev.name} ({size} MB)")
            if rw == "read":
                os.sync()
                Path("/proc/sys/vm/drop_caches").write_text("3\n")
            cmd = ["fio", "--name=tierbench-check", f"--directory={work}", f"--rw={rw}", "--bs=1M", f"--size={max(4, size // jobs)}M",
                   f"--numjobs={jobs}", "--thread", "--group_reporting", "--ioengine=psync", "--direct=0", "--output-format=json", *(["--end_fsync=1"] if rw == "write" else [])]
            out = processes.run(["sh", "-c", f'echo $$ > {cgroups.current().io_procs()} && exec "$@"', "fio", *cmd],
                                capture_output=True, text=True, die_with_parent=signal.SIGKILL)  # (jobs as threads: all die)
            if out.returncode != 0:
                raise UserError(f"fio on {dev.mount} failed: {out.stderr.strip()[-300:]}")
            job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0]
            results[key] = job[rw]["bw_bytes"] / MB
    finally:
        shutil.rmtree(work, ignore_errors=True)
    want = {"write_mb_s": dev.profile.write_mb_s, "read_mb_s": dev.profile.read_mb_s}
    results["within_10pct"] = all(abs(results[k] / want[k] - 1) <= 0.10 for k in want)
    dev.measured = results
    _save(dev)
    return results


def describe(dev: Device) -> str:
    if dev.state == MAKING:
        return (f"{dev.name}: half made ({dev.loop or 'no loop device yet'}; an `emulate up` was interrupted): "
                f"tierbench emulate down {dev.name}")
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
        with device_lock(e["device"]):
            if _bring_up_one(e, on_phase):
                made.append(e["device"])
    return made


def _bring_up_one(e: dict, on_phase) -> bool:
    dev = device(e["device"])
    backing, why_not = choose(e.get("backing", DISK), e["size"], memory_backed_bytes())
    where = dev.backing if dev else backing  # (the entry's own figures, slowed only where that could not keep them)
    custom = custom_profile(e, machine_ceiling(on_phase, where), where) if "figures" in e else None
    if dev is not None:
        if dev.state == MAKING:
            raise UserError(f"emulated device {e['device']} is half made (an `up` was interrupted): "
                            f"tierbench emulate down {e['device']}")
        if dev.profile.name != e["profile"] or dev.size_bytes != e["size"] or (custom and custom != dev.profile):
            raise UserError(f"emulated device {e['device']} is up as {dev.profile.name}, {format_size(dev.size_bytes)}, "
                            f"not {e['profile']}, {format_size(e['size'])}: tierbench emulate down {e['device']}")
        return False
    check_room(root_dir(), e["size"], backing)
    on_phase(f"emulating {e['profile']} as {e['device']}" + (f" ({why_not})" if why_not else
                                                              " (over memory)" if backing == MEMORY else ""))
    fio_check(_up_locked(e["device"], e["profile"], e["size"], custom, on_phase, backing), on_phase=on_phase)
    return True


def memory_backed_bytes() -> int:
    return sum(d.size_bytes for d in devices() if d.backing == MEMORY)

def devices_under(paths) -> list[Device]:
    """The emulated devices that hold any of these directories."""
    return list({d.name: d for d in map(device_of_path, paths) if d is not None}.values())


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
