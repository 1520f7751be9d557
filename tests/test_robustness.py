"""Nothing lost, nobody in (issue 17): locks, torn and malformed records, credentials, file-system errors,
absurd sizes, a directory given as spec. Fast: real processes hold the locks; studies run on the FakeEngine."""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import one_error_line, write_spec
from test_lifecycle import JOB_RESULTS, make_spec
from tierbench.engines.fake import FakeEngine
from tierbench.errors import SpecError, UserError
from tierbench.study.runner import StudyRunner
from tierbench.spec import parse_spec
from tierbench.store import ResultsDir

SPEC = """
name = "r"
repeats = 1
[storage.a]
data = ["{d}/data"]
[[workloads]]
name = "teragen"
"""


def hold(code: str) -> subprocess.Popen:
    """Another process that takes a lock the way tierbench does and keeps it until killed."""
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code) + "\nprint('held', flush=True)\nimport time; time.sleep(60)"],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_second_study_on_the_same_results_folder_is_refused_naming_the_holder(tmp_path, tb_main):
    holder = hold(f"from tierbench.store import ResultsDir\nResultsDir({str(tmp_path / 'res')!r}).lock()")
    try:
        spec = write_spec(tmp_path / "s.toml", SPEC.format(d=tmp_path))
        one_error_line(tb_main("run", spec, "--out", tmp_path / "res"), "in use by another tierbench", f"PID {holder.pid}")
    finally:
        holder.kill()
        holder.wait()
    assert not (tmp_path / "data").exists()  # refused before any data root was made


def test_a_second_study_on_the_same_data_roots_is_refused_and_the_first_keeps_its_data(tmp_path, tb_main):
    from tierbench.study.identity import new_study_id

    # (a study's roots are its results folder's: the first holds those of the folder the second is given)
    root = tmp_path / "data" / "tierbench" / f"r-{new_study_id(tmp_path / 'other-res')}"
    holder = hold(f"""
        import tomllib
        from pathlib import Path
        from tierbench.scale.derive import parse_in
        from tierbench.storage import StudyLayout
        layout = StudyLayout(parse_in(tomllib.loads({SPEC.format(d=tmp_path)!r}), "s.toml", None, Path({str(tmp_path / 'other-res')!r})))
        layout.claim()
        (Path({str(root)!r}) / "in-progress").write_text("the first study's data")""")
    try:
        spec = write_spec(tmp_path / "s.toml", SPEC.format(d=tmp_path))
        one_error_line(tb_main("run", spec, "--out", tmp_path / "other-res"), "in use by another tierbench", f"PID {holder.pid}")
        assert (root / "in-progress").read_text() == "the first study's data"
        assert not (tmp_path / "other-res").exists()
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_dies_with_its_holder(tmp_path):
    holder = hold(f"from tierbench.store import ResultsDir\nResultsDir({str(tmp_path / 'res')!r}).lock()")
    holder.kill()
    holder.wait()
    rd = ResultsDir(tmp_path / "res")
    rd.lock()  # no stale lock after a kill
    rd.unlock()
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").iterdir())


def run_fake(tmp_path, resume=False, warnings=None):
    spec = make_spec(tmp_path, "[[workloads]]\nname = \"teragen\"\n[[workloads]]\nname = \"terasort\"\n")
    runner = StudyRunner(spec, tmp_path / "results", ["t"], resume=resume, engines={"spark": FakeEngine(JOB_RESULTS)})
    if warnings is not None:
        runner.results.on_warning = warnings.append
    runner.run()
    return ResultsDir(tmp_path / "results", on_warning=lambda w: None).records()


