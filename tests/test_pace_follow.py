"""A scale model's drives following this machine's pace through the study (scale/pace_follow.py): which
configuration measures it, the k each run goes at, the devices' limits rescaled, and each run carried to the target
at its own k. Fast: no JVM, no device (the blkio writer is a recorder, named so)."""

import copy
import statistics
import tomllib
from importlib import resources

import pytest

from tierbench.analysis.emulated import emulated_devices
from tierbench.model.hardware import load_hardware
from tierbench.model.transfer import transfer
from tierbench.scale.shared_time import SharedTime
from tierbench.scale.pace_follow import MOST, PaceFollower, pace_config
from tierbench.scale.derive import Measured, parse


def parse_spec(raw, source, base_dir=None, calibration_runs=(), calibration_fit=()):
    """The spec parsed once (scale/derive.py parse), with a calibration's measurements where given."""
    measured = Measured(tuple(calibration_runs), tuple(calibration_fit)) if calibration_runs else None
    return parse(raw, source, base_dir, measured=measured)


QUICKSTART = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart-emulated.toml").read_text())
FIT = (6.0, 6.2, 6.4, 6.6, 6.8, 7.0, 7.2)  # the calibration's runs on the rate's drives: its rate_s is 6.6 s


def quickstart(fit=FIT):
    return parse_spec(copy.deepcopy(QUICKSTART), source="quickstart-emulated.toml", calibration_runs=(5.0, 5.2, 5.4), calibration_fit=fit)


class RecordedLimits:
    """Stands for emulation.set_limits (which writes the blkio throttle, root only): what was applied, in order."""

    def __init__(self):
        self.applied: list[tuple[str, dict]] = []

    def __call__(self, major_minor: str, limits: dict) -> None:
        self.applied.append((major_minor, dict(limits)))


def shared_time():
    full = {"read_mb_s": 100.0, "write_mb_s": 50.0, "read_iops": 200.0, "write_iops": 100.0}
    return SharedTime({"loop9": ("7:9", full)}, RecordedLimits())


def terasort(config="ssd", work_s=6.6, status="ok", key="r1/ssd/terasort"):
    phases = [{"phase": "map", "start_ms": 0, "end_ms": int(work_s * 1000), "level": 1}]
    return {"status": status, "config": config, "label": "terasort", "run_key": key, "wall_s": work_s + 2,
            "details": {"phases": phases}}


def test_the_configuration_on_the_rates_own_drives_measures_the_pace():
    assert pace_config(quickstart()) == "ssd"  # 2 x sata-ssd-2014, data and intermediate data on them
    assert pace_config(quickstart(fit=())) is None  # a rate with no drives of its own: nothing measures the pace
    pending = parse_spec(copy.deepcopy(QUICKSTART), source="q.toml")
    assert pace_config(pending) is None  # k not measured yet


def test_k_follows_each_run_of_the_calibrated_job_on_those_drives_for_that_jobs_runs():
    spec, shared = quickstart(), shared_time()
    pace = PaceFollower(spec, "ssd", shared)
    k = spec.scale.rate_factor
    pace.before("terasort")
    assert pace.current() == {"k": k, "factor": 1.0, "from": "the calibration"} and shared.apply.applied == []
    assert pace.after(terasort(config="hdd")) is None and pace.after(terasort(status="failed")) is None
    pace.after(terasort(work_s=8.25))  # the fit's last two (7.0, 7.2 s) and this one: the median 7.2 s
    said = pace.after(terasort(work_s=8.25, key="r2/ssd/terasort"))  # now 8.25 s at the median: 25% slower than
    assert "r2/ssd/terasort worked 8.25 s" in said and "-20%" in said  # the calibration's 6.6 s, the drives 20% slower
    pace.before("teragen")  # another job: the calibration's k (it did not share the calibrated job's slowdown)
    assert pace.current() == {"k": k, "factor": 1.0, "from": "the calibration"} and shared.apply.applied == []
    pace.before("terasort")
    assert pace.current() == {"k": pytest.approx(0.8 * k), "factor": pytest.approx(0.8), "from": "r2/ssd/terasort"}
    assert shared.apply.applied[-1] == ("7:9", {"read_mb_s": 80.0, "write_mb_s": 40.0, "read_iops": 160.0,
                                               "write_iops": 80.0})
    pace.before("teragen")
    assert shared.apply.applied[-1] == ("7:9", {"read_mb_s": 100.0, "write_mb_s": 50.0, "read_iops": 200.0,
                                               "write_iops": 100.0})
    fluke = PaceFollower(spec, "ssd", shared_time())
    for n in (1, 2, 3):  # runs far off (a fault): k moves to the bound only, and says so
        said = fluke.after(terasort(work_s=1.0, key=f"r{n}/ssd/terasort"))
    fluke.before("terasort")
    assert fluke.current()["factor"] == MOST[1] and "at most" in said


