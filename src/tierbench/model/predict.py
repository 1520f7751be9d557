"""The what-if model: a run's profile on hardware it did not run on, at a size it did not run at.

Per phase, each resource's time is what the phase asks of it over what the hardware gives:
  CPU      the phase's core-seconds per task x the waves of tasks on the target's slots (nodes x cores)
  devices  per pool of identical drives: the bytes of each role it holds / (active drives x nodes x the
           drive's MB/s at the phase's request size); reads and writes of the pool add up (one drive does one
           at a time). A task reads or writes its file on one drive, so a node keeps no more drives busy than
           it runs tasks at once: 2 tasks on a JBOD of 6 HDDs move data at 2 HDDs' pace
  network  on more than one node: the shuffle's (1 - 1/nodes) that crosses nodes, and the extra copies of
           replicated writes, over the nodes' links
The phase takes as long as its slowest resource, plus what the others need divided by the phase's waves of
tasks: within a task, computing and its IO follow each other (a durable task syncs its file at its end), so
one wave of tasks in lockstep takes the sum; with many waves the tasks fall out of step, one computes while
another waits on its drive, and the phase tends to its slowest resource.
What no resource explains -- task start, scheduling, the driver, waits the model does not see -- is the job's
overhead, calibrated on measured runs: overhead = measured - modelled on the measured hardware, fitted
against the data size when runs of more than one size were measured (a line), constant otherwise.
"""

import math
import statistics
from dataclasses import dataclass, field, replace

from .hardware import Drive, Hardware
from .profile import RunProfile
from .rules import (TARGET_SORT_BUFFER, TARGET_SPLIT, hadoop_intermediate, node_page_cache, output_copies, read_back_share,
                    request_kib, spark_intermediate, stream_mb_s)

MB = 1e6


@dataclass(frozen=True)
class Pool:
    """Identical drives, per node, and the share of each role's bytes they take."""
    drive: Drive
    count: int
    shares: dict  # role -> fraction

    def mb_s(self, rw: str, io_kib: float) -> float:
        return self.count * self.drive.mb_s(rw, io_kib)


@dataclass(frozen=True)
class Machine:
    """What the model needs of a cluster: hardware descriptions and measured configurations both become one."""
    name: str
    nodes: int
    cores: int
    network_mb_s: float
    write_copies: float
    pools: tuple
    source: str = ""
    memory_bytes: float = float("inf")  # per node: decides whether a shuffle is read back from memory
    engine: str | None = None  # the engine whose spill rules apply (model/rules.py); None: as measured
    task_heap: float = 1 << 30  # per task: its sort and merge memory, and what the page cache does not get

    def with_nodes(self, nodes: int) -> "Machine":
        return replace(self, nodes=nodes)


def machine_of(hw: Hardware) -> Machine:
    if hw.intermediate_on_data:
        pools = (Pool(hw.data.drive, hw.data.count, {"data": 1.0, "intermediate": 1.0}),)
    else:
        pools = (Pool(hw.data.drive, hw.data.count, {"data": 1.0}),
                 Pool(hw.intermediate.drive, hw.intermediate.count, {"intermediate": 1.0}))
    return Machine(hw.name, hw.nodes, hw.cores, hw.network_mb_s, hw.write_copies, pools, hw.source, hw.memory_bytes,
                   hw.engine, hw.task_heap)


def phase_times(ph, m: Machine) -> dict[str, float]:
    """Seconds each resource needs for one phase on machine m (the profile's data writes are one copy: measured
    on local directories)."""
    slots = m.nodes * m.cores
    cpu = ph.cpu_s / ph.tasks * math.ceil(ph.tasks / slots) if ph.tasks else ph.cpu_s / slots
    times = {"CPU": cpu}
    streams = math.ceil(min(ph.tasks, slots) / m.nodes) if ph.tasks else m.cores  # tasks at once per node
    for i, pool in enumerate(m.pools):
        t = 0.0
        for key, moved in ph.bytes.items():
            role, rw = key.split(".")
            share = pool.shares.get(role, 0.0)
            if moved <= 0 or share <= 0:
                continue
            if key == "data.write":
                moved *= m.write_copies
            active = min(pool.count, streams)
            io_kib = request_kib(pool.drive, key, ph.io_kib[key], m.engine is not None)
            rate = stream_mb_s(pool.drive, rw, io_kib, streams / active)
            t += moved * share / (m.nodes * active * rate * MB)
        times[f"{pool.drive.name} ({'+'.join(pool.shares)})" + (f" #{i + 1}" if len(m.pools) > 2 else "")] = t
    if m.nodes > 1:
        crossing = ph.shuffle_bytes * (1 - 1 / m.nodes) + ph.output_bytes * max(0.0, m.write_copies - 1)
        times["network"] = crossing / m.nodes / (m.network_mb_s * MB)
    return times


