"""Two or more studies of one spec compared (`tierbench compare A B [C...]`): is B faster than A for our jobs, by how
much, and for sure? The first study is the baseline. Each job (variant, workload label) that every study ran is
compared with the report's own statistics (stats.compare: the ratio of medians, Welch's test at the report's ALPHA),
and so are its phases (details.phases, the engine's stages) and SQL queries (details.queries). The interval shown
beside the verdict is Welch's own (welch_interval): of the ratio of means, from the test that gives p, so that it
excludes 1 exactly when the verdict is significant -- the median ratio's bootstrap interval could exclude 1 beside
"not significant" (a fixture's shuffle phase: 1.08-2.47 at p = 0.057), two tests read as one.

Studies are compared only when their specs decide the same runs (study.json's fingerprint): otherwise the
differing spec fields are named, and accepted only when the user says so (`allowed`). What differs outside the
spec -- the machine, the engine and tierbench versions -- is what is being compared, and is listed."""

import math
import statistics
from dataclasses import asdict, dataclass, field

from ..errors import UserError
from ..spec.fingerprint import CONFIG_RUN_FIELDS, ENGINE_RUN_FIELDS, RUN_FIELDS
from ..store import StoredRun, StoredStudy
from ..store.pooling import check_pools
from ..workloads import WORKLOADS
from .measures import runtime_of, variant_of
from .stats import ALPHA, Comparison, compare, runs_for_analysis

# the records' fields whose values describe where and with what a study ran (listed when the studies differ)
MACHINE_FIELDS = ("hostname", "cpu_model", "cpu_cores", "memory_bytes", "kernel", "os", "python")
VERSION_FIELDS = ("engine_version", "tool_version", "git_commit")
# the spec's lists of tables, each table known by this key (a difference is named by it, not by a list index)
NAMED_LISTS = {"engines": "name", "storage": "name", "workloads": "label", "sweeps": "knob"}
LEVEL_FIELDS = {"engines": ENGINE_RUN_FIELDS, "storage": CONFIG_RUN_FIELDS}


@dataclass(frozen=True)
class SpecDifference:
    """A spec field (a dotted path: `engines.spark.master`, `workloads.teragen.params.rows`) that differs."""
    field: str
    values: tuple  # per study, as stored (None where a study lacks it)


def decided_fields(spec: dict) -> dict[str, object]:
    """The spec's fields that decide its runs (the fingerprinted ones: spec/fingerprint.py), flattened to dotted
    paths; a list of tables is keyed by each table's name (engines, storage), label (workloads) or knob (sweeps)."""
    out: dict[str, object] = {}
    for key in RUN_FIELDS:
        if key in spec:
            _flatten(out, key, spec[key], LEVEL_FIELDS.get(key))
    return out


def _flatten(out: dict, path: str, value, keep: tuple | None = None) -> None:
    key = NAMED_LISTS.get(path)
    if key and isinstance(value, list) and all(isinstance(t, dict) and key in t for t in value):
        for table in value:
            _flatten(out, f"{path}.{table[key]}", {k: v for k, v in table.items() if keep is None or k in keep})
    elif isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(out, f"{path}.{k}", v)
    else:
        out[path] = value


def spec_differences(specs: list[dict]) -> list[SpecDifference]:
    """Every decided field whose value is not the same in all the specs, in the order the first spec has them."""
    flat = [decided_fields(s) for s in specs]
    names = list(dict.fromkeys(k for f in flat for k in f))
    return [SpecDifference(name, tuple(f.get(name) for f in flat)) for name in names
            if any(f.get(name) != flat[0].get(name) for f in flat[1:])]


def accepted(difference: SpecDifference, allowed: set[str]) -> bool:
    """Whether --allow names the field or a table that holds it (`engines` accepts `engines.spark.master`)."""
    return any(difference.field == a or difference.field.startswith(a + ".") for a in allowed)


WELCH_KIND = "welch 95%, ratio of means"


