"""Every constant of the scale model, in one registry: its value, unit, what it models and where the value comes
from (a data sheet or a default, a cited rule, measured on this machine, chosen, or FITTED: to what, on which
runs). The scale model's modules take their values from here; docs/model.md's constants table holds this
registry, after the what-if model's (model/constants.py; tests/test_scale_constants.py checks that they agree). A
few constants the core owns (the throttle's IOPS per MB/s, the drive catalog's fit) are listed here by reference:
their modules sit below the scale model, which reads them, and keep them; the model's Hadoop defaults are the model's.

The history of each (the runs, the sessions) is in docs/lab/scale-model.md."""

from ..model.constants import CHOSEN, DATA_SHEET, FITTED, MEASURED, RULE, Constant

_MiB = 1 << 20
SCALE_CONSTANTS = (
    Constant("model.WRITE_SEEK_KIB", 1024, "KiB", "the request size at which an emulated drive's writes pay a seek "
             "where several of its writers share a drive, for a drive without seek figures of its own (an SSD: it loses "
             "1-3% at it; each rotating drive of the catalog has its own, listed below)", FITTED,
             "the 2014 HDD's (drives.hdd-7200-2014), kept for the drives that barely seek so that the SanDisk models' "
             "SSDs run as they were fitted with, 2026-11-27"),
    Constant("model.READ_SEEK_KIB", 256, "KiB", "the request size of a target node's reduce-side merges on its "
             "drives, each request paying a seek, for a drive without seek figures of its own (an SSD)", FITTED,
             "the 2014 HDD's (drives.hdd-7200-2014), kept for the drives that barely seek, 2026-11-27"),
    Constant("model.HOLD_FACTOR", 2, "bytes per byte of input", "what a wave of a target node's maps holds while it "
             "runs: spills, then merged output until fetched", RULE, "MapReduce's reducers start at 5% of the maps "
             "(mapreduce.job.reduce.slowstart.completedmaps) and fetch each map's output as it ends, 2026-11-27"),
    Constant("model.MIN_DIRECT_READ", 64 << 10, "bytes", "the smallest request of the reducers' direct reads",
             CHOSEN, "an SSD is charged its MB/s at any size from a few KiB; smaller requests only cost CPU"),
    Constant("model.MAX_DIRECT_READ", _MiB, "bytes", "the largest request of the reducers' direct reads", CHOSEN,
             "the block layer's largest request on these loop devices is 1,280 KiB"),
    Constant("model.TARGET_TASK_HEAP", 1 << 30, "bytes", "a target task's JVM heap when [scale] names none",
             DATA_SHEET, "Hadoop's -Xmx1g of the studies' time"),
    Constant("model.MIN_SORT_BUFFER", _MiB, "bytes", "the smallest sort buffer", DATA_SHEET,
             "mapreduce.task.io.sort.mb is a whole number of MB"),
    Constant("model.MIN_REDUCER_MEMORY", 8 * _MiB, "bytes", "the smallest reducer memory", CHOSEN,
             "below it a reducer's in-memory shuffle holds no fetch at all"),
    Constant("model.MODEL_JAVA_OPTIONS", ("-XX:TieredStopAtLevel=1", "-XX:+UseParallelGC"), "", "the hadoop "
             "engine's JVM in a scale model: CPU per byte without the JIT's and collector's warm-up", MEASURED,
             "2026-11-26, the quickstart's TeraSort, 8 runs each: defaults 6.3-11.5 s, these 3.96-4.11 s in 7 of 8"),
    Constant("rate.ESTIMATE_FACTOR", 2, "x either way", "how far a core_speed estimated from the CPUs' scores may "
             "be from the one a calibration would measure (its low and high)", CHOSEN, "a synthetic benchmark's mix "
             "is not a JVM's sort, and the measured core_speed on this machine's kind alone moved 0.27-0.64 between "
             "code versions and clones (docs/lab/scale-model.md): a factor of 2.4 the estimate cannot see, 2026-12-07"),
    Constant("rate.UNKNOWN_FACTOR", 4, "x either way", "the same where this machine's CPU is not in the table of "
             "scores (core_speed 1)", CHOSEN, "the table's per-thread scores span 646-2,098, a factor 3.2, 2026-12-07"),
    Constant("calibration.REPEATS", 7, "runs", "the calibration's runs without drive limits (where the rate names "
             "no drives)", MEASURED, "the median of 5 moved k by +-8% between fresh clones, 2026-11-27"),
    Constant("calibration.SIZING_REPEATS", 3, "runs", "the unlimited runs that size the rate's own drives",
             CHOSEN, "their error moves the drives' speed, a tenth of the fitted run's time, 2026-11-29"),
    Constant("calibration.FIT_REPEATS", 3, "runs", "the calibration's runs on the rate's own drives (the rate)",
             CHOSEN, "with the pace followed, later k's do not depend on it, 2026-11-29 (a minute of the quickstart)"),
    Constant("calibration.PACE_REPEATS", 3, "runs", "the pace check's runs after the study", CHOSEN,
             "about 40 s of the quickstart"),
    Constant("pace.PACE_TOLERANCE", 0.10, "of the median work", "the change in the calibrated job's work within "
             "which this machine's pace is said to have held", MEASURED, "calibration medians 5.27-6.22 s in clones "
             "that met every bound, 6.57-7.02 s where the calibration ran slow (three clones)"),
    Constant("pace_follow.MOST", (0.67, 1.5), "x the calibration's k", "the furthest k follows one run's pace",
             CHOSEN, "a run twice as slow is a fluke or a fault, 2026-11-29"),
    Constant("pace_follow.PACE_WINDOW", 3, "runs", "the last runs of the calibrated job whose median work sets the "
             "pace", MEASURED, "one run's noise (12% CV of all-SSD TeraSort work in 8 repeats) damped, a drift "
             "followed in two, 2026-11-29"),
    Constant("memory_budget.POLL_S", 0.05, "s", "how often the page cache budget's limit follows the processes' "
             "own memory", CHOSEN, "a page fault above the limit waits for the next poll"),
    Constant("memory_budget.HEADROOM", 32 * _MiB, "bytes", "the page cache's room beside the budget (also the "
             "read-ahead's)", MEASURED, "4 MB made a starting JVM reclaim its pages for minutes; squeezing to the "
             "budget alone took an all-HDD TeraSort of 128 MB to 137 s"),
    Constant("memory_budget.ANON_ROOM", 256 * _MiB, "bytes", "what a JVM's heap may grow by between two polls",
             MEASURED, "a TeraValidate failed under the budget in CI (ClassNotFoundException), 2026-11-27; 0 refused "
             "reads in 6 runs with it"),
    Constant("shared_time.TICK_S", 0.1, "s", "how often the shared-time controller follows the devices' counters",
             RULE, "blk-throttle's own time slice is 100 ms"),
    Constant("shared_time.SMOOTHING", 0.2, "", "the weight of the last tick in the drive's time taken", CHOSEN,
             "a tick holds few requests: about half a second smoothed, 2026-11-27"),
    Constant("shared_time.ALONE", 0.05, "of the drive's time", "a direction under this leaves the other the whole "
             "drive", MEASURED, "writeback's bursts held a durable TestDFSIO write to 82 s where it took 70, 2026-11-27"),
    Constant("shared_time.DAMPING", 0.5, "", "how far one tick moves the share toward filling the drive's time",
             CHOSEN, "fio on a 100/55 MB/s device: both directions 1.07 drives"),
    Constant("shared_time.OVER", 1.1, "drives", "a drive's time taken (smoothed) up to this counts as one drive's",
             CHOSEN, "give or take a request; fio: 1.00-1.07 drives"),
    Constant("shared_time.FLOOR", 0.2, "of the limits", "the least share a direction keeps", CHOSEN,
             "0 would lift blkio's limit; a drive never takes five times longer"),
    Constant("shared_time.REWRITE", 0.1, "relative", "a limit that moves by less is left as written", CHOSEN,
             "each write starts the throttle's time slice anew"),
)

