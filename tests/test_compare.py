"""tierbench compare on committed real results (tests/fixtures/compare/, made by its make_fixtures.sh): one spec run
three times on one machine -- a baseline, a rerun, and a run pinned to one core (`taskset -c 0`: a real slowdown
outside the spec). Fast: no JVM; the comparison is a pure function of the stored records."""

import json
import shutil
import statistics
from pathlib import Path

import pytest

from tierbench.analysis.compare import compare_studies, decided_fields, spec_differences
from tierbench.cli.compare import parse_threshold
from tierbench.cli.main import main
from tierbench.errors import UserError
from tierbench.spec.fingerprint import run_fingerprint
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures" / "compare"
BASE, RERUN, SLOW = (FIXTURES / f"{n}-results" for n in ("base", "rerun", "slow"))


@pytest.fixture(scope="module")
def three():
    studies = [ResultsDir(d).load(analysed=True) for d in (BASE, RERUN, SLOW)]
    return compare_studies(studies, ["A", "B", "C"])


def copy_of(folder: Path, tmp_path: Path, name: str) -> Path:
    d = tmp_path / name
    shutil.copytree(folder, d)
    return d


def runtimes(folder: Path, variant: str, label: str) -> list[float]:
    """The runs' runtimes read straight from runs.jsonl: the report's runtime (a sql run's queries' time)."""
    out = []
    for line in (folder / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["status"] == "ok" and r["variant"] == variant and r["label"] == label:
            out.append(r["metrics"].get("queries_s", r["wall_s"]))
    return out


def test_the_fixtures_are_real_runs_of_one_spec_the_slow_one_pinned_to_one_core():
    studies = [json.loads((d / "study.json").read_text()) for d in (BASE, RERUN, SLOW)]
    assert len({s["fingerprint"] for s in studies}) == 1
    assert all("run" in s["command_line"] for s in studies)
    spec = studies[0]["spec"]
    assert spec["repeats"] >= 5 and spec["engines"][0]["master"] == "local[2]"
    records = [json.loads(x) for x in (SLOW / "runs.jsonl").read_text().splitlines()]
    assert records and all(r["status"] == "ok" and r["engine_version"].startswith("spark") for r in records)


def test_every_job_of_every_configuration_is_matched_in_both_compared_studies(three):
    spec = three.studies[0].study.spec
    jobs = {(c["name"], w["label"]) for c in spec["storage"] for w in spec["workloads"]}
    for study in ("B", "C"):
        assert {(d.variant, d.workload) for d in three.jobs if d.study == study} == jobs
    assert not three.unmatched and not three.accepted_differences


def test_the_rerun_is_not_significantly_different_anywhere(three):
    rerun = [d for d in three.jobs if d.study == "B"]
    assert rerun and all(d.verdict == "not significant" for d in rerun), \
        [(d.job, round(d.ratio, 3), d.comparison.p_value) for d in rerun if d.verdict != "not significant"]
    assert not three.slower_than(0.05) or all(d.study == "C" for d in three.slower_than(0.05))


def test_the_run_on_one_core_is_significantly_slower_and_its_ratio_is_the_medians(three):
    slow = [d for d in three.jobs if d.study == "C"]
    cpu_bound = [d for d in slow if d.workload in ("teragen", "terasort")]  # (the fixture's spec's CPU-bound jobs)
    assert cpu_bound and all(d.verdict == "slower" and d.comparison.p_value < 0.05 for d in cpu_bound)
    for d in slow:
        base, mine = runtimes(BASE, d.variant, d.workload), runtimes(SLOW, d.variant, d.workload)
        assert d.ratio == pytest.approx(statistics.median(mine) / statistics.median(base))
        lo, hi = d.comparison.ratio_interval
        assert lo <= d.ratio <= hi and d.comparison.ratio_interval_kind == "bootstrap 95%"  # (5 repeats: a bootstrap)
    assert {(d.variant, d.workload) for d in three.slower_than(0.05)} >= {(d.variant, d.workload) for d in cpu_bound}


def test_phases_and_queries_are_compared_where_recorded(three):
    phases = {(d.variant, d.workload, d.part) for d in three.phases if d.study == "C"}
    assert {p for v, w, p in phases if w == "terasort"} == {"map", "shuffle", "reduce/output"}  # (shuffle: the tasks')
    assert {w for _, w, _ in phases} == {"teragen", "terasort", "sqlgen"}  # (sql: its stages are Spark's, numbered)
    for d in three.phases:
        assert len(d.values) == len(d.base_values) == three.studies[0].study.spec["repeats"]
    queries = {(d.variant, d.part) for d in three.queries if d.study == "C"}
    names = {q for w in three.studies[0].study.spec["workloads"] for q in w["params"].get("queries", [])}
    assert {q for _, q in queries} == names and len(names) >= 2
    slower = [d for d in three.phases if d.study == "C" and d.workload == "teragen"]
    assert slower and all(d.ratio > 1 for d in slower)


def test_the_same_machine_and_versions_are_said_so_and_a_difference_is_listed(three, tmp_path):
    assert three.environment == ()  # taskset changes no recorded fact: the comparison says the cause is outside them
    other = copy_of(RERUN, tmp_path, "other-kernel")
    lines = [json.loads(x) for x in (other / "runs.jsonl").read_text().splitlines()]
    for r in lines:
        r["machine"]["kernel"] = "9.9.9-other"
    (other / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    cmp = compare_studies([ResultsDir(d).load(analysed=True) for d in (BASE, other)], ["A", "B"])
    [diff] = cmp.environment
    assert diff.field == "machine.kernel" and diff.values[1] == "9.9.9-other" and diff.values[0] != diff.values[1]


def test_the_gate_fails_on_the_slow_pair_naming_the_jobs_and_passes_the_rerun(tmp_path, capsys):
    assert main(["compare", str(BASE), str(SLOW), "--out", str(tmp_path / "slow"), "--fail-if-slower", "5%"]) == 1
    out = capsys.readouterr().out
    assert "--fail-if-slower 5%: FAILED" in out and "one / teragen in B" in out and "split / terasort in B" in out
    assert main(["compare", str(BASE), str(RERUN), "--out", str(tmp_path / "rerun"), "--fail-if-slower", "0.05"]) == 0
    assert "--fail-if-slower 5%: passed" in capsys.readouterr().out


def test_the_document_and_the_json_say_the_same(tmp_path, capsys):
    assert main(["compare", str(BASE), str(RERUN), str(SLOW), "--out", str(tmp_path / "out"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads((tmp_path / "out" / "report.json").read_text())
    assert printed["jobs"] == written["jobs"] and {j["study"] for j in written["jobs"]} == {"B", "C"}
    html = (tmp_path / "out" / "report.html").read_text()
    md = (tmp_path / "out" / "report.md").read_text()
    assert html.count("<svg") == 2 and "## Verdict" in md and "## Phases" in md and "## SQL queries" in md
    slow_row = next(j for j in written["jobs"] if j["study"] == "C" and j["workload"] == "teragen")
    assert f"| {slow_row['variant']} / teragen | C |" in md and "slower" in slow_row["verdict"]


def test_the_default_out_is_named_after_the_folders(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["compare", str(BASE), str(RERUN)]) == 0
    assert (tmp_path / "tierbench-compare" / "base-results-vs-rerun-results" / "report.html").is_file()
    assert "tierbench-compare" in capsys.readouterr().out


def changed_spec(tmp_path: Path, name: str, change) -> Path:
    """A copy of the rerun whose study.json's spec is changed (and its fingerprint with it, as a run would record)."""
    d = copy_of(RERUN, tmp_path, name)
    study = json.loads((d / "study.json").read_text())
    change(study["spec"])
    study["fingerprint"] = run_fingerprint(study["spec"])
    (d / "study.json").write_text(json.dumps(study))
    return d


def test_studies_of_different_specs_are_refused_naming_the_fields_unless_allowed(tmp_path, capsys):
    other = changed_spec(tmp_path, "other-master", lambda s: s["engines"][0].update(master="local[4]"))
    assert main(["compare", str(BASE), str(other), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "engines.spark.master" in err and "local[4]" in err and "--allow" in err
    assert not (tmp_path / "o").exists()
    assert main(["compare", str(BASE), str(other), "--out", str(tmp_path / "o"), "--allow", "engines.spark.master"]) == 0
    assert "spec differs (--allow): engines.spark.master" in capsys.readouterr().out
    assert "engines.spark.master" in (tmp_path / "o" / "report.md").read_text()
    studies = [ResultsDir(d).load(analysed=True) for d in (BASE, other)]
    [accepted] = compare_studies(studies, ["A", "B"], {"repeats", "engines"}).accepted_differences  # (a table: all in it)
    assert accepted.field == "engines.spark.master" and accepted.values == ("local[2]", "local[4]")


def test_spec_differences_are_named_by_table_names():
    spec = ResultsDir(BASE).study()["spec"]
    flat = decided_fields(spec)
    assert "workloads.teragen.params.rows" in flat and "storage.one.data" in flat and "repeats" in flat
    other = json.loads(json.dumps(spec))
    other["workloads"][0]["params"]["rows"] += 1
    other["repeats"] = 3
    assert [d.field for d in spec_differences([spec, other])] == ["repeats", "workloads.teragen.params.rows"]


@pytest.mark.parametrize("value, expected", [("5%", 0.05), ("0.05", 0.05), ("0%", 0.0), ("12.5%", 0.125), ("0", 0.0)])
def test_thresholds_accepted(value, expected):
    assert parse_threshold(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["5", "1", "-5%", "abc", "", "5%%", "nan", "inf", "0.05x"])
def test_a_bad_threshold_is_one_line_naming_the_option_before_anything_is_read(value, tmp_path, capsys):
    assert main(["compare", str(tmp_path / "none-a"), str(tmp_path / "none-b"), f"--fail-if-slower={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--fail-if-slower" in err and "5%" in err and "0.05" in err


def test_a_folder_that_is_not_results_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["compare", str(BASE), str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty" in err and "no tierbench results" in err


def test_fewer_than_two_folders_is_one_line(capsys):
    assert main(["compare", str(BASE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two results folders" in err
    with pytest.raises(UserError, match="two results folders"):
        compare_studies([ResultsDir(BASE).load()], ["A"])


def keep_runs_of(folder: Path, tmp_path: Path, name: str, config: str) -> Path:
    """A copy holding only the runs of one configuration: as a study stopped before the others ran."""
    d = copy_of(folder, tmp_path, name)
    lines = [x for x in (d / "runs.jsonl").read_text().splitlines() if json.loads(x)["config"] == config]
    (d / "runs.jsonl").write_text("\n".join(lines) + "\n")
    return d


def test_jobs_one_study_lacks_are_listed_and_nothing_matched_is_refused(tmp_path, capsys):
    only_one = keep_runs_of(RERUN, tmp_path, "only-one", "one")
    assert main(["compare", str(BASE), str(only_one), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "not compared: split / teragen: not in B" in out and "one / teragen" in out
    only_split = keep_runs_of(SLOW, tmp_path, "only-split", "split")
    assert main(["compare", str(only_one), str(only_split), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to compare" in err


def test_a_results_folder_is_refused_as_out(tmp_path, capsys):
    target = copy_of(RERUN, tmp_path, "target")
    assert main(["compare", str(BASE), str(RERUN), "--out", str(target)]) == 2
    assert "results folder" in capsys.readouterr().err and not (target / "report.json").exists()


def test_an_out_of_other_files_is_refused_and_an_earlier_comparison_is_replaced(tmp_path, capsys):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("the user's")
    assert main(["compare", str(BASE), str(RERUN), "--out", str(theirs)]) == 2
    assert "holds other files" in capsys.readouterr().err and sorted(p.name for p in theirs.iterdir()) == ["notes.txt"]
    again = tmp_path / "again"
    again.mkdir()
    for name in ("report.html", "report.json", "report.md"):
        (again / name).write_text("an earlier comparison's")
    assert main(["compare", str(BASE), str(RERUN), "--out", str(again)]) == 0
    assert sorted(p.name for p in again.iterdir()) == ["report.html", "report.json", "report.md"]
    assert json.loads((again / "report.json").read_text())["baseline"] == "A"
