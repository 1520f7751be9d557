"""Whole studies through the CLI, on a real local Spark: records, exports, reports, resume, ownership."""

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import write_spec

SPEC = """
name = "{name}"
repeats = {repeats}
probe = {{ size = "8MiB", runtime_s = 1 }}
[engine]
master = "local[2]"
driver_memory = "1g"
[storage.one]
data = ["{d}/disk1/tb"]
create_dirs = true
[storage.two]
data = ["{d}/disk1/tb"]
intermediate = {{ dirs = ["{d}/disk2/tb-tmp"], split = 2 }}
create_dirs = true
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "2MiB"
[[workloads]]
name = "dfsio-read"
[[workloads]]
name = "teragen"
rows = 20_000
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
"""

SENTINELS = ("disk1/sentinel.txt", "disk1/tb/sentinel.txt", "disk2/sentinel.txt", "disk2/tb-tmp/sentinel.txt")


def _plant_sentinels(root: Path) -> dict:
    out = {}
    for rel in SENTINELS:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"sentinel {rel}")
        out[p] = p.stat().st_mtime_ns
    return out


def _assert_sentinels(planted: dict):
    for p, mtime in planted.items():
        assert p.read_text().startswith("sentinel") and p.stat().st_mtime_ns == mtime, p


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """One complete study, shared by the tests that read its results."""
    from conftest import tierbench

    d = tmp_path_factory.mktemp("study")
    planted = _plant_sentinels(d)
    spec = write_spec(d / "s.toml", SPEC.format(name="e2e", repeats=2, d=d))
    out = tierbench("run", spec, "--out", d / "results", timeout=900)
    return d, out, planted


def test_study_runs_every_planned_run_and_records_it(study):
    d, out, _ = study
    assert out.returncode == 0, out.stderr[-3000:]
    assert "report:" in out.stdout
    records = [json.loads(l) for l in (d / "results" / "runs.jsonl").read_text().splitlines()]
    assert len(records) == 2 * 2 * 5
    assert all(r["status"] == "ok" for r in records), [r["error"] for r in records if r["status"] != "ok"]
    study_json = json.loads((d / "results" / "study.json").read_text())
    assert [p["key"] for p in study_json["plan"]] == [r["run_key"] for r in records]  # plan order, repeats interleaved
    for r in records:
        assert r["engine_version"].startswith("spark 4.3.0")
        assert r["engine_conf"]["spark.master"] == "local[2]"
        assert r["machine"]["cpu_cores"] == os.cpu_count() and r["tool_version"]
        assert r["wall_s"] > 0 and all(isinstance(v, (int, float)) for v in r["metrics"].values())
    local_dirs = next(r for r in records if r["config"] == "two")["engine_conf"]["spark.local.dir"].split(",")
    assert len(local_dirs) == 2 and all(re.search(r"/disk2/tb-tmp/tierbench/e2e-[0-9a-f]{8}/two/intermediate/dir", x) for x in local_dirs)
    gen = [r for r in records if r["workload"] == "teragen"]
    val = [r for r in records if r["workload"] == "teravalidate"]
    assert {r["details"]["checksum"] for r in gen} == {r["details"]["checksum"] for r in val}  # same rows every time
    dfsio = next(r for r in records if r["workload"] == "dfsio-write")
    assert dfsio["metrics"]["data_mb"] == 4 and dfsio["metrics"]["files"] == 2
    # each configuration's application started once, warmed up by every workload at a small size before its
    # first measured run, and kept idle through the other configuration's turn (no JVM start in repeat 2)
    warmed = {r["run_key"]: r["details"]["warm_up"] for r in records if "warm_up" in r["details"]}
    assert set(warmed) == {"r1/one/dfsio-write", "r1/two/dfsio-write"}
    assert all(w["workloads"] == ["dfsio-write", "dfsio-read", "teragen", "terasort", "teravalidate"] and not w.get("failed")
               for w in warmed.values()), warmed
    apps = study_json["engine_applications"]["spark"]
    assert (apps["started"], apps["resumed"]) == (2, 2) and apps["keep_alive_memory"] > 0
    assert set(dfsio["details"]["testdfsio"]) >= {"Throughput mb/sec", "Average IO rate mb/sec"}


