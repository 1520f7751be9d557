"""The scale model: a small study on one machine that keeps the full-size job's dimensionless numbers.

A study with `[scale] target = "sandisk-hybrid"` and `size = "1TB"` runs on this machine as one of the target's
nodes, shrunk. Like a wind-tunnel model, it cannot keep every figure, so it keeps the ratios that decide where
a storage tier wins (docs/scale-model.md):

- data per node vs page cache: the page cache a node's engine may use is a budget, the target's free memory per
  node shrunk with the data (enforced by a memory cgroup around the engine's processes: scale/memory_budget.py);
- shuffle fetch size and reducers at once: the model runs a node's share of the target's reducers, all at once as
  there, and a map's input shrinks by `s` = those reducers / the target's, so a map's output over the reducers,
  each fetch, is the target's size (the IO size on the drives);
- data per task vs task memory: the sort buffer shrinks by s as a map's input does, and a reducer's memory as its
  input does, so tasks spill and merge in as many passes as on the target;
- tasks per drive: as many tasks at once as a target node runs, on as many drives;
- CPU vs drives: the drives' MB/s and IOPS scale by `k` = this machine's cores / (the target's cores x `core_speed`,
  a target core's speed in this machine's), so a node's CPU and drives keep their balance. Where the target gives
  a thread's rate for the job ([cpu.terasort] in its description), `core_speed` is that rate over this machine's,
  measured by a calibration run before the drives are sized (scale/calibration.py).

- CPU per byte without the JVM's warm-up: the target's tasks run for minutes in JVMs long past compiling, the
  model's job runs seconds in a fresh one, where HotSpot's C2 compiler and G1's threads take the two cores from
  the job. The hadoop engine's JVM runs with C1 alone and the parallel collector (MODEL_JAVA_OPTIONS).

What cannot be kept (the network between nodes, a NameNode's work, stragglers) is listed in `breaks`.
"""

import math
from dataclasses import dataclass, replace

from ..model.hardware import Drive, Hardware
from ..model.rules import SHUFFLE_BUFFER, TARGET_SORT_BUFFER, TARGET_SPLIT, node_page_cache, stream_mb_s
from ..spec.scale import Calibration, ScaleModel, Setting
from ..units import MB, format_size
from .constants import value

# a target task's defaults beside the Hadoop ones in model/rules.py (TARGET_SPLIT, TARGET_SORT_BUFFER)
TARGET_TASK_HEAP = value("model.TARGET_TASK_HEAP")  # a task's JVM heap (-Xmx1g)
MIN_SORT_BUFFER = value("model.MIN_SORT_BUFFER")  # Hadoop's io.sort.mb is a whole number of MB
MIN_REDUCER_MEMORY = value("model.MIN_REDUCER_MEMORY")  # below this a reducer's in-memory shuffle holds no fetch at all
# The hadoop engine's JVM in a scale model (local mode: one JVM runs the job). Measured 2026-11-26 on this machine's
# kind, the quickstart's TeraSort (128 MB, caches dropped, 8 runs each, time of its tasks): the JVM's defaults
# 6.3-11.5 s, C1 alone 4.7-6.1 s, C1 alone with the parallel collector 3.96-4.11 s in 7 of
# the 8 (the 8th 5.34 s) -- as fast as the same job in a
# JVM already warm (4.3 s), and steady: the run-to-run spread that made the calibration's rate vary +-15% was the
# compiler's and the collector's threads competing with the job for two cores.
MODEL_JAVA_OPTIONS = value("model.MODEL_JAVA_OPTIONS")
# The request size at which an emulated drive's writes pay the target's seeks when several writers share it. The
# study's HDDs wrote at 46% of the catalog's rate in TeraGen and 39-40% in TestDFSIO; the seek rule gives 2014's
# HDD 55% at 1 MiB (38% at 512 KiB, which carried the model's all-HDD TeraGen to +83% of the published time;
# the block layer's largest request on these loop devices is 1,280 KiB). A fitted figure, measured in
# docs/scale-model.md; an SSD loses about 1% at it.
WRITE_SEEK_KIB = value("model.WRITE_SEEK_KIB")
# The request size of a target node's reduce-side merges on its drives: each request pays a seek where several
# streams share a drive (a node's reducers merge 6 x 7 segments on two HDDs in the quickstart's target). A fitted
# figure, as WRITE_SEEK_KIB: between the era's default read-ahead (128 KiB) and the model's 1 MiB; in 1 MiB
# requests the all-HDD TeraSort ran ~20% faster than the study's (docs/scale-model.md).
READ_SEEK_KIB = value("model.READ_SEEK_KIB")
# The direct reads' request size stays within these: a drive that barely seeks (an SSD) is charged its MB/s at
# any size from a few KiB, and smaller requests only cost CPU
MIN_DIRECT_READ = value("model.MIN_DIRECT_READ")
MAX_DIRECT_READ = value("model.MAX_DIRECT_READ")
# A wave of a target node's maps holds this many bytes per byte of their input while it runs: each map's spills,
# then its merged output until the reducers have fetched it (MapReduce's reducers start when 5% of the maps are done,
# mapreduce.job.reduce.slowstart.completedmaps, and fetch each map's output as it ends). The model holds up to this
# many bytes per byte of its data (its whole data set is one wave).
HOLD_FACTOR = value("model.HOLD_FACTOR")