# the core's, read by the scale model (their modules keep them: storage/ and model/ sit below scale/)
CORE_CONSTANTS = (
    Constant("profiles.READ_IOPS_PER_MB_S", 2, "IOPS per MB/s", "the least read IOPS the throttle gives a device "
             "per MB/s, so IOPS never cap a sequential stream below its bandwidth", MEASURED,
             "26 IOPS held a 26 MB/s read-ahead stream to 20 MB/s"),
    Constant("profiles.WRITE_IOPS_PER_MB_S", 4, "IOPS per MB/s", "the same for writes, counted before writeback's "
             "requests merge (~256 KiB)", MEASURED, "19 write IOPS held an fsync'ed 20 MB/s stream to 13 MB/s; 40 let "
             "it run at 19.5"),
    Constant("profiles.HEADROOM", 0.8, "of the real disk", "the fastest named profile's share of this machine's "
             "disk: the throttle, not the disk, sets the pace", CHOSEN, "storage/profiles.py"),
)


def _drive_constants() -> tuple[Constant, ...]:
    """Each catalog drive's own seek figures (model/drives.toml keeps them: the scale model reads them there)."""
    from ..model.hardware import catalog

    kinds = {"FITTED": FITTED, "cited rule": RULE, "data sheet": DATA_SHEET}
    return tuple(Constant(f"drives.{d.name}.{rw}_seek_kib", int(getattr(d, f"{rw}_seek_kib")), "KiB",
                          f"{d.name}: the request size in which several streams' {rw}s reach it, each paying a seek",
                          kinds[d.seek_kind], d.seek_source.replace("\n", " "))
                 for d in catalog().values() if d.write_seek_kib for rw in ("write", "read"))


DRIVE_CONSTANTS = _drive_constants()
ALL = {c.name: c for c in SCALE_CONSTANTS + CORE_CONSTANTS + DRIVE_CONSTANTS}


def value(name: str):
    """A scale model constant's value, by its module.NAME."""
    return ALL[name].value
