"""What a study's figures can say about storage, decided from the spec, the machine and the storage map alone
(so `tierbench run` warns before anything runs, and the report says it again from stored results):

- the working set: each workload's data per node against the nodes' RAM, its shuffle against executor
  memory: data that fits in memory N times over is served by memory unless something forces it out;
- configurations compared on the same block device: their differences are not a device comparison;
- a `shared` path that is not a network file system measures a local disk, not NFS;
- durability: whether writes were timed to the device, and what could not be synced.
"""

import re
from dataclasses import dataclass
from urllib.parse import urlparse

from ..storage.types import is_network_fs, storage_type
from ..store import StoredRun
from ..units import format_size, parse_size
from ..workloads import WORKLOADS, producer_of

SPARK_RESERVED = 300 << 20  # Spark's reserved heap; execution + storage memory is spark.memory.fraction of the rest
SPARK_DEFAULT_EXECUTOR = 1 << 30  # spark.executor.memory's default
LOOPBACK = re.compile(r"^(127\.|localhost$|::1$)")


@dataclass
class Placement:
    """Where an engine's tasks run, as far as the spec tells: how many machines share the data, their RAM."""
    engine: str
    nodes: int | None  # None: a cluster whose size the spec does not say
    ram_bytes: int | None  # per node
    task_memory: int | None  # an executor's (Spark) or a task's (MapReduce) heap
    where: str  # in words


@dataclass
class WorkingSet:
    workload: str  # label
    engine: str
    data_bytes: int  # the data set one run reads or writes (the larger)
    shuffle_bytes: int
    placement: Placement

    @property
    def per_node(self) -> float | None:
        return self.data_bytes / self.placement.nodes if self.placement.nodes else None

    @property
    def fits_times(self) -> float | None:
        """How many times over the data per node fits in a node's RAM (None: not known)."""
        if not self.per_node or not self.placement.ram_bytes:
            return None
        return self.placement.ram_bytes / self.per_node

    @property
    def would_not_fit(self) -> int | None:
        """The smallest data set (all nodes) that would not fit in the nodes' RAM."""
        if not self.placement.nodes or not self.placement.ram_bytes:
            return None
        return self.placement.ram_bytes * self.placement.nodes

    @property
    def shuffle_in_memory(self) -> bool | None:
        """The whole shuffle fits in one executor's execution memory (so nothing spills)."""
        if not self.shuffle_bytes or not self.placement.task_memory:
            return None
        usable = max(0, self.placement.task_memory - SPARK_RESERVED) * 0.6
        return self.shuffle_bytes / max(1, self.placement.nodes or 1) <= usable


def placement(engine: dict, machine: dict) -> Placement:
    """Nodes, RAM and task memory of an engine, from its spec: local modes and one-box clusters (a master on a
    loopback address) share this machine's RAM; other clusters are not sized by the spec."""
    ram = machine.get("memory_bytes")
    name = engine.get("name") or engine.get("kind", "spark")
    if engine.get("kind", "spark") == "hadoop":
        heap = _size(engine.get("conf", {}).get("mapreduce.map.memory.mb"), mb=True) or 1 << 30
        if engine.get("mode", "local") == "local":
            return Placement(name, 1, ram, heap, "Hadoop's local mode: one JVM on this machine")
        return Placement(name, None, None, heap, "a YARN cluster (its size is not in the spec)")
    master = engine.get("master") or "local[*]"
    conf = engine.get("conf") or {}
    if master.startswith("local"):
        heap = _size(engine.get("driver_memory") or "1g")
        return Placement(name, 1, ram, heap, f"Spark {master}: one JVM on this machine")
    heap = _size(engine.get("executor_memory") or conf.get("spark.executor.memory")) or SPARK_DEFAULT_EXECUTOR
    host = urlparse(master).hostname or ""
    if master.startswith("spark://") and LOOPBACK.match(host):
        return Placement(name, 1, ram, heap, f"Spark {master}: a cluster on this machine (its workers share its RAM)")
    return Placement(name, None, None, heap, f"Spark {master}: a cluster (its size is not in the spec)")


def _size(value, mb: bool = False) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value) << 20 if mb else parse_size(str(value))
    except ValueError:
        return None


def planned_sizes(spec: dict) -> dict[str, dict[str, int]]:
    """label -> bytes one run of it moves per data class (input, intermediate, output), as planned."""
    data: dict[str, int] = {}  # label -> the data set it leaves
    out = {}
    for w in spec["workloads"]:
        wl = WORKLOADS.get(w["name"])
        if wl is None:
            continue
        producer = producer_of(w["name"], w["params"], spec["workloads"], dict.get)
        input_bytes = data.get(producer["label"], 0) if producer else 0
        out[w["label"]] = wl.planned_io(w["params"], input_bytes)
        data[w["label"]] = wl.data_bytes(w["params"], input_bytes) if wl.io.output else input_bytes
    return out


def working_sets(spec: dict, machine: dict) -> list[WorkingSet]:
    engines = spec.get("engines") or [spec.get("engine") or {}]
    if spec.get("scale"):  # a scale model: its engine's page cache is the budget, not this machine's RAM
        machine = {**machine, "memory_bytes": spec["scale"]["page_cache_bytes"]}
    rows = []
    for label, io in planned_sizes(spec).items():
        for e in engines:
            rows.append(WorkingSet(label, e.get("name") or e.get("kind", "spark"), max(io["input"], io["output"]),
                                   io["intermediate"], placement(e, machine)))
    return rows