def intermediate_at_target(profile: RunProfile, phases: list, m: Machine) -> list:
    """The phases with their intermediate bytes as the target's engine writes and reads them: the spill and merge
    passes of its rules at the target's task memory and data per task (model/rules.py), over the passes the
    measured run made (its `spilled`). Unchanged on a machine that names no engine (a measured one)."""
    shuffle = sum(ph.shuffle_bytes for ph in phases)
    if m.engine is None or shuffle <= 0 or profile.size_bytes <= 0:
        return phases
    ratio = sum(ph.shuffle_bytes for ph in profile.phases) / profile.size_bytes  # shuffle per byte of input
    reduce_input = shuffle / (m.nodes * m.cores)
    if m.engine == "hadoop":
        rule = hadoop_intermediate(TARGET_SPLIT * ratio, TARGET_SORT_BUFFER, reduce_input, m.task_heap)
    else:
        rule = spark_intermediate(TARGET_SPLIT * ratio, reduce_input, m.task_heap, m.cores)
    factor = rule.written / profile.spilled
    if abs(factor - 1) < 1e-9:
        return phases
    out = []
    for ph in phases:
        moved = {k: v * factor if k.startswith("intermediate.") else v for k, v in ph.bytes.items()}
        out.append(replace(ph, bytes=moved))
    return out


def shuffle_from_drives(profile: RunProfile, m: Machine, factor: float) -> list:
    """The profile's phases at `factor`, as the target's engine spills them, with the shuffle read back from the
    intermediate drives as far as a node's page cache cannot hold what it wrote of it (rules.read_back_share).
    A small run reads its shuffle from memory (its device counters show ~no intermediate reads); at a size whose
    shuffle exceeds the page cache, the fetches come from the drives, in requests the size of those it was
    written in."""
    phases = [ph.scaled(factor) if factor != 1.0 else ph for ph in profile.phases]
    phases = intermediate_at_target(profile, phases, m)
    written = sum(ph.bytes.get("intermediate.write", 0.0) for ph in phases)
    share = read_back_share(written / m.nodes, node_page_cache(m.memory_bytes, m.cores, m.task_heap))
    if share <= 0:
        return phases
    sizes = [ph.io_kib.get("intermediate.write", 0.0) for ph in phases if ph.bytes.get("intermediate.write", 0.0) > 0]
    io_kib = statistics.median(sizes) if sizes else 256.0
    out = []
    for ph in phases:
        from_drives = ph.shuffle_bytes * share
        if from_drives > ph.bytes.get("intermediate.read", 0.0):
            ph = replace(ph, bytes={**ph.bytes, "intermediate.read": from_drives},
                         io_kib={**ph.io_kib, "intermediate.read": io_kib})
        out.append(ph)
    return out


def modelled_seconds(profile: RunProfile, m: Machine, factor: float = 1.0) -> tuple[float, list[dict]]:
    """The sum over phases of the slowest resource, and per phase what was modelled."""
    total, rows = 0.0, []
    m = replace(m, write_copies=output_copies(profile.workload, m.engine, m.write_copies))
    for ph in shuffle_from_drives(profile, m, factor):
        times = phase_times(ph, m)
        neck = max(times, key=times.get)
        waves = math.ceil(ph.tasks / (m.nodes * m.cores)) if ph.tasks else 1
        # the pools of drives work side by side: the IO takes as long as the slowest of them
        kinds = {"CPU": times["CPU"], "IO": max([t for k, t in times.items() if k not in ("CPU", "network")] or [0.0]),
                 "network": times.get("network", 0.0)}
        seconds = times[neck] + (sum(kinds.values()) - times[neck]) / waves
        total += seconds
        rows.append({"phase": ph.name, "seconds": seconds, "bottleneck": neck, "waves": waves, "times": times})
    return total, rows