def drive_figures(model: ScaleModel, drive: Drive, streams: float = 1.0) -> dict:
    """A target drive's figures as the model's emulated drive runs them (k x each). Where the target runs more
    than one writer a drive (`streams`: its tasks per drive), its writes interleave and each request pays an
    access (rules.stream_mb_s at WRITE_SEEK_KIB), which a throttle does not charge: the write rate is derated
    to that. Reads keep the catalog's rate (why: docs/scale-model.md, "An emulated drive seeks only where the
    model charges it")."""
    k = model.rate_factor
    write = stream_mb_s(drive, "write", seek_kib(drive, "write"), streams)
    return {"read_mb_s": drive.read_mb_s * k, "write_mb_s": write * k,
            "read_iops": drive.read_iops * k, "write_iops": drive.write_iops * k}


def seek_kib(drive: Drive, rw: str) -> float:
    """The request size in which several streams' `rw`s reach the drive, each paying a seek: the drive's own
    (the catalog's, drives.toml), else the default for a drive that barely seeks (WRITE_SEEK_KIB, READ_SEEK_KIB)."""
    own = drive.write_seek_kib if rw == "write" else drive.read_seek_kib
    return own or (WRITE_SEEK_KIB if rw == "write" else READ_SEEK_KIB)


def hadoop_conf(model: ScaleModel) -> dict:
    """The MapReduce settings that carry the derived task sizes and concurrency (LocalJobRunner: one JVM)."""
    held = {"tierbench.local.hold": "true", "tierbench.local.hold.max.bytes": HOLD_FACTOR * model.data_bytes}
    return {"mapreduce.task.io.sort.mb": model.sort_buffer_mb,
            "mapreduce.reduce.memory.totalbytes": model.reduce_shuffle_bytes,
            "mapreduce.local.map.tasks.maximum": model.tasks,
            "mapreduce.local.reduce.tasks.maximum": min(model.tasks, model.reducers),
            **(held if model.hold_map_output else {})}


@dataclass(frozen=True)
class Here:
    """This machine, as the model needs it."""
    cores: int


