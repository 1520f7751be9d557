"""A scale model's runs carried to the cluster it models: similarity, not the resource model.

A study with [scale] ran one target node shrunk (scale/model.py): per node the same data / page cache, task
sizes / task memory, fetch sizes, tasks per drive, and CPU / drive speed, with every drive slowed by k (the
machine's cores / the target's) and the data shrunk from D (the target's per node) to d. Every resource then
does d / D of its target work at k times its target rate, so each second the model's job works stands for

    k x D / d   seconds of the full-size job on the target (the time factor),

on a hardware description whose nodes are the target's (nodes, cores, memory, copies) and whose drives are the
ones a configuration of the study emulated (`emulate = "hdd-7200-2014"`, `stands_for = 2`: that configuration
is a model of a node with two such drives). What the factor does not carry is the model's fixed cost -- JVM
start, job setup and commit, the time outside the job's phases -- so the factor multiplies the job's phases
only (its active time); the target's own fixed cost (a cluster's job submission, tens of seconds) is not
added: it is under 1% of the studies' jobs. Only at the target's size: at another size the data / page cache
ratio, the one the model was built on, is no longer the target's.
"""

import statistics
from dataclasses import dataclass

import numpy as np

from ..analysis.emulated import pace_factor
from ..analysis.measures import active_seconds
from ..analysis.observation import device_roles
from ..analysis.stats import median_interval
from ..store import StoredRun, StoredStudy
from .hardware import Hardware, catalog, stored_target

STANDS_FOR_TOLERANCE = 0.02  # an emulated device's figures / (the catalog drive's x k): a whole number of drives
UNUSED_SHARE = 0.01  # a device that moved under 1% of a run's device bytes: the job did not use it (staging files)


@dataclass(frozen=True)
class Transferred:
    """A job's runtime on the target hardware, carried from the scale model's runs of one configuration."""
    label: str
    hardware: str
    config: str              # the study's configuration that models the hardware
    size_bytes: float
    seconds: float           # the median of the runs' carried runtimes
    interval: tuple[float, float]  # of that median, from the repeats (median_interval)
    interval_kind: str
    time_factor: float       # target seconds per second of the model's active time
    active_s: list[float]    # each run's active time here (its phases)
    runs: int
    pooled: tuple[str, ...] = ()  # the configurations whose runs were pooled with `config`'s (equivalent_configs)


def emulated_drives(entries: list[dict], k: float) -> tuple[str, int] | None:
    """(catalog drive, how many of the target's drives) the emulated devices of one role stand for, or None."""
    drives = catalog()
    names = {e.get("profile") for e in entries}
    if len(names) != 1 or (name := names.pop()) not in drives or not all("figures" in e for e in entries):
        return None
    per_device = [e["figures"]["read_mb_s"] / (drives[name].read_mb_s * k) for e in entries]
    if any(abs(n - round(n)) > STANDS_FOR_TOLERANCE * n or round(n) < 1 for n in per_device):
        return None
    return name, sum(round(n) for n in per_device)


def modelled_config(stored: StoredStudy, hw: Hardware) -> str | None:
    """The configuration of a scale model's study that models a node of `hw`: the target's nodes, cores, memory
    and copies, the same drives for data and (when `hw` has its own) intermediate data. None when there is none."""
    scale = stored.study.spec.get("scale")
    if not scale:
        return None
    target = stored_target(scale)  # (a user's file as the results keep it)
    if (target.nodes, target.cores, target.memory_bytes, target.write_copies) != (
            hw.nodes, hw.cores, hw.memory_bytes, hw.write_copies):
        return None
    k = scale["rate_factor"]
    for config in stored.study.spec.get("storage", []):
        emulated = config.get("emulated") or {}
        data = emulated_drives(emulated.get("data", []), k)
        if data != (hw.data.drive.name, hw.data.count):
            continue
        shared = sorted(config.get("intermediate", [])) == sorted(config.get("data", []))
        if hw.intermediate_on_data and shared:
            return config["name"]
        if not hw.intermediate_on_data and not shared and \
                emulated_drives(emulated.get("intermediate", []), k) == (hw.intermediate.drive.name, hw.intermediate.count):
            return config["name"]
    return None


