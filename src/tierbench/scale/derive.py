"""[scale]: the study as a scale model of a full-size job on a target cluster (scale/model.py derives it); a spec
with it is parsed here (`parse`, once), and a calibration's measurements set its k afterwards (`with_calibration`).

    [scale]
    target = "sandisk-hybrid"   # a hardware description (docs/hardware.md): shipped name or .toml path
    size = "1TB"                # the full-size job's data, all nodes (10^12 bytes: the size rule, units.py)
    data = "256MB"              # the model's data on this machine (default 256MB)
    core_speed = "measured"     # a target core's speed relative to one of this machine's: a number, "measured"
                                # (the default where the target gives a rate for a workload of the study), or
                                # "estimate" (from the CPUs' scores: the default where it names its cpu_model), else 1
    reducers = 36               # the target job's reducers (default: one per task slot of every node)
    task_heap = "512MiB"        # the target's task JVM heap (default 1GiB)

The derived settings are written into the spec's tables before they are parsed, so that each parser checks
them as it checks a user's values: the tera workloads' sizes, tasks, splits and partitions, the hadoop engine's
task memory and concurrency, and emulated drives named from the drive catalog, scaled by k. A setting the user
gave is kept, and the model says so (`overridden`).
"""

import copy
import os
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import SpecError
from ..fields import between, positive_int, table, unknown_fields
from ..model.hardware import catalog, load_hardware
from ..spec import Spec, parse_spec, read_spec
from ..spec.schema import TOP_KEYS
from ..spec.scale import Calibration, ScaleModel
from ..storage.emulation import read_iops_limit
from ..units import parse_size
from ..workloads import WORKLOADS
from .model import MODEL_JAVA_OPTIONS, Here, derive, direct_read_request, drive_figures, hadoop_conf
from .rate import TARGET_STUDY, estimate, study_rate

SCALE_KEYS = ("target", "size", "data", "core_speed", "reducers", "task_heap")
DEFAULT_DATA = "256MB"
MEASURED = "measured"
ESTIMATED = "estimate"


@dataclass(frozen=True)
class Measured:
    """A calibration's measurements (calibration.json, scale/calibration.py): its runs' work times without a drive's
    limits, and on the rate's own drives (`fit_s`, where it ran them)."""
    runs_s: tuple[float, ...]
    fit_s: tuple[float, ...] = ()

    def to_dict(self) -> dict:
        return {"runs_s": list(self.runs_s), "fit_s": list(self.fit_s)}

    @classmethod
    def from_dict(cls, d: dict) -> "Measured":
        return cls(tuple(d["runs_s"]), tuple(d.get("fit_s") or ()))


def parse(raw: dict, source: str = "<spec>", base_dir: Path | None = None, study_id: str = "",
          measured: Measured | None = None) -> Spec:
    """A spec's TOML tables -> Spec, parsed once: a [scale] table's model derived first and its settings written
    into the other tables (apply_scale), checked there as a user's would be. With `measured` (a calibration's), the
    model's k and drives at it (with_calibration)."""
    base_dir = base_dir or Path.cwd()
    unknown_fields(source, "", raw, TOP_KEYS)  # (before [scale] is read, as for any spec)
    model = parse_scale(source, raw, base_dir)
    spec = parse_spec(apply_scale(source, raw, model) if model else raw, source, base_dir, study_id, scale=model)
    return with_calibration(spec, raw, base_dir, measured) if measured and model else spec


def parse_in(raw: dict, source: str, base_dir: Path | None, out_dir: Path) -> Spec:
    """The spec as its study in `out_dir` runs it: its devices and data roots named with the folder's id."""
    from ..study.identity import study_id

    return parse(raw, source, base_dir, study_id(out_dir))


def load_spec(path) -> Spec:
    raw, base_dir = read_spec(path)
    return parse(raw, str(path), base_dir)


def with_calibration(spec: Spec, raw: dict, base_dir: Path, measured: Measured) -> Spec:
    """The study with its calibration's measurements: its scale model at the k they give, and each emulated drive's
    figures (its device profile) at that k. The spec is not parsed again: the drives' figures are the only settings
    k moves (the tasks, sizes and engine settings do not depend on it), and they are replaced."""
    model = parse_scale(spec.source, raw, base_dir, measured.runs_s, measured.fit_s)
    at_k = _by_pending(_drive_figures(spec.source, raw, spec.scale), _drive_figures(spec.source, raw, model))
    storage = tuple(replace(c, emulated={role: [_at_k(e, at_k) for e in entries] for role, entries in c.emulated.items()})
                    if c.emulated else c for c in spec.storage)
    return replace(spec, scale=model, storage=storage)