@dataclass
class Prediction:
    label: str
    machine: str
    nodes: int
    size_bytes: float
    seconds: float
    overhead_s: float
    phases: list[dict]
    profile_of: str  # the run whose profile was used
    calibrated_on: list[str]
    measured_s: float | None = None  # when this machine and size were measured: their median


@dataclass
class Model:
    """Profiles of measured runs, and the machines they ran on (configuration -> Machine)."""
    profiles: list[RunProfile]
    machines: dict[str, Machine]
    overheads: dict = field(default_factory=dict)  # label -> (a, b): overhead = a + b * size
    calibrated_on: dict = field(default_factory=dict)  # label -> [config]
    calibration_sizes: dict = field(default_factory=dict)  # label -> [bytes]

    def labels(self) -> list[str]:
        return list(dict.fromkeys(p.job for p in self.profiles))

    def calibrate(self, configs: list[str] | None = None, smaller_than: float | None = None) -> "Model":
        """Fit each workload's overhead on the runs of `configs` (default: every configuration whose machine is
        known), and only on runs below `smaller_than` bytes when given (to predict a size from smaller ones)."""
        use = [c for c in (configs or self.machines) if c in self.machines]
        fits = lambda p: p.config in use and (smaller_than is None or p.size_bytes < 0.95 * smaller_than)
        self.overheads, self.calibrated_on = {}, {}
        for label in self.labels():
            pts = [(p.size_bytes, p.wall_s - modelled_seconds(p, self.machines[p.config])[0])
                   for p in self.profiles if p.job == label and fits(p)]
            if pts:
                self.overheads[label] = _line(pts)
                self.calibrated_on[label] = sorted({p.config for p in self.profiles if p.job == label and fits(p)})
                self.calibration_sizes[label] = sorted({p.size_bytes for p in self.profiles if p.job == label and fits(p)})
        return self

    def base_profiles(self, label: str) -> list[RunProfile]:
        """The profiles predictions start from: the runs at the largest calibration size (each one predicts,
        the median is the prediction: one run's noise does not decide it)."""
        sizes = self.calibration_sizes.get(label, [])
        runs = [p for p in self.profiles if p.job == label and p.config in self.calibrated_on.get(label, [])
                and any(abs(p.size_bytes - x) <= 0.01 * x for x in sizes)]
        if not runs:
            raise KeyError(label)
        top = max(p.size_bytes for p in runs)
        return [p for p in runs if p.size_bytes >= 0.95 * top]

    def cpu_borrowed(self, label: str, engine: str | None) -> str | None:
        """Why the job's CPU per byte is not the target engine's, or None when it is (or the target names none):
        the profiles are the measured engine's, and engines differ several times over (Hadoop's TeraSort took
        3.9-4.6x Spark's here, bench/bench_vs_hadoop.py)."""
        measured = sorted({p.engine for p in self.base_profiles(label)})
        if engine is None or measured == [engine]:
            return None
        return f"CPU per byte borrowed from {', '.join(measured)} runs: the target runs {engine}"

    def predict(self, label: str, m: Machine, size_bytes: float | None = None) -> Prediction:
        bases = self.base_profiles(label)
        size = size_bytes or statistics.median(p.size_bytes for p in bases)
        a, b = self.overheads[label]
        overhead = a + b * size
        each = []
        for base in bases:
            modelled, rows = modelled_seconds(base, m, size / base.size_bytes if base.size_bytes else 1.0)
            each.append((max(modelled + overhead, 0.5 * modelled), rows, base.run_key))
        seconds, rows, run_key = sorted(each, key=lambda e: e[0])[len(each) // 2]
        if len(each) % 2 == 0:
            seconds = statistics.median(e[0] for e in each)
        measured = [p.wall_s for p in self.profiles
                    if p.job == label and p.config == m.name and abs(p.size_bytes - size) <= 0.05 * size]
        return Prediction(label, m.name, m.nodes, size, seconds, overhead, rows, run_key, self.calibrated_on[label],
                          statistics.median(measured) if measured else None)


def _line(pts: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares a + b x through the points; a constant (their median) when they share one x."""
    xs = {x for x, _ in pts}
    if len(xs) < 2:
        return statistics.median(y for _, y in pts), 0.0
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return my - b * mx, b