def test_a_torn_last_line_is_cut_on_resume_and_never_glued_onto(tmp_path):
    recs = run_fake(tmp_path)
    runs = tmp_path / "results" / "runs.jsonl"
    lines = runs.read_text().splitlines()
    # a full disk (or a kill) cut the last record short: the study was not done with it
    runs.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    seen = []
    assert len(ResultsDir(tmp_path / "results", on_warning=seen.append).records()) == len(recs) - 1
    assert "damaged record skipped" in seen[0] and ":4:" in seen[0]
    warnings = []
    after = run_fake(tmp_path, resume=True, warnings=warnings)
    assert any("cut off a torn last line" in w for w in warnings)
    # the torn run ran again, nothing glued (its input, deleted with the study's roots at its end, made again first)
    assert list(dict.fromkeys(r["run_key"] for r in after)) == [r["run_key"] for r in recs]
    assert all(json.loads(l) for l in runs.read_text().splitlines())


def test_append_after_a_torn_line_starts_a_new_line(tmp_path):
    run_fake(tmp_path)
    rd = ResultsDir(tmp_path / "results", on_warning=lambda w: None)
    with open(rd.runs_file, "a") as f:
        f.write('{"run_key": "r9/x/y", "sta')
    n = len(rd.records())
    rd.append({"run_key": "r1/a/x", "status": "ok", "workload": "teragen", "label": "x", "variant": "a", "repeat": 1,
               "metrics": {}, "details": {}})
    assert len(rd.records()) == n + 1


@pytest.mark.parametrize("line, says", [
    ("[1, 2, 3]", "a JSON list, not an object"),
    ('{"run_key": "r1/a/x", "status": "ok"}', "`workload` is missing"),
    ('{"run_key": 5, "status": "ok", "workload": "teragen"}', "`run_key` is missing or not a str"),
])
def test_a_record_of_the_wrong_shape_is_skipped_with_a_warning_naming_the_line(tmp_path, tb_main, line, says):
    recs = run_fake(tmp_path)
    runs = tmp_path / "results" / "runs.jsonl"
    runs.write_text(line + "\n" + runs.read_text())
    seen = []
    assert len(ResultsDir(tmp_path / "results", on_warning=seen.append).records()) == len(recs)
    assert f"runs.jsonl:1: damaged record skipped ({says}" in seen[0]
    out = tb_main("results", tmp_path / "results", "--format", "csv")
    assert out.returncode == 0 and "damaged record skipped" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("study_json, says", [  # (not `study`: that name is the e2e fixture's, conftest.py)
    ("[]", "a JSON list, not an object"),
    ('{"name": "x"}', "`spec` is missing"),
    ('{"name": "x", "spec": {"storage": [], "workloads": []}}', "`baseline` is missing"),
])
def test_a_study_json_of_the_wrong_shape_is_one_line(tmp_path, tb_main, study_json, says):
    d = tmp_path / "res"
    d.mkdir()
    (d / "study.json").write_text(study_json)
    one_error_line(tb_main("report", d), "study.json: not a tierbench study", says)


@pytest.mark.parametrize("engine, field", [
    ({"conf": {"spark.hadoop.fs.s3a.secret.key": "s"}}, "engine.conf.spark.hadoop.fs.s3a.secret.key"),
    ({"conf": {"spark.hadoop.fs.s3a.access.key": "a"}}, "engine.conf.spark.hadoop.fs.s3a.access.key"),
    ({"conf": {"javax.jdo.option.ConnectionPassword": "p"}}, "engine.conf.javax.jdo.option.ConnectionPassword"),
    ({"conf": {"spark.hadoop.fs.s3a.endpoint": "http://AK:SK@127.0.0.1:7480"}}, "engine.conf.spark.hadoop.fs.s3a.endpoint"),
    ({"master": "spark://admin:pw@127.0.0.1:7077"}, "engine.master"),
])
def test_credentials_in_engine_settings_are_refused(tmp_path, engine, field):
    raw = {"name": "s", "engine": engine, "storage": {"a": {"data": [str(tmp_path)]}}, "workloads": [{"name": "teragen"}]}
    with pytest.raises(SpecError, match=field.replace(".", r"\.")) as e:
        parse_spec(raw, "s.toml")
    assert "credential" in str(e.value) or "user or key" in str(e.value)


