"""What every section of the report is built from, read from the stored study (study.json, the runs, the derived outputs) once: the spec's
variants and workloads, the study's other facts, the runs analysed, the analysis, the costs, each run's observation,
the chart colours. No section reads study.json itself."""

from dataclasses import dataclass
from datetime import datetime, timezone

from ..analysis.cost import study_costs
from ..analysis.observation import RunObservation, observe
from ..scale.pace import Pace, pace
from ..analysis.stats import Analysis, analyse, per_value_baselines, runs_for_analysis
from ..analysis.tables import per_run_values, profiled_runs
from ..store import StoredRun, StoredStudy
from . import charts


@dataclass(frozen=True)
class StudyFacts:
    """What study.json says beside the spec, read in one place: what the sections show of the study itself."""
    probe: dict  # device -> fio's ceilings, before the study
    probe_error: str | None  # why the ceilings were skipped
    predictions: dict | None  # what `tierbench predict` stored
    node_check: dict | None  # `tierbench check` when the study started
    emulated: dict  # device -> the emulated device profile
    emulation_skipped: bool  # run with --unemulated
    engine_applications: dict  # engine -> its long-lived applications (started, resumed, keep_alive_memory)
    tool_version: str | None
    git_commit: str | None
    command_line: list[str]
    memory_budget: dict | None = None  # a scale model's page cache budget: enforced, or why not
    pace: Pace | None = None  # a scale model's calibration job before and after the study

    @classmethod
    def of(cls, stored: StoredStudy) -> "StudyFacts":
        study = stored.study
        return cls(stored.probe or {}, study.probe_error, stored.predictions, study.node_check, study.emulated or {},
                   bool(study.emulation_skipped), study.engine_applications or {}, study.tool_version, study.git_commit,
                   study.command_line, study.memory_budget, pace(stored))


@dataclass(frozen=True)
class ReportContext:
    facts: StudyFacts
    spec: dict
    variants: list[dict]  # {"name", "config", "engine"?}: the compared units
    configs: list[str]  # the variants' names
    workloads: list[str]  # the workloads' labels
    config_of: dict[str, str]  # variant -> its storage configuration
    runs: list[StoredRun]  # runs_for_analysis of the stored runs
    analysis: Analysis
    cost: dict | None  # the spec's [cost]
    costs: list  # analysis.cost.WorkloadCost per (config, workload), when the spec prices
    machine: dict
    storage_map: dict
    observations: dict[str, RunObservation | None]  # run_key -> what its samples say (ok runs)
    profiled: list[StoredRun]  # the runs whose IO profile is drawn
    run_values: dict  # per_run_values: every run's runtime and throughput per pair
    colors: dict  # one colour per variant in every chart
    phase_colors: dict
    now: datetime
    stored: StoredStudy | None = None  # (the scale model's runs carried to its target: model/transfer.py)


def build_context(stored: StoredStudy, now: datetime | None = None) -> ReportContext:
    study = stored.study
    spec = study.spec
    variants = study.variants or [{"name": c["name"], "config": c["name"]} for c in spec["storage"]]
    configs = [v["name"] for v in variants]
    workloads = [w["label"] for w in spec["workloads"]]
    runs = runs_for_analysis(list(stored.runs))
    an = analyse(runs, spec["baseline"], configs, workloads,
                 per_value_baselines(spec["baseline"], variants, spec.get("sweeps") or []))
    cost = spec.get("cost")
    storage_map = study.storage_map or {}
    costs = study_costs(cost, an, runs, {v["name"]: v["config"] for v in variants}, storage_map) if cost else []
    machine = study.machine or {}
    cores = machine.get("cpu_cores") or 1
    facts = StudyFacts.of(stored)
    obs = {r.run_key: observe(r, storage_map, facts.probe, cores, facts.emulated) for r in runs if r.status == "ok"}
    profiled = profiled_runs(runs, configs, workloads)
    phases = [p for r in profiled if obs.get(r.run_key) for p in obs[r.run_key].labels]
    return ReportContext(facts, spec, variants, configs, workloads, {v["name"]: v.get("config", v["name"]) for v in variants},
                         runs, an, cost, costs, machine, storage_map, obs, profiled, per_run_values(runs, configs, workloads),
                         charts.series_colors(configs), charts.phase_colors(phases), now or datetime.now(timezone.utc), stored)
