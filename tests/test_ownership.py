"""tierbench deletes only what it created and signals only what it started (issue 31's high-severity cases).
Fast: no JVM; real processes (`sleep`, `sh`) stand in for the ones a user owns."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tierbench import processes
from tierbench.cli.main import main
from tierbench.ownership import OwnershipError, remove_owned, valid_name


def _sleeper() -> subprocess.Popen:
    """A process tierbench did not start (as far as it can know): the user's."""
    return subprocess.Popen(["sleep", "300"], start_new_session=True)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    home = tmp_path / "cache"
    monkeypatch.setenv("TIERBENCH_CACHE", str(home))
    return home


def _forged_device(folder: Path) -> None:
    """A device.json as `emulate up` writes it, naming a real block device: the only condition 1fee566 checked."""
    folder.mkdir(parents=True)
    (folder / "device.json").write_text(json.dumps({
        "name": folder.name, "profile": {"name": "hdd", "read_mb_s": 1, "write_mb_s": 1, "read_iops": 1, "write_iops": 1,
                                         "source": "x"},
        "size_bytes": 1, "loop": "/dev/loop99", "major_minor": "7:99", "image": str(folder / "disk.img"),
        "mount": str(folder / "mnt")}))
    (folder / "keep.txt").write_text("the user's")


