"""Emulated devices in a run's samples: how near the throttle's limits a run, or a phase, drove each one.

An emulated device is a loop device that the blkio throttle holds to its profile's MB/s and IOPS
(storage/emulation.py). Its requests wait in the throttle, not in the device, so its utilisation (io_ms) stays
low however hard the job presses it: a run writing at the throttle's pace showed loop0 1% busy. Its busy-ness is
judged against the limits instead: each sample interval's read and write MB/s and IOPS on the device as fractions
of the limits the throttle applied, the highest of them the interval's load (on a device whose reads and writes
share its time while a study runs, scale/shared_time.py, the highest of each direction added up). A job that
reads its input and then writes its output, each at the throttle's pace, is at the limit throughout although
neither direction is on average; hence per interval, not per run.
"""

from dataclasses import dataclass

from ..sampling.phases import WRITEBACK
from ..storage.emulation import stored_limits

AT_LIMIT = 0.8  # of a limit, in either direction: the throttle sets the run's pace
IO_BOUND_PCT, CPU_BOUND_PCT, NOT_BUSY_PCT = 80, 85, 60  # as sampling/phases.run_character judges a run
MiB = 1 << 20  # the sampled bytes in tierbench's MB (2^20 bytes), in which the limits are given
# a limit, the sampled counter it holds, the counter's unit in the limit's, how the limit is said
KINDS = (("read_mb_s", "rd_bytes", MiB, "{:.0f} MB/s read"), ("write_mb_s", "wr_bytes", MiB, "{:.0f} MB/s write"),
         ("read_iops", "rd_ios", 1, "{:,.0f} read IOPS"), ("write_iops", "wr_ios", 1, "{:,.0f} write IOPS"))
MINOR = 0.1  # a limit the device came near for less than this share of its load is not named


def pace_factor(run) -> float:
    """The k a run's drives went at over the study's (its calibration's): 1 but where the drives followed this
    machine's pace through the study (scale/pace_follow.py, details.pace)."""
    return (run.details.get("pace") or {}).get("factor", 1.0)


@dataclass(frozen=True)
class EmulatedDevice:
    device: str  # the loop device's name, as the samples and the storage map name it
    profile: str  # the profile's name ("hdd", "sata-ssd", ...)
    limits: dict  # what the throttle applied: read_mb_s, write_mb_s (tierbench's MB), read_iops, write_iops
    measured: dict | None  # its fio check when it was made: read_mb_s, write_mb_s
    shared: bool = False  # its reads and writes shared one drive's time (scale/shared_time.py): their loads add up


def emulated_devices(emulated: dict | None, factor: float = 1.0) -> dict[str, EmulatedDevice]:
    """study.json's `emulated` (loop device -> the device as made) as EmulatedDevices, their limits x `factor` (a run
    whose drives followed this machine's pace went at that factor of them: scale/pace_follow.py); an entry without
    a profile (hand-edited) is left out: its runs are judged as any device's."""
    out = {}
    for dev, entry in (emulated or {}).items():
        try:
            limits = {k: v * factor for k, v in stored_limits(entry).items()}
            out[dev] = EmulatedDevice(dev, entry["profile"]["name"], limits, entry.get("measured"),
                                      bool(entry.get("time_shared")))
        except (KeyError, TypeError):
            continue
    return out


@dataclass(frozen=True)
class Load:
    """How near its limits a device ran over some sample intervals: the time-weighted mean of each interval's load
    (its highest fraction of a limit), and the limits it came nearest, most first."""

    device: EmulatedDevice
    fraction: float
    kinds: tuple[str, ...]

    def limits_text(self) -> str:
        """The limits the load is a fraction of: "29 MB/s write", or "30 MB/s read or 29 MB/s write"."""
        says = {k: text for k, _, _, text in KINDS}
        return " or ".join(says[k].format(self.device.limits[k]) for k in self.kinds)

    def text(self) -> str:
        """"94% of 29 MB/s write"."""
        return f"{self.fraction:.0%}" + (f" of {self.limits_text()}" if self.kinds else " of its limits")


def throttle_load(samples: dict, labels: list[str], dev: EmulatedDevice, phase: str | None = None) -> Load | None:
    """The device's load over the job's sample intervals (the writeback after it left out), or one phase's; None
    when the samples do not hold the device or no interval counts."""
    cols = samples.get("devices", {}).get(dev.device)
    limits = {k: (col, unit) for k, col, unit, _ in KINDS if dev.limits.get(k)}
    if not cols or not limits:
        return None
    times = samples["t_ms"]
    prev = samples.get("start_ms") or (times[0] - samples["interval_s"] * 1000 if times else 0)
    total = weighted = 0.0
    by_kind: dict[str, float] = {}
    for i, t in enumerate(times):
        seconds, prev = max(t - prev, 1) / 1000, t  # (as sampling/phases.io_profile times an interval)
        if labels[i] == WRITEBACK or (phase is not None and labels[i] != phase):
            continue
        fractions = {k: cols[col][i] / unit / seconds / dev.limits[k] for k, (col, unit) in limits.items()}
        total += seconds
        for kind in _holding(fractions, dev.shared):
            weighted += fractions[kind] * seconds
            by_kind[kind] = by_kind.get(kind, 0.0) + fractions[kind] * seconds
    if total == 0:
        return None
    kinds = tuple(k for k in sorted(by_kind, key=by_kind.get, reverse=True) if by_kind[k] > 0 and by_kind[k] >= MINOR * weighted)
    return Load(dev, weighted / total, kinds)


