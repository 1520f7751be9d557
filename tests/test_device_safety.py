"""Emulated devices leave the machine as found (issue 60): no blkio limit left on a detached loop device, tierbench's
own leftovers found by its record of them and cleared, one tierbench at a time on a device, a half-made device seen
and removed, sizes the machine cannot hold refused before anything is made, a damaged state skipped, the memory
budget's group gone after a study. Real loop devices, mounts and cgroups (root); the images are sparse and small."""

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from conftest import can_emulate_or_skip, one_error_line, tierbench, tierbench_main
from tierbench.errors import UserError
from tierbench.storage import emulation, throttle

MiB = 1 << 20
FAST = emulation.Profile("custom", 100, 100, 1000, 1000, "test")
CHECK_LIMITS = Path(__file__).resolve().parent.parent / ".ci" / "check_limits.py"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """tierbench's cache dir of this test (its devices, ledger and locks), this machine's ceiling given (no fio);
    every device left in it taken down after the test."""
    can_emulate_or_skip("there is no device to make")
    root = tmp_path / "cache"
    (root / "emulate").mkdir(parents=True)
    (root / "emulate" / "ceiling.json").write_text(json.dumps({"write_mb_s": 300.0, "memory_write_mb_s": 1500.0}))
    monkeypatch.setenv("TIERBENCH_CACHE", str(root))
    yield root / "emulate"
    for d in emulation.devices():
        try:
            emulation.down(d.name)
        except UserError:
            pass


def make(name: str, backing: str = "disk") -> emulation.Device:
    return emulation.up(name, "custom", 64 * MiB, custom=FAST, on_phase=lambda _: None, backing=backing)


def loops_on(image) -> list[str]:
    """The loop devices holding this image, read from sysfs (not through the code under test)."""
    held = []
    for f in Path("/sys/block").glob("loop*/loop/backing_file"):
        try:
            if f.read_text().strip() == str(image):
                held.append(f"/dev/{f.parent.parent.name}")
        except OSError:
            continue
    return held


@pytest.fixture
def scratch_loop(tmp_path):
    """A loop device that is not tierbench's (someone else's disk), detached after the test, its limits cleared."""
    can_emulate_or_skip("there is no loop device to limit")
    image = tmp_path / "someone-elses.img"
    with open(image, "wb") as f:
        f.truncate(16 * MiB)
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], check=True, capture_output=True, text=True).stdout.strip()
    major_minor = Path(f"/sys/block/{Path(loop).name}/dev").read_text().strip()
    yield loop, major_minor
    throttle.clear(major_minor)
    subprocess.run(["losetup", "-d", loop], check=False)


# -- 1. no limit left on a detached loop device ------------------------------------------------------------------
@pytest.mark.e2e
def test_the_shared_time_controller_never_limits_a_device_taken_down_before_it_stops(cache):
    """9a95184's study brought its devices down inside the controller's block, whose exit wrote the full limits
    back onto the detached /dev/loopN (blkio accepts it): the next disk attached there met them."""
    from tierbench.scale.shared_time import SharedTime

    dev = make("st-after")
    full = emulation.throttle_limits(dev.profile)
    shared = SharedTime({Path(dev.loop).name: (dev.major_minor, full)}, emulation.set_limits).__enter__()
    emulation.down("st-after")
    shared.__exit__(None, None, None)
    assert dev.major_minor not in throttle.listed()
    assert not emulation.set_limits(dev.major_minor, full) and dev.major_minor not in throttle.listed()


@pytest.mark.e2e
def test_a_study_that_ends_ok_takes_its_devices_down_with_no_limit_left(cache, tmp_path):
    from tierbench.engines.fake import FakeEngine
    from tierbench.scale.hooks import study_runner
    from tierbench.spec import parse_spec

    jobs = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
    raw = tomllib.loads("""
name = "leftless"
repeats = 1
drop_caches = "never"
[sampling]
enabled = false
[storage.fast]
data = { emulate = "fast", size = "256MB", figures = { read_mb_s = 200, write_mb_s = 200, read_iops = 2000, write_iops = 2000 } }
[[workloads]]
name = "teragen"
rows = 20003
tasks = 2
""")
    study_runner(parse_spec(raw, "l.toml", tmp_path), tmp_path / "r", ["t"], engines={"spark": FakeEngine(jobs)}).run()
    study = json.loads((tmp_path / "r" / "study.json").read_text())
    (used,) = study["emulated"].values()
    assert emulation.devices() == []  # down, as a study that ends ok leaves them
    assert used["major_minor"] not in throttle.listed(), (used["major_minor"], throttle.listed())
    out = subprocess.run([sys.executable, str(CHECK_LIMITS)], capture_output=True, text=True)
    assert used["major_minor"] not in out.stdout, out.stdout


