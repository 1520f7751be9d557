"""The figures of the report's per-run tables (output commit, gateways, SQL queries and their registration, the
charts' per-run values, sweeps' medians, warm-ups), computed here once from the stored run records: the report's sections only
format them."""

import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..store import StoredRun
from .measures import runtime_of, throughput_of, variant_of


def ok_runs_per_pair(runs: list[StoredRun], configs: list[str], workloads: list[str],
                     having: Callable[[StoredRun], object] = lambda r: True) -> Iterator[tuple[str, str, list[StoredRun]]]:
    """(workload, config, its ok runs that have `having`) for each pair with any, workloads first."""
    for wl in workloads:
        for config in configs:
            ok = [r for r in runs if r.status == "ok" and variant_of(r) == config and r.label == wl and having(r)]
            if ok:
                yield wl, config, ok


def per_run_values(runs: list[StoredRun], configs: list[str], workloads: list[str]) -> dict[tuple[str, str, str], list]:
    """Every ok run's runtime and throughput per ("runtime" | "throughput", variant, workload): the charts' dots."""
    values = {}
    for config in configs:
        for wl in workloads:
            ok = [r for r in runs if r.status == "ok" and variant_of(r) == config and r.label == wl]
            values[("runtime", config, wl)] = [runtime_of(r) for r in ok]
            values[("throughput", config, wl)] = [throughput_of(r) for r in ok]
    return values


def profiled_runs(runs: list[StoredRun], variants: list[str], workloads: list[str]) -> list[StoredRun]:
    """The first ok run of each (variant, workload) that has samples: the ones whose IO profile is drawn."""
    out = []
    for wl in workloads:
        for v in variants:
            ok = sorted((r for r in runs if r.status == "ok" and variant_of(r) == v and r.label == wl and r.samples),
                        key=lambda r: r.repeat)
            if ok:
                out.append(ok[0])
    return out


def sweep_medians(sweep: dict, runs: list[StoredRun]) -> dict[str, dict[str, list[float]]]:
    """{panel (workload): {line: [median wall s per swept value, None where no run]}} for one swept knob.
    A workload knob: one panel, a line per variant. An engine or storage knob: a panel per workload,
    a line per storage configuration (engine sweep) or per engine (storage sweep)."""
    ok = [r for r in runs if r.status == "ok" and r.wall_s is not None]
    members = [m["name"] for m in sweep["members"]]
    out: dict[str, dict[str, list]] = {}

    def put(panel, line, i, values):
        if values:
            out.setdefault(panel, {}).setdefault(line, [None] * len(members))[i] = statistics.median(values)

    for i, member in enumerate(members):
        if sweep["level"] == "workload":
            for v in sorted({r.variant for r in ok if r.label == member}):
                put(sweep["base"], v, i, [runtime_of(r) for r in ok if r.label == member and r.variant == v])
            continue
        mine = [r for r in ok if (r.engine == member if sweep["level"] == "engine" else r.config == member)]
        line_of = (lambda r: r.config) if sweep["level"] == "engine" else (lambda r: r.engine or "")
        for label in dict.fromkeys(r.label for r in mine):
            for line in sorted({line_of(r) for r in mine if r.label == label}):
                put(label, line or sweep["base"], i, [runtime_of(r) for r in mine if r.label == label and line_of(r) == line])
    return out


@dataclass(frozen=True)
class CommitTimes:
    """A (workload, variant)'s output commit, medians over its ok runs that went through a committer."""
    workload: str
    config: str
    committer: str
    wall_s: float
    job_commit_s: float
    task_commits_s: float  # the tasks' commits added up (they run in parallel)

    @property
    def job_commit_share(self) -> float | None:
        return self.job_commit_s / self.wall_s if self.wall_s else None


def commit_times(runs: list[StoredRun], configs: list[str], workloads: list[str]) -> list[CommitTimes]:
    out = []
    committed = lambda r: (r.details.get("commit") or {}).get("committer") not in (None, "none")
    for wl, config, ok in ok_runs_per_pair(runs, configs, workloads, committed):
        med = lambda k: statistics.median(r.metrics[k] for r in ok)
        out.append(CommitTimes(wl, config, ok[0].details["commit"]["committer"], statistics.median(r.wall_s for r in ok),
                               med("job_commit_s"), med("task_commit_s")))
    return out


