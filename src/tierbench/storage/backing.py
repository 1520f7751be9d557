"""What an emulated device's image lies on: this machine's disk, or memory (a tmpfs of tierbench's own).

The throttle sets an emulated device's pace only while what lies under it is faster. On disk that is this
machine's disk (283 MB/s of synced writes on these VMs), so figures above 80% of it are slowed (emulation.py).
A scale model's drives run at the target's figures x k, and k grows as this machine's CPU rate for the job
does: with the JVM's start-up compiling left out (scale/model.py), the SanDisk all-SSD pair needs ~600 MB/s.
Over memory the same loop device, ext4 and throttle took 1,620 MB/s of synced 1 MiB writes (fio, measured
2026-11-26 on this machine's kind): the throttle sets the pace up to that.

A memory-backed device is a tmpfs mounted at `emulate/NAME/ram` (size: the device's, so it can never take more),
the image inside it. Its pages are the device's data: dropping the page cache does not evict them, and the
loop device's own writes reach them, not this machine's disk. `down` unmounts the tmpfs, which frees them (the
device is recorded before the tmpfs is mounted, so an `up` killed midway leaves one `down` still removes). Such
devices together may declare at most MEMORY_SHARE of this machine's memory; past that a device lies on disk,
and the study says so.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from ..errors import UserError
from ..units import MB, format_size

DISK, MEMORY = "disk", "memory"
BACKINGS = (DISK, MEMORY)
MEMORY_SHARE = 0.5  # of MemTotal, for the declared sizes of all memory-backed devices up at once
RAM_DIR = "ram"
MiB = 1 << 20
EXT4_MAX_FILE = 16 << 40  # ext4's largest file (4 KiB blocks): the image lies on it under the cache
TMPFS_SOURCE = "tierbench-emulate"  # the tmpfs's name in /proc/mounts: tierbench's, never another's


def image_path(home: Path, backing: str) -> Path:
    return home / RAM_DIR / "disk.img" if backing == MEMORY else home / "disk.img"


def memory_total() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise UserError("/proc/meminfo has no MemTotal: cannot size memory-backed emulated devices")


def choose(wanted: str, size_bytes: int, memory_backed_up: int) -> tuple[str, str | None]:
    """The backing a device gets, and why it is not the one wanted (None when it is): memory only while the
    memory-backed devices up, with this one, declare at most MEMORY_SHARE of this machine's memory."""
    if wanted != MEMORY:
        return DISK, None
    room = int(MEMORY_SHARE * memory_total()) - memory_backed_up
    if size_bytes > room:
        return DISK, (f"on disk, not in memory: memory-backed devices may declare {MEMORY_SHARE:.0%} of this machine's "
                      f"memory, {max(0, room) >> 20} MiB left of it, this one is {size_bytes >> 20} MiB")
    return MEMORY, None


def make_image(home: Path, size_bytes: int, backing: str) -> Path:
    """The device's sparse image, on a tmpfs of its own when memory-backed."""
    home.mkdir(parents=True, exist_ok=True)
    if backing == MEMORY:
        ram = home / RAM_DIR
        ram.mkdir(parents=True, exist_ok=True)
        if not ram.is_mount():
            out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0700", TMPFS_SOURCE, str(ram)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise UserError(f"mounting a tmpfs at {ram} for a memory-backed emulated device failed: "
                                f"{out.stderr.strip() or out.returncode}")
    image = image_path(home, backing)
    with open(image, "wb") as f:
        f.truncate(size_bytes)  # sparse: takes disk space (or memory) only as it is written
    return image


def release_image(home: Path, backing: str) -> None:
    """A memory-backed device's tmpfs unmounted (its pages freed); refused while something holds it, so that the
    folder's deletion never reaches through a mount point. Only tierbench's own tmpfs is unmounted."""
    ram = home / RAM_DIR
    if backing != MEMORY or not ram.is_mount():
        return
    if not _is_ours(ram):
        raise UserError(f"{ram} is a mount point tierbench did not make; unmount it yourself")
    out = subprocess.run(["umount", str(ram)], capture_output=True, text=True)
    if out.returncode != 0 and ram.is_mount():
        raise UserError(f"cannot unmount {ram}: {out.stderr.strip()} (is the loop device still attached?)")


def _is_ours(mount_point: Path) -> bool:
    for line in Path("/proc/mounts").read_text().splitlines():
        source, target, fstype = line.split()[:3]
        if target == str(mount_point):
            return source == TMPFS_SOURCE and fstype == "tmpfs"
    return False


def cached_ceiling(cache: Path, key: str) -> float | None:
    try:
        return float(json.loads(cache.read_text())[key])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_ceiling(cache: Path, key: str, mb_s: float) -> None:
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    cache.write_text(json.dumps({**(known if isinstance(known, dict) else {}), key: mb_s}))


def run_tool(cmd: list[str], what: str) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise UserError(f"{what} failed: {' '.join(cmd)}: {(out.stderr or out.stdout).strip()[-300:]}")
    return out.stdout.strip()