@pytest.mark.parametrize("name", ["../../victim", "ABSOLUTE", "x\n", "a/b", ".hidden", ""])
def test_emulate_down_and_up_refuse_a_name_that_is_not_a_plain_name(name, cache, tmp_path, capsys):
    victim = tmp_path / "victim"
    _forged_device(victim)
    (cache / "emulate").mkdir(parents=True)
    name = str(victim) if name == "ABSOLUTE" else name
    for action in ("down", "up"):
        assert main(["emulate", action, name, "--no-check"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("tierbench: error:") and len(err.splitlines()) == 1, err
    assert (victim / "keep.txt").read_text() == "the user's" and (victim / "device.json").is_file()


def test_emulate_down_refuses_a_state_file_that_names_paths_not_its_own(cache, tmp_path, capsys):
    folder = cache / "emulate" / "hdd1"
    _forged_device(folder)
    state = json.loads((folder / "device.json").read_text())
    state["mount"] = str(tmp_path)  # someone else's directory: down would unmount it
    (folder / "device.json").write_text(json.dumps(state))
    assert main(["emulate", "down", "hdd1"]) == 2
    assert "will not act on it" in capsys.readouterr().err
    assert (folder / "keep.txt").is_file()


def test_remove_owned_refuses_paths_outside_a_marked_root_also_through_a_link(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (outside / "data").mkdir(parents=True)
    root.mkdir()
    (root / ".mark").write_text("")
    (root / "link").symlink_to(outside)
    with pytest.raises(OwnershipError):
        remove_owned(root / "link" / "data", [root], ".mark")  # inside by its name, outside once resolved
    with pytest.raises(OwnershipError):
        remove_owned(root, [root], ".mark")  # the root itself is not "inside" it
    remove_owned(root / "link", [root], ".mark")  # the link itself is ours: removed as a link
    assert (outside / "data").is_dir() and not (root / "link").exists()
    (root / "mark-less").mkdir()
    (root / ".mark").unlink()
    with pytest.raises(OwnershipError):
        remove_owned(root / "mark-less", [root], ".mark")


def test_names_are_matched_whole():
    assert valid_name("quick-1.x") and not valid_name("quick\n") and not valid_name("..") and not valid_name("a" * 65)


@pytest.mark.parametrize("content", ["PLAIN", "JSON"])
def test_services_down_never_signals_a_process_a_stale_pid_file_names(content, cache, capsys):
    user = _sleeper()
    try:
        pids = cache / "services" / "hdfs" / "pids"
        pids.mkdir(parents=True)
        if content == "PLAIN":  # as 1fee566 wrote them: a bare number
            (pids / "namenode.pid").write_text(str(user.pid))
        else:  # an identity whose start time is another process's (the pid was reused since)
            ident = processes.identity(user.pid)
            (pids / "namenode.pid").write_text(json.dumps({**ident, "start_time": ident["start_time"] - 1}))
        assert main(["services", "down", "hdfs"]) == 0
        assert "was not running" in capsys.readouterr().out
        time.sleep(0.2)
        assert user.poll() is None, "services down signalled a process it did not start"
    finally:
        user.kill()
        user.wait()


def test_a_daemon_tierbench_started_is_stopped_by_its_recorded_identity(tmp_path):
    from tierbench.services.base import Daemon

    d = Daemon(tmp_path, "sleeper")
    pid = d.start(["sleep", "300"])
    assert json.loads(d.pid_file.read_text())["start_time"] == processes.start_time(pid)
    assert d.pid() == pid and d.stop(grace_s=5) and processes.start_time(pid) is None


def test_run_ends_the_whole_group_on_an_interrupt(tmp_path):
    """A command whose child would outlive it (sh -c 'sleep & wait'): on Ctrl-C or SIGTERM tierbench's run ends
    the group before the exception goes on (subprocess.run kills the shell alone)."""
    marker = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {marker}; wait"

    def interrupt_soon(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt_soon)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            processes.run(["sh", "-c", script])
    finally:
        signal.signal(signal.SIGALRM, old)
    child = int(marker.read_text())
    deadline = time.time() + 5
    while processes.start_time(child) is not None and time.time() < deadline:
        time.sleep(0.05)
    assert processes.start_time(child) is None, "the command's child outlived the interrupt"


def test_a_terminal_ctrl_c_reaches_tierbench_alone_and_no_child_outlives_it(tmp_path):
    """SIGINT to tierbench's whole process group (what a terminal sends): a child it spawned is in a group of
    its own, so it is not cut short mid-write, and it is ended by tierbench on its way out."""
    marker, ready = tmp_path / "child.pid", tmp_path / "ready"
    code = ("import signal, sys, time; from tierbench import processes\n"
            # as from a terminal: a test run started in the background of a non-interactive shell ignores SIGINT
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from tierbench.cli.main import main\n"
            f"p = processes.spawn(['sh', '-c', 'sleep 300 & echo $! > {marker}; wait'])\n"
            "import tierbench.cli.main as m\n"
            f"def fake(args):\n    open({str(ready)!r}, 'w').close()\n    time.sleep(60)\n    return 0\n"
            "m.workloads.run = fake\n"
            "sys.exit(main(['workloads']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60  # (main's signal handling is in place once the verb runs: a loaded machine is slow)
    while not (marker.exists() and ready.exists()) and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # the terminal: every process of the foreground group
    _, err = proc.communicate(timeout=30)
    child = int(marker.read_text())
    assert proc.returncode == 130, err
    deadline = time.time() + 5
    while processes.start_time(child) is not None and time.time() < deadline:
        time.sleep(0.05)
    assert processes.start_time(child) is None, "a child outlived tierbench's Ctrl-C"


# (a zombie waiting for init to reap it is gone: kill -0 would still find it)
SETUP_STUDY = """\
import signal, sys
sys.path.insert(0, {tests!r})
from test_cluster_configs import run_fake
from tierbench.cli.main import _stop_on
from pathlib import Path
signal.signal(signal.SIGTERM, _stop_on)
d = Path({d!r})
run_fake(d, '''
[storage.a]
data = ["{d}/data-a"]
setup = 'sleep 300 & echo $! > {d}/setup-child.pid; wait'
teardown = 's=$(cut -d" " -f3 /proc/$(cat {d}/setup-child.pid)/stat 2>/dev/null); if [ -n "$s" ] && [ "$s" != Z ]; then echo alive; else echo gone; fi > {d}/at-teardown'
''')
"""


def test_a_setup_stopped_by_sigterm_takes_its_children_with_it_before_the_teardown(tmp_path):
    code = SETUP_STUDY.format(tests=str(Path(__file__).parent), d=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, start_new_session=True)
    marker = tmp_path / "setup-child.pid"
    deadline = time.time() + 30
    while not marker.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert marker.exists(), proc.stderr.read() if proc.poll() is not None else "the setup did not start"
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)  # to tierbench alone, as a service manager stops it
    _, err = proc.communicate(timeout=60)
    assert (tmp_path / "at-teardown").read_text().strip() == "gone", err
    assert processes.start_time(int(marker.read_text())) is None


@pytest.fixture
def small_disk(tmp_path):
    """A real 8 MB file system (tmpfs), so that a full disk is the kernel's ENOSPC; root only."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], check=True)
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_run_that_fills_its_disk_leaves_it_as_it_found_it(small_disk, tmp_path):
    import shutil

    from test_cluster_configs import JOB_RESULTS, TERA_TOML, spec_of
    from tierbench.engines.fake import FakeEngine
    from tierbench.study.runner import StudyRunner
    from tierbench.store import ResultsDir

    spec = spec_of(tmp_path, "", f'[storage.a]\ndata = ["{small_disk}/data"]\n', TERA_TOML)
    for resume in (False, True):  # and again on --resume: the device is not left full by either attempt
        StudyRunner(spec, tmp_path / "results", ["test"], resume=resume,
                    engines={"spark": FakeEngine(JOB_RESULTS, fill={"terasort"})}).run()
        recs = {r["run_key"]: r for r in ResultsDir(tmp_path / "results").records()}
        assert recs["r1/a/terasort"]["status"] == "failed" and "No space left" in recs["r1/a/terasort"]["error"]
        usage = shutil.disk_usage(small_disk)
        assert usage.used < usage.total * 0.2, f"{usage.used} of {usage.total} bytes still used"


def test_probe_refuses_a_size_the_device_cannot_hold_before_writing_anything(small_disk, tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "p"\n[storage.a]\ndata = ["{small_disk}/data"]\n[[workloads]]\nname = "teragen"\nrows = 1000\n')
    before = sorted(p.name for p in small_disk.iterdir())
    assert main(["probe", str(spec), "--size", "500TB", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "free" in err[0] and "--size" in err[0], err
    assert sorted(p.name for p in small_disk.iterdir()) == before and not (tmp_path / "out").exists()


def test_results_inside_a_kept_data_root_are_refused_and_the_kept_data_stays(tmp_path):
    import tomllib

    from test_cluster_configs import JOB_RESULTS, TERA_TOML
    from tierbench.engines.fake import FakeEngine
    from tierbench.study.runner import StudyRunner
    from tierbench.spec import parse_spec

    text = f'name = "kept"\nkeep_data = true\ndrop_caches = "never"\n[sampling]\nenabled = false\n' \
           f'[storage.a]\ndata = ["{tmp_path}/data"]\n' + TERA_TOML
    spec = parse_spec(tomllib.loads(text), "s.toml", tmp_path)
    StudyRunner(spec, tmp_path / "results", ["test"], engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    root = tmp_path / "data" / "tierbench" / "kept"
    (root / "kept.txt").write_text("data the user kept")
    inside = root / "new-results"
    with pytest.raises(OwnershipError, match="inside"):
        StudyRunner(spec, inside, ["test"], engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    assert (root / "kept.txt").is_file() and not inside.exists()


def test_a_full_results_disk_is_one_line_with_every_finished_run_recorded(small_disk, tmp_path):
    """A run whose logs fill the results folder's disk: its record still goes in (in the room tierbench keeps for
    records), the study stops in one line, and no partial study.tmp is left."""
    from test_cluster_configs import JOB_RESULTS, TERA_TOML, spec_of
    from tierbench.engines.fake import FakeEngine
    from tierbench.errors import UserError
    from tierbench.study.runner import StudyRunner
    from tierbench.store import ResultsDir

    out = small_disk / "results"

    class ChattyEngine(FakeEngine):  # a job whose log fills the disk (the disk and its ENOSPC are real)
        def run(self, req, on_progress):
            outcome = super().run(req, on_progress)
            if req.workload.name == "terasort":
                with open(out / "logs" / "chatty.log", "wb") as f:
                    try:
                        while True:
                            f.write(b"x" * (1 << 16))
                            f.flush()
                    except OSError:
                        pass
            return outcome

    spec = spec_of(tmp_path, "", f'[storage.a]\ndata = ["{tmp_path}/data"]\n', TERA_TOML)
    with pytest.raises(UserError, match="is full: the run that just ended is recorded"):
        StudyRunner(spec, out, ["test"], engines={"spark": ChattyEngine(JOB_RESULTS)}).run()
    recs = [r["run_key"] for r in ResultsDir(out).records()]
    assert recs == ["r1/a/teragen", "r1/a/terasort"]
    assert not list(out.glob("*.tmp"))


def test_a_stray_probe_json_does_not_make_a_users_folder_tierbenchs(tmp_path):
    from tierbench.errors import UserError
    from tierbench.store import ResultsDir

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "probe.json").write_text('{"my": "notes"}')
    with pytest.raises(UserError, match="not empty"):
        ResultsDir(folder).check_writable_as_new()
    (folder / "probe.json").write_text(json.dumps({"/dev/sda": {"device": "sda", "dirs": ["/d"], "tests": {}}}))
    ResultsDir(folder).check_writable_as_new()  # tierbench probe's own result: the study takes it over
