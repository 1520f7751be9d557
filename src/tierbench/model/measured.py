"""The measured side of the model: a results directory's run profiles and the machines they ran on.

A configuration's machine is known when its directories lie on emulated devices (their profile is the
device's shape: the throttle's figures, as the kernel applied them) -- or on any drive, when the study was
probed (`tierbench probe`: fio's figures per directory)."""

from pathlib import Path

from ..store import ResultsDir, StoredRun, StoredStudy, StudyFile
from .hardware import Drive
from .predict import Machine, Pool
from .profile import ROLES, RunProfile, profile_run

MiB = 1 << 20


def emulated_drive(dev: dict) -> Drive:
    """An emulated device as the throttle holds it: IOPS never below what a sequential stream needs (the
    throttle's own floor, storage/emulation.py); a request costs it one of its IOPS whatever stream it is of, so
    streams sharing it pay no seek (`seeks` False)."""
    p = dev["profile"]
    return Drive(dev["name"], p["read_mb_s"], p["write_mb_s"], max(p["read_iops"], 2 * p["read_mb_s"]),
                 max(p["write_iops"], 4 * p["write_mb_s"]), p.get("source", "emulated"), seeks=False)


def probed_drive(dev: str, entry: dict) -> Drive | None:
    """A drive from `tierbench probe`'s fio figures for one device: sequential 1 MiB write and read, and random
    64 KiB reads' IOPS for both reads and writes (probe measures no random writes)."""
    t = entry.get("tests", {})
    try:
        w, r, rr = t["seq_write"], t["seq_read"], t["rand_read_64k"]
        return Drive(dev, r["mb_s"] * MiB / 1e6, w["mb_s"] * MiB / 1e6, rr["iops"], rr["iops"],
                     "tierbench probe (fio) on the measured machine")
    except (KeyError, TypeError):
        return None


def config_machine(run: StoredRun, stored: StoredStudy) -> Machine | None:
    """The machine a configuration's runs ran on, when every device of its dirs has known figures."""
    dirs = stored.study.storage_map.get("dirs", {})
    emulated = stored.study.emulated or {}
    probe = stored.probe or {}
    per_device: dict[str, dict[str, float]] = {}  # device -> role -> share of the role's dirs
    drives: dict[str, Drive] = {}
    for role in ROLES:
        paths = run.storage[role]
        for path in paths:
            dev = dirs.get(path, {}).get("device")
            if dev is None:
                return None
            per_device.setdefault(dev, {}).setdefault(role, 0.0)
            per_device[dev][role] += 1 / len(paths)
            if dev in emulated:
                drives[dev] = emulated_drive(emulated[dev])
            elif dev in probe and probed_drive(dev, probe[dev]):
                drives[dev] = probed_drive(dev, probe[dev])
            else:
                return None
    # identical drives with the same roles are one pool (a JBOD): its tasks spread over them
    grouped: dict[tuple, list[str]] = {}
    for dev, shares in per_device.items():
        d = drives[dev]
        key = (d.read_mb_s, d.write_mb_s, d.read_iops, d.write_iops, tuple(sorted(shares.items())))
        grouped.setdefault(key, []).append(dev)
    pools = tuple(Pool(drives[devs[0]], len(devs), {role: share * len(devs) for role, share in per_device[devs[0]].items()})
                  for devs in grouped.values())
    return Machine(run.config, 1, run.machine["cpu_cores"], 1e9, 1.0, pools,
                   "the measured configuration", run.machine.get("memory_bytes") or float("inf"))


def load(results) -> tuple[list[RunProfile], dict[str, Machine], StudyFile]:
    """(profiles of the ok runs with samples, configuration -> machine where known, the first study.json), from one
    results directory or several (studies of one machine at different sizes: a configuration's name is its
    machine in all of them)."""
    profiles, machines, first = [], {}, None
    for path in ([results] if isinstance(results, (str, Path)) else results):
        stored = ResultsDir(path).load(analysed=True)
        first = first or stored.study
        profiles += [p for p in (profile_run(r, stored.study.storage_map) for r in stored.runs) if p]
        for r in stored.runs:
            if r.config not in machines and r.ok:
                m = config_machine(r, stored)
                if m:
                    machines[r.config] = m
    return profiles, machines, first