def machine_ceiling(root: Path, on_phase=print, backing: str = DISK) -> float:
    """MB/s of fsync'ed sequential writes (fio, once; cached): on this machine's disk under the cache dir, or, for
    memory, through a scratch memory-backed loop device and its ext4, unthrottled. A cache dir on a tmpfs (a guest's)
    holds disk-backed images as memory does, through a buffered loop device (_attach): measured as memory is."""
    from ..sampling.devices import mount_of

    if backing == DISK and mount_of(str(root)).get("fs_type") == "tmpfs":
        backing = MEMORY
    cache = root / "ceiling.json"
    key = "write_mb_s" if backing == DISK else "memory_write_mb_s"
    known = cached_ceiling(cache, key)
    if known:
        return known
    work = root / ("_ceiling" if backing == DISK else "_ceiling-memory")
    work.mkdir(parents=True, exist_ok=True)
    on_phase(f"measuring this machine's {'disk' if backing == DISK else 'memory, as a device,'} with fio (once): "
             "512 MB written and synced")
    if backing == DISK:
        try:
            mb_s = _fio_write(work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    else:
        mb_s = _memory_ceiling(work)
    store_ceiling(cache, key, mb_s)
    return mb_s


def _fio_write(directory: Path) -> float:
    out = run_tool(["fio", "--name=tierbench-ceiling", f"--directory={directory}", "--rw=write", "--bs=1M", "--size=512M",
                "--ioengine=psync", "--direct=0", "--end_fsync=1", "--output-format=json"], "fio")
    return json.loads(out[out.index("{"):])["jobs"][0]["write"]["bw_bytes"] / MB


def _memory_ceiling(work: Path) -> float:
    """fio through a scratch memory-backed device (made, measured, unmade: nothing of it stays)."""
    image = make_image(work, 768 * MiB, MEMORY)
    loop = None
    try:
        loop, _ = format_and_mount(image, work / "mnt", MEMORY)
        # the best of three: copying into memory is CPU work, which anything else running slows (measured here:
        # 1,069, 1,947 and 1,992 MB/s in a row; 383 beside a test run): a ceiling too low would slow every device
        return max(_fio_write(work / "mnt") for _ in range(3))
    finally:
        unmount_and_detach(work / "mnt", loop)
        release_image(work, MEMORY)
        if not (work / "mnt").is_mount() and not (work / "ram").is_mount():
            shutil.rmtree(work, ignore_errors=True)


def format_and_mount(image: Path, mount: Path, backing: str, on_attached=None) -> tuple[str, str]:
    """The image attached as a loop device, ext4, mounted noatime; (loop device, major:minor). Detached again if a
    step fails; `on_attached(loop, major_minor)` is told as soon as it is attached (so that a kill later leaves it
    recorded). On disk the loop device reads and writes its image with direct IO, so that its pages are not cached
    twice; over memory without (a tmpfs file's pages are its storage: measured through the same ext4, 6,900 MB/s
    of 1 MiB reads buffered, 480 with direct IO)."""
    mount.mkdir(parents=True, exist_ok=True)
    loop = _attach(image, backing == DISK)
    try:
        major_minor = run_tool(["lsblk", "-dno", "MAJ:MIN", loop], "lsblk").strip()
        if on_attached:
            on_attached(loop, major_minor)
        run_tool(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop], "mkfs.ext4")
        run_tool(["mount", "-o", "noatime", loop, str(mount)], "mount")
        Path(f"/sys/block/{Path(loop).name}/queue/read_ahead_kb").write_text("1024\n")
    except (UserError, OSError):
        unmount_and_detach(mount, loop)
        raise
    return loop, major_minor


def _attach(image: Path, direct: bool) -> str:
    """losetup, with direct IO when asked and the file system under the image has it; else buffered loop IO. A tmpfs
    has O_DIRECT only from Linux 6.6 (Debian 12's 6.1 refuses `--direct-io=on` on a tmpfs file, measured in its guest),
    so an image on such a tmpfs is read and written buffered: its pages are its storage already."""
    attach = ["losetup", "-f", "--show", f"--direct-io={'on' if direct else 'off'}", str(image)]
    try:
        return run_tool(attach, "attaching a loop device")
    except UserError:
        if not direct:
            raise
    for loop, _ in loops_holding(image):  # (losetup may leave the device attached when only direct IO failed)
        subprocess.run(["losetup", "-d", loop], capture_output=True)
    return run_tool([*attach[:3], "--direct-io=off", str(image)], "attaching a loop device")


def loops_holding(image: Path) -> list[tuple[str, str]]:
    """[(/dev/loopN, major:minor)] of the loop devices that hold this image (`losetup -j`, read back from sysfs)."""
    out = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True)
    found = []
    for line in out.stdout.splitlines():
        loop = line.split(":", 1)[0].strip()
        sys_dir = Path("/sys/block") / Path(loop).name
        try:
            held = (sys_dir / "loop" / "backing_file").read_text().strip()
            major_minor = (sys_dir / "dev").read_text().strip()
        except OSError:
            continue  # (detached meanwhile)
        if held in (str(image), os.path.realpath(image)):
            found.append((loop, major_minor))
    return found


def check_room(root: Path, size_bytes: int, backing: str) -> None:
    """One line, before anything is made, when a device of this size cannot be held: over memory, more than this
    machine's memory; on disk, more than ext4's largest file or the free space of the file system under `root`
    (the image is sparse, but its blocks must fit as they are written: a full disk fails the study's writes)."""
    size = format_size(size_bytes)
    if backing == MEMORY:
        total = memory_total()
        if size_bytes > total:
            raise UserError(f"an emulated device of {size} cannot lie in memory: this machine has {format_size(total)}")
        return
    if size_bytes > EXT4_MAX_FILE:
        raise UserError(f"an emulated device of {size} is larger than ext4's largest file (16 TiB): give a smaller size")
    where = Path(root)
    while not where.exists():
        where = where.parent
    free = shutil.disk_usage(where).free
    if size_bytes > free:
        raise UserError(f"an emulated device of {size} cannot be held on the file system under {root}: "
                        f"{format_size(free)} free (its sparse image takes that room as it is written); "
                        "give a smaller size or free some space")


def unmount_and_detach(mount: Path, loop: str | None) -> None:
    """Undo format_and_mount as far as it got (a step that was not done fails quietly)."""
    subprocess.run(["umount", str(mount)], capture_output=True)
    if loop:
        subprocess.run(["losetup", "-d", loop], capture_output=True)
