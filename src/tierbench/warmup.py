"""The warm-up of a fresh engine application: the study's workloads once, at a few MB, unrecorded.

A Spark application's first jobs run in a cold JVM (classes loading, the JIT compiling the hot loops): at
small sizes the first measured run of each application took 30-50% longer than the same run after it (the
quickstart's DFSIO write: 1.3-1.8 s cold, 0.3 s warm). Without a warm-up, every figure would depend on
where in its application's life a run fell -- and keeping applications alive between a configuration's
turns (engines/spark.py) would make later repeats faster than the first. So each fresh application runs
every workload of the study once at a small size (workload.warm_up_params), producers first, on its own
configuration's storage under the repeat "r0", deleted at once.
"""

import time

from .job import JobRequest
from .spec.schema import WorkloadSpec

WARM_UP_REPEAT = 0  # the warm-up's data set directories: r0 beside the measured repeats r1, r2...


def warm_up(study, engine, planned, on_phase) -> dict:
    """Runs the warm-up for `planned`'s variant on `engine` (just started): {"s": seconds, "workloads": labels
    that ran, "failed": {label: error}}. A failure is kept, not raised: the measured run says what is wrong."""
    spec, layout = study.spec, study.layout
    config, variant = spec.config(planned.config), planned.variant
    local_dirs = layout.intermediate_dirs(config, variant)
    t0 = time.monotonic()
    warmed: dict[str, WorkloadSpec] = {}  # label -> the small WorkloadSpec that ran
    failed: dict[str, str] = {}
    for w in spec.workloads:
        d = w.definition
        params = d.warm_up_params(w.params)
        producer = next((warmed[p.label] for p in spec.workloads if p.name == d.producer and p.label in warmed), None)
        if params is None or (d.producer and producer is None) or any(p.name == w.name for p in warmed.values()):
            continue  # not warmed, no input, or this workload already ran (sweeps: one value is enough)
        small = WorkloadSpec(w.name, w.label, params)
        uris = lambda ds: layout.dataset_uris(config, variant, WARM_UP_REPEAT, ds) if ds else []
        req = JobRequest(f"warm-up/{variant}/{w.label}", small, producer, uris(d.consumes), uris(d.output_dataset(w.label)),
                         local_dirs, layout.scratch_dir(config, variant, WARM_UP_REPEAT, w.label), config.engine_settings(),
                         config.default_fs)
        on_phase(f"warming up the application: {w.label}")
        outcome = engine.run(req, lambda event: None)
        if outcome.ok:
            warmed[w.label] = small
        else:
            failed[w.label] = (outcome.error or "")[:300]
    layout.remove_repeat(config, variant, WARM_UP_REPEAT)
    return {"s": round(time.monotonic() - t0, 3), "workloads": list(warmed), **({"failed": failed} if failed else {})}