def test_study_leaves_nothing_but_its_results_and_touches_no_one_elses_files(study):
    d, out, planted = study
    assert out.returncode == 0
    _assert_sentinels(planted)
    assert not (d / "disk1" / "tb" / "tierbench").exists() and not (d / "disk2" / "tb-tmp" / "tierbench").exists()
    assert sorted(p.name for p in (d / "disk1" / "tb").iterdir()) == ["sentinel.txt"]


def test_results_export_json_and_csv(study, tb):
    d, _, _ = study
    js = tb("results", d / "results", "--format", "json", check=True)
    runs = json.loads(js.stdout)
    required = {"study", "config", "workload", "engine", "repeat", "status", "wall_s", "metrics", "started_at", "error"}
    assert len(runs) == 20 and all(required <= set(r) for r in runs)
    assert runs[0]["study"] == "e2e" and runs[0]["engine"] == "spark"
    rows = list(csv.DictReader(io.StringIO(tb("results", d / "results", "--format", "csv", check=True).stdout)))
    assert len(rows) == 20 and "metrics.throughput_mb_s" in rows[0] and rows[0]["status"] == "ok"


def test_report_is_rendered_again_offline(study, tb):
    d, _, _ = study
    html_path = d / "results" / "report.html"
    html_path.unlink()
    out = tb("report", d / "results", check=True)
    html = html_path.read_text()
    assert "report.html" in out.stdout
    assert html.count("<svg") >= 3 and "Normalised runtime" in html
    for config in ("one", "two"):
        assert config in html
    for remote in ('src="http', "src='http", 'href="http', "href='http", "<link", "@import"):
        assert remote not in html  # opens offline: nothing loaded from elsewhere
    md = (d / "results" / "report.md").read_text()
    assert "| workload | config | runs |" in md and "teravalidate" in md
    assert "Device ceilings (fio)" in html and "IO profile per phase" in html and "of the device" in html
    assert html.count("class='figure timeline'") == 10  # one per configuration and workload


def test_rerun_without_resume_refuses_to_mix_results(study, tb):
    d, _, _ = study
    out = tb("run", d / "s.toml", "--out", d / "results")
    assert out.returncode == 2 and "--resume" in out.stderr and "Traceback" not in out.stderr


def test_refuses_a_root_it_does_not_own(tmp_path, tb_main):
    foreign = tmp_path / "disk1" / "tb" / "tierbench" / "mine"
    foreign.mkdir(parents=True)
    (foreign / "precious.dat").write_text("someone else's")
    spec = write_spec(tmp_path / "s.toml", SPEC.format(name="mine", repeats=1, d=tmp_path))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "not created by tierbench" in out.stderr
    assert (foreign / "precious.dat").read_text() == "someone else's"
    assert not (tmp_path / "res").exists()


def test_refuses_an_out_dir_that_is_not_its_own(tmp_path, tb_main):
    out_dir = tmp_path / "res"
    out_dir.mkdir()
    (out_dir / "thesis.tex").write_text("keep me")
    spec = write_spec(tmp_path / "s.toml", SPEC.format(name="o", repeats=1, d=tmp_path))
    out = tb_main("run", spec, "--out", out_dir)
    assert out.returncode == 2 and "holds no tierbench results" in out.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["thesis.tex"]


@pytest.mark.e2e
def test_resume_after_sigkill_neither_loses_nor_repeats_a_run(tmp_path, tb):
    planted = _plant_sentinels(tmp_path)
    spec = write_spec(tmp_path / "s.toml", SPEC.format(name="killed", repeats=2, d=tmp_path))
    runs = tmp_path / "res" / "runs.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(tmp_path / "res")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    # kill it in the middle of repeat 1's "one" group: after the 3rd run is recorded
    while time.time() < deadline and (not runs.exists() or len(runs.read_text().splitlines()) < 3):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = [json.loads(l) for l in runs.read_text().splitlines() if l.strip()]
    assert 3 <= len(before) < 20
    out = tb("run", spec, "--out", tmp_path / "res", "--resume", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    after = [json.loads(l) for l in runs.read_text().splitlines()]
    assert after[: len(before)] == before  # nothing lost or rewritten
    ok_keys = [r["run_key"] for r in after if r["status"] == "ok"]
    assert len(ok_keys) == len(set(ok_keys)) == 20  # every planned run exactly once
    assert "resuming:" in out.stderr
    _assert_sentinels(planted)
