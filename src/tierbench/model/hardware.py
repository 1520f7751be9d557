"""Hardware descriptions: the cluster a what-if prediction is for (`tierbench predict --hardware FILE`).

A description gives the worker nodes (how many, their cores, memory and network) and the drives on each node:
those that hold the data and, optionally, separate ones for shuffle and spill. A drive is a catalog entry
(drives.toml, shipped in this package) or four figures of its own; docs/hardware.md has the format.
"""

import re
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path

from .. import bounds
from ..bounds import field
from ..errors import SpecError
from ..fields import required, table, unknown_fields
from ..tomlfile import read_toml
from ..units import MB

FIGURES = ("read_mb_s", "write_mb_s", "read_iops", "write_iops")
TOP_KEYS = ("name", "source", "nodes", "cores", "memory", "network_gbps", "replication", "erasure", "price_usd",
            "engine", "task_heap", "data", "intermediate", "cpu", "cpu_model")
CPU_KEYS = ("mb_s_per_thread", "source", "drive", "count", "results")
SEEK_KEYS = ("write_seek_kib", "read_seek_kib", "seek_kind", "seek_source")  # a catalog drive's own seek figures
CPU_JOBS = ("teragen", "terasort", "wordcount", "grep", "shuffle", "sql")  # jobs whose rate per thread a description may give
ENGINES = ("hadoop", "spark")  # whose spill and merge rules the model applies at the target (model/rules.py)
DRIVE_KEYS = ("drive", "count") + FIGURES
FIGURE_BOUNDS = {"read_mb_s": bounds.DRIVE_MB_S, "write_mb_s": bounds.DRIVE_MB_S,
                 "read_iops": bounds.DRIVE_IOPS, "write_iops": bounds.DRIVE_IOPS}
ERASURE = re.compile(r"^\s*([0-9]{1,9})\s*\+\s*([0-9]{1,9})\s*$")  # few digits: int() refuses thousands


@dataclass(frozen=True)
class Drive:
    name: str
    read_mb_s: float   # sequential, MB = 10^6 bytes
    write_mb_s: float
    read_iops: float   # random 4 KiB
    write_iops: float
    source: str
    seeks: bool = True  # concurrent streams cost it an access each request (a real drive); False: a throttle's limits
    # Where several streams share the drive, the request size in which each pays an access (its 1 / IOPS), writes and
    # reads: the drive's own in the catalog (a rotating drive's; fitted or a rule, `seek_kind`, with `seek_source`);
    # None: the scale model's default for a drive that barely seeks (scale/constants.py)
    write_seek_kib: float | None = None
    read_seek_kib: float | None = None
    seek_kind: str = ""
    seek_source: str = ""

    def mb_s(self, rw: str, io_kib: float) -> float:
        """MB/s one drive sustains for `rw` ("read" or "write") requests of `io_kib` KiB (<= 0: sequential).

        A drive has two limits and the tighter one sets the pace: a long sequential stream meets the drive's
        bandwidth, while small requests run out of operations per second first (an HDD seeks for each one,
        an SSD has a fixed cost per command). So the speed is the lesser of the sequential figure and
        IOPS x request size. Right at both ends; in between it is optimistic, as the IOPS figure is for
        4 KiB requests and a larger one also spends its transfer time (an HDD doing random 1 MiB requests
        manages about half of what this gives).
        """
        if rw not in ("read", "write"):
            raise ValueError(f"rw must be \"read\" or \"write\", got {rw!r}")
        seq = self.read_mb_s if rw == "read" else self.write_mb_s
        if io_kib <= 0:
            return seq
        iops = self.read_iops if rw == "read" else self.write_iops
        return min(seq, iops * io_kib * 1024 / 1e6)


@cache
def _load_catalog() -> dict[str, Drive]:
    raw = tomllib.loads(resources.files(__package__).joinpath("drives.toml").read_text())
    return {name: Drive(name, *(float(e[f]) for f in FIGURES), e["source"],
                        **{k: (float(e[k]) if k.endswith("_kib") else e[k]) for k in SEEK_KEYS if k in e})
            for name, e in raw.items()}


