"""A scale model's calibration: this machine's rate for the job where its CPU sets the pace, measured before the
emulated drives are sized (core_speed = the target's rate per thread / this machine's per core: scale/model.py).

The calibration is a small study of its own, in the results folder's `calibration/` subfolder: the study's engine
(its first, where it has several) runs the study's workloads up to the calibrated job (TeraGen, then TeraSort) at
the model's sizes, task settings and JVM options, REPEATS times, with no drive's limits, so that only the CPU sets
the pace, and otherwise in the study's own conditions: under its page cache budget and sampled as its runs are
(without them, the model's runs took 13-28% longer than the calibration's on a device with no limits either:
docs/scale-model.md). Where the study emulates its drives, on the model's own IO path without its limits:
an emulated device in memory, throttled only above what memory takes (storage/backing.py), durable writes -- the
loop device's copies and the syncs are CPU work the model's runs do too (measured on the quickstart, fresh clones:
on a plain directory with the engine's own writes, 16.1 MB/s per core, and the model's all-SSD TeraSort then took
29% longer than the calibrated rate gives; on the model's path, 14.3 MB/s per core, and 15%). Without emulation,
on a plain directory with the engine's own writes. The page cache is synced and dropped before each run where it
can be (root), so that the writeback of the TeraGen before does not run during the TeraSort. The job's median active time (its phases,
without the JVM's start and the job's setup: what the model's runs carry to the target, analysis/measures.py) gives the
rate: the model's data / (median x this machine's cores), as the target's is its data per node / (runtime x threads).
Where the target's rate names the drives of the run it comes from (the SanDisk study's all-SSD TeraSort), those runs
only size the drives (SIZING_REPEATS), and the rate comes from the job on them (calibration-fit/, FIT_REPEATS): the
model's run on the published run's drives is then the published run, not its CPU's part alone.
An interrupted calibration resumes with its study (--resume); a finished one's measurements are kept in
calibration.json beside the study's runs.jsonl and read back, not run again; the study's spec is not parsed again
from them (derive.with_calibration).
"""

import copy
import sys
from pathlib import Path

from ..analysis.measures import active_seconds
from ..errors import UserError
from ..spec import Spec, parse_spec
from ..spec.scale import measured_calibration
from ..store.results import CALIBRATION_DIR, FIT_DIR, PACE_CHECK_DIR, STUDY_FILE, ResultsDir
from .constants import value
from .derive import Measured, apply_scale, parse_scale, scale_drive, with_calibration

# a CPU-bound job of seconds varied by +-20% from run to run here with the JVM's default JIT, +-10% with the model's
# JVM options; the median of 5 runs still moved k by +-8% from one fresh clone to the next (docs/scale-model.md)
REPEATS = value("calibration.REPEATS")
# after the study, the job again: whether this machine's pace held from the calibration to the study's end (the
# clones of docs/scale-model.md whose ratios missed were those where a slow stretch covered the calibration alone, or
# the study alone); three runs: about 40 s of the quickstart with its device's bring-up and fio check
PACE_REPEATS = value("calibration.PACE_REPEATS")
# Where the target's rate names its run's drives: the unlimited runs only size those drives (SIZING_REPEATS: an
# error of theirs moves the drives' speed, which is a tenth of the fitted run's time), and the rate comes from
# FIT_REPEATS runs on them (_fit_runs), which the pace check's runs, on the same drives, are compared with. Where the
# study then follows the pace (pace_follow.py: a configuration on those drives measures it again in every repeat), the
# fit's k sets the first repeat's all-SSD drives alone, and the k's that follow do not depend on it (k x rate_s is the
# target's constant): 3 runs, not the 7 of before (2026-11-29, session 55: a minute of the quickstart on a slow day)
SIZING_REPEATS = value("calibration.SIZING_REPEATS")
FIT_REPEATS = value("calibration.FIT_REPEATS")
# a device no drive's figure comes near: throttled only where what it lies on (memory) could not keep the pace
UNLIMITED = {"read_mb_s": 100_000.0, "write_mb_s": 100_000.0, "read_iops": 1_000_000.0, "write_iops": 1_000_000.0}
UNLIMITED_SIZE = "2GB"
DROPPED = ("scale", "cost", "baseline", "probe", "cluster", "pipelines", "mix")  # tables the calibration runs without


