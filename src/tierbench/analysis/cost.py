"""Cost per job, as the seed studies computed it, and what they left out.

The studies' formulas (reproduced exactly, see tests/test_cost.py):
    jobs per day        = 86400 / runtime_s                       (x utilisation)
    jobs in N years     = jobs per day x 365 x N
    $ per job           = configuration price / jobs in N years
Added here: power ($/kWh x W x runtime), drive wear (bytes written per job
against the drive's rated endurance; when endurance runs out before the N
years, the replacements are added to $/job), cost per performance (price /
MB/s) next to cost per usable capacity ($/TB after replication or erasure
coding).
"""

import math

import numpy as np
from dataclasses import dataclass, asdict
from decimal import Decimal, ROUND_DOWN, ROUND_HALF_UP

from ..errors import UserError
from ..spec.cost import TB, ConfigCost, DriveClass
from ..store import StoredRun

SECONDS_PER_DAY = 86400
DAYS_PER_YEAR = 365


def _positive(name: str, value, allow_zero=False) -> float:
    # inf too: an infinite runtime makes no jobs in the period, and $/job a division by zero
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UserError(f"{name}: expected a finite number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise UserError(f"{name}: must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class JobCost:
    runtime_s: float
    price_usd: float
    years: float
    utilisation: float
    jobs_per_day: float
    jobs_in_period: float
    usd_per_job: float

    def to_dict(self) -> dict:
        return asdict(self)


def cost_per_job(runtime_s, price_usd, years=3, utilisation=1.0) -> JobCost:
    runtime_s = _positive("runtime_s", runtime_s)
    price_usd = _positive("price_usd", price_usd, allow_zero=True)
    years = _positive("years", years)
    utilisation = _positive("utilisation", utilisation)
    if utilisation > 1:
        raise UserError(f"utilisation: a share of the time between 0 and 1, got {utilisation}")
    jobs_per_day = SECONDS_PER_DAY / runtime_s * utilisation
    jobs = jobs_per_day * DAYS_PER_YEAR * years
    return JobCost(runtime_s, price_usd, years, utilisation, jobs_per_day, jobs, price_usd / jobs)


def published_rounding(value: float, decimals: int, mode: str) -> float:
    """Round as a paper did: "round" (half up) or "truncate" (toward zero)."""
    q = Decimal(1).scaleb(-decimals)
    d = Decimal(repr(value)).quantize(q, rounding=ROUND_DOWN if mode == "truncate" else ROUND_HALF_UP)
    return float(d)


# -- bills of materials, power, wear -------------------------------------------------

@dataclass(frozen=True)
class Wear:
    drive: str
    bytes_per_job_per_drive: float
    jobs_until_worn: float | None  # None: the class has no rated endurance
    worn_before_period_ends: bool
    replacements: int
    replacement_usd_per_job: float


@dataclass
class WorkloadCost:
    config: str
    workload: str
    base: JobCost
    power_usd_per_job: float
    wear: list[Wear]
    usd_per_job_total: float  # hardware + power + drive replacements
    usd_per_mb_s: float | None  # cost per performance
    usd_per_usable_tb: float | None  # cost per capacity
    written_source: str = "model"  # where the bytes written per job came from: "sampled" devices or the workload "model"
    job_bytes: float = 0.0  # the data one job moved as run (the larger of what it read, shuffled and wrote)
    at_target: "WorkloadCost | None" = None  # the same figures for cost.target_size, extrapolated linearly


def wear_for(config: ConfigCost, classes: dict[str, DriveClass], written: dict[str, float], jobs_in_period: float) -> list[Wear]:
    """`written`: bytes one job writes to each drive class (whole cluster)."""
    out = []
    for drive, total in written.items():
        count = config.nodes * config.drives.get(drive, 0)
        if count == 0 or total <= 0:
            continue
        per_drive = total / count
        cls = classes[drive]
        if cls.endurance_bytes:
            jobs_until = cls.endurance_bytes / per_drive
            worn = jobs_until < jobs_in_period
            repl = math.ceil(jobs_in_period / jobs_until) - 1 if worn else 0
            usd = repl * count * cls.price_usd / jobs_in_period
        else:
            jobs_until, worn, repl, usd = None, False, 0, 0.0
        out.append(Wear(drive, per_drive, jobs_until, worn, repl, usd))
    return out


def workload_cost(config_name: str, workload: str, runtime_s: float, throughput_mb_s: float | None,
                  config: ConfigCost, classes: dict[str, DriveClass], written: dict[str, float],
                  years: float, utilisation: float, usd_per_kwh: float) -> WorkloadCost:
    base = cost_per_job(runtime_s, config.price_usd, years, utilisation)
    power = config.watts(classes) * runtime_s / 3.6e6 * usd_per_kwh
    wear = wear_for(config, classes, written, base.jobs_in_period)
    usable = config.usable_bytes(classes)
    return WorkloadCost(
        config_name, workload, base, power, wear,
        base.usd_per_job + power + sum(w.replacement_usd_per_job for w in wear),
        config.price_usd / throughput_mb_s if throughput_mb_s else None,
        config.price_usd / (usable / TB) if usable else None,
    )


# -- from a study's stored results ------------------------------------------------------

def bytes_written_model(workload: str, metrics: dict) -> dict[str, float]:
    """Bytes one run writes, by kind of directory, from the workload's IO roles (before replication):
    its output to the data dirs, its shuffle/spill once to the intermediate dirs."""
    from ..workloads import WORKLOADS

    wl = WORKLOADS.get(workload)
    if wl is None:
        return {"data": 0.0, "intermediate": 0.0}
    mb = wl.io.mb(metrics)
    return {"data": mb["output"] * (1 << 20), "intermediate": mb["intermediate"] * (1 << 20)}


def bytes_written_sampled(record: StoredRun, storage_map: dict) -> dict[str, float] | None:
    """Bytes the run's data and intermediate devices took, measured (job and writeback samples), or None.
    A device holding both kinds counts as "data". The machine may be shared: this is an upper bound."""
    s = record.samples
    dirs = (storage_map or {}).get("dirs", {})
    if not s or not dirs:
        return None
    dev_of = lambda paths: {dirs.get(p, {}).get("device") for p in paths} - {None}
    data_devs = dev_of(record.storage["data"])
    inter_devs = dev_of(record.storage["intermediate"]) - data_devs
    if not data_devs:
        return None
    total = lambda devs: float(sum(sum(s["devices"][d]["wr_bytes"]) for d in devs if d in s["devices"]))
    return {"data": total(data_devs), "intermediate": total(inter_devs), "separate": bool(inter_devs)}


def job_bytes(record: StoredRun) -> float:
    """The data one run moved: the larger of what it read, shuffled and wrote (its IO roles), in bytes."""
    from ..workloads import WORKLOADS

    wl = WORKLOADS.get(record.workload)
    return max(wl.io.mb(record.metrics).values()) * (1 << 20) if wl else 0.0


def cost_from_dict(cost: dict) -> tuple[dict[str, DriveClass], dict[str, ConfigCost]]:
    classes = {n: DriveClass(**d) for n, d in cost.get("drive_classes", {}).items()}
    configs = {n: ConfigCost(**c) for n, c in cost.get("configs", {}).items()}
    return classes, configs


def study_costs(cost: dict, analysis, runs: list[StoredRun], config_of: dict[str, str], storage_map: dict | None = None) -> list[WorkloadCost]:
    """Cost figures per (variant, workload) whose storage configuration has a price, from median runtime
    and throughput. `config_of` maps variant -> storage configuration. Bytes written per job (for wear)
    are the sampler's median when runs were sampled, else the workload model's."""
    from .stats import variant_of

    classes, configs = cost_from_dict(cost)
    out = []
    for config in analysis.configs:
        cc = configs.get(config_of.get(config, config))
        if cc is None:
            continue
        for wl in analysis.workloads:
            s = analysis.runtime.get((config, wl))
            if s is None:
                continue
            t = analysis.throughput.get((config, wl))
            ok = [r for r in runs if r.status == "ok" and variant_of(r) == config and r.label == wl]
            sampled = [b for b in (bytes_written_sampled(r, storage_map) for r in ok) if b is not None]
            if cc.intermediate_drive != cc.data_drive and not all(b["separate"] for b in sampled):
                sampled = []  # the price list has two drive classes but the dirs share one device: measured bytes cannot be split
            if sampled:  # measured on this machine's devices: replication, if any, is already in them
                written_kind = {k: float(np.median([b[k] for b in sampled])) for k in ("data", "intermediate")}
                factor_data, source = 1.0, "sampled"
            else:
                written_kind = bytes_written_model(ok[0].workload, ok[0].metrics)
                factor_data, source = cc.copies, "model"
            written: dict[str, float] = {}
            for kind, drive in (("data", cc.data_drive), ("intermediate", cc.intermediate_drive)):
                if drive and written_kind[kind]:
                    factor = factor_data if kind == "data" else 1.0
                    written[drive] = written.get(drive, 0.0) + written_kind[kind] * factor
            wc = workload_cost(config, wl, s.median, t.median if t else None, cc, classes, written,
                               cost["years"], cost["utilisation"], cost["usd_per_kwh"])
            wc.written_source = source
            wc.job_bytes = job_bytes(ok[0])
            if cost.get("target_bytes") and wc.job_bytes:
                # linear: runtime and bytes written grow with the data, throughput stays (tierbench's what-if
                # model is the better answer where it applies)
                f = cost["target_bytes"] / wc.job_bytes
                wc.at_target = workload_cost(config, wl, s.median * f, t.median if t else None, cc, classes,
                                             {d: b * f for d, b in written.items()}, cost["years"],
                                             cost["utilisation"], cost["usd_per_kwh"])
                wc.at_target.job_bytes = cost["target_bytes"]
            out.append(wc)
    return out


def cost_vs_baseline(costs: list[WorkloadCost], baseline_of) -> dict[str, dict[str, float]]:
    """Per configuration (the baselines' own rows left out): its price and each workload's total $/job as a multiple
    of its baseline's (`baseline_of(config)`): {config: {"price": 1.05, "terasort": 0.76, ...}}."""
    by = {(c.config, c.workload): c for c in costs}
    out: dict[str, dict[str, float]] = {}
    for c in costs:
        b = by.get((baseline_of(c.config), c.workload))
        if c.config == baseline_of(c.config) or b is None or b.base.price_usd == 0:
            continue
        row = out.setdefault(c.config, {"price": c.base.price_usd / b.base.price_usd})
        row[c.workload] = c.usd_per_job_total / b.usd_per_job_total
    return out