def _drive_figures(src: str, raw: dict, model: ScaleModel) -> dict:
    """(configuration, role) -> the figures the model gives its emulated drive (the catalog's drives it sizes)."""
    out = apply_scale(src, raw, model)
    return {(name, role): c[role]["figures"] for name, c in (out.get("storage") or {}).items() if isinstance(c, dict)
            for role in ("data", "intermediate") if isinstance(c.get(role), dict) and "figures" in c[role]}


def _key(figures: dict) -> tuple:
    return tuple(sorted((f, float(v)) for f, v in figures.items()))


def _by_pending(pending: dict, measured: dict) -> dict:
    """The pending model's figures (as a key) -> the measured model's, drive by drive."""
    return {_key(pending[where]): measured[where] for where in pending}


def _at_k(entry: dict, at_k: dict) -> dict:
    """An emulated device's entry with its figures at the measured k (as the spec's parse writes them: floats)."""
    figures = entry.get("figures")
    if figures is None or _key(figures) not in at_k:
        return entry
    new = at_k[_key(figures)]
    return {**entry, "figures": {f: float(new[f]) for f in figures}}


def parse_scale(src: str, raw: dict, base_dir: Path, calibration_runs: tuple[float, ...] = (),
                calibration_fit: tuple[float, ...] = ()) -> ScaleModel | None:
    """The [scale] table's model, or None when the study has none. With core_speed measured, `calibration_runs` are
    the calibration's work times (scale/calibration.py), `calibration_fit` its runs on the rate's own drives;
    without them the model's calibration is pending. (Only the model: the spec is parsed once, by `parse`.)"""
    if "scale" not in raw:
        return None
    t = table(src, "scale", raw["scale"], "expected a table such as [scale] target = \"sandisk-hybrid\" size = \"1TB\"")
    unknown_fields(src, "scale.", t, SCALE_KEYS)
    target = _target(src, t, base_dir)
    full = _size(src, "scale.size", t.get("size"), what="the full-size job's data, e.g. \"1TB\"")
    data = _size(src, "scale.data", t.get("data", DEFAULT_DATA), what="the model's data here, e.g. \"256MB\"")
    if data * target.nodes >= full:
        raise SpecError(src, "scale.data", f"{t.get('data', DEFAULT_DATA)!r} is not smaller than a target node's share "
                        f"of {t['size']!r}: a scale model is smaller than the node it models")
    here = Here(cores=os.cpu_count() or 1)
    calibration = _calibration(src, t, target, raw.get("workloads"))
    guess = _estimate(src, t, target) if not calibration else None
    speed = 1.0 if calibration or guess else float(between(
        src, "scale.core_speed", t.get("core_speed", 1.0), 0.05, 20,
        "a target core's speed relative to one of this machine's, \"measured\" or \"estimate\""))
    if calibration and calibration_runs:
        calibration = replace(calibration, runs_s=tuple(calibration_runs), data_bytes=data, cores=here.cores,
                              fit_s=tuple(calibration_fit))
    reducers = positive_int(src, "scale.reducers", t["reducers"], 1) if "reducers" in t else None
    heap = _size(src, "scale.task_heap", t.get("task_heap", "1GiB"), what="a task's JVM heap there")
    return derive(target, full, data, here, speed, reducers, task_heap=heap, calibration=calibration, estimate=guess)


def _calibration(src, t: dict, target, workloads) -> Calibration | None:
    """core_speed "measured" (the default where the target has a rate for one of the study's workloads): on the first
    such workload; None for a number given, or when nothing can be measured by default."""
    given = t.get("core_speed", MEASURED)
    if given != MEASURED:
        return None
    names = [w.get("name") for w in workloads if isinstance(w, dict)] if isinstance(workloads, list) else []
    rate = next((r for n in names if (r := target.cpu_rate(n))), None)
    if rate and rate.results:  # a study run on the target itself comes first (scale/rate.py)
        rate = study_rate(rate, target)
        return Calibration(rate.job, rate.mb_s_per_thread, rate.source, fit_drive=rate.drive, fit_count=rate.count,
                           rate_from=TARGET_STUDY)
    if rate:
        return Calibration(rate.job, rate.mb_s_per_thread, rate.source, fit_drive=rate.drive, fit_count=rate.count)
    if "core_speed" in t:
        jobs = ", ".join(c.job for c in target.cpu) or "none"
        raise SpecError(src, "scale.core_speed", f"\"measured\" needs the target's rate for one of the study's "
                        f"workloads ([cpu.<job>] in its description, docs/hardware.md; {target.name} has: {jobs}): "
                        "give a number instead, a target core's speed relative to one of this machine's")
    return None