def catalog() -> dict[str, Drive]:
    """The typical drives shipped with tierbench (drives.toml), by name."""
    return dict(_load_catalog())  # a copy: the cached one is shared


@dataclass(frozen=True)
class DriveSet:
    """`count` identical drives on each node, used together (JBOD: a job's streams spread over them)."""
    drive: Drive
    count: int

    def mb_s(self, rw: str, io_kib: float) -> float:
        return self.count * self.drive.mb_s(rw, io_kib)


@dataclass(frozen=True)
class CpuRate:
    """How fast one of the target's threads runs a job when its CPU, not its drives, sets the pace: the job's
    input MB (10^6 bytes) per second per thread. The scale model divides it by this machine's measured rate for the
    same job to size its emulated drives (`core_speed`, docs/scale-model.md)."""
    job: str
    mb_s_per_thread: float
    source: str
    drive: str = ""  # the drives of the run the rate comes from (data and intermediate on them), of the catalog ...
    count: int = 0   # ... and how many a node had: the calibration runs the job on them too (scale/calibration.py)
    results: str = ""  # a results folder of a study run on the target itself (absolute): the rate is its runs'


@dataclass(frozen=True)
class Hardware:
    name: str
    nodes: int               # worker nodes
    cores: int               # per node: the tasks a node runs at once
    memory_bytes: int        # per node
    network_gbps: float      # per node NIC
    write_copies: float      # bytes written to drives per byte of output: HDFS replication, (k+m)/k for EC, 1 local
    data: DriveSet           # per node
    intermediate: DriveSet   # per node: shuffle and spill
    source: str = ""
    intermediate_on_data: bool = False  # no drives of its own: shuffle and spill share the data drives' speed
    price_usd: float | None = None  # the whole cluster's, for $/job (tierbench predict's cost columns)
    engine: str | None = None  # the engine the cluster runs ("hadoop": MapReduce; "spark"); None: the measured runs'
    task_heap: int = 1 << 30   # a task's JVM heap there: its sort and merge memory
    cpu: tuple[CpuRate, ...] = ()  # [cpu.<job>]: a thread's rate for a job there, where a source gives one
    cpu_model: str = ""  # the target's CPU, as its maker names it: the scale model's estimate of core_speed
    file: str = ""  # the description's file, absolute ("" for one shipped with tierbench)
    description: dict | None = None  # the description as loaded (a user's file: study.json keeps it, scale/derive.py)

    def cpu_rate(self, job: str) -> CpuRate | None:
        return next((c for c in self.cpu if c.job == job), None)

    def with_nodes(self, nodes: int) -> "Hardware":
        if nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {nodes}")
        return replace(self, nodes=nodes)

    @property
    def network_mb_s(self) -> float:
        return self.network_gbps * 1000 / 8


def shipped() -> dict[str, str]:
    """The hardware descriptions shipped in the package (clusters/*.toml): name -> TOML text."""
    return {f.name.removesuffix(".toml"): f.read_text() for f in resources.files(__package__).joinpath("clusters").iterdir()
            if f.name.endswith(".toml")}


def load_hardware(path: str | Path) -> Hardware:
    """A hardware description from a file, or by the name of one shipped with tierbench (`sandisk-all-ssd`)."""
    p = Path(path)
    if not p.exists() and str(path) in shipped():
        return hardware_from_dict(tomllib.loads(shipped()[str(path)]), str(path))
    shipped_names = ", ".join(sorted(shipped()))
    raw = read_toml(path, "hardware description", f"give its .toml file, or the name of one shipped with tierbench: "
                    f"{shipped_names}", missing=f" file, nor one shipped with tierbench: {shipped_names}")
    return replace(hardware_from_dict(raw, str(path)), file=str(p.resolve()), description=raw)


def stored_target(scale: dict) -> Hardware:
    """A scale model's target as its results record it (study.json's spec.scale): the description kept there where
    it was a user's file (so that it is found wherever that file has gone since), else the shipped one by name."""
    kept = scale.get("target_hardware")
    if kept:
        return replace(hardware_from_dict(kept["description"], kept["file"]), file=kept["file"],
                       description=kept["description"])
    return load_hardware(scale["target"])


