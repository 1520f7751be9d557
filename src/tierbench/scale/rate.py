"""Where a scale model's core_speed comes from: the target's rate for the job, in this order --

1. a study the user ran on the target itself ([cpu.<job>] results = "a results folder", relative to the description's
   file): its runs of the job, data / nodes / threads / median runtime, on its fastest configuration (the one whose
   CPU, not its drives, set the pace, as SanDisk's all-SSD run was);
2. a published figure ([cpu.<job>] mb_s_per_thread, SanDisk's);

either over this machine's rate, measured by the calibration (scale/calibration.py). Else 3. an estimate from the
target's CPU (`cpu_model`) against this machine's: their per-thread scores (cpu_scores.toml), core_speed = the
target's / this machine's, within a factor ESTIMATE_FACTOR either way (docs/scale-model.md, "Your own target"). Where
this machine's CPU is not in the table, core_speed 1 within a factor UNKNOWN_FACTOR, said so.
"""

import statistics
import tomllib
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path

from ..errors import SpecError, UserError
from ..model.hardware import CpuRate, Hardware
from ..store.results import STUDY_FILE, ResultsDir
from .constants import value

TARGET_STUDY, PUBLISHED, ESTIMATE = "measured on the target", "published", "estimate"
ESTIMATE_FACTOR = value("rate.ESTIMATE_FACTOR")
UNKNOWN_FACTOR = value("rate.UNKNOWN_FACTOR")
CPUINFO = Path("/proc/cpuinfo")


def study_rate(rate: CpuRate, target: Hardware) -> CpuRate:
    """[cpu.<job>] results: the rate per thread of the job's runs in that results folder, with what it comes from;
    one line naming the description's file and field where the folder is missing or holds no finished run."""
    src, field, folder = target.file or target.name, f"cpu.{rate.job}.results", Path(rate.results)
    if not (folder / STUDY_FILE).is_file():
        raise SpecError(src, field, f"{folder}: no study's results there ({STUDY_FILE} missing): name the folder "
                        "`tierbench run --out` wrote on the target, relative to this file")
    try:
        runs = [r for r in ResultsDir(folder).load().runs if r.status == "ok" and r.label == rate.job and r.wall_s]
    except (UserError, OSError, ValueError) as e:
        raise SpecError(src, field, f"{folder}: its results cannot be read: {e}") from None
    if not runs:
        raise SpecError(src, field, f"{folder}: no finished {rate.job} run there, whose rate the scale model needs")
    by_config: dict[str, list] = {}
    for r in runs:
        by_config.setdefault(r.variant, []).append(r)
    fastest = min(by_config, key=lambda v: statistics.median(r.wall_s for r in by_config[v]))
    chosen = by_config[fastest]
    size = float(chosen[0].params.get("size") or chosen[0].metrics.get("data_mb", 0) * (1 << 20))
    median = statistics.median(r.wall_s for r in chosen)
    mb_s = size / 1e6 / target.nodes / target.cores / median
    if not mb_s > 0:
        raise SpecError(src, field, f"{folder}: its {rate.job} runs record no data size: no rate to take")
    source = (f"{TARGET_STUDY}: {folder}, {rate.job} on {fastest} (the fastest configuration), {len(chosen)} runs: "
              f"{size / 1e9:.3g} GB / {target.nodes} nodes / {target.cores} threads / {median:,.1f} s (median) = "
              f"{mb_s:.3g} MB/s per thread")
    return replace(rate, mb_s_per_thread=mb_s, source=source)


@cache
def scores() -> dict[str, dict]:
    """cpu_scores.toml: row -> {names, cpuid, cpu_mark, threads, source}."""
    return tomllib.loads(resources.files(__package__).joinpath("cpu_scores.toml").read_text())


def score_of(name: str, cpuid: str = "") -> tuple[str, float, str] | None:
    """(the row, its score per thread, its source) of a CPU named `name` (or of `cpuid`: "vendor family model")."""
    for row, s in scores().items():
        if any(n.lower() in name.lower() for n in s["names"]) or (cpuid and s.get("cpuid") == cpuid):
            return row, s["cpu_mark"] / s["threads"], s["source"]
    return None


def here_cpu() -> tuple[str, str]:
    """(this machine's CPU model name, "vendor family model") from /proc/cpuinfo; ("", "") where it cannot be read."""
    try:
        text = CPUINFO.read_text()
    except OSError:
        return "", ""
    first = {}
    for line in text.splitlines():
        key, _, val = line.partition(":")
        first.setdefault(key.strip(), val.strip())
    return first.get("model name", ""), " ".join(first.get(k, "") for k in ("vendor_id", "cpu family", "model"))


def estimate(src: str, target: Hardware) -> dict:
    """core_speed from the CPUs' per-thread scores, with its low and high and what they come from."""
    there = score_of(target.cpu_model)
    if there is None:
        raise SpecError(target.file or src, "cpu_model", f"{target.cpu_model!r} is not in tierbench's table of CPU "
                        f"scores ({', '.join(n for s in scores().values() for n in s['names'])}): give [scale] "
                        "core_speed a number, or [cpu.<job>] a rate (docs/scale-model.md, \"Your own target\")")
    name, cpuid = here_cpu()
    here = score_of(name, cpuid)
    if here is None:
        return {"core_speed": 1.0, "low": 1 / UNKNOWN_FACTOR, "high": UNKNOWN_FACTOR, "target_cpu": target.cpu_model,
                "target_score": there[1], "here_cpu": name or "unknown", "here_score": None,
                "source": f"this machine's CPU ({name or 'unknown'}, {cpuid or 'no cpuid'}) is not in the table of CPU "
                          f"scores: core_speed 1, within x{UNKNOWN_FACTOR:g} either way"}
    speed = there[1] / here[1]
    return {"core_speed": speed, "low": speed / ESTIMATE_FACTOR, "high": speed * ESTIMATE_FACTOR,
            "target_cpu": target.cpu_model, "target_score": there[1], "here_cpu": name or cpuid, "here_score": here[1],
            "source": f"PassMark CPU Mark per thread: {target.cpu_model} {there[1]:.0f} ({there[0]}), this machine's "
                      f"{name or cpuid} {here[1]:.0f} ({here[0]}); within x{ESTIMATE_FACTOR:g} either way"}