def _holding(fractions: dict[str, float], shared: bool) -> list[str]:
    """The limits whose fractions make an interval's load: the highest of them; on a time-shared device the
    highest of each direction, added up (a second of reads at half its rate and writes at half theirs is a drive's
    whole second)."""
    if not shared:
        return [max(fractions, key=fractions.get)]
    out = []
    for direction in ("read", "write"):
        mine = {k: v for k, v in fractions.items() if k.startswith(direction)}
        if mine:
            out.append(max(mine, key=mine.get))
    return out


def phase_loads(samples: dict, labels: list[str], devices: dict[str, EmulatedDevice]) -> dict[tuple[str, str], Load]:
    """(phase, device) -> the emulated device's load in that phase, for every job phase and emulated device sampled."""
    out = {}
    for phase in dict.fromkeys(label for label in labels if label != WRITEBACK):
        for dev in samples.get("devices", {}):
            if dev in devices:
                found = throttle_load(samples, labels, devices[dev], phase)
                if found is not None:
                    out[(phase, dev)] = found
    return out


def emulated_character(profile: list[dict], samples: dict, labels: list[str], devices: dict[str, EmulatedDevice],
                       cores: int) -> str | None:
    """What bound a run that used emulated devices, the emulated ones judged against their throttle's limits and any
    other device by its utilisation (as run_character does); None when the run sampled no emulated device."""
    loads = [x for x in (throttle_load(samples, labels, devices[d]) for d in samples.get("devices", {}) if d in devices) if x]
    if not loads:
        return None
    top = max(loads, key=lambda x: x.fraction)
    job = {r["phase"]: r for r in profile if r["phase"] != WRITEBACK}  # (one row per phase for its CPU and seconds)
    total = sum(r["seconds"] for r in job.values()) or 1
    cpu = sum(r["cpu_busy_pct"] * r["seconds"] for r in job.values()) / total
    util: dict[str, float] = {}  # the devices that are not emulated: their own utilisation tells
    for r in profile:
        if r["phase"] != WRITEBACK and r["device"] not in devices:
            util[r["device"]] = util.get(r["device"], 0.0) + r["util_pct"] * r["seconds"] / total
    other, busy = max(util.items(), key=lambda kv: kv[1]) if util else (None, 0.0)
    if busy >= IO_BOUND_PCT and busy / 100 > top.fraction:
        return f"IO-bound ({other} {busy:.0f}% busy)"
    name = f"{top.device.device} at its emulated {top.device.profile} limit"
    if top.fraction >= AT_LIMIT:
        return f"{name} ({top.text()})"
    busiest = f"busiest device {top.device.device} at {top.fraction:.0%} of its emulated {top.device.profile} limit" + \
              (f" ({top.limits_text()})" if top.kinds else "")
    if cpu >= CPU_BOUND_PCT and top.fraction * 100 < NOT_BUSY_PCT and busy < NOT_BUSY_PCT:
        return f"CPU-bound ({cpu:.0f}% CPU, {busiest})"
    return f"mixed ({cpu:.0f}% CPU, {busiest})"


def device_ceilings(dev: str, probe: dict | None, devices: dict[str, EmulatedDevice]) -> tuple[dict, str] | None:
    """A data device's sequential ceilings ({"seq_read": MB/s, "seq_write": MB/s}) and where they come from: the
    fio probe's figures of it, else, for an emulated device, its fio check when it was made, else its throttle's
    limits; None when none is known."""
    tests = (probe or {}).get(dev, {}).get("tests")
    if tests:
        return {k: t["mb_s"] for k, t in tests.items() if k in ("seq_read", "seq_write")}, "fio probe"
    emu = devices.get(dev)
    if emu is None:
        return None
    m = emu.measured or {}
    if m.get("read_mb_s") and m.get("write_mb_s"):
        return {"seq_read": m["read_mb_s"], "seq_write": m["write_mb_s"]}, f"fio check of the emulated {emu.profile}"
    return {"seq_read": emu.limits["read_mb_s"], "seq_write": emu.limits["write_mb_s"]}, \
        f"the emulated {emu.profile}'s throttle (no fio check stored)"
