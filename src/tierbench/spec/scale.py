"""Spec.scale: a scale model's derived settings as one frozen value (scale/model.py derives it from the [scale]
table, docs/scale-model.md). study.json stores it as `to_dict()`, the form the report and `predict` read, and which
the study's fingerprint hashes; `from_dict` reads that form back (older folders' too)."""

from dataclasses import asdict, dataclass, field, fields


def middle(times) -> float:
    """The middle of the runs' times (the upper one of an even number)."""
    return sorted(times)[len(times) // 2]


def measured_calibration(scale: dict | None) -> dict | None:
    """A scale model's calibration as study.json records it (its `spec.scale`), when it ran; None when the study
    has no scale model, its core_speed was given, or its calibration is pending. The readers of stored results ask
    this, the running study ScaleModel.calibration_measured: one rule, "measured" = its runs' times are known."""
    c = (scale or {}).get("calibration") or {}
    return c if c.get("status") == "measured" and c.get("runs_s") else None


@dataclass(frozen=True)
class Setting:
    """One derived setting: its value here and the target's, and the ratio it keeps."""
    name: str
    here: str
    target: str
    keeps: str


@dataclass(frozen=True)
class Calibration:
    """core_speed from rates: the target's thread's rate for a job (its description's [cpu.<job>], with the source)
    over this machine's core's, measured by running the job at the model's size where the CPU sets the pace."""
    job: str
    target_mb_s_per_thread: float
    source: str
    runs_s: tuple[float, ...] = ()  # the calibration runs' active times here (their phases); () while pending
    data_bytes: int = 0
    cores: int = 0
    # the job on the drives of the run the rate comes from (CpuRate.drive), emulated at the k the runs above give:
    # its active times; () where the rate names no drives (the rate is then the runs' above, taken as CPU alone)
    fit_s: tuple[float, ...] = ()
    fit_drive: str = ""
    fit_count: int = 0
    # where the target's rate comes from: "published" (a figure of its description), or "measured on the target" (a
    # study the user ran there: scale/rate.py); recorded only when not published (as recorded before it existed)
    rate_from: str = "published"

    @property
    def measured(self) -> bool:
        """Whether the calibration ran (its runs' times are known), else it is pending."""
        return bool(self.runs_s)

    @property
    def median_s(self) -> float:
        return middle(self.runs_s)

    @property
    def rate_s(self) -> float:
        """The work time the rate comes from: on the rate's run's own drives where measured, else with no drive's
        limits (the published run then taken as its CPU's alone)."""
        return middle(self.fit_s) if self.fit_s else self.median_s

    @property
    def here_mb_s_per_core(self) -> float:
        return self.data_bytes / 1e6 / (self.rate_s * self.cores)

    @property
    def core_speed(self) -> float:
        return self.target_mb_s_per_thread / self.here_mb_s_per_core if self.runs_s else 1.0

    def to_dict(self) -> dict:
        d = {**asdict(self), "runs_s": list(self.runs_s), "fit_s": list(self.fit_s),
             "status": "measured" if self.runs_s else "pending"}
        if self.rate_from == "published":
            del d["rate_from"]
        if self.runs_s:
            d.update(here_mb_s_per_core=self.here_mb_s_per_core, core_speed=self.core_speed)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Calibration":
        known = {f.name for f in fields(cls)}
        return cls(**{k: tuple(v) if k in ("runs_s", "fit_s") else v for k, v in d.items() if k in known})


@dataclass(frozen=True)
class ScaleModel:
    target: str                 # the hardware description's name
    target_size: int            # bytes the full-size job processes (all nodes)
    data_bytes: int             # bytes the model processes here (one node)
    size_factor: float          # s: task sizes here / there
    rate_factor: float          # k: drive speeds here / there
    split_bytes: int            # a map's input here
    maps: int
    reducers: int
    sort_buffer_mb: int         # mapreduce.task.io.sort.mb here
    reduce_shuffle_bytes: int   # the memory a reducer's in-memory shuffle is a share of, here
    tasks: int                  # tasks at once (the target node's task slots)
    write_copies: float         # bytes a node's drives take per byte of output there (HDFS replication)
    page_cache_bytes: int       # the page cache budget of the engine's processes here
    # a map's spills and output read back from memory (the hadoop engine: tierbench.io.HeldFiles), where a target
    # node's page cache holds a wave of its maps' output (scale/model.py hold_rule)
    hold_map_output: bool = False
    settings: tuple[Setting, ...] = field(default=())
    breaks: tuple[str, ...] = field(default=())
    calibration: Calibration | None = None  # core_speed from a measured rate; None: given or 1
    # core_speed estimated from the CPUs' scores (scale/rate.py estimate): its value, low and high, and their source
    core_speed_estimate: dict | None = None
    # a target from a user's file: {"file", "description"} as loaded, so that the results need not find the file again
    target_hardware: dict | None = None

    @property
    def calibration_measured(self) -> bool:
        """Whether k comes from a calibration that ran (not one pending, nor a core_speed given)."""
        return self.calibration is not None and self.calibration.measured

    @property
    def calibration_pending(self) -> bool:
        """Whether k waits for a calibration: core_speed "measured", not run yet."""
        return self.calibration is not None and not self.calibration.measured

    def to_dict(self) -> dict:
        d = {**asdict(self), "calibration": self.calibration.to_dict() if self.calibration else None}
        for key in ("calibration", "hold_map_output", "core_speed_estimate", "target_hardware"):  # (as recorded
            # before they existed: the fingerprint holds)
            if not d[key]:
                del d[key]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ScaleModel":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in known}
        values["settings"] = tuple(Setting(**s) for s in d.get("settings", ()))
        values["breaks"] = tuple(d.get("breaks", ()))
        values["calibration"] = Calibration.from_dict(d["calibration"]) if d.get("calibration") else None
        return cls(**values)
