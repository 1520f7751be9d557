"""Issue 60, end to end: a real Spark study whose data and intermediate dirs have spaces and ` -javaagent:...` in
their paths runs ok, with no agent option reaching the driver's JVM (on 9a95184 the path went into
spark.driver.extraJavaOptions, which Spark splits at whitespace: the JVM tried to load the agent); and a Spark
application that does not start in time is one line saying what to try, not a traceback. One small TeraGen; the
second study's JVM is stopped a second into its start."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tierbench.toolchain import cache_dir

AGENT = " -javaagent:/nonexistent/tierbench-agent.jar"


def spec_file(d: Path) -> Path:
    data, inter = d / f"my data{AGENT}", d / f"my tmp{AGENT}"
    spec = d / "study.toml"
    spec.write_text(textwrap.dedent(f"""
        name = "injected"
        repeats = 1
        drop_caches = "never"
        warm_up = false
        [sampling]
        enabled = false
        [engine]
        master = "local[2]"
        [storage.a]
        create_dirs = true  # (the hostile path's own parent, "... -javaagent:/nonexistent", is made by the study)
        data = [{json.dumps(str(data))}]
        intermediate = [{json.dumps(str(inter))}]
        [[workloads]]
        name = "teragen"
        rows = 20_000
        tasks = 2
        """))
    return spec


def run(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tierbench", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **(env or {})})


@pytest.mark.e2e
def test_a_path_with_spaces_and_an_agent_option_is_one_path_to_spark(tmp_path):
    spec = spec_file(tmp_path)
    out = run("run", spec, "--out", tmp_path / "results")
    assert out.returncode == 0, out.stderr[-2000:]
    (record,) = [json.loads(line) for line in (tmp_path / "results" / "runs.jsonl").read_text().splitlines()]
    assert record["status"] == "ok", record.get("error")
    conf = record["engine_conf"]
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        assert "javaagent" not in conf[key] and str(tmp_path) not in conf[key], conf[key]
    assert conf["spark.local.dir"].startswith(str(tmp_path / f"my tmp{AGENT}"))  # the path itself, whole
    log = (tmp_path / "results" / "logs" / "spark-a.log").read_text()
    assert "javaagent" not in log and "Could not find or load main class" not in log
    # the application's temporary folder, tierbench's own, is gone with it
    assert not [p for p in (cache_dir() / "jvm-tmp").glob("injected-*")]

    # a start that does not come in time: one line saying what to try, nothing left running
    slow = run("run", spec, "--out", tmp_path / "slow", env={"TIERBENCH_SPARK_START_TIMEOUT": "1"})
    assert slow.returncode != 0 and "Traceback" not in slow.stderr, slow.stderr[-2000:]
    (line,) = [l for l in slow.stderr.splitlines() if "did not start within 1 s" in l]
    assert "TIERBENCH_SPARK_START_TIMEOUT" in line