def derive(target: Hardware, target_size: int, data_bytes: int, here: Here, core_speed: float = 1.0,
           target_reducers: int | None = None, task_heap: int = TARGET_TASK_HEAP,
           calibration: Calibration | None = None, estimate: dict | None = None) -> ScaleModel:
    """The model of one target node at `data_bytes` of data on this machine (see the module's doc for the rules);
    with a calibration, its core_speed (1 while it is pending); with an estimate (scale/rate.py), its."""
    core_speed = calibration.core_speed if calibration else estimate["core_speed"] if estimate else core_speed
    per_node = target_size / target.nodes
    k = here.cores / (target.cores * core_speed)  # a node's CPU there in this machine's cores: target.cores x core_speed
    reducers_t = target_reducers or target.nodes * target.cores  # one wave of reducers on every task slot
    reducers = max(1, round(reducers_t / target.nodes))  # a node's share: as many reducers at once as there
    s = min(1.0, reducers / reducers_t)  # so that map output / reducers, the fetch, is the target's
    split = max(MB, int(TARGET_SPLIT * s))
    input_per_reducer_t, input_per_reducer = target_size / reducers_t, data_bytes / reducers
    # a reducer's memory there (its heap); here shrunk as its input is
    shuffle = max(MIN_REDUCER_MEMORY, int(task_heap * input_per_reducer / input_per_reducer_t))
    cache_t = node_page_cache(target.memory_bytes, target.cores, task_heap)
    cache = int(cache_t * data_bytes / per_node)
    model = ScaleModel(target.name, target_size, data_bytes, s, k, split, max(1, math.ceil(data_bytes / split)),
                       reducers, max(1, round(TARGET_SORT_BUFFER * s / MB)), shuffle, target.cores, target.write_copies,
                       cache, hold_map_output=hold_rule(target, cache_t))
    if estimate:
        model = replace(model, core_speed_estimate={**estimate, "k_low": k * core_speed / estimate["high"],
                                                    "k_high": k * core_speed / estimate["low"]})
    settings = (_settings(model, target, per_node, cache_t, reducers_t, task_heap) + _core_speed_settings(calibration)
                + _estimate_settings(model.core_speed_estimate))
    kept = {"file": target.file, "description": target.description} if target.file and target.description else None
    return replace(model, settings=settings, breaks=_breaks(model, target, per_node, task_heap), calibration=calibration,
                   target_hardware=kept)


def direct_read_request(drives: list[tuple[Drive, float]], iops_limit) -> int:
    """The request size in which the hadoop engine reads a reduce's inputs past the page cache
    (tierbench.io.DirectReads), for emulated drives of these (drive, streams): the size at which the throttle's IOPS
    limit charges the seek rule's rate at READ_SEEK_KIB (rate / IOPS, k cancelling out), the largest of the drives'
    so that none is charged more than its rule (an SSD's MB/s limit comes first at any of these sizes); in whole
    4 KiB blocks, O_DIRECT's; in MB of 2^20 bytes, as the throttle counts a drive's MB/s. `iops_limit(read_iops,
    read_mb_s)`: the read IOPS the throttle holds a drive of those figures to (storage/emulation.py), required: it is
    not the drive's own (an HDD's is raised so that its read-ahead keeps its MB/s), and requests sized against the
    drive's own were charged 1.7 times the rule's rate (docs/scale-model.md, session 57)."""
    sizes = [stream_mb_s(d, "read", seek_kib(d, "read"), streams) * MB / iops_limit(d.read_iops, d.read_mb_s)
             for d, streams in drives]
    size = min(MAX_DIRECT_READ, max([MIN_DIRECT_READ, *sizes]))
    return int(size) // 4096 * 4096


def hold_rule(target: Hardware, cache_t: float) -> bool:
    """Whether the target reads a map's spills and output back from its page cache: a node's cache holds a wave of
    its maps' (task slots x split x HOLD_FACTOR). The spill is read by its own map seconds after it is written, the
    output by reducers fetching as the map ends; the model's budget, shrunk with the whole data set, holds neither."""
    return target.engine in (None, "hadoop") and cache_t >= target.cores * TARGET_SPLIT * HOLD_FACTOR