def hardware_from_dict(raw: dict, src: str = "<hardware>") -> Hardware:
    """A Hardware from a description's TOML table (as load_hardware reads it); SpecError(src, ...) for any mistake."""
    table(src, "", raw, "expected a table of fields: nodes, cores, memory, [data], ...")
    unknown_fields(src, "", raw, TOP_KEYS, key=bounds.shown)  # shown(): a quoted key may hold a newline
    name = raw.get("name", Path(src).stem)
    if not isinstance(name, str) or not name.strip():
        raise SpecError(src, "name", f"expected a name (a non-empty string), got {name!r}")
    source = raw.get("source", "")
    if not isinstance(source, str):
        raise SpecError(src, "source", f"expected a string saying where the figures come from, got {source!r}")
    nodes = field(src, "nodes", required(src, "", raw, "nodes", "the number of worker nodes"), bounds.NODES)
    cores = field(src, "cores", required(src, "", raw, "cores", "the tasks one node runs at once (its cores)"), bounds.CORES)
    memory = _memory(src, required(src, "", raw, "memory", "the RAM of one node, a size such as \"16GB\""))
    network_gbps = field(src, "network_gbps", raw.get("network_gbps", 10), bounds.NETWORK_GBPS)
    data = _drive_set(src, "data", required(src, "", raw, "data", "the drives that hold the data on each node, "
                                             "a table such as [data] drive = \"hdd-7200\" count = 2"))
    intermediate = _drive_set(src, "intermediate", raw["intermediate"]) if "intermediate" in raw else data
    price = field(src, "price_usd", raw["price_usd"], bounds.HARDWARE_PRICE_USD) if "price_usd" in raw else None
    engine = raw.get("engine")
    if engine is not None and engine not in ENGINES:
        raise SpecError(src, "engine", f"expected one of {', '.join(map(repr, ENGINES))} (the engine the cluster runs: "
                        f"its spill and merge rules), got {engine!r}")
    heap = _memory(src, raw["task_heap"], "task_heap", "a task's JVM heap") if "task_heap" in raw else 1 << 30
    return Hardware(name, nodes, cores, memory, network_gbps, _write_copies(src, raw), data, intermediate, source,
                    intermediate_on_data="intermediate" not in raw, price_usd=price, engine=engine, task_heap=heap,
                    cpu=_cpu_rates(src, raw.get("cpu", {})), cpu_model=_cpu_model(src, raw.get("cpu_model", "")))


def _cpu_model(src: str, name) -> str:
    if not isinstance(name, str) or len(name) > 200:
        raise SpecError(src, "cpu_model", f"expected the nodes' CPU as its maker names it, e.g. \"Xeon E5-2430\", "
                        f"got {bounds.shown(name)}")
    return name.strip()


def _cpu_rates(src: str, raw) -> tuple[CpuRate, ...]:
    """[cpu.terasort] mb_s_per_thread = 4.26, source = "...": a job's rate per thread where its CPU set the pace."""
    table(src, "cpu", raw, f"expected a table of jobs such as [cpu.terasort] mb_s_per_thread = 4.26, got {raw!r}")
    unknown_fields(src, "cpu.", raw, CPU_JOBS, key=bounds.shown)
    rates = []
    for job, t in raw.items():
        table(src, f"cpu.{job}", t, f"expected a table such as [cpu.{job}] mb_s_per_thread = 4.26 source = \"...\"")
        unknown_fields(src, f"cpu.{job}.", t, CPU_KEYS, key=bounds.shown)
        results = _results_folder(src, job, t)
        rate = 0.0 if results and "mb_s_per_thread" not in t else field(
            src, f"cpu.{job}.mb_s_per_thread", required(src, f"cpu.{job}.", t, "mb_s_per_thread",
                                                        "the job's input MB/s per thread when CPU-bound, or "
                                                        "`results`, a study's folder run on the target"),
            bounds.CPU_MB_S_PER_THREAD)
        source = t.get("source", "" if results else None)
        if not isinstance(source, str) or (not source.strip() and not results):
            raise SpecError(src, f"cpu.{job}.source", f"expected a string saying where the rate comes from "
                            f"(a run's size, threads and runtime), got {source!r}")
        drive = t.get("drive", "")
        if drive and drive not in catalog():
            raise SpecError(src, f"cpu.{job}.drive", f"expected a drive of the catalog (docs/hardware.md: "
                            f"{', '.join(catalog())}), got {drive!r}")
        count = int(field(src, f"cpu.{job}.count", t.get("count", 1), bounds.DRIVES_PER_NODE)) if drive else 0
        rates.append(CpuRate(job, float(rate), source, drive, count, results))
    return tuple(rates)


