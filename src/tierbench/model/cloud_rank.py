"""Ranking the cloud's options for each job: runtime and $/job with an interval, the bottleneck, and the cheapest
option whose runtime is within 10% of the fastest's (what `predict --cloud` prints and stores as `cloud`)."""

import statistics

from .cloud import STORE, WITHIN, job_requests, option, storage_choices
from .cloud_catalog import Cloud
from .cloud_cost import job_cost, request_cost_usd
from .predict import Model
from .trust import corpus_error, widened

DEFAULT_NODES = (4, 8, 16, 32)

ASSUMPTIONS = [
    "task slots per node = the instance's vCPUs; a vCPU does what a core of the measured machine did",
    "network and volume bandwidths are the instances' sustained (baseline) figures, not their bursts",
    "HDFS on local NVMe or on volumes writes `hdfs_replication` copies; the object store one (its redundancy is in "
    "its price)",
    "one volume per node, holding the input and output (x copies) and, without local NVMe, the shuffle; its "
    "figures are what it provisions (or its size gives), capped by the instance's volume bandwidth and IOPS",
    "the object store moves data per node at the instance's network speed; its requests per second are its "
    "per-prefix limits shared by the nodes (one prefix unless the catalog says more); request latency is not modelled",
    "storage is charged for the job's runtime only (GB-months pro-rated), the input and output both held",
    "request counts: the runs' own S3A statistics per byte, scaled to the size; else estimated from S3A's default "
    "split and part sizes (cloud_cost.estimated_requests)",
]


def error_margin(validation: dict) -> tuple[float | None, str]:
    """The model's own +/- share: its median absolute error reproducing the measured configurations (each from the
    others), else its error predicting the largest size from smaller ones; None when neither exists. The intervals
    are at least the validation corpus's error for other hardware (model/trust.py), which `margin_from` says."""
    own, said = _own_margin(validation)
    err = corpus_error()
    return own, (f"at least {err.words()}; the model's own: {said}" if err else said)


def _own_margin(validation: dict) -> tuple[float | None, str]:
    for key, what in (("hardware", "reproducing each measured configuration from the others"),
                      ("size", "predicting the largest measured size from the smaller ones")):
        if validation.get(f"{key}_median_abs_error") is not None:
            worst = max(abs(r["error"]) for r in validation[key])
            return validation[f"{key}_median_abs_error"], (
                f"the model's median absolute error {what} (validation.{key}): half of those {len(validation[key])} "
                f"predictions were closer, the worst was off by {worst:.0%}")
    return None, "no interval: the study has one configuration of known devices and one size, so no error estimate"


def _row(model: Model, job: str, opt, size: float, requests: dict, cloud: Cloud, margin: float | None) -> dict:
    p = model.predict(job, opt.machine, size)
    worst = max(p.phases, key=lambda r: r["seconds"])
    req_usd = request_cost_usd(requests, cloud.store.usd_per_1000) if opt.kind == STORE else 0.0
    price = lambda s: job_cost(s, opt.nodes, opt.instance.usd_per_hour, opt.volume_usd_per_month_per_node,
                               opt.stored_gb, cloud.store.usd_per_gb_month if opt.kind == STORE else 0.0, req_usd)
    cost = price(p.seconds)
    row = {"job": job, "cloud": cloud.name, "instance": opt.instance.name, "storage": opt.storage, "kind": opt.kind,
           "nodes": opt.nodes, "size_bytes": p.size_bytes, "seconds": p.seconds,
           "bottleneck": f"{worst['phase']}: {worst['bottleneck']}", "usd_per_job": cost.total_usd, "cost": cost.to_dict(),
           "usd_per_hour": opt.instance.usd_per_hour, "volume_gb_per_node": opt.volume_gb_per_node}
    own = [p.seconds * (1 - margin), p.seconds * (1 + margin)] if margin is not None else None
    span = widened(p.seconds, own)  # (a cloud is other hardware: at least the corpus's error, model/trust.py)
    if span:
        low, high = span
        row.update(seconds_range=[low, high], usd_range=[price(max(low, 1e-3)).total_usd, price(high).total_usd])
    if opt.kind == STORE:
        row["requests"] = requests
    return row


def mark(rows: list[dict]) -> None:
    """Per job: the fastest option, the cheapest of those within 10% of the fastest's runtime ("best"), and each
    option's place by $/job and by runtime."""
    for job in dict.fromkeys(r["job"] for r in rows):
        mine = [r for r in rows if r["job"] == job]
        fastest = min(mine, key=lambda r: r["seconds"])
        near = [r for r in mine if r["seconds"] <= fastest["seconds"] * (1 + WITHIN)]
        best = min(near, key=lambda r: r["usd_per_job"])
        for r in mine:
            r["fastest"] = r is fastest
            r["best"] = r is best
        for key, by in (("rank_usd", "usd_per_job"), ("rank_seconds", "seconds")):  # 1 = cheapest, fastest
            for i, r in enumerate(sorted(mine, key=lambda r: r[by]), 1):
                r[key] = i


def rank(model: Model, validation: dict, clouds: list[Cloud], nodes: list[int] | None = None,
         size_bytes: float | None = None, measured: dict | None = None) -> dict:
    """Every job on every instance x storage option x node count of `clouds`, cheapest first per job."""
    nodes = list(nodes or DEFAULT_NODES)
    margin, margin_from = error_margin(validation)
    rows, requests_from = [], {}
    for job in [j for j in model.labels() if j in model.overheads]:
        size = size_bytes or statistics.median(p.size_bytes for p in model.base_profiles(job))
        requests, requests_from[job] = job_requests(model, job, size, measured or {})
        for cloud in clouds:
            for inst in cloud.instances.values():
                for kind, name in storage_choices(cloud, inst):
                    for n in nodes:
                        rows.append(_row(model, job, option(cloud, inst, kind, name, n, size), size, requests, cloud, margin))
    mark(rows)
    rows.sort(key=lambda r: (r["job"], r["usd_per_job"]))
    return {"clouds": [{"name": c.name, "region": c.region, "read": c.read} for c in clouds], "nodes": nodes,
            "margin": margin, "margin_from": margin_from, "requests_from": requests_from, "within": WITHIN,
            "rows": rows, "assumptions": ASSUMPTIONS}


def best_rows(ranked: dict) -> list[dict]:
    return [r for r in ranked["rows"] if r["best"]]
