"""The workloads tierbench knows: every module of this package that defines WORKLOADS (a tuple of Workload
instances) is discovered and its workloads listed, families in their modules' ORDER. Adding a workload is
adding such a module (plus its Java job where the Spark engine needs one); nothing else lists workloads."""

from ..discovery import by_name, declared
from .base import Measurement, Workload


def _discover() -> dict[str, Workload]:
    families = declared(__package__, "WORKLOADS", lambda w: isinstance(w, tuple))
    return by_name("workload", [(module, w) for module, family in families for w in family])


WORKLOADS: dict[str, Workload] = _discover()


def producer_of(name: str, params: dict, workloads, field=getattr):
    """The one of `workloads` (the spec's WorkloadSpecs; dicts with field=dict.get) whose output a workload `name`
    with `params` reads: of its producer's kind, the one it reads_from (None when there is none). The spec refuses
    a study where it is not one (spec/workload_list.py)."""
    found = producers_of(name, params, workloads, field)
    return found[0] if found else None


def producers_of(name: str, params: dict, workloads, field=getattr) -> list:
    wl = WORKLOADS[name]
    return [w for w in workloads if field(w, "name") == wl.producer and wl.reads_from(params, field(w, "params"))]


ENGINE_DETAILS = ("s3a_requests", "s3a_statistics", "s3a_not_covering",  # the engines' (engines/s3a_requests.py)
                  "held_mb",  # the hadoop engine's: a scale model's spills and map outputs read from memory
                  "direct_read_mb")  # and its reduce inputs read past the page cache


def measure(workload: str, job: dict, wall_s: float, produced: dict | None = None) -> Measurement:
    """A run's metrics from its job result (the workload's own measure), plus the engine-side facts any
    workload has: Hadoop's job counters, the JVM's whole time, S3A's requests."""
    m = WORKLOADS[workload].measure(job, wall_s, produced or {})
    m.metrics.update(job.get("counter_metrics", {}))
    if "process_s" in job:
        m.metrics["process_s"] = job["process_s"]
    if job.get("counters"):
        m.details["counters"] = job["counters"]
    for key in ENGINE_DETAILS:
        if key in job:
            m.details[key] = job[key]
    return m
