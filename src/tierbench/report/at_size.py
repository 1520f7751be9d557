"""$/job at the size the study stands for, for the report's first screen: a scale model's target (its runs carried
there as model/transfer.py carries them: each second of a job's work stands for k x the target's data per node /
the model's), else the spec's cost.target_size (the linear extrapolation analysis/cost.py makes), else the jobs as
run. The figures of a scale model at its target are predictions, and the report says so."""

from dataclasses import dataclass, replace

from ..analysis.cost import cost_from_dict, workload_cost
from ..model.transfer import carried


@dataclass(frozen=True)
class CostAt:
    """One configuration's $/job on one workload at a size, and how that size was reached."""
    config: str
    workload: str
    runtime_s: float
    usd_per_job: float


@dataclass(frozen=True)
class CostsAtSize:
    size_bytes: float | None  # None: the jobs as run (their sizes differ per workload)
    how: str  # "scale model" | "target_size" | "as run"
    rows: list[CostAt]
    nodes: int = 1  # the nodes priced per configuration (a scale model's target's nodes)


def costs_at_size(ctx) -> CostsAtSize | None:
    """$/job per configuration and workload at the size the study stands for; None when the spec prices nothing."""
    if not ctx.costs:
        return None
    scale = ctx.spec.get("scale")
    if scale:
        return _at_scale_target(ctx, scale)
    if ctx.cost.get("target_bytes") and all(c.at_target for c in ctx.costs):
        return CostsAtSize(ctx.cost["target_bytes"], "target_size",
                           [CostAt(c.config, c.workload, c.at_target.base.runtime_s, c.at_target.usd_per_job_total)
                            for c in ctx.costs])
    return CostsAtSize(None, "as run", [CostAt(c.config, c.workload, c.base.runtime_s, c.usd_per_job_total) for c in ctx.costs])


def target_nodes(scale: dict) -> int:
    """The nodes of the cluster a scale model stands for (its hardware description); 1 when it cannot be read."""
    from ..model.hardware import stored_target

    try:
        return stored_target(scale).nodes  # (a user's file as the results keep it)
    except Exception:  # (an old results folder naming a description this tierbench no longer has: one node)
        return 1


def _at_scale_target(ctx, scale: dict) -> CostsAtSize:
    """Each configuration's runs carried to the target as every route carries them (model/transfer.py: the median of
    work x the time factor x the run's own pace, equivalent configurations pooled), priced for all the target's nodes: the spec prices one node of the model, the job at the target runs on all."""
    nodes = target_nodes(scale)
    classes, configs = cost_from_dict(ctx.cost)
    by_pair = {(c.config, c.workload): c for c in ctx.costs}
    rows = []
    for (config, wl), wc in by_pair.items():
        cc = configs.get(ctx.config_of.get(config, config))
        workload = next((r.workload for r in ctx.runs if r.label == wl), None)
        t = carried(ctx.stored, workload, ctx.config_of.get(config, config), "", nodes, wl) if workload else None
        if cc is None or t is None:
            continue
        seconds = t.seconds  # (as predict and advise carry it: model/transfer.py)
        cluster = replace(cc, price_usd=cc.price_usd * nodes, nodes=cc.nodes * nodes)
        # the bytes a job writes grow with the data: the model's node wrote data_bytes' worth, the cluster target_size's
        written = {w.drive: w.bytes_per_job_per_drive * cc.nodes * cc.drives.get(w.drive, 0)
                   * scale["target_size"] / scale["data_bytes"] for w in wc.wear}
        at = workload_cost(config, wl, seconds, None, cluster, classes, written, ctx.cost["years"], ctx.cost["utilisation"],
                           ctx.cost["usd_per_kwh"])
        rows.append(CostAt(config, wl, seconds, at.usd_per_job_total))
    return CostsAtSize(scale["target_size"], "scale model", rows, nodes)
