"""A real Spark JVM killed during a job and between jobs: the run that was hit is failed with the cause, the
next, unrelated run gets a fresh application and succeeds (issue 17, item 6). End-to-end: real Spark."""

import os
import signal
import threading
import time
import tomllib
import textwrap

import pytest

from tierbench.engines.spark import SparkEngine
from tierbench.job import JobRequest
from tierbench.sampling.procfs import descendants
from tierbench.spec import parse_spec
from tierbench.storage.types import to_uri

pytestmark = pytest.mark.e2e


@pytest.fixture
def engine(tmp_path):
    spec = parse_spec(tomllib.loads(textwrap.dedent(f"""
        name = "faults"
        [engine]
        master = "local[2]"
        [storage.a]
        data = ["{tmp_path}/data"]
        [[workloads]]
        name = "teragen"
        rows = 3_000_000
        tasks = 2
        [[workloads]]
        name = "dfsio-write"
        files = 2
        file_size = "1MiB"
        """)), "faults.toml", tmp_path)
    e = SparkEngine(spec.engines[0], spec.name, tmp_path)
    yield spec, e
    e.close()


def request(spec, tmp_path, label: str, key: str) -> JobRequest:
    w = next(w for w in spec.workloads if w.label == label)
    return JobRequest(key, w, None, [], [to_uri(tmp_path / "data" / key)], [tmp_path / "local"], tmp_path / "scratch" / key)


def jvm_of(e: SparkEngine) -> int:
    java = [p for p in descendants(e._app.proc.pid) if "java" in open(f"/proc/{p}/cmdline").read()]
    assert java, "no JVM below the Spark worker"
    return java[0]


def test_a_jvm_killed_during_a_job_fails_that_run_with_the_cause_and_the_next_run_succeeds(engine, tmp_path):
    spec, e = engine
    e.open("a", spec.storage[0], [tmp_path / "local"], lambda t: None)
    jvm = jvm_of(e)
    started = threading.Event()
    killer = threading.Thread(target=lambda: started.wait(60) and (time.sleep(0.3), os.kill(jvm, signal.SIGKILL)))
    killer.start()
    out = e.run(request(spec, tmp_path, "teragen", "r1"), lambda ev: started.set())
    killer.join()
    assert not out.ok and "killed by SIGKILL" in out.error and "fresh Spark application" in out.error
    phases = []
    e.open("a", spec.storage[0], [tmp_path / "local"], phases.append)
    assert phases and jvm_of(e) != jvm
    assert e.run(request(spec, tmp_path, "dfsio-write", "r2"), lambda ev: None).ok