@pytest.mark.parametrize("data, field", [
    ({"type": "s3", "endpoint": "http://AK:SK@127.0.0.1:7480", "bucket": "bkt"}, "storage.a.data.endpoint"),
    ({"type": "hdfs", "uri": "hdfs://alice:pw@nn:8020/x"}, "storage.a.data.uri"),
])
def test_credentials_in_storage_urls_are_refused(tmp_path, data, field):
    raw = {"name": "s", "storage": {"a": {"data": data, "intermediate": [str(tmp_path)]}}, "workloads": [{"name": "teragen"}]}
    with pytest.raises(SpecError, match=field.replace(".", r"\.")):
        parse_spec(raw, "s.toml")


@pytest.mark.parametrize("make, says", [
    (lambda t: "/proc/tb", "the kernel's own file system"),
    (lambda t: "/sys/tb", "the kernel's own file system"),
    (lambda t: (os.symlink("/nonexistent/x", t / "dangling"), f"{t}/dangling/d")[1], "dangling symbolic link"),
    (lambda t: (os.symlink(t / "l2", t / "l1"), os.symlink(t / "l1", t / "l2"), f"{t}/l1/d")[2], "loop of links"),
])
def test_data_dirs_that_cannot_be_made_are_one_line_and_nothing_is_created(tmp_path, tb_main, make, says):
    data = make(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    spec = write_spec(tmp_path / "s.toml", SPEC.replace('["{d}/data"]', f'["{data}"]'))
    one_error_line(tb_main("run", spec, "--out", tmp_path / "res"), says)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + ["s.toml"])


@pytest.mark.parametrize("out, says", [
    ("/proc/tierbench-results", "cannot create the results folder"),
    ("{t}/dangling", "dangling symbolic link"),
    ("{t}/l1/res", "Too many levels of symbolic links"),
])
def test_a_results_folder_that_cannot_be_made_is_one_line_and_nothing_is_created(tmp_path, tb_main, out, says):
    os.symlink("/nonexistent/x", tmp_path / "dangling")
    os.symlink(tmp_path / "l2", tmp_path / "l1")
    os.symlink(tmp_path / "l1", tmp_path / "l2")
    spec = write_spec(tmp_path / "s.toml", SPEC.format(d=tmp_path))
    one_error_line(tb_main("run", spec, "--out", out.format(t=tmp_path)), says)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("change, field, says", [
    (("repeats = 1", "repeats = 3_000_000_000"), "repeats", "at most 1000"),
    (('name = "teragen"', 'name = "teragen"\nrows = 10_000_000_000_000_000'), "workloads[0].rows", "at most"),
    (('name = "teragen"', 'name = "teragen"\ntasks = 50_000_000'), "workloads[0].tasks", "at most 1,000,000"),
    (('name = "teragen"', 'name = "dfsio-write"\nfile_size = "5000TB"'), "workloads[0].file_size", "bytes (1 PiB), got 5,000,000,000,000,000 bytes (5000TB)"),
    (("repeats = 1", "repeats = 1000"), "", "the plan has 200,000 runs"),
])
def test_absurd_numbers_are_refused_up_front(tmp_path, tb_main, change, field, says):
    body = SPEC.format(d=tmp_path).replace(*change)
    if "200,000" in says:
        body += "".join(f'[[workloads]]\nname = "teragen"\nlabel = "t{i}"\n' for i in range(199))
    spec = write_spec(tmp_path / "s.toml", body)
    t0 = time.perf_counter()
    out = tb_main("run", spec, "--out", tmp_path / "res")
    one_error_line(out, says, f"s.toml: {field}" if field else "s.toml")
    assert time.perf_counter() - t0 < 20 and not (tmp_path / "res").exists()


def test_a_directory_given_as_spec_is_named(tmp_path, tb_main):
    one_error_line(tb_main("run", tmp_path), "is a directory, not a spec file")


