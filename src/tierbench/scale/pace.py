"""Whether this machine's pace held through a scale model's study: its calibration's job timed before the study (the
runs that set k, scale/calibration.py) and again after it (calibration-after/, `pace_check`). The drives run at k
times the target's speed for the whole study, k from the pace before it; where the machine ran its CPU-bound work
slower or faster during the study, a ratio between a configuration its CPU paces and one its drives pace carries
that change (docs/scale-model.md: the clones whose ratios missed were those where a slow stretch covered the
calibration alone, or the study alone)."""

from dataclasses import dataclass
from statistics import median

from ..analysis.measures import active_seconds
from ..spec.scale import measured_calibration
from ..store import StoredStudy
from ..store.results import PACE_CHECK_DIR, STUDY_FILE, ResultsDir
from .constants import value

# the change in the job's median work beyond which the pace is not said to have held: the calibrations' medians
# were 5.27-6.22 s in the quickstart's clones that met every criterion of docs/scale-model.md's, 6.57-7.02 s in those
# whose calibration ran slow (runs 62, 65, 72); the check's three runs against the calibration's seven, back to back
# with no study between, -1%, -1% and +13% (docs/scale-model.md, "core_speed, measured"): a reason to look, not proof
PACE_TOLERANCE = value("pace.PACE_TOLERANCE")


@dataclass(frozen=True)
class Pace:
    job: str
    before_s: tuple[float, ...]  # the calibration's runs' work, before the study
    after_s: tuple[float, ...]   # the pace check's, after it
    followed: bool = False       # the drives followed the pace through the study (scale/pace_follow.py)

    @property
    def change(self) -> float:
        """The median work after / before - 1: > 0 the machine was slower after the study than before it."""
        return median(self.after_s) / median(self.before_s) - 1

    @property
    def held(self) -> bool:
        return abs(self.change) <= PACE_TOLERANCE


def pace(stored: StoredStudy) -> Pace | None:
    """The study's pace before and after it; None where it has no measured calibration or no pace check (a study
    made before there was one, or a check whose runs all failed)."""
    c = measured_calibration(stored.study.spec.get("scale"))
    folder = stored.path / PACE_CHECK_DIR
    if not c or not (folder / STUDY_FILE).is_file():
        return None
    after = [active_seconds(r) for r in ResultsDir(folder).load().runs if r.ok and r.label == c["job"]]
    before = c.get("fit_s") or c["runs_s"]  # the runs the rate comes from: the pace check ran as they did
    followed = any((r.details.get("pace") or {}).get("from", "the calibration") != "the calibration" for r in stored.runs)
    return Pace(c["job"], tuple(before), tuple(after), followed) if after else None


def pace_sentence(p: Pace) -> str:
    """What the report and the benchmark say of it."""
    runs = f"{len(p.after_s)} runs, {', '.join(f'{t:.1f}' for t in p.after_s)} s of work"
    said = (f"After the study its {p.job} ran again as the calibration ran it ({runs}; calibration-after/ in the "
            f"results folder): median {median(p.after_s):.2f} s against {median(p.before_s):.2f} s before the study "
            f"({p.change:+.0%}). ")
    if p.followed:
        return said + ((f"This machine's pace held within {PACE_TOLERANCE:.0%}. " if p.held else
                        f"This machine's pace did NOT hold (more than {PACE_TOLERANCE:.0%} apart). ")
                       + "The drives followed this machine's pace through the study (above): for the calibrated job the "
                       "calibration's k held only until the first run that measured the pace again, so a change here "
                       "touches that job's runs before it alone (the other jobs ran at the calibration's k throughout).")
    if p.held:
        return said + (f"This machine's pace held within {PACE_TOLERANCE:.0%}: the drives' k, set from the pace before, "
                       "was its pace's through the study.")
    return said + (f"This machine's pace did NOT hold (more than {PACE_TOLERANCE:.0%} apart): k was set from the pace "
                   "before the study, so a ratio between a configuration this machine's CPU paces and one its drives "
                   f"pace may be off by up to about {abs(p.change):.0%}. Run the study again at a steadier "
                   "time to tell a finding from the machine's pace. (Three runs can also fall that far from the "
                   "calibration's seven by chance: run back to back, with no study between, they differed by -1%, "
                   "-1% and +13% on a 2-core VM: the check says when to look again, not that the pace moved.)")
