"""What a run's samples say: IO per phase and device, CPU- or IO-bound, page cache, efficiency vs fio ceilings."""

from dataclasses import dataclass, field

from ..sampling.phases import WRITEBACK, io_profile, label_samples, run_character
from ..workloads import WORKLOADS, IORoles

CACHE_RATIO = 0.5  # device reads below half the job's reads: most came from memory


@dataclass
class RunObservation:
    labels: list[str]
    profile: list[dict]
    character: str
    cache_note: str | None
    efficiency: float | None  # achieved / ceiling
    ceiling_note: str = ""
    roles: dict = field(default_factory=dict)  # device -> roles


NO_ROLES = IORoles(None, None, None)


def io_roles(record: dict) -> IORoles:
    """What the run's workload reads and writes (none for a workload this tierbench does not know)."""
    wl = WORKLOADS.get(record["workload"])
    return wl.io if wl else NO_ROLES


def device_roles(record: dict, storage_map: dict) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {}
    dirs = storage_map.get("dirs", {})
    for role, key in (("data", "data"), ("intermediate", "intermediate")):
        for d in record["storage"][key]:
            dev = dirs.get(d, {}).get("device")
            if dev and role not in roles.setdefault(dev, []):
                roles[dev].append(role)
    return roles


def observe(record: dict, storage_map: dict, probe: dict | None, cores: int) -> RunObservation | None:
    s = record.get("samples")
    if not s or not s.get("t_ms"):
        return None
    labels = label_samples(s, record["details"].get("phases", []))
    roles = device_roles(record, storage_map)
    profile = io_profile(s, labels, roles)
    character = run_character(profile, cores)

    data_devs = [d for d, r in roles.items() if "data" in r]
    job_read_mb = io_roles(record).mb(record["metrics"])["input"]
    cache_note = None
    if job_read_mb > 0:
        if not data_devs:
            cache_note = "no block device behind the data directories (tmpfs, overlay or network): reads cannot be checked against a device"
        else:
            dev_read = sum(r["read_mb"] for r in profile if r["device"] in data_devs and r["phase"] != WRITEBACK)
            if dev_read < CACHE_RATIO * job_read_mb:
                why = "the page cache was dropped before it, so" if record.get("page_cache_dropped") else "the page cache was not dropped:"
                cache_note = (f"served from memory, not the device: the job read {job_read_mb:.0f} MB, its data device "
                              f"read {dev_read:.0f} MB ({why} the figures describe memory, not storage; "
                              + ("run as root or set drop_caches = \"always\")" if not record.get("page_cache_dropped") else "use a data set larger than RAM)"))
    eff, note = efficiency(record, probe, data_devs)
    return RunObservation(labels, profile, character, cache_note, eff, note, roles)


def efficiency(record: dict, probe: dict | None, data_devs: list[str]) -> tuple[float | None, str]:
    """The run's throughput as a fraction of its data device's fio ceiling (read, write, or the lower of both)."""
    if not probe or not data_devs:
        return None, ""
    tests = probe.get(data_devs[0], {}).get("tests", {})
    achieved = record["metrics"].get("aggregate_throughput_mb_s", record["metrics"].get("throughput_mb_s"))
    if achieved is None:
        return None, ""
    io = io_roles(record)
    kinds = (["seq_read"] if io.reads else []) + (["seq_write"] if io.writes else [])
    ceilings = [tests[k]["mb_s"] for k in kinds if k in tests]
    if not ceilings:
        return None, ""
    ceiling = min(ceilings)
    return achieved / ceiling, f"{achieved:.0f} of {ceiling:.0f} MB/s ({'/'.join(kinds)} on {data_devs[0]})"