def test_k_follows_the_median_of_the_last_runs_that_measured_the_pace():
    """One run's work is noisy: the pace is the median of the last PACE_WINDOW runs of the job on the pace drives,
    the calibration's fit runs first: one fast run beside the fit's moves k less than it says, two move it."""
    from tierbench.scale.pace_follow import PACE_WINDOW

    pace = PaceFollower(quickstart(), "ssd", shared_time())  # the fit's runs end 6.8, 7.0, 7.2 s
    factors = []
    for n, work in enumerate((5.5, 5.5, 8.8, 8.8, 6.6), start=1):
        said = pace.after(terasort(work_s=work, key=f"r{n}/ssd/terasort"))
        factors.append(pace.factor)
    assert PACE_WINDOW == 3 and "r5/ssd/terasort worked 6.60 s, the last 3 such runs 8.80 s at the median" in said
    assert factors == pytest.approx([6.6 / 7.0, 6.6 / 5.5, 6.6 / 5.5, 6.6 / 8.8, 6.6 / 8.8])
    pace.before("terasort")
    assert pace.current()["from"] == "r5/ssd/terasort"


def test_a_resumed_study_starts_at_the_pace_its_last_measuring_run_left():
    done = [terasort(work_s=5.5), terasort(config="hdd", work_s=20.0, key="r1/hdd/terasort")]
    pace = PaceFollower.for_study(quickstart(), shared_time(), done)
    pace.before("terasort")
    assert pace.current()["factor"] == pytest.approx(6.6 / 7.0)  # the median of the fit's last two and that run
    assert pace.current()["from"] == "r1/ssd/terasort"


def test_a_runs_devices_are_judged_and_carried_at_its_own_k():
    entry = {"profile": {"name": "hdd-7200-2014"}, "limits": {"read_mb_s": 100.0, "write_mb_s": 50.0,
                                                               "read_iops": 200.0, "write_iops": 100.0}}
    assert emulated_devices({"loop0": entry}, 0.8)["loop0"].limits["write_mb_s"] == pytest.approx(40.0)


def test_predict_carries_each_run_at_the_k_it_went_at(tmp_path):
    from test_model_transfer import STUDY

    hw = load_hardware("sandisk-all-hdd")
    before = transfer(STUDY, "terasort", hw)
    runs = [r for r in STUDY.latest_ok().values() if r.config == "hdd" and r.workload == "terasort"]
    for r in runs:  # (the fixture's runs in memory: each as if it went at 1.1 x the study's k)
        r.details["pace"] = {"k": 1.1 * STUDY.study.spec["scale"]["rate_factor"], "factor": 1.1, "from": "r1/ssd/terasort"}
    try:
        after = transfer(STUDY, "terasort", hw)
    finally:
        for r in runs:
            del r.details["pace"]
    assert after.seconds == pytest.approx(1.1 * before.seconds)
    assert statistics.median(after.active_s) == statistics.median(before.active_s)


def test_the_report_lists_the_ks_the_runs_went_at_and_the_pace_check_says_what_a_change_touches(tmp_path):
    import json

    from test_calibration import _section, _with_pace_check

    from tierbench.scale.pace import pace
    from tierbench.store import ResultsDir

    d = _with_pace_check(tmp_path, (9.0, 9.0, 9.0))  # the pace check's runs far faster: it moved
    k = json.loads((d / "study.json").read_text())["spec"]["scale"]["rate_factor"]
    lines = []
    for line in (d / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        first = r["repeat"] == 1 and r["config"] == "single"
        r["details"]["pace"] = {"k": k * (1 if first else 0.9), "factor": 1 if first else 0.9,
                                "from": "the calibration" if first else "r1/single/terasort"}
        lines.append(json.dumps(r))
    (d / "runs.jsonl").write_text("\n".join(lines) + "\n")
    assert pace(ResultsDir(d).load()).followed
    text = str(_section(d))
    assert "followed this machine's pace through the study" in text
    assert f"k {k:.3g} (+0%) from the calibration; k {0.9 * k:.3g} (-10%) from r1/single/terasort" in text
    assert "touches that job's runs before it alone" in text and "may be off by up to" not in text
