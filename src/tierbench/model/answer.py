"""One answer per question: a job's runtime on a hardware description at a size, from a study's runs. Every route
that predicts -- `predict --hardware`, `predict --published`, `advise`, the cost at a target size and the report's
what-if section -- asks here, so the same question (results, hardware, size, nodes) gets the same seconds
everywhere.

Which method answers, in order:
1. the scale model (model/transfer.py), when a stored study is a scale model of that cluster at that size: one of
   its configurations emulated those drives on a node shrunk from that cluster's, so its measured runs, carried by
   the time factor, are the answer;
2. else the resource model (model/predict.py) calibrated on the study's runs, +/- its median error reproducing
   the measured configurations.
"""

from dataclasses import dataclass, field

from ..store import StoredStudy
from .hardware import Hardware
from .predict import Model, Prediction, machine_of
from .transfer import transfer
from .trust import corpus_error, is_near, widened

SCALE, RESOURCE = "scale model", "resource model"  # Answer.method


@dataclass(frozen=True)
class Answer:
    job: str                      # the job's label in the study
    hardware: str
    nodes: int
    size_bytes: float
    seconds: float
    interval: list[float] | None  # low, high (seconds); None without an error estimate
    method: str                   # SCALE or RESOURCE
    how: str                      # one line: which runs, which factor or calibration
    bottleneck: str               # "phase: resource" (the resource model's), or where the scale model's runs ran
    phases: list[dict] = field(default_factory=list)  # the resource model's phases ([] for the scale model)
    overhead_s: float = 0.0
    profile_of: str = ""
    calibrated_on: list[str] = field(default_factory=list)
    cpu_borrowed: str | None = None
    interval_from: str = ""       # what the interval is: the corpus's error at the target, or the model's own
    pooled: tuple[str, ...] = ()  # the scale model's: configurations whose runs were pooled with its own
    config: str = ""              # the scale model's: the study's configuration that models the hardware


def error_interval(seconds: float, error: float | None) -> list[float] | None:
    """A prediction +/- the model's median error reproducing the measured configurations (its residuals there);
    None without an estimate (one configuration of known devices)."""
    return None if error is None else [seconds / (1 + error), seconds * (1 + error)]


def answer(model: Model, studies: list[StoredStudy], job: str, hw: Hardware, size_bytes: float | None,
           error: float | None) -> Answer | None:
    """`job` (a label of the model's profiles) on `hw` at `size_bytes` (None: the largest measured); None when the
    runs have no such job. `error`: the resource model's median error reproducing the measured configurations."""
    workload = next((p.workload for p in model.profiles if p.job == job), None)
    if workload is None:
        return None
    if size_bytes is not None:
        for stored in studies:
            t = transfer(stored, workload, hw, size_bytes, label=job)
            if t:
                pooled = (f" pooled with {', '.join(t.pooled)}'s (the same job on the same drives: no intermediate "
                          f"device of their own used)") if t.pooled else ""
                return Answer(job, hw.name, hw.nodes, t.size_bytes, t.seconds, _scale_interval(stored, t), SCALE,
                              f"{t.runs} runs of {t.config}{pooled} ({t.interval_kind}), x {t.time_factor:,.0f} "
                              f"(k x the target's data per node / the model's)",
                              f"measured: {t.config}'s emulated drives (scale model)", pooled=t.pooled,
                              config=t.config, interval_from=_far_words("its repeats") + _estimate_words(stored))
    if job not in model.overheads:
        return None
    return _resource(model, job, hw, size_bytes, error)


def _resource(model: Model, job: str, hw: Hardware, size_bytes: float | None, error: float | None) -> Answer:
    p: Prediction = model.predict(job, machine_of(hw), size_bytes)
    worst = max(p.phases, key=lambda r: r["seconds"])
    how = (f"calibrated on {', '.join(model.calibrated_on[job])}; +/- the model's median error reproducing the "
           f"measured configurations ({error:.0%})" if error is not None else "no error estimate")
    borrowed = model.cpu_borrowed(job, hw.engine)
    interval, interval_from = error_interval(p.seconds, error), "its error reproducing the measured configurations"
    if not is_near(hw.nodes, size_bytes, model.calibration_sizes.get(job, [])):
        interval, interval_from = widened(p.seconds, interval), _far_words("its error on the measured machine")
    return Answer(job, hw.name, hw.nodes, p.size_bytes, p.seconds, interval, RESOURCE,
                  how + (f"; {borrowed}" if borrowed else ""), f"{worst['phase']}: {worst['bottleneck']}",
                  p.phases, p.overhead_s, p.profile_of, p.calibrated_on, borrowed, interval_from)


def _far_words(own: str) -> str:
    """What a prediction's interval to other hardware is: the corpus's error, or `own` where none is recorded."""
    err = corpus_error()
    return f"at least {err.words()}" if err else f"{own} only: no validation corpus error is recorded"


def _estimate(stored: StoredStudy) -> dict | None:
    return (stored.study.spec.get("scale") or {}).get("core_speed_estimate")


def _scale_interval(stored: StoredStudy, t) -> list[float] | None:
    """The scale model's interval: its repeats', widened to the corpus's error, and to the range an estimated
    core_speed carries (a faster target core than estimated: less time there)."""
    span = widened(t.seconds, list(t.interval))
    e = _estimate(stored)
    if e and span:
        span = [min(span[0], t.seconds * e["core_speed"] / e["high"]), max(span[1], t.seconds * e["core_speed"] / e["low"])]
    return span


def _estimate_words(stored: StoredStudy) -> str:
    e = _estimate(stored)
    return (f", and the range of core_speed's ESTIMATE ({e['low']:.3g}-{e['high']:.3g}: scale/rate.py)" if e else "")

