"""The workloads tierbench knows: every module of this package that defines WORKLOADS (a tuple of Workload
instances) is discovered and its workloads listed, families in their modules' ORDER. Adding a workload is
adding such a module (plus its Java job where the Spark engine needs one); nothing else lists workloads."""

import importlib
import pkgutil

from .base import Measurement, Workload


def _discover() -> dict[str, Workload]:
    modules = []
    for info in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        mod = importlib.import_module(f"{__package__}.{info.name}")
        if isinstance(getattr(mod, "WORKLOADS", None), tuple):
            modules.append(mod)
    found: dict[str, Workload] = {}
    for mod in sorted(modules, key=lambda m: (getattr(m, "ORDER", 1000), m.__name__)):
        for w in mod.WORKLOADS:
            if w.name in found:
                raise ValueError(f"workload {w.name} is defined twice ({mod.__name__})")
            found[w.name] = w
    return found


WORKLOADS: dict[str, Workload] = _discover()


def measure(workload: str, job: dict, wall_s: float, produced: dict | None = None) -> Measurement:
    """A run's metrics from its job result (the workload's own measure), plus the engine-side facts any
    workload has: Hadoop's job counters and the JVM's whole time."""
    m = WORKLOADS[workload].measure(job, wall_s, produced or {})
    m.metrics.update(job.get("counter_metrics", {}))
    if "process_s" in job:
        m.metrics["process_s"] = job["process_s"]
    if job.get("counters"):
        m.details["counters"] = job["counters"]
    return m