def _results_folder(src: str, job: str, t: dict) -> str:
    """[cpu.<job>] results = "runs/on-target": the folder of a study run on the target, relative to the description's
    file; absolute here (read by the scale model: scale/rate.py)."""
    given = t.get("results", "")
    if not isinstance(given, str):
        raise SpecError(src, f"cpu.{job}.results", f"expected a results folder of a study run on the target (a path "
                        f"relative to this file), got {bounds.shown(given)}")
    return str((Path(src).parent / given).resolve()) if given.strip() else ""


def _drive_set(src: str, where: str, raw) -> DriveSet:
    table(src, where, raw, f"expected a table such as [{where}] drive = \"hdd-7200\" count = 2, got {raw!r}")
    unknown_fields(src, f"{where}.", raw, DRIVE_KEYS, key=bounds.shown)
    count = field(src, f"{where}.count", raw.get("count", 1), bounds.DRIVES_PER_NODE)
    given = {f: field(src, f"{where}.{f}", raw[f], FIGURE_BOUNDS[f]) for f in FIGURES if f in raw}
    drives = catalog()
    if "drive" not in raw:
        missing = [f for f in FIGURES if f not in given]
        if missing:
            not_given = f" ({', '.join(missing)} not given)" if given else ""
            raise SpecError(src, f"{where}.drive", f"missing: name a catalog drive ({', '.join(drives)}) or give "
                            f"all of {', '.join(FIGURES)}{not_given}")
        return DriveSet(Drive("custom", **given, source=f"figures given in {src} [{where}]"), count)
    name = raw["drive"]
    if not isinstance(name, str) or name not in drives:
        raise SpecError(src, f"{where}.drive", f"unknown drive {name!r}; the catalog has: {', '.join(drives)} "
                        f"(or leave `drive` out and give {', '.join(FIGURES)})")
    drive = drives[name]
    if given:  # the user's own figures beat the catalog's typical ones, and the source must say which are whose
        overrides = ", ".join(f"{f} = {v:g}" for f, v in given.items())
        drive = replace(drive, **given, source=f"{drive.source}; with {overrides} given in {src}")
    return DriveSet(drive, count)


def _write_copies(src: str, raw: dict) -> float:
    if "replication" in raw and "erasure" in raw:
        raise SpecError(src, "erasure", "give either replication (HDFS copies of each block) or erasure "
                        "(coding \"k+m\", e.g. \"6+3\"), not both")
    if "erasure" in raw:
        m = ERASURE.match(raw["erasure"]) if isinstance(raw["erasure"], str) else None
        if not m or not all(bounds.ERASURE_BLOCKS.fits(int(g)) for g in m.groups()):
            raise SpecError(src, "erasure", f"expected \"k+m\": k data and m parity blocks, each "
                            f"{bounds.ERASURE_BLOCKS.words()}, e.g. \"3+2\" or \"6+3\", got {raw['erasure']!r}")
        k, parity = int(m.group(1)), int(m.group(2))
        return (k + parity) / k
    return float(field(src, "replication", raw.get("replication", 1), bounds.REPLICATION))


def _memory(src: str, value, key: str = "memory", what: str = "the RAM of one node") -> int:
    try:
        size = bounds.size_of(value)
    except ValueError as e:
        raise SpecError(src, key, f"{e} ({what})") from None
    if size < MB:  # surely `16` meant gigabytes, not bytes: make the unit explicit
        raise SpecError(src, key, f"{value!r} is {size} bytes, too small for {what}: "
                        f"write a size with its unit, such as \"16GB\"")
    return bounds.in_size_bound(src, key, value, size, bounds.NODE_MEMORY)

