"""Fault injection (issue 17): a study on a real HDFS (services up hdfs, 2 DataNodes) and real Spark, during which
the engine's JVM, tierbench itself, the NameNode and a DataNode are killed, each at a random point (a random
number of recorded runs), in a random order. After each fault the service is brought back and the study is
resumed. Checks: no recorded run is lost or duplicated, every failed run says why, the study resumes to
completion and its report counts every run. TIERBENCH_FAULT_SEED=N replays an order. (No warm-up: each restart's
would cost ~7 s, and this test is about what is recorded, not how fast.)"""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import SMALL_WORKLOADS, daemon_pid, tierbench, write_spec
from tierbench.sampling.procfs import descendants

pytestmark = pytest.mark.e2e
FAULTS = ("jvm", "tierbench", "namenode", "datanode")


def lines(path) -> list[dict]:
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()] if path.exists() else []


def kill_pid_file(path) -> None:
    try:
        os.kill(daemon_pid(path), signal.SIGKILL)
    except OSError:  # (no pid file: the service is down already)
        pass


def test_a_study_survives_random_kills_and_resumes_to_a_complete_report(tmp_path):
    seed = int(os.environ.get("TIERBENCH_FAULT_SEED", random.randrange(1 << 30)))
    rnd = random.Random(seed)
    faults = list(FAULTS)
    rnd.shuffle(faults)
    why = f"(seed {seed}, faults in order {faults})"
    svc = tmp_path / "svc"
    up = tierbench("services", "up", "hdfs", "--dir", svc, "--datanodes", "2", timeout=300)
    assert up.returncode == 0, up.stderr[-2000:]
    try:
        uri = json.loads((svc / "service.json").read_text())["uri"]
        spec = write_spec(tmp_path / "s.toml", f"""
name = "faults"
repeats = 3
warm_up = false
[engine]
master = "local[2]"
[storage.hdfs]
data = {{ type = "hdfs", uri = "{uri}/tb", replication = 1 }}
intermediate = ["{tmp_path}/tmp"]
{SMALL_WORKLOADS}""")
        runs = tmp_path / "res" / "runs.jsonl"
        for fault in faults:
            before = lines(runs)
            target = len(before) + rnd.randint(1, 3)
            p = subprocess.Popen([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(tmp_path / "res"),
                                  *(["--resume"] if before else [])], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 300
            while time.time() < deadline and p.poll() is None and len(lines(runs)) < target:
                time.sleep(0.2)
            if fault == "jvm":
                for pid in descendants(p.pid):
                    if "java" in open(f"/proc/{pid}/cmdline").read():
                        os.kill(pid, signal.SIGKILL)
            elif fault == "tierbench":
                p.send_signal(signal.SIGKILL)
            elif fault == "namenode":
                kill_pid_file(svc / "pids" / "namenode.pid")
            else:
                kill_pid_file(svc / "pids" / "datanode-2.pid")
            try:
                _, err = p.communicate(timeout=900)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
                pytest.fail(f"tierbench hung after the {fault} fault {why}: {err[-1500:]}")
            after = lines(runs)
            assert after[: len(before)] == before, f"recorded runs changed after the {fault} fault {why}"
            assert all(r["error"] for r in after if r["status"] != "ok"), f"a failed run without its cause {why}"
            if fault in ("namenode", "datanode"):  # bring the service back, on the same address
                tierbench("services", "down", "hdfs", "--dir", svc, timeout=120)
                again = tierbench("services", "up", "hdfs", "--dir", svc, "--datanodes", "2", timeout=300)
                assert again.returncode == 0 and uri in again.stdout, again.stderr[-2000:] + why
        for _ in range(3):  # resume to completion
            out = tierbench("run", spec, "--out", tmp_path / "res", "--resume", timeout=900)
            if out.returncode == 0:
                break
        assert out.returncode == 0, out.stderr[-2000:] + why
        recs = lines(runs)
        ok = [r["run_key"] for r in recs if r["status"] == "ok"]
        assert len(ok) == len(set(ok)) == 15, f"{len(ok)} ok records, {len(set(ok))} distinct {why}"
        report = (tmp_path / "res" / "report.md").read_text()
        assert report.count("| ok |") == 15 and "Traceback" not in report
    finally:
        tierbench("services", "down", "hdfs", "--dir", svc, timeout=120)
