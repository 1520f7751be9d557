"""A scale model's drives following this machine's pace through the study: the wind tunnel's air speed measured
again between its runs, not only before them.

The drives' speed factor k comes from the calibration: this machine's rate for the calibrated job on the rate's own
drives, measured before the study (calibration.py). A machine shared with others does not keep its pace for the
minutes a study takes: in the quickstart's fresh clones of 2026-11-29 the all-SSD TeraSorts ran at 0.93 to 1.35
times the calibration's runs of the same job on the same drives, while the drive-paced configurations kept the
drives' time, so the TeraSort hybrid / all-HDD ratio came out 0.57 to 0.71 (docs/scale-model.md).

So where the study has a configuration on the rate's own drives (the pace configuration: the SanDisk study's
all-SSD, two SATA SSDs), each of its ok runs of the calibrated job measures the pace again: k = the calibration's k
x its work time there (rate_s) / the median work time of the last PACE_WINDOW runs of that job on those drives (the
calibration's fit runs, then the study's), and every emulated device's limits are set to that k
(SharedTime.rescale) for the calibrated job's runs that follow, until the next such run. The median, not the last
run alone: one run's work is noisy, and a drive-paced run carries that noise whole while a CPU-paced one does not.
In a study of 8 repeats at one k (session 56) the all-SSD TeraSorts' work varied by 12% (coefficient of variation),
the hybrid TeraSorts' by 8%, and the two did not move together (correlation -0.06); in run 98 two fast all-SSD runs
sped the drives up by 28% for hybrids no faster than before, and the TeraSort hybrid / all-HDD came out 0.68 and
0.70 in those repeats against the first's 0.56 (docs/scale-model.md)."""

import statistics

from ..analysis.measures import work_seconds
from ..model.transfer import emulated_drives
from ..spec.scale import middle
from .constants import value

MOST = value("pace_follow.MOST")  # the furthest k follows a run from the calibration's (a run twice as slow is a fluke or a fault)
PACE_WINDOW = value("pace_follow.PACE_WINDOW")  # the last runs whose median work sets the pace: one run's noise damped, a drift followed in two


def pace_config(spec) -> str | None:
    """The configuration whose emulated drives are the calibrated rate's own (drive and count), data and
    intermediate data on them; None when the study has none, or its k is not a measured calibration's."""
    if not spec.scale or not spec.scale.calibration_measured:
        return None
    c, k = spec.scale.calibration, spec.scale.rate_factor
    if not c.fit_s or not c.fit_drive:
        return None
    for config in spec.storage:
        emulated = config.emulated or {}
        if set(config.intermediate) == set(config.local_data) and emulated.get("data") and \
                emulated_drives(emulated["data"], k) == (c.fit_drive, c.fit_count):
            return config.name
    return None


class PaceFollower:
    """The k the study's next run goes at, from the last ok runs of the calibrated job on the pace configuration."""

    def __init__(self, spec, config: str, shared_time, records: list[dict] = ()):
        c = spec.scale.calibration
        self.config, self.job, self.shared = config, c.job, shared_time
        self.k_cal, self.rate_s = spec.scale.rate_factor, middle(c.fit_s)  # (the calibration's rate_s)
        self.factor, self.source = 1.0, "the calibration"  # the calibrated job's k / the calibration's, and whence
        self.applied = 1.0  # the factor the devices' limits are at
        self.run_factor, self.run_source = 1.0, "the calibration"  # the next run's (`before`)
        self.works: list[float] = list(c.fit_s)  # the work of the calibrated job's runs on those drives, in order
        for record in records:  # a resumed study: the pace its last measuring run left
            self.after(record)

    @classmethod
    def for_study(cls, spec, shared_time, records: list[dict] = ()) -> "PaceFollower | None":
        config = pace_config(spec)
        return cls(spec, config, shared_time, records) if config else None

    @property
    def k(self) -> float:
        """The k the calibrated job's next run goes at."""
        return self.k_cal * self.factor

    def before(self, label: str) -> None:
        """A run of workload `label` is next: the devices at the followed k for the calibrated job, else at the
        calibration's."""
        self.run_factor, self.run_source = (self.factor, self.source) if label == self.job else (1.0, "the calibration")
        if self.run_factor != self.applied:
            self.shared.rescale(self.run_factor)
            self.applied = self.run_factor

    def current(self) -> dict:
        """What a run records of the pace it went at (details.pace)."""
        return {"k": self.k_cal * self.run_factor, "factor": self.run_factor, "from": self.run_source}

    def after(self, record: dict) -> str | None:
        """A run ended: when it measures the pace, k follows it; what changed, said in a line (None: nothing)."""
        if record.get("status") != "ok" or record.get("config") != self.config or record.get("label") != self.job:
            return None
        work = work_seconds(record.get("details") or {}, record["wall_s"])
        self.works.append(work)
        median = statistics.median(self.works[-PACE_WINDOW:])
        ratio = self.rate_s / median
        self.factor, self.source = min(MOST[1], max(MOST[0], ratio)), record["run_key"]
        return (f"pace: {record['run_key']} worked {work:.2f} s, the last {PACE_WINDOW} such runs {median:.2f} s at "
                f"the median (the calibration's {self.rate_s:.2f} s): the drives at k {self.k:.3g} "
                f"({self.factor - 1:+.0%} of the calibration's) for the {self.job} runs that follow"
                + ("" if self.factor == ratio else
                   f" (the runs say {ratio - 1:+.0%}: k follows them {MOST[0]}-{MOST[1]}x at most)"))
