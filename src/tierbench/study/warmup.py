"""The warm-up of a fresh engine application: the study's workloads, twice at a few MB, unrecorded.

A Spark application's first jobs run in a cold JVM (classes loading, the JIT compiling the hot loops): at
small sizes the first measured run of each application took 30-50% longer than the same run after it (the
quickstart's DFSIO write: 1.3-1.8 s cold, 0.3 s warm). Without a warm-up, every figure would depend on
where in its application's life a run fell -- and keeping applications alive between a configuration's
turns (engines/spark.py) would make later repeats faster than the first. So each fresh application runs
every workload of the study at a small size (workload.warm_up_params), producers first, on its own
configuration's storage under the repeat "r0", deleted at once -- twice: after one pass its runs were still
10-20% slower than a resumed application's.
"""

import time

from ..job import JobRequest
from ..spec.schema import WorkloadSpec
from ..workloads import producer_of

WARM_UP_PASSES = 2
WARM_UP_REPEAT = 0  # the warm-up's data set directories: r0 beside the measured repeats r1, r2...


def warm_up(context, engine, planned, on_phase) -> dict:
    """Runs the warm-up for `planned`'s variant on `engine` (just started; `context`: the run context,
    context.py): {"s": seconds, "workloads": labels that ran, "failed": {label: error}}. A failed job is kept, not
    raised: the measured run says what is wrong."""
    spec, layout = context.spec, context.layout
    config, variant = spec.config(planned.config), planned.variant
    local_dirs = layout.intermediate_dirs(config, variant)
    t0 = time.monotonic()
    chosen: dict[str, WorkloadSpec] = {}  # label -> its small WorkloadSpec: the first of each kind with an input
    for w in spec.workloads:
        params = w.definition.warm_up_params(w.params)
        has_input = not w.definition.producer or producer_of(w.name, w.params, chosen.values()) is not None
        if params is not None and has_input and not any(c.name == w.name for c in chosen.values()):
            chosen[w.label] = WorkloadSpec(w.name, w.label, params)  # (sweeps: one value of a kind is enough)
    uris = lambda ds: layout.dataset_uris(config, variant, WARM_UP_REPEAT, ds) if ds else []
    failed: dict[str, str] = {}
    for pass_ in range(WARM_UP_PASSES):
        if pass_ > 0 or context.resume or not config.remote:  # (engines refuse an existing output; a remote file
            layout.remove_repeat(config, variant, WARM_UP_REPEAT)  # system is asked only when needed: a JVM each)
        ran: dict[str, WorkloadSpec] = {}  # label -> what ran in this pass, the input of its consumers
        for label, small in chosen.items():
            d = small.definition
            producer = producer_of(small.name, small.params, ran.values()) if d.producer else None
            if d.producer and producer is None:
                continue
            req = JobRequest(f"warm-up/{variant}/{label}", small, producer, uris(d.input_dataset(small.params)),
                             uris(d.output_dataset(label, small.params)),
                             local_dirs, layout.scratch_dir(config, variant, WARM_UP_REPEAT, label), config.engine_settings(),
                             config.default_fs)
            on_phase(f"warming up the application: {label}")
            outcome = engine.run(req, lambda event: None)
            if outcome.ok:
                ran[label] = small
            else:
                failed[label] = (outcome.error or "")[:300]
    layout.remove_repeat(config, variant, WARM_UP_REPEAT)
    warmed = [label for label in chosen if label not in failed]
    return {"s": round(time.monotonic() - t0, 3), "passes": WARM_UP_PASSES, "workloads": warmed,
            **({"failed": failed} if failed else {})}
