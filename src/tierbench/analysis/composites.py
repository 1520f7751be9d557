"""Figures the studies built from several workloads or runs: pipelines (TeraGen + TeraSort + TeraValidate as one
job: SanDisk's tables 4, 5 and 7), a weighted workload mix (Cloudera's cost per performance beside cost per TB),
and the intermediate data each node must hold (SanDisk sized its SSDs at about 60% of the data set)."""

import statistics
from dataclasses import dataclass

from ..store import StoredRun
from .cost import WorkloadCost, job_bytes
from .stats import Analysis, Summary, runtime_of, summarize, variant_of

MiB = 1 << 20


@dataclass
class PipelineResult:
    pipeline: str
    config: str
    members: list[str]
    runtime: Summary  # of the per-repeat totals (a repeat counts when every member ran ok in it)
    member_medians: dict[str, float]  # label -> median s, for the stacked chart
    data_bytes: float  # what the first member moved (TeraGen: the data set)
    ratio: float | None  # median total / the baseline's
    usd_per_job: float | None  # the members' total $/job added up (runtime and bytes add, so does $/job)

    @property
    def mb_s(self) -> float | None:
        return self.data_bytes / MiB / self.runtime.median if self.data_bytes and self.runtime.median else None


def pipelines(an: Analysis, runs: list[StoredRun], specs: list[dict], costs: list[WorkloadCost]) -> list[PipelineResult]:
    ok = [r for r in runs if r.status == "ok"]
    cost_of = {(c.config, c.workload): c.usd_per_job_total for c in costs}
    out: list[PipelineResult] = []
    for p in specs:
        members = p["workloads"]
        mine: dict[str, PipelineResult] = {}
        for config in an.configs:
            by_repeat: dict[int, dict[str, StoredRun]] = {}
            for r in ok:
                if variant_of(r) == config and r.label in members:
                    by_repeat.setdefault(r.repeat, {})[r.label] = r
            totals = [sum(runtime_of(rs[m]) for m in members) for rs in by_repeat.values() if len(rs) == len(members)]
            if not totals:
                continue
            first = next(rs[members[0]] for rs in by_repeat.values() if members[0] in rs)
            medians = {m: an.runtime[(config, m)].median for m in members if (config, m) in an.runtime}
            usd = [cost_of.get((config, m)) for m in members]
            mine[config] = PipelineResult(p["name"], config, members, summarize(totals, config, p["name"], "wall_s"),
                                          medians, job_bytes(first), None, sum(usd) if all(u is not None for u in usd) else None)
        for config, res in mine.items():
            base = mine.get(an.baseline_of(config))
            if base and base.runtime.median:
                res.ratio = res.runtime.median / base.runtime.median
        out.extend(mine.values())
    return out


@dataclass
class MixResult:
    config: str
    seconds: float  # sum of weight x median runtime over the mix's workloads
    ratio: float | None  # to the baseline's
    usd_per_mix: float | None  # sum of weight x total $/job
    perf_cost_ratio: float | None  # (price x weighted runtime) / the baseline's: cost per performance
    tb_cost_ratio: float | None  # $ per usable TB / the baseline's: cost per capacity


def mix(an: Analysis, weights: dict[str, float], costs: list[WorkloadCost]) -> list[MixResult]:
    """The mix per configuration that ran every workload of it."""
    if not weights:
        return []
    cost = {(c.config, c.workload): c for c in costs}
    out: dict[str, MixResult] = {}
    for config in an.configs:
        if not all((config, w) in an.runtime for w in weights):
            continue
        secs = sum(weight * an.runtime[(config, w)].median for w, weight in weights.items())
        cs = [cost.get((config, w)) for w in weights]
        usd = sum(weight * c.usd_per_job_total for (w, weight), c in zip(weights.items(), cs)) if all(cs) else None
        out[config] = MixResult(config, secs, None, usd, None, None)
    for config, m in out.items():
        b = out.get(an.baseline_of(config))
        if not b:
            continue
        m.ratio = m.seconds / b.seconds
        mine, theirs = cost.get((config, next(iter(weights)))), cost.get((b.config, next(iter(weights))))
        if mine and theirs and theirs.base.price_usd:
            m.perf_cost_ratio = (mine.base.price_usd * m.seconds) / (theirs.base.price_usd * b.seconds)
            if mine.usd_per_usable_tb and theirs.usd_per_usable_tb:
                m.tb_cost_ratio = mine.usd_per_usable_tb / theirs.usd_per_usable_tb
    return list(out.values())


@dataclass
class IntermediatePerNode:
    workload: str
    config: str
    data_set_bytes: float  # what the job read (its input)
    written_bytes: float  # intermediate data written, all nodes (median over runs)
    nodes: int
    per_node_bytes: float  # the node that wrote the most
    source: str  # "engine" (Spark's shuffle and spill metrics per host) or "model" (the workload's IO roles)

    @property
    def share_of_data_set(self) -> float | None:
        return self.written_bytes / self.data_set_bytes if self.data_set_bytes else None


def _intermediate_written(record: StoredRun) -> tuple[dict[str, float], str]:
    """Intermediate bytes written per host: Spark's shuffle writes and spills per executor host when the stages
    carry them, else the whole job's (engine stage totals, or the workload's own count) on one node."""
    stages = record.details.get("stages", [])
    hosts: dict[str, float] = {}
    for st in stages:
        for host, b in (st.get("hosts") or {}).items():
            hosts[host] = hosts.get(host, 0.0) + b.get("shuffle_write_bytes", 0) + b.get("disk_spill_bytes", 0)
    if hosts:
        return hosts, "engine"
    total = sum((st.get("shuffle_write_bytes") or 0) + (st.get("disk_spill_bytes") or 0) for st in stages)
    if total:
        return {"local": float(total)}, "engine"
    mb = (record.io or {}).get("intermediate_mb") or 0.0
    return ({"local": mb * MiB}, "model") if mb else ({}, "")


def intermediate_per_node(an: Analysis, runs: list[StoredRun]) -> list[IntermediatePerNode]:
    return _intermediate_rows(runs, an.workloads, an.configs)


def intermediate_share(runs: list[StoredRun], workload: str) -> float | None:
    """The intermediate data a job writes as a share of its data set: the median over its configurations of the
    report's rows (its Intermediate data section), so that advise sizes an SSD by the same figure the report shows."""
    configs = list(dict.fromkeys(variant_of(r) for r in runs if r.label == workload))
    shares = [row.share_of_data_set for row in _intermediate_rows(runs, [workload], configs) if row.share_of_data_set]
    return statistics.median(shares) if shares else None


def _intermediate_rows(runs: list[StoredRun], workloads, configs) -> list[IntermediatePerNode]:
    out = []
    ok = [r for r in runs if r.status == "ok"]
    for wl in workloads:
        for config in configs:
            rs = [r for r in ok if variant_of(r) == config and r.label == wl]
            written = [w for w in (_intermediate_written(r) for r in rs) if w[0]]
            if not written:
                continue
            totals = [sum(h.values()) for h, _ in written]
            per_node = [max(h.values()) for h, _ in written]
            nodes = max(len(h) for h, _ in written)
            data_set = statistics.median(((r.io or {}).get("input_mb") or 0.0) * MiB for r in rs)
            out.append(IntermediatePerNode(wl, config, data_set, statistics.median(totals), nodes,
                                           statistics.median(per_node), written[0][1]))
    return out