@pytest.mark.e2e
def test_down_refuses_a_busy_mount_before_it_lifts_the_throttle(cache, monkeypatch):
    monkeypatch.setattr(emulation, "UNMOUNT_TRIES", 2, raising=False)  # (a busy mount is retried for 10 s otherwise)
    dev = make("busy")
    held = open(Path(dev.mount) / "open-file", "w")
    try:
        with pytest.raises(UserError, match="cannot unmount"):
            emulation.down("busy")
        assert dev.major_minor in throttle.listed()  # still throttled: the refusal changed nothing
        assert Path(dev.mount).is_mount() and emulation.device("busy").state == "up"
    finally:
        held.close()
    emulation.down("busy")
    assert dev.major_minor not in throttle.listed() and loops_on(dev.image) == [] and not Path(dev.mount).exists()


# -- 2. tierbench's own leftovers, by its record -------------------------------------------------------------------
@pytest.mark.e2e
def test_the_startup_check_clears_tierbenchs_own_leftover_limits_and_leaves_others(cache, scratch_loop):
    loop, foreign = scratch_loop
    throttle.write_raw(foreign, {"write_bps_device": 5 * MiB})  # someone else's limit on their own disk
    dev = make("left")
    assert json.loads((cache / "limits.json").read_text())["limits"][dev.major_minor]["device"] == "left"
    # detached behind tierbench's back (by hand, or a tierbench killed mid-down): blkio keeps the limits
    subprocess.run(["umount", dev.mount], check=True)
    subprocess.run(["losetup", "-d", dev.loop], check=True)
    assert dev.major_minor in throttle.listed()

    out = tierbench_main("emulate", "status")
    assert out.returncode == 0, out.stderr
    assert f"cleared tierbench's own blkio limits left on {dev.major_minor} (left)" in out.stdout, out.stdout
    assert f"blkio limits on {foreign} were not written by tierbench (none in its record): left as they are" in \
        out.stdout, out.stdout
    assert dev.major_minor not in throttle.listed() and foreign in throttle.listed()
    assert dev.major_minor not in json.loads((cache / "limits.json").read_text())["limits"]


