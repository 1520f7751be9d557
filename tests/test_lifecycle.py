"""The run lifecycle's steps in order, on success and on failure; the runner on real (replayed) Spark results.
Fast: the FakeEngine replays job results the real engine returned (tests/fixtures/job-results.json); no JVM."""

import json
import textwrap
import tomllib
from pathlib import Path

import pytest

from fixtures.capture_job_results import WORKLOADS_TOML
from tierbench.study import lifecycle
from tierbench.engines.fake import FakeEngine
from tierbench.errors import UserError
from tierbench.study.runner import StudyRunner
from tierbench.spec import parse_spec
from tierbench.store import ResultsDir

JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
# the workloads whose real results were captured; the DuckDB check needs the tables, which the fake does not write
ALL_WORKLOADS = WORKLOADS_TOML.replace("verify = true", "verify = false")


def make_spec(d: Path, workloads: str = ALL_WORKLOADS, repeats: int = 1, commands: bool = False):
    """`commands`: storage.one has a setup and a teardown command (each `true`)."""
    raw = tomllib.loads(textwrap.dedent(f"""
        name = "fake"
        repeats = {repeats}
        drop_caches = "never"
        [sampling]
        enabled = false
        [storage.one]
        data = ["{d}/data"]
        {'setup = "true"' if commands else ''}
        {'teardown = "true"' if commands else ''}
        [storage.two]
        data = ["{d}/data2"]
        intermediate = {{ dirs = ["{d}/tmp2"], split = 2 }}
        """) + workloads)
    return parse_spec(raw, "fake.toml", d)


def run_study(d: Path, engine: FakeEngine, steps: list | None = None, **kw):
    spec = make_spec(d, **kw)
    watch = {} if steps is None else {"on_step": lambda key, name: steps.append((key, name))}  # the lifecycle's steps
    StudyRunner(spec, d / "results", ["test"], engines={"spark": engine}, **watch).run()
    return ResultsDir(d / "results").records()


def test_steps_run_in_order_on_success(tmp_path):
    """Every step, in order: a block of one run (storage.one's setup and teardown around it), on an engine that
    starts a fresh application (warmed up)."""
    steps = []
    run_study(tmp_path, FakeEngine(JOB_RESULTS, fresh=True), steps, commands=True,
              workloads=ALL_WORKLOADS.split("[[workloads]]\nname = \"terasort\"")[0])
    first = [s for k, s in steps if k == "r1/one/teragen"]
    assert tuple(first) == lifecycle.STEPS
    # without commands, no setup or teardown; the application started for it is warmed up all the same
    assert tuple(s for k, s in steps if k == "r1/two/teragen") == lifecycle.STEPS[1:-1]


def test_a_failed_job_skips_verify_but_is_recorded_and_cleaned_up(tmp_path):
    steps = []
    engine = FakeEngine(JOB_RESULTS, fail={"terasort": "java.lang.OutOfMemoryError: heap"})
    recs = run_study(tmp_path, engine, steps)
    assert [s for k, s in steps if k == "r1/one/terasort"] == \
        ["prepare", "drop_caches", "start_sampling", "run", "stop_sampling", "record", "clean_up"]
    # its consumer has no input: prepare stops it, and it is still recorded
    assert [s for k, s in steps if k == "r1/one/teravalidate"] == ["prepare", "record", "clean_up"]
    by = {r["run_key"]: r for r in recs}
    assert by["r1/one/terasort"]["status"] == "failed" and "OutOfMemoryError" in by["r1/one/terasort"]["error"]
    assert "terasort did not complete" in by["r1/one/teravalidate"]["error"]
    assert by["r1/one/teragen"]["status"] == "ok"  # the rest of the study went on
    # the failed group's data is kept for --resume; the complete ones were deleted
    assert not (tmp_path / "data" / "tierbench").exists() or any((tmp_path / "data" / "tierbench" / "fake").iterdir())


def test_an_engine_that_dies_is_a_failed_run_with_the_reason(tmp_path):
    steps = []
    recs = run_study(tmp_path, FakeEngine(JOB_RESULTS, die={"grep"}), steps)
    grep = next(r for r in recs if r["run_key"] == "r1/one/grep")
    assert grep["status"] == "failed" and "died running grep" in grep["error"]
    assert [s for k, s in steps if k == "r1/one/grep"][-4:] == ["run", "stop_sampling", "record", "clean_up"]


def test_every_workload_runs_through_the_runner_on_replayed_results(tmp_path):
    engine = FakeEngine(JOB_RESULTS)
    recs = run_study(tmp_path, engine, repeats=2)
    assert len(recs) == 14 * 2 * 2 and ALL_WORKLOADS.count("[[workloads]]") == 14 and all(r["status"] == "ok" for r in recs), [r["error"] for r in recs if r["error"]]
    # repeats outermost, configurations interleaved, producers first; one engine open per run
    assert [c for c in engine.calls if c.startswith("run")][:3] == ["run r1/one/teragen", "run r1/one/terasort", "run r1/one/teravalidate"]
    assert engine.calls[-1] == "close"
    v = next(r for r in recs if r["workload"] == "teravalidate")
    assert v["details"]["checksum"] == JOB_RESULTS["teragen"]["result"]["checksum"]
    sql = next(r for r in recs if r["workload"] == "sql")
    assert sql["metrics"]["queries"] == 2 and sql["io"]["input_mb"] > 0
    # every record has every field, and nothing is left behind in the data dirs
    from tierbench.store.record import RECORD_FIELDS

    assert all(set(RECORD_FIELDS) <= set(r) for r in recs)
    assert not (tmp_path / "data" / "tierbench").exists()


def test_a_wrong_result_fails_verify(tmp_path):
    bad = json.loads(json.dumps(JOB_RESULTS))
    bad["teravalidate"]["result"]["checksum"] = "0"
    recs = run_study(tmp_path, FakeEngine(bad))
    v = next(r for r in recs if r["workload"] == "teravalidate")
    assert v["status"] == "failed" and "differs from TeraGen's" in v["error"] and v["metrics"]


def test_resume_refuses_runs_of_another_machine_unless_allowed(tmp_path):
    spec = make_spec(tmp_path, ALL_WORKLOADS.split("[[workloads]]\nname = \"terasort\"")[0])
    StudyRunner(spec, tmp_path / "results", ["t"], engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    rd = ResultsDir(tmp_path / "results")
    study = rd.study()
    rd.update_study(machine=dict(study["machine"], cpu_cores=128))
    with pytest.raises(UserError, match="recorded on another machine.*--allow-mixed"):
        StudyRunner(spec, tmp_path / "results", ["t"], resume=True, engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    StudyRunner(spec, tmp_path / "results", ["t"], resume=True, allow_mixed=True, engines={"spark": FakeEngine(JOB_RESULTS)}).run()


def test_data_dirs_inside_the_results_folder_as_the_quickstart_has_them(tmp_path):
    """The quickstart keeps its storage under --out: its own data roots must not count as someone else's files."""
    out = tmp_path / "quick"
    spec = parse_spec(tomllib.loads(textwrap.dedent("""
        name = "inside"
        repeats = 1
        drop_caches = "never"
        [sampling]
        enabled = false
        [storage.one]
        data = ["storage/disk1"]
        create_dirs = true
        [[workloads]]
        name = "teragen"
        """)), "inside", out)
    StudyRunner(spec, out, ["t"], engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    assert [r["status"] for r in ResultsDir(out).records()] == ["ok"]