def _intermediate_unused(stored: StoredStudy, runs: list[StoredRun]) -> bool:
    """Whether no run moved UNUSED_SHARE of its bytes on a device that holds intermediate data only (one without
    such a device has none to use); False when a run has no device samples to tell."""
    for run in runs:
        devices = (run.samples or {}).get("devices")
        if not devices:
            return False
        moved = {d: sum(c.get("rd_bytes", [])) + sum(c.get("wr_bytes", [])) for d, c in devices.items()}
        only = [d for d, roles in device_roles(run, stored.study.storage_map).items() if roles == ["intermediate"]]
        if sum(moved.get(d, 0) for d in only) > UNUSED_SHARE * max(1, sum(moved.values())):
            return False
    return True


def equivalent_configs(stored: StoredStudy, workload: str, config: str, k: float) -> list[str]:
    """`config` and the configurations whose runs of `workload` are the same job on the same drives: the same
    emulated data drives, and no intermediate device of their own that the job used. TeraGen writes no intermediate
    data, so on all-HDD and on the HDD + SSD hybrid it is one job on one kind of drive: its runs in both are samples
    of the same thing, pooled, and the difference between the two configurations' medians, which is noise, is not
    carried to the target as a difference between them."""
    runs_of: dict[str, list[StoredRun]] = {}
    for r in stored.latest_ok().values():
        if r.workload == workload:
            runs_of.setdefault(r.config, []).append(r)
    emulated = {c["name"]: (c.get("emulated") or {}) for c in stored.study.spec.get("storage", [])}
    mine = emulated_drives(emulated.get(config, {}).get("data", []), k)
    if mine is None or not _intermediate_unused(stored, runs_of.get(config, [])):
        return [config]
    return [config] + [c for c, e in emulated.items() if c != config and c in runs_of
                       and emulated_drives(e.get("data", []), k) == mine and _intermediate_unused(stored, runs_of[c])]


def time_factor(scale: dict, nodes: int, size_bytes: float) -> float:
    """Target seconds per second of the model's active time: k x (the target's data per node / the model's)."""
    return scale["rate_factor"] * (size_bytes / nodes) / scale["data_bytes"]


def transfer(stored: StoredStudy, workload: str, hw: Hardware, size_bytes: float | None = None,
             label: str | None = None) -> Transferred | None:
    """The workload's job (the one labelled `label` when given) on `hw` from the study's runs of the configuration
    that models it, at the target's size; None when the study is no scale model of `hw` at that size, or has no ok
    run of the job there."""
    scale = stored.study.spec.get("scale")
    if not scale or (size_bytes is not None and abs(size_bytes - scale["target_size"]) > 0.01 * scale["target_size"]):
        return None
    config = modelled_config(stored, hw)
    return carried(stored, workload, config, hw.name, hw.nodes, label) if config else None


def carried(stored: StoredStudy, workload: str, config: str, hardware: str, nodes: int,
            label: str | None = None) -> Transferred | None:
    """The runs of `config` (pooled with its equivalent configurations) carried to the scale model's target of
    `nodes` nodes at its size: the one computation behind predict, advise and the report's cost at the target."""
    scale = stored.study.spec["scale"]
    pooled = equivalent_configs(stored, workload, config, scale["rate_factor"])
    runs = [r for r in stored.latest_ok().values() if r.config in pooled and r.workload == workload and r.wall_s
            and label in (None, r.label)]
    if not runs:
        return None
    runs = [r for r in runs if r.label == runs[0].label]  # (one job of the workload: a study may size it twice)
    factor = time_factor(scale, nodes, scale["target_size"])
    active = [active_seconds(r) for r in runs]
    carried_s = np.array(active) * factor * np.array([pace_factor(r) for r in runs])  # (a run at a higher k: more time there)
    interval, kind = median_interval(carried_s)
    return Transferred(runs[0].label, hardware, config, scale["target_size"], float(statistics.median(carried_s)),
                       interval, kind, factor, active, len(runs), tuple(pooled[1:]))