# -- 3. one tierbench at a time on a device; a half-made device is seen and removed --------------------------------
@pytest.mark.e2e
def test_an_up_refuses_while_another_tierbench_holds_the_device_and_two_at_once_make_one(cache):
    from tierbench.locks import HeldLock

    (cache / "_locks").mkdir()
    lock = HeldLock(cache / "_locks" / "shared-name", "test").acquire()
    try:
        one_error_line(tierbench("emulate", "up", "shared-name", "--size", "256MiB", "--no-check"), "in use by another tierbench")
        assert not (cache / "shared-name").exists()
    finally:
        lock.release()

    ups = [subprocess.Popen([sys.executable, "-m", "tierbench", "emulate", "up", "shared-name", "--size", "256MiB",
                             "--no-check"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [(p.wait(timeout=120), *p.communicate()) for p in ups]
    assert sorted(code for code, _, _ in outs) == [0, 2], outs
    refused = next(err for code, _, err in outs if code)
    assert len(refused.strip().splitlines()) == 1 and ("in use by another" in refused or "already up" in refused), refused
    assert len(loops_on(cache / "shared-name" / "disk.img")) == 1


@pytest.mark.e2e
def test_an_up_killed_while_making_the_device_leaves_one_that_status_shows_and_down_removes(cache):
    image = cache / "killed-up" / "ram" / "disk.img"
    up = subprocess.Popen([sys.executable, "-m", "tierbench", "emulate", "up", "killed-up", "--size", "256MiB",
                           "--backing", "memory", "--no-check"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not loops_on(image) and up.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    os.kill(up.pid, signal.SIGKILL)  # (with its loop device attached, its tmpfs mounted)
    up.wait()
    status = tierbench_main("emulate", "status")
    assert "killed-up:" in status.stdout, status.stdout + status.stderr
    down = tierbench_main("emulate", "down", "killed-up")
    assert down.returncode == 0, down.stderr
    assert not loops_on(image) and not (cache / "killed-up").exists()
    assert str(cache / "killed-up") not in Path("/proc/mounts").read_text()  # (the mount and the tmpfs)


# -- 4. sizes the machine cannot hold; a damaged state -------------------------------------------------------------
def test_a_size_the_file_system_cannot_hold_is_refused_before_anything_is_made(cache):
    """20TB: past ext4's largest file (9a95184: a traceback, and a folder `down` could not see); then just past the
    free space under the cache (sparse, but its blocks must fit as they are written). (Just past: on 9a95184 the
    second is made, and mkfs writes 1/64 of it.)"""
    import shutil

    past_free = f"{(shutil.disk_usage(cache).free >> 30) + 8}GiB"
    for size, words in (("20TB", "16 TiB"), (past_free, "free")):
        one_error_line(tierbench_main("emulate", "up", "huge", "--size", size, "--no-check"), words)
        assert sorted(p.name for p in cache.iterdir()) == ["ceiling.json"]  # nothing made, not even a lock


def test_a_memory_backed_device_larger_than_memory_is_refused_before_anything_is_made(cache):
    from tierbench.storage.backing import memory_total

    with pytest.raises(UserError, match="cannot lie in memory"):
        emulation.up("too-big", "custom", memory_total() + MiB, custom=FAST, on_phase=lambda _: None, backing="memory")
    assert not (cache / "too-big").exists()


def test_a_damaged_device_state_is_said_once_and_skipped(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path))
    root = tmp_path / "emulate"
    good, bad = root / "good", root / "bad"
    good.mkdir(parents=True)
    bad.mkdir()
    (good / "device.json").write_text(json.dumps({
        "name": "good", "profile": {"name": "hdd", "read_mb_s": 1, "write_mb_s": 1, "read_iops": 1, "write_iops": 1,
                                    "source": "t"}, "size_bytes": 1 << 30, "loop": "/dev/loop3", "major_minor": "7:3",
        "image": str(good / "disk.img"), "mount": str(good / "mnt")}))  # (as 9a95184 wrote it: no state field)
    (bad / "device.json").write_text('{"name": "bad", "profile": ')
    out = tierbench_main("emulate", "status")
    assert out.returncode == 0 and any(line.startswith("good: hdd at") for line in out.stdout.splitlines()), out
    warnings = out.stderr.strip().splitlines()
    assert len(warnings) == 1 and str(bad / "device.json") in warnings[0] and "skipped" in warnings[0], warnings
    assert [d.name for d in emulation.devices()] == ["good"]
    assert emulation.devices_under([str(tmp_path / "plain")]) == []  # a study on plain directories goes on
    with pytest.raises(UserError, match="not an emulated device's state"):
        emulation.down("bad")  # (named, never acted on)


# -- the memory budget's group -------------------------------------------------------------------------------------
def test_the_memory_budgets_group_is_gone_after_the_study_even_with_a_group_made_inside_it():
    """An engine's own executor may make groups inside the one it runs in; 9a95184 then left the budget's group
    behind (rmdir refuses a group that holds one) and said nothing."""
    from tierbench.scale.memory_budget import MEMORY, MemoryBudget, can_budget

    if why := can_budget():
        pytest.skip(f"this machine cannot make tierbench's memory group ({why}), so there is no group whose removal "
                    "to check: it runs where root has the cgroup-v1 memory controller, as in CI")
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        with MemoryBudget(f"inner-{os.getpid()}", 4 << 20) as budget:
            inner = budget.group / "container"
            inner.mkdir()
            (inner / "cgroup.procs").write_text(f"{sleeper.pid}\n")
        assert not budget.group.exists()
        memory_line = next(line for line in Path(f"/proc/{sleeper.pid}/cgroup").read_text().splitlines()
                           if "memory" in line.split(":")[1].split(","))
        assert memory_line.split(":", 2)[2] == "/", memory_line  # (the root group: it never joined through the budget)
    finally:
        sleeper.kill()
        sleeper.wait()
        for group in MEMORY.glob(f"tierbench-inner-{os.getpid()}-*"):  # (what 9a95184 left)
            for g in (group / "container", group):
                if g.exists():
                    g.rmdir()


# -- 5. the CI check -----------------------------------------------------------------------------------------------
@pytest.mark.e2e
def test_the_ci_check_lists_a_limit_left_on_a_detached_loop_device(scratch_loop):
    loop, major_minor = scratch_loop
    throttle.write_raw(major_minor, {"read_iops_device": 100})
    attached = subprocess.run([sys.executable, str(CHECK_LIMITS)], capture_output=True, text=True)
    assert major_minor not in attached.stdout, attached.stdout  # (on an attached loop device: a device's own)
    subprocess.run(["losetup", "-d", loop], check=True)
    left = subprocess.run([sys.executable, str(CHECK_LIMITS)], capture_output=True, text=True)
    assert left.returncode == 1 and f"{major_minor} is limited (read_iops_device 100)" in left.stdout, left.stdout
    throttle.clear(major_minor)
    cleared = subprocess.run([sys.executable, str(CHECK_LIMITS)], capture_output=True, text=True)
    assert major_minor not in cleared.stdout, cleared.stdout