def calibrated(spec: Spec, raw: dict, base_dir: Path, out_dir: Path, command_line: list[str], resume: bool,
               allow_mixed: bool = False, unemulated: bool = False) -> Spec:
    """The spec with its scale model's core_speed measured: its calibration run (its measurements then written to
    calibration.json beside the study's runs.jsonl) or read back (calibration.json; in a folder recorded before it,
    the calibration study.json's spec holds); as it is when the study has no calibration pending. The spec is not
    parsed again: the measurements set k and the emulated drives' figures (derive.with_calibration)."""
    if not spec.scale or not spec.scale.calibration_pending:
        return spec
    results = ResultsDir(out_dir)
    results.check_may_run(resume)  # (what the study would refuse first: nothing runs that it would)
    emulated = any(c.emulated for c in spec.storage) and not unemulated
    measured = recorded(out_dir, spec) if resume else None
    if measured is None:
        measured = _measure(spec, raw, base_dir, out_dir, command_line, resume, allow_mixed, emulated)
        pending = spec.scale.calibration  # (the target's rate and where it comes from, beside the measurements)
        results.save_calibration({**measured.to_dict(), "rate": {
            "job": pending.job, "mb_s_per_thread": pending.target_mb_s_per_thread, "rate_from": pending.rate_from,
            "source": pending.source}})
    out = with_calibration(spec, raw, base_dir, measured)
    c = out.scale.calibration
    print(f"tierbench: calibration: {c.job} {c.here_mb_s_per_core:.3g} MB/s per core here, "
          f"{c.target_mb_s_per_thread:.3g} MB/s per thread on {spec.scale.target} ({_from(c)}): "
          f"core_speed {c.core_speed:.3g}, drive speed factor k {out.scale.rate_factor:.3g}", file=sys.stderr, flush=True)
    return out


def _from(c) -> str:
    """Where the target's rate comes from, said once (a study's source names it already)."""
    return c.source if c.source.startswith(c.rate_from) else f"{c.rate_from}: {c.source}"


def recorded(out_dir: Path, spec: Spec) -> Measured | None:
    """A finished calibration's measurements: calibration.json, else (a folder recorded before it) the measured
    calibration in study.json's spec; None when there is neither."""
    results = ResultsDir(out_dir)
    found = results.calibration()
    if found is not None:
        return Measured.from_dict(found)
    if not results.exists():
        return None
    c = measured_calibration(results.study().get("spec", {}).get("scale"))
    return Measured(tuple(c["runs_s"]), tuple(c.get("fit_s") or ())) if c else None


def _measure(spec: Spec, raw: dict, base_dir: Path, out_dir: Path, command_line: list[str], resume: bool,
             allow_mixed: bool, emulated: bool) -> Measured:
    """The calibration's runs (calibration/), and where the rate names its drives, the job on them (calibration-fit/):
    their work times."""
    from .hooks import study_runner

    if emulated:
        from ..storage.emulation import check_can_emulate
        check_can_emulate()
    job, fitted = spec.scale.calibration.job, emulated and bool(spec.scale.calibration.fit_drive)
    folder, repeats = out_dir / CALIBRATION_DIR, SIZING_REPEATS if fitted else REPEATS
    print(f"tierbench: calibration: this machine's {job} rate, where its CPU sets the pace, before the emulated drives "
          f"are sized ({repeats} runs in {folder}" + (", to size the rate's own drives" if fitted else "") + ")",
          file=sys.stderr, flush=True)
    cal_spec = calibration_spec(spec, raw, base_dir, folder, emulated, repeats=repeats)
    runner = study_runner(cal_spec, folder, command_line + ["(calibration)"], resume=resume,
                          allow_mixed=allow_mixed, side_study=True, page_cache_budget=spec.scale.page_cache_bytes)
    results = runner.run()
    times = tuple(active_seconds(r) for r in results.load().runs if r.status == "ok" and r.label == job)
    if not times:
        raise UserError(f"{folder}: the calibration's {job} runs failed (their records and logs are there): fix the "
                        f"cause and continue with --resume, or give [scale] core_speed a number to run without it")
    fit = _fit_runs(spec, raw, base_dir, out_dir, command_line, resume, allow_mixed, times) if fitted else ()
    return Measured(times, fit)


def _fit_runs(spec: Spec, raw: dict, base_dir: Path, out_dir: Path, command_line: list[str], resume: bool,
              allow_mixed: bool, times: tuple[float, ...]) -> tuple[float, ...]:
    """The job on the drives of the run the target's rate comes from (the study's all-SSD TeraSort: two SATA SSDs a
    node), emulated at the k the unlimited runs give, FIT_REPEATS times in calibration-fit/: their work times.
    Why: that run is the calibration, and the model's own runs on those drives wait for them too (the all-SSD
    TeraSort's work 1.1 times the unlimited runs' median in the fresh clones of docs/lab/scale-model.md), where the
    rate taken from the unlimited runs alone made the fitted ratio the model's all-SSD run and not the study's."""
    from .hooks import study_runner

    c, k = spec.scale.calibration, parse_scale(spec.source, raw, base_dir, times).rate_factor
    folder = out_dir / FIT_DIR
    print(f"tierbench: calibration: the {c.job} on the rate's own drives ({c.fit_count} x {c.fit_drive} at "
          f"k {k:.3g}), {FIT_REPEATS} runs in {folder}", file=sys.stderr, flush=True)
    fit_spec = calibration_spec(spec, raw, base_dir, folder, True, repeats=FIT_REPEATS, suffix="fit", runs=times)
    results = study_runner(fit_spec, folder, command_line + ["(calibration on the rate's drives)"], resume=resume,
                           allow_mixed=allow_mixed, side_study=True,
                           page_cache_budget=spec.scale.page_cache_bytes).run()
    fit = tuple(active_seconds(r) for r in results.load().runs if r.status == "ok" and r.label == c.job)
    if not fit:
        raise UserError(f"{folder}: the calibration's {c.job} runs on the rate's drives failed (their records and "
                        "logs are there): fix the cause and continue with --resume")
    return fit


