"""The scale model's core_speed, measured: the target's CPU rate for the job ([cpu.<job>] in its description) over
this machine's, from a calibration study run before the drives are sized (scale/calibration.py). Fast: no JVM (the
e2e calibration is in test_scale_model.py)."""

import copy
import json
import os
import shutil
import statistics
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tierbench.analysis.reference import load_section
from tierbench.errors import SpecError, UserError
from tierbench.model.hardware import hardware_from_dict, load_hardware
from tierbench.store import ResultsDir

from test_scale_model import QUICK, _scaled_results, _section, _spec
from tierbench.scale.derive import Measured, parse


def parse_spec(raw, source, base_dir=None, calibration_runs=(), calibration_fit=()):
    """The spec parsed once (scale/derive.py parse), with a calibration's measurements where given."""
    measured = Measured(tuple(calibration_runs), tuple(calibration_fit)) if calibration_runs else None
    return parse(raw, source, base_dir, measured=measured)


CORES = os.cpu_count() or 1
HW = {"nodes": 2, "cores": 8, "memory": "32GB", "data": {"drive": "hdd-7200"}}


def test_the_sandisk_targets_rate_is_the_published_all_ssd_terasorts_arithmetic():
    _, published = load_section("sandisk_terasort_2014")
    runtime = published["results"]["all_ssd"][1]  # TeraSort 1 TB, all-SSD, seconds
    for name in ("sandisk-all-hdd", "sandisk-hybrid", "sandisk-all-ssd"):  # one cluster: the same CPUs
        hw = load_hardware(name)
        rate = hw.cpu_rate("terasort")
        assert rate.mb_s_per_thread == pytest.approx(1e12 / hw.nodes / hw.cores / runtime / 1e6, rel=0.01)
        assert "3,262.5" in rate.source and (rate.drive, rate.count) == ("sata-ssd-2014", 2)  # its own drives
        assert hw.cpu_rate("teragen") is None


@pytest.mark.parametrize("cpu,says", [
    ({"sorting": {"mb_s_per_thread": 1, "source": "x"}}, "cpu.sorting"),
    ({"terasort": {"source": "x"}}, "cpu.terasort.mb_s_per_thread: missing"),
    ({"terasort": {"mb_s_per_thread": 0, "source": "x"}}, "cpu.terasort.mb_s_per_thread"),
    ({"terasort": {"mb_s_per_thread": 4}}, "cpu.terasort.source"),
    ({"terasort": {"mb_s_per_thread": 4, "source": "x", "ghz": 2}}, "cpu.terasort.ghz"),
    ({"terasort": 4.26}, "cpu.terasort"),
])
def test_a_bad_cpu_table_is_one_clear_error(cpu, says):
    with pytest.raises(SpecError) as e:
        hardware_from_dict({**HW, "cpu": cpu}, "lab.toml")
    assert says in str(e.value) and "lab.toml" in str(e.value)


def test_a_target_with_a_rate_for_the_studys_job_is_calibrated_by_default_and_pending_until_measured():
    m = _spec().scale.to_dict()  # (as study.json records it)
    assert m["calibration"]["status"] == "pending" and m["calibration"]["job"] == "terasort"
    assert m["rate_factor"] == pytest.approx(CORES / 12)  # core_speed 1 until measured
    assert any(s["here"] == "measured when the study starts" for s in m["settings"])