def test_a_study_stops_after_three_runs_in_a_row_fail_the_same_way(tmp_path):
    spec = make_spec(tmp_path)
    engine = FakeEngine(JOB_RESULTS, fail={w: "java.net.ConnectException: Connection refused (127.0.0.1:7480)"
                                           for w in JOB_RESULTS})
    with pytest.raises(UserError, match=r"stopped: 3 runs in a row failed the same way \(java.net.ConnectException.*--resume"):
        StudyRunner(spec, tmp_path / "results", ["t"], engines={"spark": engine}).run()
    recs = ResultsDir(tmp_path / "results", on_warning=lambda w: None).records()
    assert [r["status"] for r in recs if not r["error"].startswith("not run:")] == ["failed"] * 3


class FakeBudget:
    """A named stand-in for the scale model's page cache budget (memory_budget.MemoryBudget needs root and cgroup
    v1): the runner only needs to know one is on, and the lifecycle asks it what a run held."""

    def join(self, pid):
        pass

    def not_covering(self, what):
        pass

    def start_run(self):
        pass

    def end_run(self):
        return {"page_cache_budget_bytes": 1 << 20, "page_cache_peak_bytes": 0, "page_cache_median_bytes": 0, "polls": 1}


def _budget(budget) -> tuple:
    """The study's hooks: one that yields `budget` as its page cache budget (a FAKE: no memory group), or none."""
    import contextlib

    from tierbench.study.hooks import RunHook

    hook = RunHook()
    hook.memory_budget = budget
    return (lambda state: contextlib.nullcontext(hook if budget else None),)


@pytest.mark.parametrize("budget", [FakeBudget(), None])
def test_a_run_failed_under_the_budget_is_recorded_and_run_once_more(tmp_path, budget, monkeypatch):
    from tierbench.store.results import latest_ok

    spec = make_spec(tmp_path)
    refused = ("hadoop job exited 1: # Native memory allocation (mmap) failed to map 36864 bytes. Error detail: "
               "committing reserved memory.")
    engine = FakeEngine(JOB_RESULTS, fail_once={"teragen": refused})
    StudyRunner(spec, tmp_path / "results", ["t"], engines={"spark": engine}, hooks=_budget(budget)).run()
    recs = [r for r in ResultsDir(tmp_path / "results", on_warning=lambda w: None).records() if r["workload"] == "teragen"]
    first = recs[0]
    assert first["status"] == "failed" and first["error"] == refused  # the failed attempt stays on record
    same = [r for r in recs if (r["config"], r["repeat"]) == (first["config"], first["repeat"])]
    # under a budget the run follows at once; without one it is an ordinary failure, left to --resume
    assert [r["status"] for r in same] == (["failed", "ok"] if budget else ["failed"])
    assert (first["run_key"] in latest_ok(recs)) == (budget is not None)


def test_a_job_that_really_fails_under_the_budget_fails_twice_and_a_run_not_run_once(tmp_path, monkeypatch):
    spec = make_spec(tmp_path)
    engine = FakeEngine(JOB_RESULTS, fail={"teragen": "java.lang.IllegalArgumentException: bad rows"})
    StudyRunner(spec, tmp_path / "results", ["t"], engines={"spark": engine}, hooks=_budget(FakeBudget())).run()
    recs = ResultsDir(tmp_path / "results", on_warning=lambda w: None).records()
    gen = [r for r in recs if r["workload"] == "teragen" and (r["config"], r["repeat"]) == ("one", 1)]
    assert [r["status"] for r in gen] == ["failed", "failed"]
    # its consumers are "not run" (no input): nothing to run again
    sort = [r for r in recs if r["workload"] == "terasort" and (r["config"], r["repeat"]) == ("one", 1)]
    assert len(sort) == 1 and sort[0]["error"].startswith("not run:")


def test_different_failures_or_an_ok_run_do_not_stop_a_study(tmp_path):
    spec = make_spec(tmp_path)
    engine = FakeEngine(JOB_RESULTS, fail={"teragen": "disk full", "dfsio-write": "Connection refused", "textgen": "disk full"})
    StudyRunner(spec, tmp_path / "results", ["t"], engines={"spark": engine}).run()
    recs = ResultsDir(tmp_path / "results", on_warning=lambda w: None).records()
    assert len(recs) == 28 and sum(r["status"] == "ok" for r in recs) > 10