def welch_interval(base, other, alpha: float = ALPHA) -> tuple[float, float] | None:
    """Welch's (1 - alpha) interval of mean(other) / mean(base): the interval of the difference of the means that
    Welch's t-test inverts (the same standard error and Welch-Satterthwaite degrees of freedom as its p), over the
    baseline's mean. It excludes 1 exactly when p < alpha. (The baseline's mean is taken as known: the interval of a
    difference, said as a share of the baseline, not Fieller's interval of a ratio.) None with one run on a side."""
    nb, no = len(base), len(other)
    if nb < 2 or no < 2:
        return None
    mb, mo = statistics.fmean(base), statistics.fmean(other)
    vb, vo = statistics.variance(base) / nb, statistics.variance(other) / no
    se = math.sqrt(vb + vo)
    if se == 0:  # (every run of both alike: the test calls any difference significant, p = 0)
        return mo / mb, mo / mb
    df = (vb + vo) ** 2 / (vb ** 2 / (nb - 1) + vo ** 2 / (no - 1))
    from scipy import stats

    half = float(stats.t.ppf(1 - alpha / 2, df)) * se
    # (a wide interval of a difference can reach below -mb: no runtime is negative, and 0 excludes 1 no less)
    return max((mo - mb - half) / mb + 1, 0.0), (mo - mb + half) / mb + 1