@settings(max_examples=40, deadline=None)
@given(runs=st.lists(st.floats(1, 100), min_size=1, max_size=5))
def test_the_measured_drives_keep_the_targets_cpu_to_drive_balance(runs):
    spec = parse_spec(tomllib.loads(QUICK), source="scaled.toml", calibration_runs=tuple(runs))
    m = spec.scale.to_dict()  # (as study.json records it)
    c = m["calibration"]
    median = sorted(runs)[len(runs) // 2]
    here = m["data_bytes"] / 1e6 / (median * CORES)  # MB/s per core of this machine, for the job
    assert c["status"] == "measured" and c["here_mb_s_per_core"] == pytest.approx(here)
    assert c["core_speed"] == pytest.approx(4.26 / here)
    # the drives are k times the target's so that this machine's CPU is to them as a target node's to its own
    assert m["rate_factor"] * 4.26 * 12 == pytest.approx(here * CORES)
    hdd = next(c for c in spec.storage if c.name == "hdd")
    assert hdd.emulated["data"][0]["figures"]["read_mb_s"] == pytest.approx(2 * 130 * m["rate_factor"], rel=0.01)


def test_a_core_speed_given_is_used_as_is_and_recorded_as_before():
    m = _spec(core_speed=0.5).scale.to_dict()
    assert "calibration" not in m  # (the fingerprint of a study recorded before calibration existed holds)
    assert m["rate_factor"] == pytest.approx(CORES / (12 * 0.5))


@pytest.mark.parametrize("edit,says", [
    ({"core_speed": "fast"}, "scale.core_speed: expected a target core's speed"),
    ({"core_speed": "measured", "target": "cloudera-hdd-11"}, "\"measured\" needs the target's rate"),
])
def test_a_core_speed_that_cannot_be_had_is_one_clear_error(edit, says):
    with pytest.raises(SpecError) as e:
        _spec(**edit)
    assert says in str(e.value) and "scaled.toml" in str(e.value)


def test_the_calibration_runs_the_models_job_in_memory_on_one_plain_directory(tmp_path):
    from tierbench.scale.calibration import REPEATS, calibration_spec

    raw = tomllib.loads(QUICK)
    spec = parse_spec(raw, source="scaled.toml")
    cal = calibration_spec(spec, raw, tmp_path, tmp_path / "calibration")
    assert [w.name for w in cal.workloads] == ["teragen", "terasort"]  # up to the job: not TeraValidate
    assert cal.repeats == REPEATS and cal.durability == "engine" and cal.scale is None
    assert [c.name for c in cal.storage] == ["calibration"] and not cal.storage[0].emulated
    assert cal.storage[0].local_data == (str(tmp_path / "calibration" / "storage"),)
    model = {w.name: w.params for w in spec.workloads}
    assert {w.name: w.params for w in cal.workloads}["teragen"]["size"] == model["teragen"]["size"]  # the model's sizes
    assert cal.engines[0].conf == spec.engines[0].conf  # and its task memory and concurrency
    assert cal.engines[0].java_options == spec.engines[0].java_options  # and its JIT: the rate is the runs'
    assert cal.drop_caches == "auto"  # TeraGen's writeback synced before the TeraSort measured, where it can be
    assert cal.sampling and cal.sampling_interval_s == spec.sampling_interval_s  # sampled as the study's runs are


def test_the_calibration_runs_under_the_studys_page_cache_budget(tmp_path, monkeypatch):
    """The study's runs took 13-28% longer than a calibration without its budget and sampling (docs/scale-model.md):
    the calibration's runner holds the engines to the model's page cache budget, though its spec has no scale model."""
    from tierbench.scale import calibration
    from tierbench.scale.hooks import study_runner
    from tierbench.study import runner

    seen = {}

    def run(self):  # (stops the calibration where it would start its runs: what is checked is what it runs under)
        seen.update(budget=budget_of(self), scale=self.spec.scale)
        raise RuntimeError("stopped here")

    monkeypatch.setattr(runner.StudyRunner, "run", run)
    raw = tomllib.loads(QUICK)
    spec = parse_spec(raw, source="scaled.toml")
    with pytest.raises(RuntimeError, match="stopped here"):
        calibration.calibrated(spec, raw, tmp_path, tmp_path / "r", ["tierbench"], resume=False)
    assert seen["scale"] is None and seen["budget"] == spec.scale.page_cache_bytes > 0
    assert budget_of(study_runner(spec, tmp_path / "s", ["tierbench"])) == spec.scale.page_cache_bytes


def budget_of(runner) -> int | None:
    """The page cache budget a runner's hooks hold its engines to (scale/hooks.py)."""
    from tierbench.scale.hooks import PageCacheBudget

    return next((h.bytes for h in runner.hooks if isinstance(h, PageCacheBudget)), None)


def test_where_the_study_emulates_the_calibration_runs_on_the_models_io_path_without_its_limits(tmp_path):
    """A memory-backed device nothing slows but memory, durable writes: the loop device's copies and the syncs are
    CPU work the model's runs do too, and a calibration without them made the all-SSD TeraSort 29% slower than the
    rate it measured (15% with them; the quickstart, fresh clones)."""
    from tierbench.scale.calibration import UNLIMITED, calibration_spec

    raw = tomllib.loads(QUICK)
    cal = calibration_spec(parse_spec(raw, source="scaled.toml"), raw, tmp_path, tmp_path / "calibration", emulated=True)
    (device,) = cal.storage[0].emulated["data"]
    assert device["figures"] == UNLIMITED and device["backing"] == "memory" and cal.durability == "durable"
    assert cal.scale is None  # no budget, no drive scaled


def test_the_calibration_then_runs_on_the_rates_own_drives_at_the_k_its_runs_gave(tmp_path):
    """The SanDisk rate is the all-SSD TeraSort's: two SATA SSDs a node, data and intermediate data on them."""
    from tierbench.scale.calibration import FIT_REPEATS, calibration_spec

    from tierbench.spec import __file__ as spec_pkg

    raw, runs = tomllib.loads((Path(spec_pkg).parent / "quickstart-emulated.toml").read_text()), (5.0, 6.0, 5.5)
    measured = parse_spec(raw, source="scaled.toml", calibration_runs=runs)
    fit = calibration_spec(measured, raw, tmp_path, tmp_path / "calibration-fit", True, FIT_REPEATS, "fit", runs)
    (device,) = fit.storage[0].emulated["data"]
    k = measured.scale.rate_factor
    assert device["profile"] == "sata-ssd-2014" and fit.storage[0].intermediate == fit.storage[0].data
    assert device["figures"]["read_mb_s"] == pytest.approx(2 * 500 * k, rel=0.01)  # two drives' worth, x k
    ssd = next(c for c in measured.storage if c.name == "ssd")  # as the study's all-SSD configuration sizes them
    assert device["figures"] == ssd.emulated["data"][0]["figures"]
    assert fit.repeats == FIT_REPEATS and fit.durability == "durable" and fit.scale is None


@settings(max_examples=30, deadline=None)
@given(runs=st.lists(st.floats(1, 100), min_size=1, max_size=5), fit=st.lists(st.floats(1, 100), min_size=1, max_size=3))
def test_the_rate_is_the_runs_on_the_rates_drives_where_measured_and_the_pace_check_compares_the_unlimited_ones(runs, fit):
    spec = parse_spec(tomllib.loads(QUICK), source="scaled.toml", calibration_runs=tuple(runs), calibration_fit=tuple(fit))
    c = spec.scale.to_dict()["calibration"]  # (as study.json records it)
    assert c["here_mb_s_per_core"] == pytest.approx(spec.scale.data_bytes / 1e6 / (sorted(fit)[len(fit) // 2] * CORES))
    assert c["runs_s"] == list(runs) and c["fit_s"] == list(fit)  # (scale/pace.py reads runs_s)
    assert spec.scale.rate_factor * 4.26 * 12 == pytest.approx(c["here_mb_s_per_core"] * CORES)


def test_a_folder_holding_a_calibration_takes_its_study_and_nothing_else(tmp_path):
    (tmp_path / "calibration").mkdir()
    with pytest.raises(UserError, match="not empty"):  # a folder of that name that is no results folder: the user's
        ResultsDir(tmp_path).check_may_run(resume=False)
    (tmp_path / "calibration" / "study.json").write_text("{}")
    ResultsDir(tmp_path).check_may_run(resume=False)


def test_nothing_is_calibrated_where_the_study_would_be_refused(tmp_path):
    from tierbench.scale.calibration import calibrated

    out = tmp_path / "r"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", out)
    raw = tomllib.loads(QUICK)
    with pytest.raises(UserError, match="pass --resume"):
        calibrated(parse_spec(raw, source="scaled.toml"), raw, tmp_path, out, ["tierbench"], resume=False)
    assert not (out / "calibration").exists()


def test_the_report_says_the_calibrated_figure_is_fitted_not_found(tmp_path):
    d, _ = _scaled_results(tmp_path, {"single": 1 << 20, "split": 1 << 20})
    study = json.loads((d / "study.json").read_text())
    study["spec"]["scale"] = parse_spec(tomllib.loads(QUICK), source="s.toml", calibration_runs=(9.4, 9.5, 11.5)).scale.to_dict()
    (d / "study.json").write_text(json.dumps(study))
    text = str(_section(d))
    assert "measured, not assumed" in text and "9.4, 9.5, 11.5 s" in text
    assert "calibration, not a finding" in text and "3,262.5" in text


def test_the_report_says_what_the_model_keeps_fits_and_predicts(tmp_path):
    """The scale section says in plain words: the ratios kept come from the target's figures; k (where measured) and
    the seek sizes are fitted; the other ratios are predicted."""
    d, _ = _scaled_results(tmp_path, {"single": 1 << 20, "split": 1 << 20})
    given = str(_section(d))  # (core_speed given: k is fitted to nothing)
    assert "Kept: the ratios in the table above, derived from the target's figures" in given
    assert "Fitted: the request sizes at which an emulated drive pays the target's seeks (1024 KiB writes, 256 KiB" in given
    study = json.loads((d / "study.json").read_text())
    assert study["spec"]["scale"]["hold_map_output"]  # (where it holds none, no direct reads: the write size alone)
    assert "comes from the core_speed the spec gave" in given and "Predicted: every other ratio" in given
    study = json.loads((d / "study.json").read_text())
    study["spec"]["scale"] = parse_spec(tomllib.loads(QUICK), source="s.toml", calibration_runs=(9.4, 9.5, 11.5)).scale.to_dict()
    (d / "study.json").write_text(json.dumps(study))
    measured = str(_section(d))
    assert "Fitted: the drives' speed factor k" in measured and "a ratio to that run (its terasort)" in measured
    assert "1024 KiB writes, 256 KiB reduce-side reads), chosen while watching" in measured


def test_the_report_gives_each_configurations_work_beside_its_runtime():
    from statistics import median

    from tierbench.analysis.measures import active_seconds

    d = Path(__file__).parent / "fixtures" / "scale-model-results"  # a scaled quickstart: Hadoop's jobs, with phases
    table = next(b for b in _section(d).blocks if getattr(b, "head", None) and "work" in b.head)
    runs = [r for r in ResultsDir(d).load().runs if r.status == "ok" and r.label == "terasort"]
    rows = {(row[0], row[1]): row for row in table.rows}
    work = {v: median(active_seconds(r) for r in runs if r.variant == v) for v in ("hdd", "hybrid")}
    assert work["hybrid"] < median(r.wall_s for r in runs if r.variant == "hybrid")  # the phases only
    assert rows[("terasort", "hybrid")][4] == f"{work['hybrid']:.1f} s"
    assert rows[("terasort", "hybrid")][5] == f"{work['hybrid'] / work['hdd']:.2f}" and rows[("terasort", "hdd")][5] == ""


def test_a_study_of_several_engines_is_calibrated_on_its_first(tmp_path):
    from tierbench.scale.calibration import calibration_spec

    text = QUICK.replace('[engine]\nkind = "hadoop"', '[engines.first]\nkind = "hadoop"\n[engines.second]\nkind = "hadoop"\n'
                         'conf = { "mapreduce.task.io.sort.factor" = "20" }')
    raw = tomllib.loads(text)
    spec = parse_spec(raw, source="scaled.toml")
    assert [e.name for e in spec.engines] == ["first", "second"]
    cal = calibration_spec(spec, raw, tmp_path, tmp_path / "calibration")
    assert [e.name for e in cal.engines] == ["first"]  # one rate, one k for the whole study


def test_nothing_is_calibrated_where_the_drives_cannot_be_emulated(tmp_path, monkeypatch):
    from tierbench.storage import emulation
    from tierbench.scale.calibration import calibrated

    def cannot():  # (a FAKE check: this machine can emulate; a user's without root or blkio cannot)
        raise UserError("device emulation needs root (loop devices, mount and the blkio cgroup): run as root")

    monkeypatch.setattr(emulation, "check_can_emulate", cannot)
    raw = tomllib.loads(QUICK)
    with pytest.raises(UserError, match="needs root"):
        calibrated(parse_spec(raw, source="scaled.toml"), raw, tmp_path, tmp_path / "r", ["tierbench"], resume=False)
    assert not (tmp_path / "r").exists()


def test_the_pace_check_runs_the_calibrations_job_again_after_the_study(tmp_path, monkeypatch):
    """After a calibrated study: the calibration's study again, PACE_REPEATS runs, in calibration-after/, under the
    study's page cache budget; nothing for a study whose core_speed was given."""
    from tierbench.scale import calibration
    from tierbench.study import runner

    seen = []
    monkeypatch.setattr(runner.StudyRunner, "run", lambda self: seen.append(self))
    raw = tomllib.loads(QUICK)
    measured = parse_spec(raw, source="scaled.toml", calibration_runs=(5.0, 5.2, 5.4))
    calibration.pace_check(measured, raw, tmp_path, tmp_path / "r", ["tierbench"])
    (check,) = seen
    assert check.results.path == tmp_path / "r" / "calibration-after" and check.resume is False
    assert check.spec.repeats == calibration.PACE_REPEATS and check.spec.name.endswith("-calibration-after")
    assert [w.name for w in check.spec.workloads] == ["teragen", "terasort"] and check.spec.scale is None
    assert budget_of(check) == measured.scale.page_cache_bytes
    calibration.pace_check(_spec(core_speed=0.5), raw, tmp_path, tmp_path / "r2", ["tierbench"])
    assert len(seen) == 1  # core_speed given: no calibration, so no pace to check


def test_after_a_calibration_on_the_rates_drives_the_pace_check_runs_on_them_and_is_compared_with_those_runs(
        tmp_path, monkeypatch):
    from tierbench.scale.pace import pace
    from tierbench.scale import calibration
    from tierbench.study import runner

    seen = []
    monkeypatch.setattr(runner.StudyRunner, "run", lambda self: seen.append(self))
    raw = tomllib.loads(QUICK)
    measured = parse_spec(raw, source="scaled.toml", calibration_runs=(5.0, 5.2, 5.4), calibration_fit=(6.0,) * 7)
    calibration.pace_check(measured, raw, tmp_path, tmp_path / "r", ["tierbench"])
    (device,) = seen[0].spec.storage[0].emulated["data"]
    assert device["profile"] == "sata-ssd-2014"  # as the fit runs ran, at the k the unlimited runs gave
    d = _with_pace_check(tmp_path / "a", (5.0, 5.2, 5.4), fit=(9.0,) * 7)
    assert pace(ResultsDir(d).load()).before_s == (9.0,) * 7


def _with_pace_check(tmp_path, before: tuple[float, ...], fit: tuple[float, ...] = ()) -> Path:
    """Scaled results whose calibration's runs took `before` s of work, and a pace check whose runs are the
    committed quickstart results' (their TeraSorts' work)."""
    d, _ = _scaled_results(tmp_path, {"single": 1 << 20, "split": 1 << 20})
    study = json.loads((d / "study.json").read_text())
    study["spec"]["scale"] = parse_spec(tomllib.loads(QUICK), source="s.toml", calibration_runs=before,
                                        calibration_fit=fit).scale.to_dict()
    (d / "study.json").write_text(json.dumps(study))
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d / "calibration-after")
    return d


def test_the_report_says_whether_this_machines_pace_held_through_the_study(tmp_path):
    from statistics import median

    from tierbench.scale.pace import pace
    from tierbench.analysis.measures import active_seconds

    after = [active_seconds(r) for r in ResultsDir(Path(__file__).parent / "fixtures" / "quickstart-results").load().runs
             if r.ok and r.label == "terasort"]
    steady = _with_pace_check(tmp_path / "a", tuple(t * 1.05 for t in after))
    p = pace(ResultsDir(steady).load())
    assert p.after_s == tuple(after) and p.change == pytest.approx(1 / 1.05 - 1) and p.held
    text = str(_section(steady))
    assert f"median {median(after):.2f} s against {median(after) * 1.05:.2f} s before the study (-5%)" in text
    assert "pace held within 10%" in text and "NOT" not in text
    slowed = _with_pace_check(tmp_path / "b", tuple(t * 0.8 for t in after))  # the study's machine 25% slower after
    text = str(_section(slowed))
    assert "(+25%)" in text and "did NOT hold" in text and "up to about 25%" in text
    shutil.rmtree(steady / "calibration-after")  # (a study made before there was a pace check)
    assert pace(ResultsDir(steady).load()) is None and "After the study" not in str(_section(steady))


def check_calibration(results: Path) -> None:
    """The study's core_speed was measured before its drives were sized: its calibration study's TeraSorts ran ok on
    the model's IO path without its limits (a memory-backed device, durable writes; gone after it), sizing the drives
    of the run the target's rate comes from (two SATA SSDs), on which the job then ran again: the rate is those runs',
    and the drives the study emulated are the target's x the k they give."""
    import json

    from tierbench.scale.calibration import FIT_REPEATS, PACE_REPEATS, SIZING_REPEATS

    study = json.loads((results / "study.json").read_text())
    scale, cal = study["spec"]["scale"], study["spec"]["scale"]["calibration"]
    sorts, cal_device = _calibration_sorts(results / "calibration")
    assert cal["status"] == "measured" and sorted(cal["runs_s"]) == pytest.approx(sorted(sorts)), cal
    assert len(sorts) == SIZING_REPEATS and cal_device["profile"]["name"] == "unlimited", cal_device
    fits, fit_device = _calibration_sorts(results / "calibration-fit")
    assert sorted(cal["fit_s"]) == pytest.approx(sorted(fits)) and len(fits) == FIT_REPEATS
    # the measurements the study took its k from, beside its runs.jsonl
    stored = json.loads((results / "calibration.json").read_text())
    assert {k: stored[k] for k in ("runs_s", "fit_s")} == {"runs_s": cal["runs_s"], "fit_s": cal["fit_s"]}
    assert stored["rate"]["rate_from"] == "published" and stored["rate"]["mb_s_per_thread"] == 4.26  # (where it came from)
    cores = os.cpu_count() or 1  # k = cores here / (12 there x core_speed), core_speed = 4.26 / the rate per core here
    first_k = cores / 12 * (scale["data_bytes"] / 1e6 / (sorted(sorts)[len(sorts) // 2] * cores)) / 4.26
    assert fit_device["profile"]["name"] == "sata-ssd-2014"
    assert fit_device["profile"]["read_mb_s"] == pytest.approx(2 * 500 * first_k, rel=0.01), fit_device
    here = scale["data_bytes"] / 1e6 / (sorted(fits)[len(fits) // 2] * (os.cpu_count() or 1))
    assert cal["core_speed"] == pytest.approx(4.26 / here)
    device = next(d for d in study["emulated"].values() if d["profile"]["name"] == "hdd-7200-2014")  # the HDD pair,
    # at the target's speed x k (the study's k: the calibration's)
    assert device["profile"]["read_mb_s"] == pytest.approx(2 * 130 * scale["rate_factor"], rel=0.01), device
    # its writes paying a seek a 1 MiB request: six of the target's writers on each drive
    seeking = 1.048576 / (1.048576 / 130 + 1 / 150)
    assert device["profile"]["write_mb_s"] == pytest.approx(2 * seeking * scale["rate_factor"], rel=0.01), device
    report = (results / "report.md").read_text()
    assert "measured, not assumed" in report and "on the drives of the run that rate comes from" in report
    after, _ = _calibration_sorts(results / "calibration-after")  # and after the study, the job again: the pace check
    assert len(after) == PACE_REPEATS
    assert "After the study its terasort ran again" in report and ("pace held" in report or "did NOT hold" in report)


def check_pace_followed(results: Path) -> None:
    """The all-SSD pair's TeraSort, on the calibrated rate's own drives, measured this machine's pace again (the
    median with the fit's last runs): the TeraSort after it went at the k it gave (bounded), the other jobs at the
    calibration's, each recording its k, and the report says so."""
    import json

    from tierbench.analysis.measures import active_seconds
    from tierbench.store import ResultsDir
    from tierbench.scale.pace_follow import MOST, PACE_WINDOW

    study = json.loads((results / "study.json").read_text())
    k, fit = study["spec"]["scale"]["rate_factor"], study["spec"]["scale"]["calibration"]["fit_s"]
    runs = {r.run_key: r for r in ResultsDir(results).load().runs}
    sort = runs["r1/ssd/terasort"]
    assert sort.details["pace"]["from"] == "the calibration" and sort.details["pace"]["k"] == pytest.approx(k)
    window = (list(fit) + [active_seconds(sort)])[-PACE_WINDOW:]  # the fit's last runs and this one
    factor = min(MOST[1], max(MOST[0], sorted(fit)[len(fit) // 2] / statistics.median(window)))
    assert runs["r1/hdd/terasort"].details["pace"] == {"k": pytest.approx(k * factor), "factor": pytest.approx(factor),
                                                       "from": "r1/ssd/terasort"}, runs["r1/hdd/terasort"].details
    assert runs["r1/hdd/teragen"].details["pace"] == {"k": k, "factor": 1.0, "from": "the calibration"}
    assert "followed this machine's pace" in (results / "report.md").read_text()


def _calibration_sorts(folder: Path) -> tuple[list[float], dict]:
    """A calibration study's TeraSorts' work (their phases; every one ok) and its one emulated device, brought down."""
    import json

    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    sorts = [r for r in runs if r["workload"] == "terasort"]
    work = [sum(p["end_ms"] - p["start_ms"] for p in r["details"]["phases"] if p.get("level", 1) == 1) / 1000
            for r in sorts]
    assert all(r["status"] == "ok" for r in sorts) and all(0 < w < r["wall_s"] for w, r in zip(work, sorts))
    (device,) = json.loads((folder / "study.json").read_text())["emulated"].values()
    assert device["backing"] == "memory" and all(r["storage"]["data"] == [device["mount"]] for r in runs)
    assert not Path(device["mount"]).exists()  # brought down when that study was done
    return work, device


EMULATED = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart-emulated.toml").read_text())


@pytest.mark.parametrize("fit", [(), (6.0, 6.2, 6.4)])
def test_the_calibrated_spec_is_the_spec_parsed_at_the_measured_k_without_parsing_it_again(fit):
    """with_calibration replaces k and the emulated drives' figures in the spec parsed once; what it gives is what
    parsing the tables written at the measured k gave (the former way): the same study.json spec and fingerprint,
    so that a study recorded so resumes and reports as it did."""
    from tierbench.scale.derive import apply_scale, parse_scale, with_calibration
    from tierbench.spec.schema import parse_spec as parse_plain

    raw, measured = copy.deepcopy(EMULATED), Measured((5.0, 5.2, 5.4), fit)
    pending = parse(copy.deepcopy(raw), "q.toml", Path.cwd())
    model = parse_scale("q.toml", raw, Path.cwd(), measured.runs_s, measured.fit_s)
    former = parse_plain(apply_scale("q.toml", raw, model), "q.toml", Path.cwd(), scale=model)
    now = with_calibration(pending, raw, Path.cwd(), measured)
    assert now.to_dict() == former.to_dict() and now.fingerprint() == former.fingerprint()
    assert now.scale.rate_factor != pending.scale.rate_factor and now.scale.calibration_measured
    assert pending.scale.calibration_pending and not pending.scale.calibration_measured


def test_a_scale_model_is_the_same_value_read_back_from_study_json():
    m = parse(copy.deepcopy(EMULATED), "q.toml", measured=Measured((5.0, 5.2, 5.4), (6.0,))).scale
    from tierbench.spec.scale import ScaleModel

    assert ScaleModel.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_a_spec_with_scale_is_refused_by_the_plain_parser():
    from tierbench.spec.schema import parse_spec as parse_plain

    with pytest.raises(SpecError, match="scale"):
        parse_plain(tomllib.loads(QUICK), "q.toml")


def _calibrated_without_runs(tmp_path, monkeypatch, out: Path):
    """calibrated() on --resume, any study it would run refused (it must read its k, not measure it)."""
    from tierbench.scale import calibration
    from tierbench.study import runner

    def ran(self):
        raise AssertionError(f"a calibration ran in {self.results.path}")

    monkeypatch.setattr(runner.StudyRunner, "run", ran)
    raw = copy.deepcopy(EMULATED)
    spec = parse(copy.deepcopy(raw), "q.toml", tmp_path)
    return calibration.calibrated(spec, raw, tmp_path, out, ["tierbench"], resume=True)


def test_a_finished_calibration_is_read_back_from_calibration_json(tmp_path, monkeypatch):
    from tierbench.store.derived import CALIBRATION_FILE

    out = tmp_path / "r"
    out.mkdir()
    ResultsDir(out).save_calibration(Measured((5.0, 5.2, 5.4), (6.0, 6.1, 6.2)).to_dict())
    assert json.loads((out / CALIBRATION_FILE).read_text()) == {"runs_s": [5.0, 5.2, 5.4], "fit_s": [6.0, 6.1, 6.2]}
    ResultsDir(out).check_may_run(resume=False)  # (calibration.json: the study about to be made here's own)
    spec = _calibrated_without_runs(tmp_path, monkeypatch, out)
    assert spec.scale.calibration.runs_s == (5.0, 5.2, 5.4) and spec.scale.calibration.fit_s == (6.0, 6.1, 6.2)
    (out / CALIBRATION_FILE).unlink()
    (tmp_path / "elsewhere.json").write_text(json.dumps({"runs_s": [1.0]}))
    (out / CALIBRATION_FILE).symlink_to(tmp_path / "elsewhere.json")  # never followed: the folder is not ours
    with pytest.raises(UserError, match="holds no tierbench results"):
        _calibrated_without_runs(tmp_path, monkeypatch, out)
    with pytest.raises(UserError, match="not a regular file"):
        ResultsDir(out).calibration()


def test_a_folder_calibrated_before_calibration_json_resumes_from_its_study_json(tmp_path, monkeypatch):
    """A results folder recorded before calibration.json existed holds its calibration in study.json's spec."""
    measured = parse(copy.deepcopy(EMULATED), "q.toml", tmp_path, measured=Measured((5.0, 5.2, 5.4), (6.0,)))
    out = tmp_path / "r"
    ResultsDir(out).create(study={"name": measured.name, "fingerprint": measured.fingerprint(),
                                  "spec": measured.to_dict()})
    spec = _calibrated_without_runs(tmp_path, monkeypatch, out)
    assert spec.fingerprint() == measured.fingerprint() and spec.scale == measured.scale


def test_the_calibration_is_measured_by_one_rule_for_the_study_and_its_stored_spec():
    from tierbench.spec.scale import measured_calibration

    pending = parse(copy.deepcopy(EMULATED), "q.toml").scale
    measured = parse(copy.deepcopy(EMULATED), "q.toml", measured=Measured((5.0, 5.2, 5.4))).scale
    given = _spec(core_speed=0.5).scale
    for model in (pending, measured, given):
        assert bool(measured_calibration(model.to_dict())) == model.calibration_measured
    assert measured.calibration_measured and pending.calibration_pending and not given.calibration_pending
    assert measured_calibration(None) is None
