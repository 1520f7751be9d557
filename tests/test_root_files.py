"""Issue 60: what tierbench writes as root stays in folders it owns, and stays readable.

Services dirs are tierbench's or empty: `services up --dir` refuses a folder holding files it did not make (a copy
of a small tree standing for /etc here), and `down` / `status` there touch nothing: no pid file written or deleted,
no log appended, no process signalled. Sizes: `predict --nodes` takes a bounded number of counts, and a derived file
larger than its reader takes is refused before it is written (else report, advise and predict refuse the folder).
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import one_error_line, tierbench_main
from test_sentinels import nothing_starts, snapshot  # noqa: F401 (nothing_starts: a fixture, its guards)

from tierbench.errors import UserError
from tierbench.processes import identity
from tierbench.services.base import SERVICE_MARK, check_dir, claim_dir
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures"
DAEMONS = {"hdfs": "namenode", "yarn": "resourcemanager", "spark": "master", "s3": "mon"}


@pytest.fixture
def users_process():
    """A user's process, which a pid file in the user's folder names (as a daemon's pid file of tierbench's would)."""
    proc = subprocess.Popen(["sleep", "600"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture
def etc_copy(tmp_path, monkeypatch, users_process):
    """A small tree standing for /etc: a few of its files, and the pids/ and logs/ a careless --dir would collide with."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    etc = tmp_path / "etc"
    etc.mkdir()
    for name in ("hostname", "hosts", "passwd", "group"):
        if Path("/etc", name).is_file():
            shutil.copy(Path("/etc", name), etc / name)
    (etc / "fstab").write_text("# the user's fstab\n")
    (etc / "pids").mkdir()
    (etc / "logs").mkdir()
    for daemon in DAEMONS.values():
        (etc / "pids" / f"{daemon}.pid").write_text(json.dumps(identity(users_process.pid)))
        (etc / "logs" / f"{daemon}.log").write_text("the user's log\n")
    return etc


@pytest.mark.usefixtures("nothing_starts")
@pytest.mark.parametrize("service", sorted(DAEMONS))
def test_a_foreign_services_dir_is_refused_and_nothing_in_it_touched(etc_copy, users_process, service):
    before = snapshot(etc_copy)
    for action in ("down", "status", "up"):
        out = tierbench_main("services", action, service, "--dir", etc_copy)
        one_error_line(out, str(etc_copy), "did not make", SERVICE_MARK)
        assert snapshot(etc_copy) == before, f"services {action} {service} changed the folder"
        assert users_process.poll() is None, f"services {action} {service} signalled the user's process"


@pytest.mark.usefixtures("nothing_starts")
def test_the_library_refuses_a_foreign_folder_too(etc_copy):
    from tierbench.services.registry import SERVICES

    before = snapshot(etc_copy)
    for name, service in SERVICES.items():
        with pytest.raises(UserError, match="did not make"):
            service(etc_copy).up(on_phase=lambda _: None)
    assert snapshot(etc_copy) == before


def test_a_new_or_empty_folder_is_marked_and_then_its_own(tmp_path, users_process):
    new, empty = tmp_path / "new" / "svc", tmp_path / "empty"
    empty.mkdir()
    for d in (new, empty):
        claim_dir(d, "hdfs")
        assert (d / SERVICE_MARK).is_file()
        (d / "pids").mkdir()
        (d / "pids" / "namenode.pid").write_text(json.dumps({"pid": 2 ** 22 + 1, "start_time": 1}))  # stale
        check_dir(d, "hdfs")  # (marked: its files are tierbench's)
        out = tierbench_main("services", "down", "hdfs", "--dir", d, check=True)
        assert "was not running" in out.stdout and not (d / "pids" / "namenode.pid").exists()


def test_a_default_services_dir_of_an_older_version_stays_usable(tmp_path, monkeypatch):
    """Made before the mark existed (pids/ and logs/, no mark), under tierbench's own cache: still its own."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    old = tmp_path / "cache" / "services" / "yarn"
    (old / "pids").mkdir(parents=True)
    (old / "logs").mkdir()
    (old / "logs" / "resourcemanager.log").write_text("an older run\n")
    (old / "pids" / "resourcemanager.pid").write_text(json.dumps({"pid": 2 ** 22 + 1, "start_time": 1}))
    assert tierbench_main("services", "status", "yarn").returncode == 3  # (not running: said, not refused)
    out = tierbench_main("services", "down", "yarn", check=True)
    assert "was not running" in out.stdout and not (old / "pids" / "resourcemanager.pid").exists()
    with pytest.raises(UserError, match="did not make"):
        check_dir(tmp_path / "cache", "yarn")  # (the cache itself is not a service's dir)


# -- sizes: what is written stays readable --------------------------------------------------------------------

@pytest.fixture
def results(tmp_path):
    shutil.copytree(FIXTURES / "model-results", tmp_path / "r")
    return tmp_path / "r"


def test_predict_refuses_thousands_of_node_counts_and_writes_nothing(results):
    before = snapshot(results)
    many = ",".join(str(n) for n in range(1, 3001))
    one_error_line(tierbench_main("predict", results, "--cloud", "aws", "--nodes", many), "3000 node counts", "at most 64")
    assert snapshot(results) == before
    sixty_four = ",".join(str(n) for n in range(1, 65))
    tierbench_main("predict", results, "--cloud", "aws", "--nodes", sixty_four, check=True)
    assert len(json.loads((results / "predictions.json").read_text())["cloud"]["nodes"]) == 64
    tierbench_main("report", results, check=True)  # (what was written is read back)


def test_a_derived_file_larger_than_its_reader_takes_is_refused_before_it_is_written(results):
    big = {f"/dev/dev{i}": {"device": f"dev{i}", "dirs": ["/x" * 100], "tests": {"seq_read": "x" * 1000}}
           for i in range(1200)}  # (the shape of a probe result, 1.3 MB: probe.json is read up to 1 MB)
    before = snapshot(results)
    with pytest.raises(UserError, match="more than tierbench reads back") as e:
        ResultsDir(results).save_derived("probe", big)
    assert "\n" not in str(e.value) and str(results / "probe.json") in str(e.value)
    assert snapshot(results) == before  # (no probe.json, no temporary file)
    ResultsDir(results).load()