def _settings(m: ScaleModel, t: Hardware, per_node: float, cache_t: float, reducers_t: int,
              heap_t: int) -> tuple[Setting, ...]:
    fetch, fetch_t = m.split_bytes / m.reducers, TARGET_SPLIT / reducers_t
    maps_t = math.ceil(per_node / TARGET_SPLIT)
    return (
        Setting("data per node", format_size(m.data_bytes), format_size(per_node), "the model's size (chosen)"),
        Setting("page cache per node", format_size(m.page_cache_bytes), format_size(cache_t),
                f"data per node / page cache = {_ratio(per_node / cache_t)}"),
        Setting("map input (split)", format_size(m.split_bytes), format_size(TARGET_SPLIT),
                f"split / sort buffer = {TARGET_SPLIT / TARGET_SORT_BUFFER:.2f}: the same spill passes"),
        Setting("sort buffer", f"{m.sort_buffer_mb} MB", format_size(TARGET_SORT_BUFFER), "x s"),
        Setting("maps per node", str(m.maps), str(maps_t), "data here / split (fewer waves)"),
        Setting("reducers", str(m.reducers), f"{reducers_t} ({reducers_t / t.nodes:.3g} per node)",
                "a node's share, all at once"),
        Setting("shuffle fetch (map output / reducers)", format_size(fetch), format_size(fetch_t), "the IO size"),
        Setting("reducer memory", format_size(m.reduce_shuffle_bytes), format_size(heap_t),
                "reduce input / reducer memory: the same merge passes"),
        Setting("tasks at once", str(m.tasks), str(t.cores), "tasks per drive"),
        _hold_setting(m, t, cache_t),
        Setting("copies of a generated data set", f"{round(m.write_copies)}", f"{m.write_copies:g} (HDFS replication)",
                "bytes a node's drives take per byte generated"),
        Setting("hadoop engine's JVM", " ".join(MODEL_JAVA_OPTIONS), "warm (tasks of minutes)",
                "CPU per byte without the JIT's and collector's warm-up on two cores"),
        Setting("drive speed factor k", _k_shown(m), "1", "CPU vs drives: cores here / (cores there x core_speed)"),
        Setting("a drive's write rate, several writers on it", _seeks(t, "write", "x k, each {} request paying a seek",
                                                                      "x k, each request paying a seek, in requests of {}"),
                "writers interleave: the head seeks between them", "what a throttle does not charge (seek rule)"),
        *_merge_read_setting(m, t),
    )


def _ratio(r: float) -> str:
    return f"{r:.0f}" if r >= 0.5 else f"{r:.2g}"  # (a node whose cache holds its data many times: not "0")


def _k_shown(m: ScaleModel) -> str:
    e = m.core_speed_estimate
    return f"{m.rate_factor:.3g}" + (f" ({e['k_low']:.3g}-{e['k_high']:.3g}: core_speed estimated)" if e else "")


def _seeks(t: Hardware, rw: str, one: str, each: str) -> str:
    """The request size per seek of the target's drives said in `one` where they agree (as on SanDisk's), else each
    drive's in `each`."""
    sizes = {d.name: seek_kib(d, rw) for d in (t.data.drive, t.intermediate.drive)}
    if len(set(sizes.values())) == 1:
        return one.format(f"{next(iter(sizes.values())):g} KiB")
    return each.format(", ".join(f"{v:g} KiB on {name}" for name, v in sizes.items()))


def _merge_read_setting(m: ScaleModel, t: Hardware) -> tuple[Setting, ...]:
    """Where the model holds map outputs, the hadoop engine reads the reducers' inputs past the page cache, in
    requests sized for the throttle to charge the seek rule (direct_read_request)."""
    if not m.hold_map_output:
        return ()
    return (Setting("a reducer's reads of its inputs", "on the hadoop engine past the page cache, once, in requests "
                    "whose IOPS limit charges a seek each (tierbench.local.direct.read.bytes); through the page cache "
                    "on the spark engine",
                    _seeks(t, "read", "from the drives, long after they were written; {} requests, each paying a seek",
                           "from the drives, long after they were written, each request paying a seek: in requests of {}"),
                    "what a throttle does not charge (seek rule)"),)