@dataclass(frozen=True)
class GatewayUse:
    """How a (workload, variant)'s runs reached S3 through HAProxy: requests per gateway added over the runs."""
    workload: str
    config: str
    balancer: str
    serving: int
    requests: dict[str, int]  # gateway -> requests (HAProxy's lbtot), empty without a balancer
    endpoint: str | None  # the one gateway, when there is no balancer
    runtime_s: float  # median of runtime_of
    mb_s: float | None  # median of the runs' throughput_mb_s, of those that recorded one


def gateway_use(runs: list[StoredRun], configs: list[str], workloads: list[str]) -> list[GatewayUse]:
    out = []
    for wl, config, ok in ok_runs_per_pair(runs, configs, workloads, lambda r: r.details.get("gateways")):
        g = ok[0].details["gateways"]
        requests: dict[str, int] = {}
        for r in ok:
            for name, n in (r.details["gateways"].get("requests") or {}).items():
                requests[name] = requests.get(name, 0) + n
        mbps = [r.metrics["throughput_mb_s"] for r in ok if r.metrics.get("throughput_mb_s")]
        out.append(GatewayUse(wl, config, g["balancer"], g["serving"], requests, g.get("endpoint"),
                              statistics.median(runtime_of(r) for r in ok), statistics.median(mbps) if mbps else None))
    return out


@dataclass(frozen=True)
class QueryTimes:
    """One SQL query of a (variant, sql workload), over the runs that timed it."""
    variant: str
    label: str
    name: str
    median_s: float
    rows: int  # of the first run's answer
    runs: int
    retried: int  # runs in which it was retried (Sql.java: a broadcast the driver could not hold)
    first_retry: object  # how the first run retried it
    checks: list  # per run: None (DuckDB gave the same answer), or what the check said


def query_times(runs: list[StoredRun]) -> list[QueryTimes]:
    groups: dict[tuple, list] = {}
    for r in runs:
        if r.status == "ok" and r.details.get("queries"):  # a run that timed queries one by one
            for q in r.details.get("queries", []):
                groups.setdefault((r.variant, r.label, q["name"]), []).append((q, r.details.get("verification")))
    return [QueryTimes(variant, label, name, statistics.median(q["s"] for q, _ in qs), qs[0][0]["rows"], len(qs),
                       sum(1 for q, _ in qs if q.get("retried")), qs[0][0].get("retried"),
                       [v.get(name, "not checked") if v else "not checked (verify = false)" for _, v in qs])
            for (variant, label, name), qs in groups.items()]


@dataclass(frozen=True)
class SqlTimeSplit:
    """A sql run's time apart: its queries (the runtime compared), registering the tables before them, and the
    wall time; medians over the (variant, sql workload)'s runs."""
    variant: str
    label: str
    queries_s: float
    register_s: float
    wall_s: float


def sql_time_split(runs: list[StoredRun]) -> list[SqlTimeSplit]:
    groups: dict[tuple, list] = {}
    for r in runs:
        if r.status == "ok" and "register_s" in r.metrics and "queries_s" in r.metrics:
            groups.setdefault((r.variant, r.label), []).append(r)
    med = lambda rs, f: statistics.median(f(r) for r in rs)
    return [SqlTimeSplit(v, label, med(rs, lambda r: r.metrics["queries_s"]), med(rs, lambda r: r.metrics["register_s"]),
                         med(rs, lambda r: r.wall_s)) for (v, label), rs in groups.items()]


def warm_up_median(runs: list[StoredRun], engine: str) -> float | None:
    """The median warm-up of the engine's fresh applications (warmup.py), None when none was warmed up."""
    warm = [r.details["warm_up"]["s"] for r in runs if r.engine == engine and "warm_up" in r.details]
    return statistics.median(warm) if warm else None