def working_set_lines(spec: dict, machine: dict) -> list[str]:
    """One warning when the study's data sets fit in memory (what that means for its figures), else none."""
    rows = [r for r in working_sets(spec, machine) if r.fits_times is not None and r.data_bytes]
    fitting = [r for r in rows if r.fits_times >= 1]
    if not fitting:
        return []
    big = max(fitting, key=lambda r: r.data_bytes)
    small = min(r.fits_times for r in fitting)
    ram = format_size(big.placement.ram_bytes)
    what = (f"{len(fitting)} of the study's {len(rows)} data sets fit in memory" if len(fitting) < len(rows)
            else "every data set of the study fits in memory")
    # (a spec stored before `durability` existed ran with the engine's semantics)
    writes = ("writes are still timed to the device (durability = \"durable\")" if spec.get("durability", "engine") == "durable"
              else "writes are timed to the page cache (durability = \"engine\")")
    drop = "" if spec.get("drop_caches") == "never" else " unless the page cache is dropped before each run (drop_caches, as root)"
    tightest = f"; the tightest fits {small:,.0f}x" if round(small) != round(big.fits_times) else ""
    return [f"working set: {what} ({big.workload}'s {format_size(big.data_bytes)} fits {big.fits_times:,.0f}x over "
            f"in {ram} of RAM per node{tightest}): reads come from memory{drop}, data a job writes "
            f"and reads back (a sort's shuffle) comes from memory, and {writes}; a data set above "
            f"{format_size(big.would_not_fit)} would not fit"]


def _devices(paths, storage_map: dict) -> set[str]:
    dirs = storage_map.get("dirs", {})
    return {dirs.get(p, {}).get("device") for p in paths} - {None}


def config_devices(config: dict, storage_map: dict) -> dict[str, set[str]]:
    """{"data": devices, "intermediate": devices} of a stored storage configuration (remote data: none)."""
    local = storage_type(config.get("data_type", "local")).local_dirs(tuple(config["data"]))
    return {"data": _devices(local, storage_map), "intermediate": _devices(config["intermediate"], storage_map)}


def same_device_pairs(spec: dict, storage_map: dict) -> dict[frozenset, list[str]]:
    """{frozenset({config a, config b}): the devices both use for the same role}, for configurations compared."""
    devs = {c["name"]: config_devices(c, storage_map) for c in spec["storage"]}
    names = list(devs)
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = sorted((devs[a]["data"] & devs[b]["data"]) | (devs[a]["intermediate"] & devs[b]["intermediate"]))
            if shared:
                pairs[frozenset((a, b))] = shared
    return pairs


def same_device_lines(spec: dict, storage_map: dict) -> list[str]:
    pairs = same_device_pairs(spec, storage_map)
    if not pairs:
        return []
    names = [c["name"] for c in spec["storage"]]
    every = len(pairs) == len(names) * (len(names) - 1) // 2
    devices = sorted({d for ds in pairs.values() for d in ds})
    if every:
        return [f"same device: every configuration keeps its data or intermediate dirs on {', '.join(devices)}: the "
                "differences between them are not a device comparison (they measure directory layout, settings or "
                "the engine); put each configuration on its own device to compare devices"]
    return [f"same device: {' and '.join(sorted(p))} both use {', '.join(ds)} for the same data: the difference between "
            "them is not a device comparison" for p, ds in pairs.items()]


def shared_fs_lines(spec: dict, storage_map: dict) -> list[str]:
    """A `shared` configuration whose path is not on a network file system measures a local disk."""
    lines = []
    for c in spec["storage"]:
        if not storage_type(c.get("data_type", "local")).network_fs:
            continue
        for d in c["data"]:
            mount = storage_map.get("dirs", {}).get(d, {}).get("mount") or {}
            fs = mount.get("fs_type")
            if fs and not is_network_fs(fs):
                lines.append(f"storage {c['name']}: its shared path {d} is on {fs} ({mount.get('source', '?')}), not a "
                             "network file system: it measures a local disk, not NFS")
    return lines


def root_fs_lines(spec: dict, storage_map: dict) -> list[str]:
    """A configuration's data on the root file system while another's is on a mount of its own: the sign of a disk
    that was not mounted (its empty mount point holds the data, on the root disk) -- said, not refused."""
    dirs, mounts, local = storage_map.get("dirs", {}), {}, {}
    for c in spec["storage"]:
        local[c["name"]] = storage_type(c.get("data_type", "local")).local_dirs(tuple(c["data"]))
        points = {(dirs.get(d, {}).get("mount") or {}).get("mount_point") for d in local[c["name"]]} - {None}
        if points:
            mounts[c["name"]] = points
    elsewhere = sorted(name for name, points in mounts.items() if "/" not in points)
    if not elsewhere:
        return []
    others = ", ".join(sorted({p for name in elsewhere for p in mounts[name]}))
    return [f"storage {name}: its data ({', '.join(local[name])}) is on the root file system (/), while "
            f"{', '.join(elsewhere)}'s is on {others}: if a disk should be mounted there, it is not"
            for name, points in mounts.items() if "/" in points]


def durability_lines(spec: dict, records: list[StoredRun]) -> list[str]:
    """What the runs' writes were timed to, and what durable mode could not sync."""
    if spec.get("durability", "engine") != "durable":
        return ["durability = \"engine\": the engine's own write semantics; a write counts as done when it is in the "
                "page cache, so write figures can exceed what the device sustains (durable mode syncs inside the run)"]
    gaps = sorted({g for r in records for g in r.sync_gaps or ()})
    return [f"durable mode could not sync every write: {g}" for g in gaps]


def study_lines(spec: dict, machine: dict, storage_map: dict) -> list[str]:
    """Every warning about what the study's figures measure that is known before it runs."""
    return (same_device_lines(spec, storage_map) + shared_fs_lines(spec, storage_map) + root_fs_lines(spec, storage_map)
            + working_set_lines(spec, machine))
