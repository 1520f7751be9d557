"""A run's profile for the what-if model: per phase, what the job asked of each resource, engine-neutral.

Built from what a record already holds: the sampled device counters, CPU and network per phase
(sampling/phases.io_profile) and the engine's stages (tasks; logical input, output and shuffle bytes).
Device bytes are split by role -- the data's, the intermediate data's (shuffle, spill) -- from the devices'
roles; a device holding both has its bytes split by the stages' logical bytes of that phase (writes: output
vs shuffle written and spilled; reads: input vs shuffle read).
"""

from dataclasses import dataclass, field

from ..analysis.observation import device_roles
from ..sampling.phases import WRITEBACK, io_profile, label_samples
from ..store import StoredRun

ROLES = ("data", "intermediate")
KEYS = tuple(f"{role}.{rw}" for role in ROLES for rw in ("read", "write"))
MiB = 1 << 20
HADOOP_FETCH_PHASE = "shuffle"  # the hadoop engine's phase of the reducers' fetches (engines/hadoop/logparse.py)


@dataclass
class PhaseProfile:
    name: str
    seconds: float  # measured
    cpu_s: float  # core-seconds busy on the observed host, all processes
    tasks: int  # the engine's tasks in the stages the phase overlaps
    bytes: dict[str, float]  # KEYS -> bytes the devices of that role moved
    io_kib: dict[str, float]  # KEYS -> average request size at the devices
    busy_s: dict[str, float]  # role -> device-busy seconds of its busiest device (util x time)
    shuffle_bytes: float = 0.0  # logical shuffle read: what crosses the network between nodes
    output_bytes: float = 0.0  # logical output: what HDFS replication multiplies

    def scaled(self, factor: float) -> "PhaseProfile":
        """The phase at `factor` times the data: bytes, CPU and tasks grow with it (sizes per request do not)."""
        return PhaseProfile(self.name, self.seconds * factor, self.cpu_s * factor,
                            max(1, round(self.tasks * factor)) if self.tasks else 0,
                            {k: v * factor for k, v in self.bytes.items()}, dict(self.io_kib),
                            {k: v * factor for k, v in self.busy_s.items()}, self.shuffle_bytes * factor,
                            self.output_bytes * factor)


@dataclass
class RunProfile:
    run_key: str
    workload: str
    label: str
    config: str
    variant: str
    size_bytes: float  # the data the run moved (the largest of its read, shuffle and write)
    wall_s: float
    cores: int  # of the observed host
    devices: dict[str, list[str]]  # role -> the block devices that held it
    phases: list[PhaseProfile] = field(default_factory=list)
    engine: str = "spark"  # the engine kind that ran it: its spill rules and CPU per byte (model/rules.py)
    spilled: float = 1.0   # intermediate bytes written per byte of shuffle, as measured (spill and merge passes)

    @property
    def job(self) -> str:
        """The workload as the engine variant ran it: its label, and the variant's engine when a sweep made
        more than one (their demands differ: compression, split sizes)."""
        return f"{self.label}@{self.variant.split('@', 1)[1]}" if "@" in self.variant else self.label

    @property
    def intermediate_on_data(self) -> bool:
        return bool(set(self.devices.get("intermediate", [])) & set(self.devices.get("data", [])))


def _stage_bytes(stages: list[dict], start_ms: float, end_ms: float) -> tuple[dict, int]:
    """The logical bytes of the stages that overlap [start, end), each in proportion to the part of it that
    falls inside (a 1 s sample often straddles two stages of a short job), and their tasks."""
    keys = ("input_bytes", "output_bytes", "shuffle_read_bytes", "shuffle_write_bytes", "disk_spill_bytes")
    out = dict.fromkeys(keys, 0.0)
    tasks = 0
    for s in stages:
        overlap = min(end_ms, s["completed_ms"]) - max(start_ms, s["submitted_ms"])
        if overlap > 0:
            part = overlap / max(1, s["completed_ms"] - s["submitted_ms"])
            for k in keys:
                out[k] += (s.get(k, 0) or 0) * part
            tasks += s.get("tasks", 0) or 0
    return out, tasks


def _with_job_io(run: StoredRun) -> list[dict]:
    """The run's stages, with the job's input given to its first stage and its output to its last when Spark's
    metrics saw none: tierbench's jobs read and write their files themselves (so Spark counts no input or
    output bytes), and the record's `io` has what they moved."""
    stages = sorted((dict(s) for s in run.details.get("stages", [])), key=lambda s: s["submitted_ms"])
    if not stages and _framework(run):
        return _hadoop_stages(run)
    io = run.io
    if stages and not any(s.get("input_bytes") for s in stages) and io.get("input_mb"):
        stages[0]["input_bytes"] = io["input_mb"] * MiB
    if stages and not any(s.get("output_bytes") for s in stages) and io.get("output_mb"):
        stages[-1]["output_bytes"] = io["output_mb"] * MiB
    return stages


