"""`tierbench predict`: a study's measured runs -> predictions for hardware descriptions, with how far to trust them.

1. Profiles of the study's runs, and the machines of the configurations whose devices are known (emulated, or
   probed with fio).
2. The model reproduces what was measured first: each configuration is predicted from the others' calibration
   (leave one configuration out), and when a job ran at more than one size, its largest size from the smaller
   ones. The median absolute error of those is the prediction's error estimate.
3. Calibrated on every known configuration, it predicts each job on each hardware description, at the size and
   node count asked for; with the hardware's price, jobs/day and $/job over the cost period.
"""

import statistics
from pathlib import Path

from ..analysis.cost import cost_per_job
from ..errors import UserError
from ..store import ResultsDir, StudyFile
from .hardware import Hardware
from .measured import load
from .answer import Answer, answer
from .predict import Model

ASSUMPTIONS = [
    "each resource's time is its demand over its speed, and a phase takes its slowest resource's time, plus the "
    "others' divided by its waves of tasks",
    "demands (bytes per role, CPU core-seconds, tasks) grow in proportion to the data; request sizes stay as measured",
    "a core of the target does what a core of the measured machine did",
    "a drive's speed at a request size is min(sequential MB/s, IOPS x size); a node keeps no more drives busy "
    "than it runs tasks at once",
    "what no resource explains (task start, scheduling, the driver) is calibrated on the measured runs",
]


def _median_abs(rows: list[dict]) -> float | None:
    errs = [abs(r["error"]) for r in rows if r.get("error") is not None]
    return statistics.median(errs) if errs else None


def validate(model: Model) -> dict:
    """The model against what was measured: each known configuration predicted from the others, and each job's
    largest size from its smaller ones."""
    configs = list(model.machines)
    hardware_rows = []
    if len(configs) >= 2:
        for held_out in configs:
            m = Model(model.profiles, model.machines).calibrate([c for c in configs if c != held_out])
            for job in m.labels():
                if job not in m.overheads:
                    continue
                p = m.predict(job, model.machines[held_out])
                if p.measured_s:
                    hardware_rows.append({"job": job, "config": held_out, "from": m.calibrated_on[job],
                                          "predicted_s": p.seconds, "measured_s": p.measured_s,
                                          "error": p.seconds / p.measured_s - 1})
    size_rows = []
    full = Model(model.profiles, model.machines).calibrate(configs)
    for job in full.labels():
        sizes = sorted({round(p.size_bytes) for p in model.profiles if p.job == job and p.config in configs})
        if len(sizes) < 2 or sizes[-1] < 1.5 * sizes[0]:
            continue
        m = Model(model.profiles, model.machines).calibrate(configs, smaller_than=sizes[-1])
        for config in sorted({p.config for p in model.profiles if p.job == job and p.config in configs}):
            p = m.predict(job, model.machines[config], sizes[-1])
            if p.measured_s:
                size_rows.append({"job": job, "config": config, "from_sizes": m.calibration_sizes[job],
                                  "size_bytes": sizes[-1], "predicted_s": p.seconds, "measured_s": p.measured_s,
                                  "error": p.seconds / p.measured_s - 1})
    return {"hardware": hardware_rows, "hardware_median_abs_error": _median_abs(hardware_rows),
            "size": size_rows, "size_median_abs_error": _median_abs(size_rows)}


def study_model(results, calibrate: list[str] | None = None) -> tuple[Model, StudyFile, list[str]]:
    """The calibrated model of one results directory or several, the first one's study.json, and the
    configurations left out (unknown devices)."""
    results = [results] if isinstance(results, (str, Path)) else list(results)
    profiles, machines, study = load(results)
    results = ", ".join(map(str, results))
    if not profiles:
        raise UserError(f"{results}: no successful run with samples to profile (sampling must be on: [sampling] "
                        "enabled = true, the default)")
    unknown = sorted({p.config for p in profiles} - set(machines))
    if calibrate:
        bad = [c for c in calibrate if c not in machines]
        if bad:
            raise UserError(f"--calibrate {','.join(bad)}: not a configuration of {results} with devices of known "
                            f"speed; these are: {', '.join(machines) or 'none'}")
        machines = {c: machines[c] for c in calibrate}
    if not machines:
        raise UserError(f"{results}: no configuration's devices have known speeds, so nothing calibrates the model: "
                        "run the study on emulated devices (data = { emulate = \"sata-ssd\" }) or measure its "
                        "devices with `tierbench probe SPEC --out RESULTS` first")
    return Model(profiles, machines).calibrate(), study, unknown


def _paths(results) -> list[str]:
    return [str(r) for r in ([results] if isinstance(results, (str, Path)) else results)]


def _row(a: Answer, price: float | None, years: float) -> dict:
    """One answer as predict's row (predictions.json, the report's what-if section)."""
    row = {"job": a.job, "hardware": a.hardware, "nodes": a.nodes, "size_bytes": a.size_bytes, "seconds": a.seconds,
           "overhead_s": a.overhead_s, "bottleneck": a.bottleneck, "phases": a.phases, "profile_of": a.profile_of,
           "calibrated_on": a.calibrated_on, "mb_s": a.size_bytes / 1e6 / a.seconds if a.seconds else None,
           "cpu_borrowed": a.cpu_borrowed, "interval": a.interval, "method": a.method, "how": a.how,
           "interval_from": a.interval_from}
    if price:
        c = cost_per_job(a.seconds, price, years)
        row.update(price_usd=price, jobs_per_day=c.jobs_per_day, usd_per_job=c.usd_per_job)
    return row


def predict(results, hardware: list[Hardware], size_bytes: float | None = None, nodes: int | None = None,
            calibrate: list[str] | None = None, years: float = 3.0, published: bool = False, clouds: list | None = None,
            cloud_nodes: list[int] | None = None) -> dict:
    """Each job on each hardware description; with `clouds` (cloud_catalog.Cloud), also every instance x storage
    option x node count (`cloud_nodes`) of those clouds, ranked by $/job (model/cloud_rank.py): the `cloud` key."""
    model, study, unknown = study_model(results, calibrate)
    checked = validate(model)
    error = checked["hardware_median_abs_error"]
    studies = [ResultsDir(r).load(analysed=True) for r in _paths(results)]
    rows = []
    for hw in hardware:
        price = hw.price_usd * (nodes or hw.nodes) / hw.nodes if hw.price_usd else None  # the price grows with the nodes
        hw = hw.with_nodes(nodes) if nodes else hw
        for job in model.labels():
            a = answer(model, studies, job, hw, size_bytes, error)
            if a:
                rows.append(_row(a, price, years))
    extra = {}
    paths = _paths(results)
    if published:
        from .published import compare
        extra["published"] = compare(model, paths, error)
    if clouds:
        from .cloud import measured_request_rates
        from .cloud_rank import rank
        extra["cloud"] = rank(model, checked, clouds, cloud_nodes, size_bytes, measured_request_rates(results))
    return extra | {"results": paths, "hardware": [{"name": h.name, "nodes": nodes or h.nodes, "cores": h.cores,
                                                   "data": f"{h.data.count} x {h.data.drive.name}",
                                                   "intermediate": "the data drives" if h.intermediate_on_data
                                                   else f"{h.intermediate.count} x {h.intermediate.drive.name}",
                                                   "write_copies": h.write_copies, "source": h.source} for h in hardware],
            "calibrated_on": sorted(model.machines), "unknown_devices": unknown, "years": years,
            "validation": checked, "predictions": rows, "assumptions": ASSUMPTIONS}