def test_a_jvm_that_died_between_jobs_is_replaced_before_the_next_run(engine, tmp_path):
    spec, e = engine
    e.open("a", spec.storage[0], [tmp_path / "local"], lambda t: None)
    assert e.run(request(spec, tmp_path, "dfsio-write", "r1"), lambda ev: None).ok
    jvm = jvm_of(e)
    os.kill(jvm, signal.SIGKILL)
    time.sleep(0.5)
    phases = []
    e.open("a", spec.storage[0], [tmp_path / "local"], phases.append)
    assert any("had died" in p for p in phases)
    assert e.run(request(spec, tmp_path, "dfsio-write", "r2"), lambda ev: None).ok


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_a_study_as_ctrl_c_does_and_it_resumes(tmp_path, sig):
    import json
    import subprocess
    import sys

    from conftest import SMALL_WORKLOADS, tierbench, write_spec

    spec = write_spec(tmp_path / "s.toml", f"""
name = "stopped"
repeats = 2
warm_up = false
[engine]
master = "local[2]"
[storage.a]
data = ["{tmp_path}/data"]
{SMALL_WORKLOADS}""")
    runs = tmp_path / "res" / "runs.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(tmp_path / "res")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and not (runs.exists() and len(runs.read_text().splitlines()) >= 2):
        time.sleep(0.2)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 128 + sig.value, err[-2000:]
    assert f"interrupted by {sig.name}; finished runs are saved: continue with --resume" in err
    done = [json.loads(l)["run_key"] for l in runs.read_text().splitlines()]
    out = tierbench("run", spec, "--out", tmp_path / "res", "--resume", timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    ok = [json.loads(l) for l in runs.read_text().splitlines()]
    keys = [r["run_key"] for r in ok if r["status"] == "ok"]
    assert sorted(set(keys)) == sorted(keys) and len(keys) == 10  # none lost, none twice
    assert [r["run_key"] for r in ok][: len(done)] == done


@pytest.mark.parametrize("data", [
    'data = {{ type = "s3", endpoint = "http://127.0.0.1:{port}", bucket = "bench" }}',
    'data = {{ type = "hdfs", uri = "hdfs://127.0.0.1:{port}/tb" }}',
])
def test_a_dead_endpoint_fails_in_seconds_in_one_line_and_nothing_is_created(tmp_path, data, monkeypatch):
    """A closed port is what a dead S3 gateway or NameNode looks like to a client."""
    from conftest import tierbench, write_spec
    from tierbench.services.base import free_port

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    spec = write_spec(tmp_path / "s.toml", f"""
name = "dead"
[storage.remote]
{data.format(port=free_port())}
intermediate = ["{tmp_path}/work/tmp"]
create_dirs = true
[[workloads]]
name = "teragen"
""")
    t0 = time.perf_counter()
    out = tierbench("run", spec, "--out", tmp_path / "work" / "res", timeout=300)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Connection refused" in out.stderr or "connection refused" in out.stderr.lower()
    assert time.perf_counter() - t0 < 60, f"took {time.perf_counter() - t0:.0f} s"
    assert not (tmp_path / "work").exists()


def test_ctrl_c_to_the_terminal_group_leaves_no_spark_jvm_behind(tmp_path):
    """A terminal's Ctrl-C (SIGINT to the whole foreground group) while the second configuration's application is
    up: tierbench stops both applications (the idle one too) and exits 130; none of its processes outlives it
    (1fee566 left the second JVM running with parent 1, holding its local dirs in the data root)."""
    import subprocess
    import sys

    from conftest import TERA_SMALL, write_spec
    from tierbench import processes

    spec = write_spec(tmp_path / "s.toml", f"""
name = "ctrlc"
repeats = 3
warm_up = false
[engine]
master = "local[2]"
[storage.a]
data = ["{tmp_path}/data-a"]
[storage.b]
data = ["{tmp_path}/data-b"]
[storage.c]
data = ["{tmp_path}/data-c"]
{TERA_SMALL}""")  # (three repeats of three configurations: most of the study is still to run when the Ctrl-C comes)
    runs = tmp_path / "res" / "runs.jsonl"
    # A terminal's foreground job hears SIGINT. A test runner started in the background of a script (`pytest &`)
    # passes SIGINT on ignored, and tierbench then rightly ignores it too: it ran the whole study and exited 0. So the
    # child starts as a foreground job would, SIGINT at its default.
    p = subprocess.Popen([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(tmp_path / "res")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    java = lambda: [pid for pid in descendants(p.pid) if "java" in (processes.identity(pid) or {}).get("command", "")]
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None and not (runs.exists() and len(runs.read_text().splitlines()) >= 3
                                                               and len(java()) >= 2):
        time.sleep(0.2)
    children = [processes.identity(pid) for pid in descendants(p.pid)]
    assert len(java()) >= 2, "the second configuration's application did not start"
    os.killpg(p.pid, signal.SIGINT)  # what the terminal sends
    _, err = p.communicate(timeout=180)
    assert p.returncode == 130, err[-2000:]
    deadline = time.time() + 10
    while time.time() < deadline and any(c and processes.is_same(c) for c in children):
        time.sleep(0.2)
    left = [c for c in children if c and processes.is_same(c)]
    assert not left, f"outlived tierbench: {left}"