def profile_run(run: StoredRun, storage_map: dict) -> RunProfile | None:
    """The run's profile, or None when it has no samples (sampling off) or did not succeed."""
    from ..analysis.cost import job_bytes

    s = run.samples
    if not run.ok or not s or not s.get("t_ms"):
        return None
    labels = label_samples(s, run.details.get("phases", []))
    roles = device_roles(run, storage_map)
    rows = io_profile(s, labels, roles)
    cores = run.machine["cpu_cores"]
    stages = _with_job_io(run)
    interval_ms = s["interval_s"] * 1000
    devices = {role: sorted(d for d, r in roles.items() if role in r) for role in ROLES}
    copies = max(1, int(run.params.get("copies") or 1))  # a scale model's generated data set, written that many times
    prof = RunProfile(run.run_key, run.workload, run.label, run.config, run.variant, job_bytes(run), run.wall_s,
                      cores, devices, engine=run.engine_kind or "spark", spilled=spilled_per_shuffle(run, stages))
    for phase in dict.fromkeys(labels):
        if phase == WRITEBACK:  # durable runs leave ~nothing there; the job's time is what is predicted
            continue
        idx = [i for i, lab in enumerate(labels) if lab == phase]
        start = min((s["t_ms"][i - 1] if i else s["t_ms"][i] - interval_ms) for i in idx)
        logical, tasks = _stage_bytes(stages, start, max(s["t_ms"][i] for i in idx))
        mine = [r for r in rows if r["phase"] == phase]
        seconds = mine[0]["seconds"] if mine else len(idx) * s["interval_s"]
        cpu = (mine[0]["cpu_busy_pct"] if mine else 0.0) / 100 * cores * seconds
        moved = dict.fromkeys(KEYS, 0.0)
        ios = dict.fromkeys(KEYS, 0.0)
        busy = dict.fromkeys(ROLES, 0.0)
        writes_data = _share(logical["output_bytes"], logical["shuffle_write_bytes"] + logical["disk_spill_bytes"])
        reads_data = _share(logical["input_bytes"], logical["shuffle_read_bytes"])
        for r in mine:
            held = [role for role in ROLES if role in r["roles"]]
            if not held:
                continue  # a device of no role of this configuration (the system disk)
            for rw, share in (("read", reads_data), ("write", writes_data)):
                split = {"data": share, "intermediate": 1 - share} if len(held) == 2 else {held[0]: 1.0}
                for role, part in split.items():
                    moved[f"{role}.{rw}"] += r[f"{rw}_mb"] * MiB * part
                    ios[f"{role}.{rw}"] += r[f"{rw}_ios"] * part
            for role in held:
                busy[role] = max(busy[role], r["util_pct"] / 100 * seconds)
        io_kib = {k: moved[k] / ios[k] / 1024 if ios[k] else 0.0 for k in KEYS}
        moved["data.write"] /= copies  # one copy: the target's own replication multiplies it (predict.phase_times)
        prof.phases.append(PhaseProfile(phase, seconds, cpu, tasks, moved, io_kib, busy,
                                        logical["shuffle_read_bytes"], logical["output_bytes"]))
    return prof


def _share(data: float, intermediate: float) -> float:
    """The data's share of a device holding both roles (all of it when the stages say nothing)."""
    total = data + intermediate
    return data / total if total > 0 else 1.0


def _framework(run: StoredRun) -> dict:
    """A Hadoop job's "Map-Reduce Framework" counters (empty for other engines)."""
    counters = run.details.get("counters")
    groups = dict(counters) if isinstance(counters, list) else (counters or {})
    framework = groups.get("Map-Reduce Framework", {}) if isinstance(groups, dict) else {}
    return framework if isinstance(framework, dict) else {}


def _hadoop_stages(run: StoredRun) -> list[dict]:
    """A Hadoop job's record has no Spark stages: its phases (map, shuffle, reduce) with the job's counters stand
    for them, so that its profile has tasks and logical bytes as a Spark job's has. A job without reducers (TeraGen,
    TestDFSIO's files) writes its output from the map."""
    fw = _framework(run)
    shuffle = fw.get("Map output materialized bytes", 0) or 0
    fetched = fw.get("Reduce shuffle bytes", 0) or 0
    reducers = int(run.params.get("partitions") or 0) or (1 if fetched else 0)
    shuffled_maps = fw.get("Shuffled Maps ", fw.get("Shuffled Maps", 0)) or 0
    maps = shuffled_maps // reducers if reducers and shuffled_maps else int(run.params.get("tasks") or 1)
    spill = (_hadoop_spilled(fw) - 1) * shuffle if shuffle else 0.0  # the writes beyond the first
    phases = [p for p in run.details.get("phases", []) if p.get("level", 1) == 1]
    output = (run.io.get("output_mb") or 0) * MiB
    stages = []
    for p in phases:
        stage = {"submitted_ms": p["start_ms"], "completed_ms": p["end_ms"], "tasks": reducers}
        if p["phase"] == "map":
            stage.update(tasks=maps, input_bytes=(run.io.get("input_mb") or 0) * MiB, shuffle_write_bytes=shuffle,
                         disk_spill_bytes=spill / 2 if fetched else 0.0, output_bytes=0.0 if fetched else output)
        elif p["phase"] == HADOOP_FETCH_PHASE:
            stage.update(shuffle_read_bytes=fetched)
        else:
            stage.update(output_bytes=output, disk_spill_bytes=spill / 2)
        stages.append(stage)
    return stages


def _hadoop_spilled(framework: dict) -> float:
    """Hadoop's "Spilled Records" per "Map output record": how many times each was written to local disk."""
    records = framework.get("Map output records", 0) or 0
    return max(1.0, (framework.get("Spilled Records", 0) or 0) / records) if records else 1.0


def spilled_per_shuffle(run: StoredRun, stages: list[dict]) -> float:
    """Intermediate bytes the run wrote per byte of its shuffle: Hadoop's "Spilled Records" over its "Map output
    records" (each spill and merge pass writes every record again), or Spark's (shuffle written + spilled) over
    shuffle written; 1 when the record says neither."""
    framework = _framework(run)
    if framework.get("Map output records") and framework.get("Map output materialized bytes"):
        return _hadoop_spilled(framework)
    written = sum(s.get("shuffle_write_bytes", 0) or 0 for s in stages)
    spilled = sum(s.get("disk_spill_bytes", 0) or 0 for s in stages)
    return 1.0 + spilled / written if written > 0 else 1.0