@dataclass(frozen=True)
class Delta:
    """One thing measured in the baseline study and in another, compared: a job's runtime, one of its phases or one
    of its queries. `part` is the phase or query ("" for the job itself)."""
    study: str  # the compared study's label (B, C, ...)
    variant: str
    workload: str
    part: str
    base_values: tuple[float, ...]
    values: tuple[float, ...]
    comparison: Comparison

    @property
    def job(self) -> str:
        return f"{self.variant} / {self.workload}"

    @property
    def base_median(self) -> float:
        return statistics.median(self.base_values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def ratio(self) -> float:
        """The study's median runtime / the baseline's (the report's normalised runtime)."""
        return self.comparison.ratio

    @property
    def mean_ratio(self) -> float:
        """The study's mean runtime / the baseline's: what Welch's test (p, the verdict, `interval`) is about."""
        return statistics.fmean(self.values) / statistics.fmean(self.base_values)

    @property
    def interval(self) -> tuple[float, float] | None:
        """Welch's 95% interval of the ratio of means (welch_interval); None with one run on a side."""
        return welch_interval(self.base_values, self.values)

    @property
    def verdict(self) -> str:
        """"faster", "slower" (significant at the report's ALPHA: the means differ, their direction), "not
        significant", or "too few runs"."""
        p = self.comparison.p_value
        if p is None:
            return "too few runs"
        if p >= ALPHA:
            return "not significant"
        return "slower" if self.mean_ratio > 1 else "faster"

    def slower_by_more_than(self, threshold: float) -> bool:
        return self.verdict == "slower" and self.ratio - 1 > threshold

    def to_dict(self) -> dict:
        c = self.comparison
        return {"study": self.study, "variant": self.variant, "workload": self.workload, "part": self.part,
                "baseline_median_s": self.base_median, "median_s": self.median, "ratio": self.ratio,
                "mean_ratio": self.mean_ratio, "ratio_interval": list(self.interval) if self.interval else None,
                "ratio_interval_kind": WELCH_KIND if self.interval else "", "p_value": c.p_value, "verdict": self.verdict,
                "baseline_runs": len(self.base_values), "runs": len(self.values)}


@dataclass(frozen=True)
class StudyComparison:
    labels: tuple[str, ...]  # A, B, C, ...: the first is the baseline
    studies: tuple[StoredStudy, ...]
    accepted_differences: tuple[SpecDifference, ...]  # spec fields that differ, accepted with --allow
    jobs: tuple[Delta, ...]
    phases: tuple[Delta, ...]
    queries: tuple[Delta, ...]
    environment: tuple[SpecDifference, ...]  # machine.* and versions that differ between the studies
    unmatched: tuple[str, ...]  # jobs some study did not run (ok), one line each
    notes: tuple[str, ...] = field(default=())

    def slower_than(self, threshold: float) -> list[Delta]:
        """The jobs significantly slower than the baseline by more than threshold (0.05: 5%)."""
        return [d for d in self.jobs if d.slower_by_more_than(threshold)]

    def to_dict(self) -> dict:
        return {"baseline": self.labels[0],
                "studies": [{"label": lab, "path": str(s.path), "name": s.study.name, "fingerprint": s.study.fingerprint,
                             "created_at": s.study.created_at, "runs": len(s.runs)} for lab, s in zip(self.labels, self.studies)],
                "accepted_spec_differences": [asdict(d) for d in self.accepted_differences],
                "environment_differences": [asdict(d) for d in self.environment],
                "jobs": [d.to_dict() for d in self.jobs], "phases": [d.to_dict() for d in self.phases],
                "queries": [d.to_dict() for d in self.queries], "unmatched": list(self.unmatched), "notes": list(self.notes)}


def check_specs(studies: list[StoredStudy], labels: list[str], allowed: set[str]) -> list[SpecDifference]:
    """The spec differences between the studies, all accepted by `allowed`; else a UserError naming the rest."""
    if len({s.study.fingerprint for s in studies}) == 1 and studies[0].study.fingerprint:
        return []
    # (an engine's Spark release is what such a comparison is about: its runs' engine_version says it, and the
    # labels carry it, study_labels)
    diffs = [d for d in spec_differences([s.study.spec for s in studies]) if not spark_release_field(d.field)]
    refused = [d for d in diffs if not accepted(d, allowed)]
    if refused:
        shown = "; ".join(f"{d.field} ({', '.join(f'{lab}: {_short(v)}' for lab, v in zip(labels, d.values))})"
                          for d in refused[:6]) + (f"; and {len(refused) - 6} more" if len(refused) > 6 else "")
        raise UserError(f"the studies ran different specs: {shown}; only studies of the same spec are compared: "
                        f"pass --allow {','.join(dict.fromkeys(d.field for d in refused))} to compare them anyway")
    return diffs


def spark_release_field(name: str) -> bool:
    """`engines.NAME.spark`: an engine's Spark release (spec/engine.py)."""
    parts = name.split(".")
    return len(parts) >= 3 and parts[0] == "engines" and parts[-1] == "spark"


def spark_releases(study: StoredStudy) -> tuple[str, ...]:
    """The Spark releases the study's ok runs recorded (engine_version "spark 4.1.4" -> "4.1.4"), sorted."""
    return tuple(sorted({r.engine_version.split()[1] for r in study.runs
                         if r.ok and r.engine_version and r.engine_version.startswith("spark ")}))


def study_labels(studies: list[StoredStudy]) -> list[str]:
    """A, B, C, ...; each with its Spark release when the studies ran different ones ("A spark 4.3.0"), so that
    every table and chart says which release a column is."""
    letters = [chr(ord("A") + i) if i < 26 else f"S{i + 1}" for i in range(len(studies))]
    releases = [spark_releases(s) for s in studies]
    if len(set(releases)) < 2:
        return letters
    return [f"{letter} spark {'+'.join(r) or '?'}" for letter, r in zip(letters, releases)]


def _short(value, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def job_values(runs: list[StoredRun]) -> dict[tuple[str, str], list[float]]:
    """(variant, workload label) -> its ok runs' runtimes (stats.runtime_of: the report's runtime)."""
    out: dict[tuple[str, str], list[float]] = {}
    for r in runs_for_analysis(runs):
        if r.ok and runtime_of(r) is not None:
            out.setdefault((variant_of(r), r.label), []).append(runtime_of(r))
    return out


def phase_values(runs: list[StoredRun]) -> dict[tuple[str, str, str], list[float]]:
    """(variant, label, phase) -> per ok run, the phase's seconds (run_phases)."""
    out: dict[tuple[str, str, str], list[float]] = {}
    for r in runs_for_analysis(runs):
        for phase, s in (run_phases(r) if r.ok else {}).items():
            out.setdefault((variant_of(r), r.label, phase), []).append(s)
    return out


def run_phases(run: StoredRun) -> dict[str, float]:
    """A run's phases in seconds, from details.phases: each stage its workload names (level 0; several of one name
    added), then each of the tasks' own phases that is no stage (level 1, e.g. TeraSort's shuffle fetch inside its
    reduce stage) from its first task's start to its last one's end. Stages the workload does not name (a SQL
    query's, numbered by Spark) are left out: their numbers differ from run to run."""
    wl = WORKLOADS.get(run.workload)
    named = set(wl.phases) if wl else set()
    stages: dict[str, float] = {}
    tasks: dict[str, list[tuple[int, int]]] = {}
    for p in run.details.get("phases") or []:
        if p.get("level", 0) == 0 and p["phase"] in named:
            stages[p["phase"]] = stages.get(p["phase"], 0.0) + (p["end_ms"] - p["start_ms"]) / 1000
        elif p.get("level", 0) == 1 and p["phase"] not in named:
            tasks.setdefault(p["phase"], []).append((p["start_ms"], p["end_ms"]))
    spans = {name: (max(e for _, e in iv) - min(s for s, _ in iv)) / 1000 for name, iv in tasks.items()}
    return stages | spans


def query_values(runs: list[StoredRun]) -> dict[tuple[str, str, str], list[float]]:
    """(variant, label, query) -> per ok run that timed it, the query's seconds (details.queries)."""
    out: dict[tuple[str, str, str], list[float]] = {}
    for r in runs_for_analysis(runs):
        for q in (r.details.get("queries") or []) if r.ok else []:
            out.setdefault((variant_of(r), r.label, q["name"]), []).append(q["s"])
    return out


def _deltas(base: dict, others: list[dict], labels: list[str]) -> list[Delta]:
    """A Delta per key the baseline and each other study both have, in the baseline's order."""
    out = []
    for label, other in zip(labels[1:], others):
        for key, values in base.items():
            if key in other:
                variant, workload, part = (*key, "")[:3]
                c = compare(values, other[key], variant, workload, labels[0])
                out.append(Delta(label, variant, workload, part, tuple(values), tuple(other[key]), c))
    return out


def environment_differences(studies: list[StoredStudy]) -> list[SpecDifference]:
    """The machine facts and versions the studies' ok runs recorded, where they differ: per study, its values
    (several joined with ' | ' when its own runs differ)."""
    out = []
    for name in [f"machine.{k}" for k in MACHINE_FIELDS] + list(VERSION_FIELDS):
        per_study = []
        for s in studies:
            seen = {str(_fact(r, name)) for r in s.runs if r.ok and _fact(r, name) is not None}
            per_study.append(" | ".join(sorted(seen)) if seen else None)
        if len(set(per_study)) > 1:
            out.append(SpecDifference(name, tuple(per_study)))
    return out


def _fact(run: StoredRun, name: str):
    if name.startswith("machine."):
        return (run.machine or {}).get(name.removeprefix("machine."))
    return getattr(run, name)


def compare_studies(studies: list[StoredStudy], labels: list[str], allowed: set[str] | None = None,
                    allow_mixed: bool = False) -> StudyComparison:
    """The studies compared with the first: refused (UserError) when fewer than two, when their specs differ in a
    field not `allowed`, when a study's own pools mix machines or versions (as its report refuses them) unless
    `allow_mixed`, or when no job was run by all of them."""
    if len(studies) < 2:
        raise UserError(f"compare needs two results folders or more (the first is the baseline); given {len(studies)}")
    accepted_diffs = check_specs(studies, labels, set(allowed or ()))
    notes = [f"{lab} pooled with --allow-mixed: {line}" for lab, s in zip(labels, studies)
             for line in check_pools(runs_for_analysis(list(s.runs)), allow_mixed, f"{lab} ({s.path})")]
    runs = [list(s.runs) for s in studies]
    jobs = [job_values(r) for r in runs]
    matched = [k for k in jobs[0] if all(k in j for j in jobs[1:])]
    if not matched:
        shown = "; ".join(f"{lab}: {', '.join(f'{v} / {w}' for v, w in j) or 'no ok runs'}" for lab, j in zip(labels, jobs))
        raise UserError(f"nothing to compare: no (configuration, workload) has ok runs in every study ({_short(shown, 300)})")
    unmatched = [f"{v} / {w}: not in {', '.join(lab for lab, j in zip(labels, jobs) if (v, w) not in j)}"
                 for v, w in dict.fromkeys(k for j in jobs for k in j) if (v, w) not in matched]
    keep = lambda values: {k: v for k, v in values.items() if k[:2] in matched}
    phases = [keep(phase_values(r)) for r in runs]
    queries = [keep(query_values(r)) for r in runs]
    return StudyComparison(tuple(labels), tuple(studies), tuple(accepted_diffs),
                           tuple(_deltas({k: jobs[0][k] for k in matched}, jobs[1:], labels)),
                           tuple(_deltas(phases[0], phases[1:], labels)), tuple(_deltas(queries[0], queries[1:], labels)),
                           tuple(environment_differences(studies)), tuple(unmatched), tuple(notes))
