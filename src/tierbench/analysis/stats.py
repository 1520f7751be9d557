"""Per (configuration, workload) statistics, comparison with a baseline, and warnings.

Uses numpy/scipy: t-based 95% confidence interval of the mean, Welch's
t-test for "is this configuration's runtime different from the baseline's".
Warnings are values whose text says what to do, as hyperfine's and pyperf's do.
"""

import re
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ..store import StoredRun
from .measures import runtime_of, throughput_of, variant_of  # noqa: F401 (the per-run rules, importable from here too)

UNSTABLE_CV = 0.10  # pyperf's threshold: spread >= 10% of the mean
ALPHA = 0.05
FEW_REPEATS = 3
# Below this many repeats the interval shown is the runs' own range: Student's t interval of a mean of 2-4 runs
# is 5-10x wider than the spread it came from and goes below zero, and a bootstrap has too few distinct resamples.
BOOTSTRAP_FROM = 5
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0  # the same runs give the same interval in every report


@dataclass
class Summary:
    config: str
    workload: str  # label
    metric: str
    n: int
    mean: float
    median: float
    std: float
    ci95: tuple[float, float] | None  # Student's t interval of the mean (kept for the records; not drawn)
    min: float
    max: float
    # what the report draws around the median: the runs' range below BOOTSTRAP_FROM repeats, else a bootstrap 95%
    # interval of the median; never outside the values measured, so never below zero
    interval: tuple[float, float] = (0.0, 0.0)
    interval_kind: str = "range"  # "range" (min - max) or "bootstrap 95%"

    @property
    def cv(self) -> float:
        return self.std / self.mean if self.mean else 0.0


@dataclass
class Comparison:
    config: str
    workload: str
    baseline: str
    ratio: float  # median runtime / baseline median runtime (normalised runtime)
    p_value: float | None
    verdict: str  # plain words
    # the ratio's interval: with few repeats its extremes (fastest / slowest and slowest / fastest), else a bootstrap
    # 95% interval resampling both sides; "" when either side has one run
    ratio_interval: tuple[float, float] | None = None
    ratio_interval_kind: str = ""


@dataclass
class AnalysisWarning:
    """Advice about a (configuration, workload) pair, or about the whole study ("all", "all")."""
    config: str
    workload: str
    text: str


def summarize(values, config: str, workload: str, metric: str) -> Summary:
    a = np.asarray(values, dtype=float)
    n = len(a)
    mean = float(np.mean(a))
    std = float(np.std(a, ddof=1)) if n > 1 else 0.0
    ci = None
    if n > 1:
        sem = stats.sem(a)
        ci = (mean, mean) if sem == 0 else tuple(float(x) for x in stats.t.interval(0.95, n - 1, loc=mean, scale=sem))
    interval, kind = median_interval(a)
    return Summary(config, workload, metric, n, mean, float(np.median(a)), std, ci, float(np.min(a)), float(np.max(a)),
                   interval, kind)


def median_interval(a: np.ndarray) -> tuple[tuple[float, float], str]:
    """The interval shown around a median: the range below BOOTSTRAP_FROM values, else the percentile bootstrap."""
    if len(a) < BOOTSTRAP_FROM:
        return (float(np.min(a)), float(np.max(a))), "range"
    meds = np.median(np.random.default_rng(BOOTSTRAP_SEED).choice(a, size=(BOOTSTRAP_RESAMPLES, len(a))), axis=1)
    return (float(np.percentile(meds, 2.5)), float(np.percentile(meds, 97.5))), "bootstrap 95%"


def ratio_interval(base, other) -> tuple[tuple[float, float] | None, str]:
    """The interval of median(other) / median(base): the extremes with few repeats, else a bootstrap of both."""
    b, o = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    if len(b) < 2 or len(o) < 2 or np.min(b) <= 0:
        return None, ""
    if min(len(b), len(o)) < BOOTSTRAP_FROM:
        return (float(np.min(o) / np.max(b)), float(np.max(o) / np.min(b))), "range"
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    r = (np.median(rng.choice(o, size=(BOOTSTRAP_RESAMPLES, len(o))), axis=1)
         / np.median(rng.choice(b, size=(BOOTSTRAP_RESAMPLES, len(b))), axis=1))
    return (float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5))), "bootstrap 95%"


def compare(base: list[float], other: list[float], config: str, workload: str, baseline: str) -> Comparison:
    ratio = float(np.median(other) / np.median(base)) if np.median(base) > 0 else float("nan")
    interval, kind = ratio_interval(base, other)
    if len(base) < 2 or len(other) < 2:
        return Comparison(config, workload, baseline, ratio, None, "too few repeats to tell (need >= 2 per configuration)")
    if np.std(base) == 0 and np.std(other) == 0:
        p = 0.0 if np.mean(base) != np.mean(other) else 1.0
    else:
        p = float(stats.ttest_ind(other, base, equal_var=False).pvalue)
    faster = "faster" if ratio < 1 else "slower"
    pct = abs(1 - ratio) * 100
    if p < ALPHA:
        shown = "<0.001" if p < 0.001 else f"={p:.3f}"  # not "p=0.000"
        verdict = f"{pct:.0f}% {faster} than {baseline} (significant, Welch p{shown})"
    else:
        verdict = f"not significant: {pct:.0f}% {faster} than {baseline}, but Welch p={p:.2f}; the difference may be noise"
    return Comparison(config, workload, baseline, ratio, p, verdict, interval, kind)


