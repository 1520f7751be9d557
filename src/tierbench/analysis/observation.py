"""What a run's samples say: IO per phase and device, CPU- or IO-bound, page cache, efficiency vs fio ceilings."""

from dataclasses import dataclass, field

from ..sampling.phases import WRITEBACK, io_profile, label_samples, run_character
from ..store import StoredRun
from ..workloads import WORKLOADS, IORoles
from .emulated import EmulatedDevice, Load, device_ceilings, emulated_character, emulated_devices, pace_factor, phase_loads
from .measures import throughput_of

CACHE_RATIO = 0.5  # device reads below half the job's reads: most came from memory


@dataclass
class RunObservation:
    labels: list[str]
    profile: list[dict]
    character: str
    cache_notes: list[str]  # reads, writes or shuffle that memory served, not the device (one line each)
    efficiency: float | None  # achieved / ceiling
    ceiling_note: str = ""
    roles: dict = field(default_factory=dict)  # device -> roles
    limit_loads: dict[tuple[str, str], Load] = field(default_factory=dict)  # (phase, emulated device) -> its throttle's load

    @property
    def cache_note(self) -> str | None:
        return "; ".join(self.cache_notes) or None


NO_ROLES = IORoles(None, None, None)
MIN_MB = 1.0  # below this a job moved too little for the device counters to say anything


def io_roles(record: StoredRun) -> IORoles:
    """What the run's workload reads and writes (none for a workload this tierbench does not know)."""
    wl = WORKLOADS.get(record.workload)
    return wl.io if wl else NO_ROLES


def device_roles(record: StoredRun, storage_map: dict) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {}
    dirs = storage_map.get("dirs", {})
    for role, key in (("data", "data"), ("intermediate", "intermediate")):
        for d in record.storage[key]:
            dev = dirs.get(d, {}).get("device")
            if dev and role not in roles.setdefault(dev, []):
                roles[dev].append(role)
    return roles


def device_mb(profile: list[dict], devices, kind: str, writeback: bool = False) -> float:
    """MB the devices read or wrote ("read_mb"/"write_mb"), during the job or (writeback=True) in the sync after it."""
    return sum(r[kind] for r in profile if r["device"] in devices and (r["phase"] == WRITEBACK) == writeback)


def observe(record: StoredRun, storage_map: dict, probe: dict | None, cores: int,
            emulated: dict | None = None) -> RunObservation | None:
    """What the run's samples say; `emulated` is study.json's (loop device -> the emulated device as made): those
    devices are judged against their throttle's limits, not their utilisation."""
    s = record.samples
    if not s or not s.get("t_ms"):
        return None
    labels = label_samples(s, record.details.get("phases", []))
    roles = device_roles(record, storage_map)
    profile = io_profile(s, labels, roles)
    devices = emulated_devices(emulated, pace_factor(record))
    character = emulated_character(profile, s, labels, devices, cores) or run_character(profile, cores)
    data_devs = [d for d, r in roles.items() if "data" in r]
    inter_devs = [d for d, r in roles.items() if "intermediate" in r]
    mb = io_roles(record).mb(record.metrics)
    notes = [n for n in (_read_note(record, profile, data_devs, mb["input"]),
                         _write_note(record, profile, sorted(set(data_devs) | set(inter_devs)), mb),
                         _shuffle_note(profile, inter_devs, data_devs, mb)) if n]
    eff, note = efficiency(record, probe, data_devs, devices)
    return RunObservation(labels, profile, character, notes, eff, note, roles, phase_loads(s, labels, devices))