def _hold_setting(m: ScaleModel, t: Hardware, cache_t: float) -> Setting:
    wave = t.cores * TARGET_SPLIT * HOLD_FACTOR
    target = f"a wave of a node's maps: {format_size(wave)} of spills and output, {format_size(cache_t)} of page cache"
    if m.hold_map_output:
        return Setting("a map's spills and output read back", "from memory on the hadoop engine (its JVM holds them); "
                       "from the drives on the spark engine",
                       "from the page cache: " + target, "re-reads a wave apart are memory reads")
    return Setting("a map's spills and output read back", "from the drives", "from the drives: " + target,
                   "a wave's output outgrows the cache (or the target is not MapReduce)")


def _core_speed_settings(c: Calibration | None) -> tuple[Setting, ...]:
    """The rates core_speed comes from, when it is measured (nothing otherwise: as recorded before it was)."""
    if not c:
        return ()
    if not c.runs_s:
        return (Setting("core_speed", "measured when the study starts", "", f"the target's {c.job} rate per thread "
                        "over this machine's per core"),)
    here = (f"{c.here_mb_s_per_core:.3g} MB/s per core ({c.job}: {c.data_bytes / 1e6:.0f} MB in "
            f"{c.median_s:.1f} s of work on {c.cores} cores, the median of {len(c.runs_s)} runs)")
    return (Setting(f"{c.job} rate where the CPU sets the pace", here, f"{c.target_mb_s_per_thread:g} MB/s per thread",
                    f"core_speed = {c.core_speed:.3g}: the target's rate / this machine's ({c.source})"),)


def _estimate_settings(e: dict | None) -> tuple[Setting, ...]:
    """core_speed estimated from the CPUs' scores: the figures, and that it is an estimate with its range."""
    if not e:
        return ()
    here = f"{e['here_score']:.0f} per thread ({e['here_cpu']})" if e.get("here_score") else e["here_cpu"] + ": not in the table"
    return (Setting("core_speed (an ESTIMATE)", f"{e['core_speed']:.3g} ({e['low']:.3g}-{e['high']:.3g}); this machine: {here}",
                    f"{e['target_score']:.0f} per thread ({e['target_cpu']})",
                    f"the CPUs' scores, not a rate: {e['source']}"),)


def _breaks(m: ScaleModel, t: Hardware, per_node: float, heap_t: int) -> tuple[str, ...]:
    out = ["one node: no network between nodes, so replication's and the shuffle's network traffic is not modelled"]
    if m.size_factor >= 1.0:
        out.append("the model is as big as a target node: nothing is shrunk")
    if m.sort_buffer_mb * MB > 2 * TARGET_SORT_BUFFER * m.size_factor:
        out.append(f"the sort buffer cannot shrink below {MIN_SORT_BUFFER // MB} MiB: maps spill less often than there")
    maps_t = per_node / TARGET_SPLIT
    if m.maps < maps_t / 10:
        out.append(f"a reducer merges the output of {m.maps} maps here, of {maps_t:,.0f} there: fewer merge passes "
                   "(the model's data is fewer waves of the same tasks)")
    fetch = m.split_bytes / m.reducers
    if fetch > 0.25 * SHUFFLE_BUFFER * m.reduce_shuffle_bytes and not fetch > 0.25 * SHUFFLE_BUFFER * heap_t:
        out.append("a fetch is more than a quarter of a reducer's in-memory shuffle here, not there: here every fetch "
                   "goes to disk at once, there fetches gather in memory first (the same bytes reach the disk)")
    if m.tasks > 4 * max(1, round(m.rate_factor * t.cores)):
        out.append(f"{m.tasks} tasks share this machine's cores: a task's CPU work runs {m.tasks / (m.rate_factor * t.cores):.0f}x slower, "
                   "its IO at the scaled drive's pace")
    return tuple(out)