@dataclass
class Analysis:
    baseline: str
    configs: list[str]
    workloads: list[str]
    runtime: dict[tuple[str, str], Summary] = field(default_factory=dict)
    throughput: dict[tuple[str, str], Summary] = field(default_factory=dict)
    # throughput / the engine's cores (engine_cores): how far the job itself is from being what is measured
    per_core: dict[tuple[str, str], Summary] = field(default_factory=dict)
    comparisons: list[Comparison] = field(default_factory=list)
    warnings: list[AnalysisWarning] = field(default_factory=list)
    failed: list[StoredRun] = field(default_factory=list)
    # variant -> the variant it is compared with, when not the study's baseline (per_value_baselines)
    baselines: dict[str, str] = field(default_factory=dict)

    def baseline_of(self, config: str) -> str:
        return self.baselines.get(config, self.baseline)

    @property
    def per_value(self) -> bool:
        """Whether some variants are compared with the baseline configuration at their own swept engine value."""
        return any(b != self.baseline for b in self.baselines.values())


def per_value_baselines(baseline: str, variants: list[dict], sweeps: list[dict]) -> dict[str, str]:
    """Each variant's baseline at its own value of a swept engine knob (Cloudera compared SSD with HDD-11 within
    each compression setting): a variant on engine member E of the sweep the baseline's engine belongs to is
    compared with the baseline's configuration on E. Other variants (another engine kind, no sweep): the baseline."""
    by_name = {v["name"]: v for v in variants}
    base = by_name.get(baseline)
    if base is None:
        return {}
    members = next((sw["members"] for sw in sweeps if sw["level"] == "engine"
                    and base.get("engine") in [m["name"] for m in sw["members"]]), [])
    same_sweep = {m["name"] for m in members}
    at = {(v["config"], v.get("engine")): v["name"] for v in variants}
    return {v["name"]: at.get((base["config"], v.get("engine")), baseline) if v.get("engine") in same_sweep else baseline
            for v in variants}


def engine_cores(record: StoredRun) -> int | None:
    """The cores the run's engine computed with: local[N] -> N, local[*] -> the machine's; on a cluster,
    executors x cores per executor when the settings say both; else None (unknown)."""
    conf = record.engine_conf or {}
    master = conf.get("spark.master", "")
    machine = (record.machine or {}).get("cpu_cores")
    m = re.match(r"^local(?:\[(\*|\d+)(?:,\d+)?\])?$", master)
    if m:
        return machine if m.group(1) == "*" else int(m.group(1) or 1)
    if record.engine_kind == "hadoop":  # LocalJobRunner runs this many maps at once (Hadoop's default: 1)
        local = conf.get("mapreduce.framework.name", "local") in ("local", "tierbench-local")
        return int(conf.get("mapreduce.local.map.tasks.maximum", 1)) if local else None
    executors, cores = conf.get("spark.executor.instances"), conf.get("spark.executor.cores")
    return int(executors) * int(cores) if executors and cores and executors.isdigit() and cores.isdigit() else None


def runs_for_analysis(records: list[StoredRun]) -> list[StoredRun]:
    """The runs a study's analysis pools: the latest ok record per run key, plus failures of keys that never succeeded."""
    ok = {r.run_key: r for r in records if r.status == "ok"}  # (the last ok one of each key: as StoredStudy.latest_ok)
    failed = [r for r in records if r.status != "ok" and r.run_key not in ok]
    return list(ok.values()) + failed


def analyse(records: list[StoredRun], baseline: str, configs: list[str], workloads: list[str],
            baselines: dict[str, str] | None = None) -> Analysis:
    """`records`: one ok record per run (the latest ok of each key); failed ones are listed, not pooled.
    `configs` are the variants compared (storage configurations, or config@engine); `baselines` maps a variant to
    the one it is compared with when that is not `baseline` (per_value_baselines)."""
    an = Analysis(baseline, configs, workloads, baselines=dict(baselines or {}))
    ok = [r for r in records if r.status == "ok"]
    an.failed = [r for r in records if r.status != "ok"]
    walls: dict[tuple[str, str], list[float]] = {}
    for config in configs:
        for wl in workloads:
            runs = [r for r in ok if variant_of(r) == config and r.label == wl]
            if not runs:
                continue
            w = [runtime_of(r) for r in runs]
            walls[(config, wl)] = w
            an.runtime[(config, wl)] = s = summarize(w, config, wl, "wall_s")
            tp = [throughput_of(r) for r in runs]
            if all(t is not None for t in tp):
                an.throughput[(config, wl)] = summarize(tp, config, wl, "throughput_mb_s")
                cores = [engine_cores(r) for r in runs]
                if all(cores):
                    an.per_core[(config, wl)] = summarize([t / c for t, c in zip(tp, cores)], config, wl, "mb_s_per_core")
            if s.n > 1 and s.cv > UNSTABLE_CV:
                an.warnings.append(AnalysisWarning(config, wl, f"unstable: runtime spread (std dev) is {s.cv:.0%} of the mean; "
                                            "add repeats, make the job larger, or check for other load on the machine"))
    few = sorted({s.n for s in an.runtime.values() if s.n < FEW_REPEATS})
    if few:
        an.warnings.insert(0, AnalysisWarning("all", "all", f"only {'/'.join(map(str, few))} repeat(s) per configuration and workload: "
                                       "too few to tell small differences apart; set repeats = 5 or more for a decision"))
    for config in configs:
        base = an.baseline_of(config)
        if config == base:
            continue
        for wl in workloads:
            if (config, wl) in walls and (base, wl) in walls:
                an.comparisons.append(compare(walls[(base, wl)], walls[(config, wl)], config, wl, base))
    return an