def _read_note(record, profile, data_devs, read_mb) -> str | None:
    if read_mb <= 0:
        return None
    if not data_devs:
        from ..storage.types import STORAGE_TYPES

        kind = STORAGE_TYPES.get((record.storage or {}).get("type"))
        if kind is not None and kind.remote:
            return None  # the data lives on the store's servers, not in local directories: nothing to check here
        return "no block device behind the data directories (tmpfs, overlay or network): reads cannot be checked against a device"
    dev_read = device_mb(profile, data_devs, "read_mb")
    if dev_read >= CACHE_RATIO * read_mb:
        return None
    why = "the page cache was dropped before it, so" if record.page_cache_dropped else "the page cache was not dropped:"
    return (f"served from memory, not the device: the job read {read_mb:.0f} MB, its data device "
            f"read {dev_read:.0f} MB ({why} the figures describe memory, not storage; "
            + ("run as root or set drop_caches = \"always\")" if not record.page_cache_dropped else "use a data set larger than RAM)"))


def _write_note(record, profile, devices, mb) -> str | None:
    """Writes (output and shuffle) that reached the devices only in the sync after the job: the run's time
    did not include them (the engine's semantics; durable mode syncs inside the run)."""
    written = mb["output"] + mb["intermediate"]
    if written < MIN_MB or not devices:
        return None
    after = device_mb(profile, devices, "write_mb", writeback=True)
    if after < CACHE_RATIO * written:
        return None
    during = device_mb(profile, devices, "write_mb")
    fix = ("set durability = \"durable\" in the spec to time writes to the device" if record.durability != "durable"
           else "durable mode could not sync them: " + "; ".join(record.sync_gaps or ["see the run's engine settings"]))
    return (f"writes absorbed by the page cache: the job wrote {written:.0f} MB; its devices took {during:.0f} MB during "
            f"the job and {after:.0f} MB in the writeback after it, outside the run's time ({fix})")


def _shuffle_note(profile, inter_devs, data_devs, mb) -> str | None:
    """Shuffle data read back from memory: the intermediate devices read less than half of what was shuffled."""
    shuffled = mb["intermediate"]
    if shuffled < MIN_MB or not inter_devs:
        return None
    # on a device that also holds the input, its reads count the input too
    expected = shuffled + (mb["input"] if set(inter_devs) & set(data_devs) else 0.0)
    dev_read = device_mb(profile, inter_devs, "read_mb")
    if dev_read >= CACHE_RATIO * shuffled + (expected - shuffled):
        return None
    return (f"shuffle read back from memory: {shuffled:.0f} MB were shuffled, the intermediate devices read "
            f"{max(0.0, dev_read - (expected - shuffled)):.0f} MB of it (the page cache held the rest: the shuffle "
            "fits in RAM, so it measures memory; a larger job would read it from the device)")


def efficiency(record: StoredRun, probe: dict | None, data_devs: list[str],
               emulated: dict[str, EmulatedDevice] | None = None) -> tuple[float | None, str]:
    """The run's throughput as a fraction of its data devices' ceiling (read, write, or the lower of both): fio's
    probe of each device, else an emulated device's fio check or its throttle (analysis/emulated.py), the note
    saying which when not the probe; a JBOD's ceiling is the sum of its drives' (the data set is spread over all)."""
    if not data_devs:
        return None, ""
    achieved = throughput_of(record)
    if achieved is None:
        return None, ""
    io = io_roles(record)
    kinds = (["seq_read"] if io.reads else []) + (["seq_write"] if io.writes else [])
    known = {d: c for d in data_devs if (c := device_ceilings(d, probe, emulated or {}))}
    ceilings = [sum(known[d][0][k] for d in known) for k in kinds if known and all(k in known[d][0] for d in known)]
    if not ceilings:
        return None, ""
    ceiling = min(ceilings)
    sources = [s for s in dict.fromkeys(src for _, src in known.values()) if s != "fio probe"]
    # a writer of `copies` (a scale model's HDFS replication on one node) puts that many bytes on the device per byte
    copies = int((record.params or {}).get("copies", 1)) if io.writes and not io.reads else 1
    where = f"{'/'.join(kinds)} on {'+'.join(known)}" + (f": {', '.join(sources)}" if sources else "")
    if copies > 1:
        where += f"; {copies} copies of {achieved:.0f} MB/s of data"
    return achieved * copies / ceiling, f"{achieved * copies:.0f} of {ceiling:.0f} MB/s ({where})"