def pace_check(spec: Spec, raw: dict, base_dir: Path, out_dir: Path, command_line: list[str],
               allow_mixed: bool = False, unemulated: bool = False) -> None:
    """After a study whose core_speed was measured: the calibration's job PACE_REPEATS times more, as the calibration
    ran it, in the results folder's calibration-after/ (continued where an interrupted one stopped, read back once
    done), so that the report can say whether this machine's pace held from the calibration to the study's end
    (scale/pace.py). Its failure is said, never the study's."""
    if not spec.scale or not spec.scale.calibration_measured:
        return
    from .hooks import study_runner

    c = spec.scale.calibration

    folder = out_dir / PACE_CHECK_DIR
    emulated = any(s.emulated for s in spec.storage) and not unemulated
    print(f"tierbench: pace check: the calibration's {c.job} again, {PACE_REPEATS} runs in {folder}: whether this "
          "machine's pace held through the study", file=sys.stderr, flush=True)
    sized = c.runs_s if emulated and c.fit_s else ()  # (on the rate's drives, as its fit runs ran)
    check = calibration_spec(spec, raw, base_dir, folder, emulated, repeats=PACE_REPEATS, suffix="after", runs=sized)
    try:
        study_runner(check, folder, command_line + ["(pace check)"], resume=(folder / STUDY_FILE).is_file(),
                     allow_mixed=allow_mixed, side_study=True, page_cache_budget=spec.scale.page_cache_bytes).run()
    except UserError as e:
        print(f"tierbench: pace check: not run: {e} (the study's results stand; the report says nothing of the pace)",
              file=sys.stderr, flush=True)
        return
    from .pace import PACE_TOLERANCE, pace

    p = pace(ResultsDir(out_dir).load()) if (out_dir / STUDY_FILE).is_file() else None
    if p:
        print(f"tierbench: pace check: {c.job} {p.change:+.0%} of its work before the study: this machine's pace "
              + (f"held (within {PACE_TOLERANCE:.0%})" if p.held else "did NOT hold: the report says what that does to "
                 "the ratios"), file=sys.stderr, flush=True)


def calibration_spec(spec: Spec, raw: dict, base_dir: Path, folder: Path, emulated: bool = False,
                     repeats: int = REPEATS, suffix: str = "", runs: tuple[float, ...] = ()) -> Spec:
    """The calibration's own study: the model's workloads up to the calibrated job, no scale model (no drive's
    limits; its runner holds the model's page cache budget), on a memory-backed device with durable writes where
    the study emulates its drives, else on a plain directory with the engine's own writes; `repeats` times, its
    name the study's + "-calibration" (+ "-" + `suffix`). With the unlimited runs' times (`runs`): on the rate's
    own drives, emulated at the k those give."""
    model = parse_scale(spec.source, raw, base_dir, runs)
    job = model.calibration.job
    out = apply_scale(spec.source, raw, model)  # the model's sizes, tasks and engine settings
    for key in DROPPED:
        out.pop(key, None)
    if isinstance(out.get("engines"), dict) and len(out["engines"]) > 1:  # the first engine's rate: one k per study
        first = next(iter(out["engines"]))
        out["engines"] = {first: out["engines"][first]}
    names = [w.get("name") for w in out["workloads"]]
    out["workloads"] = out["workloads"][:names.index(job) + 1]
    name = f"{spec.name[:52 - len(suffix) - bool(suffix)]}-calibration" + (f"-{suffix}" if suffix else "")
    out.update(name=name, repeats=repeats, durability="engine", drop_caches="auto",
               free_page_reporting="as-is",
               description=f"{spec.name}'s calibration: {job} where the CPU sets the pace (scale/calibration.py)")
    out["storage"] = {"calibration": {"description": "a plain directory of this machine's: no drive sets the pace",
                                      "data": [str(folder.resolve() / "storage")],
                                      "create_dirs": True}}  # (its folder is made by the calibration's own run)
    if emulated:
        out["storage"] = {"calibration": {"description": "the model's IO path without its limits: a device in memory",
                                          "data": {"emulate": "unlimited", "figures": UNLIMITED, "backing": "memory",
                                                   "size": UNLIMITED_SIZE}}}
        out["durability"] = "durable"
    if emulated and runs:
        c = model.calibration
        drive = {"emulate": c.fit_drive, "stands_for": c.fit_count, "size": UNLIMITED_SIZE}
        scale_drive(spec.source, "calibration", drive, model)
        out["storage"] = {"calibration": {"description": f"the drives of the rate's run: {c.fit_count} x "
                                          f"{c.fit_drive}, data and intermediate data on them", "data": drive}}
    # (the study's id: its calibrations' devices and roots are its folder's, beside its own)
    return parse_spec(copy.deepcopy(out), source=f"{spec.source} (calibration)", base_dir=base_dir,
                      study_id=spec.study_id)