def _estimate(src, t: dict, target) -> dict | None:
    """core_speed "estimate" (the default where the target names its cpu_model and gives no rate for the study's
    workloads): from the CPUs' scores, with its low and high (scale/rate.py); None for a number given."""
    given = t.get("core_speed", ESTIMATED if target.cpu_model else None)
    if given != ESTIMATED:
        return None
    if not target.cpu_model:
        raise SpecError(src, "scale.core_speed", f"\"estimate\" needs the target's CPU (cpu_model in {target.name}'s "
                        "description, docs/hardware.md): name it, or give a number")
    return estimate(src, target)


def _target(src, t: dict, base_dir: Path):
    name = t.get("target")
    if not isinstance(name, str) or not name:
        raise SpecError(src, "scale.target", f"expected a hardware description: the name of one shipped with "
                        f"tierbench (`tierbench predict --help` lists them) or a .toml path, got {name!r}")
    path = base_dir / name if name.endswith(".toml") else name
    return load_hardware(path)


def _size(src, where: str, value, what: str) -> int:
    if value is None:
        raise SpecError(src, where, f"missing: {what}")
    try:
        return parse_size(value)
    except ValueError as e:
        raise SpecError(src, where, f"{e} ({what})") from None


def apply_scale(src: str, raw: dict, model: ScaleModel) -> dict:
    """A copy of the spec's tables with the model's settings written in where the user left them out."""
    out = copy.deepcopy(raw)
    for w in out.get("workloads", []) if isinstance(out.get("workloads"), list) else []:
        if isinstance(w, dict):
            _scale_workload(w, model)
    drives = []  # (catalog drive, streams) of every emulated drive the model sized
    for name, c in (out["storage"].items() if isinstance(out.get("storage"), dict) else []):
        for role in ("data", "intermediate"):
            if isinstance(c, dict) and isinstance(c.get(role), dict) and c[role].get("emulate") in catalog():
                drives.append(scale_drive(src, f"storage.{name}.{role}", c[role], model))
    conf = hadoop_conf(model)
    if model.hold_map_output and drives:
        conf["tierbench.local.direct.read.bytes"] = direct_read_request(drives, read_iops_limit)
    engines = [out.get("engine")] + list(out["engines"].values() if isinstance(out.get("engines"), dict) else [])
    for e in engines:
        if isinstance(e, dict) and e.get("kind") == "hadoop" and isinstance(e.get("conf", {}), dict):
            e["conf"] = {**{k: str(v) for k, v in conf.items()}, **e.get("conf", {})}
            if e.get("mode", "local") == "local":
                e.setdefault("java_options", list(MODEL_JAVA_OPTIONS))
    return out


def scale_drive(src: str, where: str, d: dict, model: ScaleModel) -> tuple:
    """An emulated drive named from the catalog: its figures x k, x `stands_for` (one device for that many of the
    target's drives: the hadoop engine writes a data set to one directory); (the catalog's drive, its streams)."""
    many = positive_int(src, f"{where}.stands_for", d.pop("stands_for", 1), 1)
    streams = model.tasks / many  # the target's writers on each drive this device stands for
    drive = catalog()[d["emulate"]]
    d["figures"] = {f: v * many for f, v in drive_figures(model, drive, streams).items()}
    # over memory, where it fits: k x the target's figures may be faster than this machine's disk (storage/backing.py)
    d.setdefault("backing", "memory")
    return drive, streams


def _scale_workload(w: dict, m: ScaleModel) -> None:
    """The workload's sizes and task counts from the model (Workload.scale_params); a value the user gave is kept."""
    if w.get("name") in WORKLOADS:
        for k, v in WORKLOADS[w["name"]].scale_params(m).items():
            w.setdefault(k, v)
