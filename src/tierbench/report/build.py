"""The study report as one document (report/document.py), from stored results only: every section, table,
note and warning of report.html and report.md is decided here, once; report/render.py only draws it."""

import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property

from .. import __version__
from ..analysis import composites
from ..analysis.cost import cost_vs_baseline, study_costs
from ..analysis.observation import observe
from ..analysis.stats import BOOTSTRAP_FROM, analyse, per_value_baselines, runtime_of, throughput_of, variant_of, Analysis, Warning_
from ..analysis.validity import durability_lines, same_device_pairs, study_lines, working_sets
from ..spec.composites import default_pipelines
from ..store.pooling import mixed_pools
from ..store import ResultsDir, latest_ok
from ..units import format_size
from ..workloads import WORKLOADS
from . import charts
from .document import Bullets, Figure, Notice, Paragraph, Report, Section, Strong, Table


def load_study(path) -> tuple[dict, list[dict]]:
    rd = ResultsDir(path)
    return rd.study(), rd.records(analysed=True)


def _runs_for_analysis(records: list[dict]) -> list[dict]:
    """The latest ok record per run key, plus failures of keys that never succeeded."""
    ok = latest_ok(records)
    failed = [r for r in records if r["status"] != "ok" and r["run_key"] not in ok]
    return list(ok.values()) + failed


def _storage_health_lines(runs) -> list[str]:
    """Runs after which the storage was degraded (HDFS: dead DataNodes or under-replicated blocks)."""
    bad = [(r["run_key"], h) for r in runs for h in [r["details"].get("storage_health") or {}]
           if h.get("checked") and (h.get("under_replicated_blocks") or h.get("dead_datanodes"))]
    if not bad:
        return []
    key, h = bad[0]
    return [f"HDFS was degraded after {len(bad)} run(s), first {key}: {h['dead_datanodes']} dead DataNode(s), "
            f"{h['under_replicated_blocks']} of the {h['blocks_written']} block(s) it wrote under-replicated: such runs "
            "wrote fewer copies than asked; check the DataNodes (tierbench services status hdfs) and re-run them"]


MAX_CACHE_LINES = 3  # per kind of page-cache flag; past this many runs, one line counts them


def _cache_lines(obs: dict) -> list[str]:
    """Runs whose reads, writes or shuffle memory served: each listed, or per kind one line when many are."""
    kinds: dict[str, list[str]] = {}
    for key, o in obs.items():
        for note in (o.cache_notes if o else ()):
            kinds.setdefault(note.split(":")[0], []).append(f"{key}: {note}")
    lines = []
    for kind, found in kinds.items():
        if len(found) <= MAX_CACHE_LINES:
            lines += found
        else:
            lines.append(f"{kind} in {len(found)} of {len(obs)} runs; the first, {found[0]}")
    return lines


def _fmt(x, digits=3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


@dataclass
class StudyResults:
    """What every exporter renders from: a study's study.json and run records, and the report document,
    built from them on first use (once, whichever formats are written)."""

    study: dict
    records: list[dict]

    @classmethod
    def load(cls, path) -> "StudyResults":
        return cls(*load_study(path))

    @cached_property
    def document(self) -> Report:
        return build_report(self.study, self.records)


def build_report(study: dict, records: list[dict], now: datetime | None = None) -> Report:
    """The study report as one document, from the stored study and run records only."""
    spec = study["spec"]
    variants = study.get("variants") or [{"name": c["name"], "config": c["name"]} for c in spec["storage"]]
    configs = [v["name"] for v in variants]
    workloads = [w["label"] for w in spec["workloads"]]
    runs = _runs_for_analysis(records)
    an = analyse(runs, spec["baseline"], configs, workloads,
                 per_value_baselines(spec["baseline"], variants, spec.get("sweeps") or []))
    runs_by_key = {}
    for config in configs:
        for wl in workloads:
            ok = [r for r in runs if r["status"] == "ok" and variant_of(r) == config and r["label"] == wl]
            runs_by_key[("runtime", config, wl)] = [runtime_of(r) for r in ok]
            runs_by_key[("throughput", config, wl)] = [throughput_of(r) for r in ok]
    cost = spec.get("cost")
    costs = study_costs(cost, an, runs, {v["name"]: v["config"] for v in variants}, study.get("storage_map")) if cost else []
    cores = (study.get("machine") or {}).get("cpu_cores") or 1
    obs = {r["run_key"]: observe(r, study.get("storage_map", {}), study.get("probe"), cores) for r in runs if r["status"] == "ok"}
    profiled = _profiled_runs(runs, configs, workloads)
    colors = charts.series_colors(configs)  # one colour per configuration in every chart
    phase_colors = charts.phase_colors([p for r in profiled if obs.get(r["run_key"]) for p in obs[r["run_key"]].labels])
    now = now or datetime.now(timezone.utc)

    title = f"tierbench report: {spec['name']}"
    subtitle = Paragraph([f"{spec.get('description') or ''} Generated {now:%Y-%m-%d %H:%M} UTC by tierbench {__version__} "
                          f"from {len(runs)} stored runs. Baseline: ", Strong(an.baseline), "."], muted=True)
    sections = []

    smap = study.get("storage_map") or {}
    config_of = {v["name"]: v.get("config", v["name"]) for v in variants}
    same = same_device_pairs(spec, smap)
    findings = Section("Findings", 2, [Bullets(_headline(an, same, config_of) or ["Only one configuration: nothing to compare."])])
    if study.get("emulation_skipped"):
        findings.add(Notice("warn", "run with --unemulated: the spec's emulated devices were plain directories on this "
                                    "machine's disk, so the configurations did not differ in their devices"))
    findings.add(*(Notice("warn", line) for line in study_lines(spec, study.get("machine") or {}, smap)
                   + durability_lines(spec, runs)))
    findings.add(*(Notice("warn", f"{_where(w)}{w.text}") for w in _fold_warnings(_warnings(an))))
    findings.add(*(Notice("fail", f"{r['run_key']} failed: {r.get('error') or ''}") for r in an.failed))
    findings.add(*(Notice("warn", line) for line in _cache_lines(obs)))
    findings.add(*(Notice("warn", f"pooled with --allow-mixed: {line}") for line in mixed_pools(runs)))
    findings.add(*(Notice("warn", line) for line in _storage_health_lines(runs)))
    findings.add(*(Notice("warn", line) for line in _node_check_lines(study.get("node_check"))))
    findings.blocks = _fold_notices(findings.blocks)
    sections.append(findings)

    charts_ = (
        ("normalised", "Normalised runtime", charts.normalised_runtime(an, colors),
         f"median runtime of each configuration divided by {_baseline_words(an)}'s, per workload (below 1.00 is faster; the numbers are the summary table's last column)"),
        ("runtime", "Runtime", charts.per_workload_bars(an, "runtime", runs_by_key, f"Runtime per workload (bar: median; whiskers: {_whiskers(an)}; dots: runs)", "wall time (s)", colors),
         f"median wall time per configuration and workload, whiskers {_whiskers(an)}, and every run (the numbers are in the summary table)"),
        ("throughput", "Throughput", charts.per_workload_bars(an, "throughput", runs_by_key, "Throughput per workload (median; DFSIO: aggregate MB/s)", "MB/s", colors),
         "median throughput per configuration and workload, MB/s (DFSIO: aggregate)"),
    )
    for key, heading, svg, caption in charts_:
        if svg:
            sections.append(Section(heading, 2, [Figure(svg, f"chart-{key}", caption)]))

    pipes = composites.pipelines(an, runs, spec["pipelines"] if "pipelines" in spec else default_pipelines(spec["workloads"]), costs)
    if pipes:
        sections.append(_pipelines_section(pipes, an, colors))

    for i, sw in enumerate(spec.get("sweeps") or []):
        sec = Section(f"Sweep of {sw['knob']} ({sw['level']} {sw['base']})", 2)
        svg = charts.sweep_lines(sw, runs, colors)
        if svg:
            sec.add(Figure(svg, f"chart-sweep-{i}", f"median wall time against {sw['knob']}, a line per series (the numbers are in the table below)"))
        sec.add(Table(*_sweep_table(sw, runs)))
        sections.append(sec)

    queries = _query_rows(runs)
    if queries:
        sec = Section("SQL queries", 2, [
            Paragraph("Each query timed from submission to its last row collected (median over repeats). "
                      "'checked' says whether DuckDB, reading the same Parquet files, gave the same answer.", muted=True)])
        for label in dict.fromkeys(q[1] for q in queries):
            svg = charts.query_times({(q[0], q[2]): float(q[3]) for q in queries if q[1] == label}, label, colors)
            if svg:
                sec.add(Figure(svg, f"chart-sql-{label}", f"median seconds per query of {label}, a bar per configuration "
                                                          "(the numbers are in the table below)"))
        sec.add(Table(QUERY_HEAD, queries))
        apart = _sql_time_rows(runs)
        if apart:
            sec.add(Paragraph("A sql run's runtime, as the charts and the summary compare it, is its queries' time: reading "
                              "the tables' schemas and file lists and registering them comes before the first query "
                              "(on an object store, mostly listing) and is shown here apart, with the run's wall time.",
                              muted=True), Table(SQL_TIME_HEAD, apart))
        sections.append(sec)

    commits = _commit_rows(runs, configs, workloads)
    if commits:
        sections.append(Section("Output commit", 2, [
            Paragraph("Jobs whose output went through a committer (storage `committer`): the driver's job commit and the "
                      "tasks' commits added up (they run in parallel), median over runs, both inside the wall time. "
                      "file-v1 renames each task's files twice (task and job commit), file-v2 once; on S3 a rename is a "
                      "copy. S3A's directory committer uploads at task commit and the magic committer writes pending "
                      "uploads; both complete them at job commit, renaming nothing.", muted=True),
            Table(COMMIT_HEAD, commits)]))

    gateways = _gateway_rows(runs, configs, workloads)
    if gateways:
        sections.append(Section("Gateways", 2, [
            Paragraph("S3 behind HAProxy (storage `gateways`, `balancer`): how many gateways served each run and how many "
                      "requests HAProxy gave each (its lbtot counter, added over the runs); 'none' went straight to one "
                      "gateway. Runtime (as compared everywhere: a SQL run's is its queries' time) and throughput: medians over the runs. A gateway count that no longer raises throughput is the "
                      "study's 'stops scaling' point.", muted=True),
            Table(GATEWAY_HEAD, gateways)]))

    if costs:
        sec = Section("Cost per job", 2)
        sec.add(Notice("warn", _cost_intro(cost)) if cost.get("example_prices") else Paragraph(_cost_intro(cost), muted=True))
        sec.add(_scale_notice(cost, costs, study.get("machine") or {}))
        vs = _cost_vs_baseline_table(costs, an.baseline_of)
        if vs:
            sec.add(Paragraph(f"Each configuration's price and total $/job as a multiple of {_baseline_words(an)}'s (below 1.00x: "
                              f"cheaper; over {costs[0].base.years:g} years).", muted=True), vs)
        svg = charts.cost_per_job(costs, colors)
        if svg:
            sec.add(Figure(svg, "chart-cost", "total $ per job (hardware + power + drive replacements) per configuration and workload"))
        sec.add(Table(*_cost_table(costs)))
        sections.append(sec)

    mixed = composites.mix(an, spec.get("mix") or {}, costs)
    if mixed:
        sections.append(_mix_section(mixed, spec["mix"], an))

    sections.append(Section("Summary per configuration and workload", 2, [
        Table(SUMMARY_HEAD, _summary_rows(an)),
        Paragraph("Runtime is the job's wall time measured around the engine call. The interval of the median is the "
                  f"runs' own range (fastest – slowest) below {BOOTSTRAP_FROM} repeats, and a bootstrap 95% interval of the "
                  f"median (marked 95%) from {BOOTSTRAP_FROM} on: with 2-4 runs a t interval is many times their spread. The "
                  "ratio's interval is, likewise, slowest/fastest and fastest/slowest of the two configurations' runs, or a "
                  "bootstrap of both. 'significant' means Welch's t-test p < 0.05 against the baseline. DFSIO throughput "
                  "is the aggregate (total MB / wall s); TestDFSIO's own per-task 'Throughput mb/sec' is in every run's metrics.",
                  muted=True)]))

    if profiled:
        sec = Section("IO profile per phase", 2, [Paragraph(
            "Sampled from /proc/diskstats and /proc/stat every "
            f"{profiled[0]['samples']['interval_s']:g} s during the first run of each configuration and workload; phases from the "
            "engine (Spark stages; TeraSort's map, shuffle-fetch and sort-and-write task intervals; Hadoop's task log). "
            "'writeback after the job' is what the job left in the page cache, flushed by a sync() after it. "
            "The machine may be shared: device counters include other processes' IO.", muted=True)])
        for r in profiled:
            o = obs.get(r["run_key"])
            sub = Section(r["run_key"], 3, aside=o.character if o else "")
            svg = charts.timeline(r, o.labels, o.roles, phase_colors) if o else None
            if svg:
                sub.add(Figure(svg, None, "device read and write MB/s and CPU % over the run, phases as bands", kind="timeline"))
            if o:
                sub.add(Table(PROFILE_HEAD, _profile_rows(o)))
            sec.add(sub)
        sections.append(sec)

    node_sec = _nodes_section(runs, profiled)
    if node_sec:
        sections.append(node_sec)

    inter = composites.intermediate_per_node(an, runs)
    if inter:
        sections.append(_intermediate_section(inter))

    ws = _working_set_rows(spec, study.get("machine") or {})
    if ws:
        sections.append(Section("Working set vs memory", 2, [
            Paragraph("Planned from the spec (before the runs): the data set each workload reads or writes per node, against "
                      "a node's RAM; its shuffle against the execution memory of one executor (Spark: (heap - 300 MB) x 0.6). "
                      "Data that fits in RAM is served by the page cache unless it is dropped; durable mode still times "
                      "every write to the device.", muted=True),
            Table(WORKING_SET_HEAD, ws)]))
    sections.append(Section("Storage configurations", 2, [
        Table(["name", "data dirs", "intermediate dirs", "intermediate applied by", "description"], _storage_rows(spec, runs))]))
    if study.get("storage_map"):
        sections.append(Section("Machine and devices", 2, [Table(MACHINE_HEAD, _machine_rows(study))]))
    if study.get("probe") or study.get("probe_error"):
        sec = Section("Device ceilings (fio)", 2)
        if study.get("probe_error"):
            sec.add(Notice("warn", f"device ceilings skipped: {study['probe_error']}"))
        if study.get("probe"):
            sec.add(Paragraph("fio before the study: sequential write and read in 1 MiB blocks and random reads in 64 KiB "
                              "blocks, queue depth 8, O_DIRECT. Each run's throughput is compared with its data device's ceiling in "
                              "'Every run'.", muted=True),
                    Table(PROBE_HEAD, _probe_rows(study)))
        sections.append(sec)
    if study.get("predictions"):
        sections.append(_whatif_section(study["predictions"]))
    env = Section("Environment", 2, [Table(["", ""], _environment(study, runs))])
    if study.get("node_check"):
        env.add(_node_check_section(study["node_check"]))
    sections.append(env)
    sections.append(Section("Every run", 2, [Table(RUN_HEAD, _run_rows(runs, obs))]))
    return Report(title, subtitle, sections)


PIPELINE_HEAD = ["pipeline", "config", "complete repeats", "total median s", "interval s", "MB/s (data set / total)",
                 "vs baseline", "total $/job"]


def _pipelines_section(pipes, an: Analysis, colors) -> Section:
    """The workloads that make one job together (TeraGen + TeraSort + TeraValidate), totalled per repeat."""
    sec = Section("Pipelines", 2, [Paragraph(
        "Workloads that make one job together, timed as the sum of their runs in the same repeat (the median of "
        "those totals; a repeat counts when every member ran ok). MB/s is the first member's data set over the "
        "total; $/job adds the members' total $/job (runtime, power and wear all add up).", muted=True)])
    for name in dict.fromkeys(p.pipeline for p in pipes):
        mine = [p for p in pipes if p.pipeline == name]
        svg = charts.pipeline_totals(mine, colors)
        if svg:
            sec.add(Figure(svg, f"chart-pipeline-{name}", f"median runtime of each member of {name}, stacked, per configuration"))
    priced = any(p.usd_per_job is not None for p in pipes)  # no [cost]: no $ column
    sec.add(Table(PIPELINE_HEAD[:len(PIPELINE_HEAD) - (not priced)],
                  [[p.pipeline, p.config, str(p.runtime.n), f"{p.runtime.median:.2f}", _interval(p.runtime),
                    _fmt(p.mb_s) if p.mb_s else "–", f"{p.ratio:.2f}x" if p.ratio is not None else "–"]
                   + ([_usd(p.usd_per_job) if p.usd_per_job is not None else "–"] if priced else []) for p in pipes]))
    return sec


MIX_HEAD = ["config", "mix runtime s (weighted)", "vs baseline", "$ per mix", "$/performance vs baseline",
            "$ per usable TB vs baseline"]


def _mix_section(mixed, weights: dict, an: Analysis) -> Section:
    """The workload mix: Cloudera's cost per performance (price x the mix's runtime) beside cost per capacity."""
    x = lambda v: f"{v:.2f}x" if v is not None else "–"
    return Section("Workload mix", 2, [
        Paragraph("The spec's [mix]: " + ", ".join(f"{w} x {k:g}" for w, k in weights.items()) + ". Its runtime is the "
                  "weighted sum of the workloads' median runtimes; $/performance is price x that runtime, and $ per usable TB "
                  f"price / capacity after replication, both as multiples of {_baseline_words(an)}'s: a tier can cost "
                  "little more per unit of work while costing many times more per TB.", muted=True),
        Table(MIX_HEAD, [[m.config, f"{m.seconds:.2f}", x(m.ratio), _usd(m.usd_per_mix) if m.usd_per_mix is not None else "–",
                          x(m.perf_cost_ratio), x(m.tb_cost_ratio)] for m in mixed])])


INTERMEDIATE_HEAD = ["workload", "config", "data set (read)", "intermediate written", "of the data set", "nodes",
                     "per node (largest)", "SSD per node for it (x1.5)", "measured by"]


def _share(x: float | None) -> str:
    return "–" if x is None else ("<1%" if x < 0.01 else f"{x:.0%}")


def _intermediate_section(rows) -> Section:
    from ..model.advise import HEADROOM

    return Section("Intermediate data per node", 2, [
        Paragraph("What each job wrote as intermediate data (shuffle files and spills), to size a device for it: the "
                  "SanDisk study found about 60% of the data set. 'engine': Spark's shuffle-write and spill metrics "
                  "(per executor host on a cluster); 'model': the workload's own count. Median over runs; the SSD "
                  f"column allows x{HEADROOM:g} for a second job and file-system slack.", muted=True),
        Table(INTERMEDIATE_HEAD, [[r.workload, r.config, format_size(r.data_set_bytes) if r.data_set_bytes else "–",
                                   format_size(r.written_bytes), _share(r.share_of_data_set),
                                   str(r.nodes), format_size(r.per_node_bytes), format_size(r.per_node_bytes * HEADROOM),
                                   r.source] for r in rows])])


NODE_CHECK_HEAD = ["node", "check", "status", "found", "where", "fix"]


def _node_check_lines(nc: dict | None) -> list[str]:
    """One line in the findings when the node check found something to fix."""
    if not nc:
        return []
    if nc.get("error"):
        return [f"node check could not run: {nc['error']}"]
    bad = [c for c in nc["checks"] if c["status"] in ("fail", "warn")]
    if not bad:
        return []
    names = ", ".join(dict.fromkeys(f"{c['name']} ({c['status']})" for c in bad))
    return [f"node check: {nc['summary'].get('fail', 0)} fail, {nc['summary'].get('warn', 0)} warn of the studies' OS advice: "
            f"{names}; each with its fix under Environment > Node check"]


def _node_check_section(nc: dict) -> Section:
    from ..analysis.node_check import folded

    sec = Section("Node check", 3, aside="tierbench check, when the study started")
    if nc.get("error"):
        return sec.add(Notice("warn", f"the node check could not run: {nc['error']}"))
    order = {"fail": 0, "warn": 1, "pass": 2, "n/a": 3}
    s = nc["summary"]
    sec.add(Paragraph(f"The storage studies' OS advice on each node the study used: {s.get('pass', 0)} pass, {s.get('warn', 0)} warn, "
                      f"{s.get('fail', 0)} fail, {s.get('n/a', 0)} not reported by the node.", muted=True),
            Table(NODE_CHECK_HEAD, [[c["node"], c["name"], c["status"], c["found"], c["where"] or "–", c["fix"] or "–"]
                                    for c in sorted(folded(nc["checks"]), key=lambda c: order.get(c["status"], 9))]))
    return sec


WHATIF_HEAD = ["job", "hardware", "nodes", "size", "predicted s", "MB/s", "jobs/day", "$/job", "bottleneck (phase: resource)"]
WHATIF_CHECK_HEAD = ["job", "configuration", "predicted from", "predicted s", "measured s (median)", "error"]


def _whatif_section(p: dict) -> Section:
    """What `tierbench predict` stored: the predictions, and how well the model reproduced what was measured."""
    v = p["validation"]
    hw = "; ".join(f"{h['name']}: {h['nodes']} nodes x {h['cores']} cores, data on {h['data']}, intermediate on "
                   f"{h['intermediate']}, {h['write_copies']:g} copies written" for h in p["hardware"])
    err = v.get("hardware_median_abs_error")
    trust = (f"Reproducing each measured configuration from the others, the model's median error was {err:.0%} "
             f"({len(v['hardware'])} jobs x configurations)." if err is not None else
             "Only one configuration had devices of known speed: there is no error estimate across hardware.")
    if v.get("size_median_abs_error") is not None:
        trust += f" Predicting the largest measured size from the smaller ones: median error {v['size_median_abs_error']:.0%}."
    sec = Section("What-if: predicted on other hardware", 2, [
        Paragraph(f"From `tierbench predict`, calibrated on {', '.join(p['calibrated_on'])}. Hardware: {hw}. {trust} "
                  "Each phase takes its slowest resource's time (CPU, each pool of drives, network), plus the others' "
                  "divided by its waves of tasks; demands grow in proportion to the data (docs/model.md).", muted=True),
        Table(WHATIF_HEAD, [[r["job"], r["hardware"], str(r["nodes"]), format_size(r["size_bytes"]), _fmt(r["seconds"]),
                             _fmt(r["mb_s"]) if r.get("mb_s") else "-",
                             _fmt(r["jobs_per_day"]) if "jobs_per_day" in r else "-",
                             _usd(r["usd_per_job"]) if "usd_per_job" in r else "-", r["bottleneck"]]
                            for r in p["predictions"]])])
    svg = charts.predicted_runtime(p["predictions"])
    if svg:
        sec.add(Figure(svg, "chart-whatif", "predicted runtime per job on each hardware description (the table's "
                                            "'predicted s' column)"))
    checks = [[r["job"], r["config"], ", ".join(r["from"]), _fmt(r["predicted_s"]), _fmt(r["measured_s"]), f"{r['error']:+.0%}"]
              for r in v["hardware"]]
    checks += [[r["job"], r["config"], "sizes " + ", ".join(format_size(x) for x in r["from_sizes"]) + f" -> {format_size(r['size_bytes'])}",
                _fmt(r["predicted_s"]), _fmt(r["measured_s"]), f"{r['error']:+.0%}"] for r in v["size"]]
    if checks:
        sec.add(Section("How the model reproduced the measured runs", 3, [Table(WHATIF_CHECK_HEAD, checks)]))
    return sec


COMMIT_HEAD = ["workload", "config", "committer", "wall s (median)", "job commit s", "task commits s (sum)",
               "job commit share of wall"]


def _ok_runs_per_pair(runs, configs, workloads, having):
    """(workload, config, its ok runs that have `having`) for each pair with any, workloads first."""
    for wl in workloads:
        for config in configs:
            ok = [r for r in runs if r["status"] == "ok" and variant_of(r) == config and r["label"] == wl and having(r)]
            if ok:
                yield wl, config, ok


def _commit_rows(runs, configs, workloads) -> list[list[str]]:
    rows = []
    committed = lambda r: (r["details"].get("commit") or {}).get("committer") not in (None, "none")
    for wl, config, ok in _ok_runs_per_pair(runs, configs, workloads, committed):
        med = lambda k: statistics.median(r["metrics"][k] for r in ok)
        wall = statistics.median(r["wall_s"] for r in ok)
        rows.append([wl, config, ok[0]["details"]["commit"]["committer"], f"{wall:.2f}", f"{med('job_commit_s'):.3f}",
                     f"{med('task_commit_s'):.3f}", f"{med('job_commit_s') / wall:.0%}" if wall else "–"])
    return rows


GATEWAY_HEAD = ["workload", "config", "balancer", "gateways serving", "requests per gateway", "runtime s (median)", "MB/s (median)"]


def _gateway_rows(runs, configs, workloads) -> list[list[str]]:
    rows = []
    for wl, config, ok in _ok_runs_per_pair(runs, configs, workloads, lambda r: r["details"].get("gateways")):
        g = ok[0]["details"]["gateways"]
        requests: dict[str, int] = {}
        for r in ok:
            for name, n in (r["details"]["gateways"].get("requests") or {}).items():
                requests[name] = requests.get(name, 0) + n
        spread = ", ".join(f"{name} {n}" for name, n in requests.items()) or g.get("endpoint", "–")
        mbps = [r["metrics"]["throughput_mb_s"] for r in ok if r["metrics"].get("throughput_mb_s")]
        rows.append([wl, config, g["balancer"], str(g["serving"]), spread, f"{statistics.median(runtime_of(r) for r in ok):.2f}",
                     f"{statistics.median(mbps):.1f}" if mbps else "–"])
    return rows


QUERY_HEAD = ["variant", "sql workload", "query", "median s", "rows", "checked against DuckDB"]
NODES_HEAD = ["node", "observed by", "cores", "RAM", "data on", "intermediate on", "shuffle went to", "runs observed",
              "page cache dropped"]
NODE_PHASE_HEAD = ["node", "phase", "s", "devices (hold)", "read MB", "write MB", "avg read KB", "avg write KB", "util %",
                   "CPU busy %", "net in MB (MB/s)", "net out MB (MB/s)", "shuffle written MB (engine)"]


def _nodes_section(runs, profiled) -> Section | None:
    """Which nodes were observed, where each one's dirs and shuffle really were, and per run a table per node
    and phase with the cluster's total and the slowest node."""
    from ..analysis import nodes as an_nodes

    observed = an_nodes.observed_nodes(runs)
    unobserved = an_nodes.unobserved_nodes(runs) - set(observed)
    if not observed and not unobserved:
        return None
    sec = Section("Nodes", 2, [Paragraph(
        f"{len(observed)} node(s) observed by tierbench's agents (the Spark plugin in each executor host, or over ssh for "
        "the spec's [cluster] nodes): each node's own /proc/diskstats, CPU and network, sampled as this machine's are, "
        "and its page cache dropped before each run. The IO profile above is the launcher host's; the tables here are "
        "the nodes'. Device names are as each node sees them.", muted=True)])
    if unobserved:
        sec.add(Notice("warn", f"not observed: {', '.join(sorted(unobserved))} (executor hosts whose agent did not report; "
                               "their IO is missing from the totals)"))
    rows = []
    for host, o in sorted(observed.items()):
        devs = lambda role: ", ".join(sorted(o["devices"].get(role, []))) or "-"
        dropped = f"{o['dropped']} of {o['runs']}" + (f" ({'; '.join(sorted(o['drop_errors']))[:160]})" if o["drop_errors"] else "")
        rows.append([host, o["agent"] or "?", str(o["cores"] or "?"),
                     f"{o['mem_bytes'] / 2**30:.1f} GiB" if o["mem_bytes"] else "?", devs("data"), devs("intermediate"),
                     devs("shuffle"), str(o["runs"]) + (f" (agent lost: {'; '.join(sorted(o['lost']))[:160]})" if o["lost"] else ""),
                     dropped])
    sec.add(Table(NODES_HEAD, rows))
    for r in profiled:
        per_node = an_nodes.node_rows(r)
        if not per_node:
            continue
        sub = Section(f"{r['run_key']}: per node", 3)
        slow = an_nodes.slowest_node(per_node)
        if slow:
            sub.add(Paragraph(f"slowest node: {slow[0]} (its devices busy {slow[1]:.1f} s in all, the most of any node)"))
        sub.add(Table(NODE_PHASE_HEAD, [_node_row(x) for x in [*per_node, *an_nodes.cluster_total(per_node)]]))
        sec.add(sub)
    return sec


def _node_row(x: dict) -> list[str]:
    return [x["node"], x["phase"], f"{x['seconds']:.1f}", x["devices"] or "-", f"{x['read_mb']:.1f}", f"{x['write_mb']:.1f}",
            f"{x['avg_read_kb']:.0f}", f"{x['avg_write_kb']:.0f}", f"{x['util_pct']:.0f}", f"{x['cpu_busy_pct']:.0f}",
            _net(x["net_rx_mb"], x["seconds"]), _net(x["net_tx_mb"], x["seconds"]),
            "" if x["shuffle_write_mb"] is None else f"{x['shuffle_write_mb']:.1f}"]


SQL_TIME_HEAD = ["variant", "sql workload", "queries s (the runtime compared)", "registering the tables s", "wall s"]


def _sql_time_rows(runs) -> list[list[str]]:
    groups: dict[tuple, list] = {}
    for r in runs:
        if r["status"] == "ok" and "register_s" in r["metrics"] and "queries_s" in r["metrics"]:
            groups.setdefault((r["variant"], r["label"]), []).append(r)
    med = lambda rs, f: f"{statistics.median(f(r) for r in rs):.2f}"
    return [[v, label, med(rs, lambda r: r["metrics"]["queries_s"]), med(rs, lambda r: r["metrics"]["register_s"]),
             med(rs, lambda r: r["wall_s"])] for (v, label), rs in groups.items()]


def _query_rows(runs) -> list[list[str]]:

    groups: dict[tuple, list] = {}
    for r in runs:
        if r["status"] == "ok" and r["details"].get("queries"):  # a run that timed queries one by one
            for q in r["details"].get("queries", []):
                groups.setdefault((r["variant"], r["label"], q["name"]), []).append((q, r["details"].get("verification")))
    rows = []
    for (variant, label, name), qs in groups.items():
        checks = [v.get(name, "not checked") if v else "not checked (verify = false)" for _, v in qs]
        checked = "same answer" if all(c is None for c in checks) else "; ".join(sorted({str(c) for c in checks if c}))
        retried = sum(1 for q, _ in qs if q.get("retried"))  # (Sql.java: a broadcast the driver could not hold)
        shown = f"{name} (retried {qs[0][0].get('retried') if retried == len(qs) else f'in {retried} of {len(qs)} runs'})" if retried else name
        rows.append([variant, label, shown, f"{statistics.median(q['s'] for q, _ in qs):.3g}", str(qs[0][0]["rows"]), checked])
    return rows


def _sweep_table(sweep, runs) -> tuple[list[str], list[list[str]]]:
    series = charts.sweep_series(sweep, runs)
    values = [str(m["value"]).lower() if isinstance(m["value"], bool) else str(m["value"]) for m in sweep["members"]]
    head = ["workload", "line"] + [f"{sweep['knob']} = {v} (s)" for v in values]
    return head, [[panel, line] + [_fmt(y) for y in ys] for panel, lines in series.items() for line, ys in lines.items()]


COST_HEAD = ["workload", "config", "data per job", "price $", "median runtime s", "jobs/day", "jobs in period", "hardware $/job",
             "power $/job", "total $/job", "$ per MB/s", "$ per usable TB", "drive wear per job"]


def _usd(x: float) -> str:
    """Dollars without scientific notation: $4.60, $0.69, $0.0000849."""
    if x == 0 or abs(x) >= 0.01:
        return f"${x:,.2f}"
    return f"${x:.{2 - math.floor(math.log10(abs(x)))}f}"


def _scale_notice(cost, costs, machine) -> Notice | Paragraph:
    """Say what job size the figures are for: as run (scaled down, when it fits in memory) or extrapolated."""
    sizes = sorted(c.job_bytes for c in costs if c.job_bytes)
    as_run = (f"{format_size(sizes[0])} to {format_size(sizes[-1])}" if sizes[0] != sizes[-1] else format_size(sizes[0])) if sizes else "?"
    target = cost.get("target_bytes")
    if target:
        return Notice("warn", f"at target_size = {format_size(target)}: a linear extrapolation from the jobs as run ({as_run} "
                      "of data per job): runtime and bytes written are multiplied by target / as run, throughput is kept; "
                      "it ignores what changes with size (the page cache, spills, the network)")
    ram = machine.get("memory_bytes") or 0
    if sizes and ram and sizes[-1] < ram:
        return Notice("warn", f"scaled-down jobs: these figures are for the jobs as run ({as_run} of data per job, which fits "
                      f"in this machine's {format_size(ram)} of RAM), not for a production-size job; set cost.target_size "
                      "(e.g. \"1TB\") to see them at the size you care about (a linear extrapolation)")
    return Paragraph(f"Figures for the jobs as run ({as_run} of data per job).", muted=True)


def _cost_vs_baseline_table(costs, baseline_of) -> Table | None:
    ratios = cost_vs_baseline(costs, baseline_of)
    if not ratios:
        return None
    workloads = list(dict.fromkeys(c.workload for c in costs))
    return Table(["configuration", "price"] + [f"$/job: {w}" for w in workloads],
                 [[config, f"{r['price']:.2f}x"] + [f"{r[w]:.2f}x" if w in r else "–" for w in workloads]
                  for config, r in ratios.items()])


TARGET_HEAD = ["at target: runtime s (linear)", "at target: total $/job (linear)"]


def _cost_table(costs) -> tuple[list[str], list[list[str]]]:
    """The cost table; with cost.target_size, two more columns: the same job at that size."""
    at_target = any(c.at_target for c in costs)
    return COST_HEAD + (TARGET_HEAD if at_target else []), _cost_rows(costs, at_target)


def _cost_rows(costs, at_target: bool = False) -> list[list[str]]:
    rows = []
    for c in sorted(costs, key=lambda c: c.workload):
        wear = "; ".join(
            f"{w.drive}: {format_size(w.bytes_per_job_per_drive)}/drive, "
            + (f"worn after {w.jobs_until_worn:,.0f} jobs" + (f" (before the period ends: {w.replacements} replacement(s) added)" if w.worn_before_period_ends else " (after the period)")
               if w.jobs_until_worn is not None else "no rated endurance")
            for w in c.wear) or "–"
        if c.wear:
            wear += f" [{c.written_source}]"
        rows.append([c.workload, c.config, format_size(c.job_bytes) if c.job_bytes else "–", f"{c.base.price_usd:,.0f}", f"{c.base.runtime_s:.2f}", f"{c.base.jobs_per_day:,.1f}",
                     f"{c.base.jobs_in_period:,.0f}", _usd(c.base.usd_per_job), _usd(c.power_usd_per_job),
                     _usd(c.usd_per_job_total), f"{c.usd_per_mb_s:,.0f}" if c.usd_per_mb_s else "–",
                     f"{c.usd_per_usable_tb:,.0f}" if c.usd_per_usable_tb else "–", wear])
        if at_target:
            t = c.at_target
            rows[-1] += [f"{t.base.runtime_s:,.0f}" if t else "–", _usd(t.usd_per_job_total) if t else "–"]
    return rows


def _cost_intro(cost) -> str:
    label = "EXAMPLE PRICES — from the spec's example price list, not quotes: put your own in [cost]. " if cost.get("example_prices") else ""
    return (f"{label}Formulas of the studies: jobs/day = 86400 / median runtime x utilisation ({cost['utilisation']:g}); "
            f"jobs in {cost['years']:g} years = jobs/day x 365 x {cost['years']:g}; $/job = price / jobs in the period. Added: power at "
            f"${cost['usd_per_kwh']:g}/kWh, and drive wear: bytes written per job ([sampled]: median of what the run's devices took, "
            "writeback included — the machine may be shared, so an upper bound; [model]: data written x replication, TeraSort's "
            "shuffle once to the intermediate drives) against rated endurance, with replacements added to $/job "
            "when endurance ends before the period. $ per MB/s is price / median throughput; $ per usable TB is price / "
            "data-drive capacity after replication or erasure coding.")


def _profiled_runs(runs, variants, workloads) -> list[dict]:
    """The first ok run of each (variant, workload) that has samples: the ones whose IO profile is drawn."""
    out = []
    for wl in workloads:
        for v in variants:
            ok = sorted((r for r in runs if r["status"] == "ok" and variant_of(r) == v and r["label"] == wl and r.get("samples")),
                        key=lambda r: r["repeat"])
            if ok:
                out.append(ok[0])
    return out


PROFILE_HEAD = ["phase", "device (holds)", "s", "read MB", "write MB", "read IOs", "write IOs", "merges r/w",
                "avg read KB", "avg write KB", "read MB/s", "write MB/s", "util %", "CPU busy %", "iowait %",
                "net in MB (MB/s)", "net out MB (MB/s)"]


def _profile_rows(o) -> list[list[str]]:
    rows = []
    for r in o.profile:
        if r["read_mb"] < 0.05 and r["write_mb"] < 0.05 and r["util_pct"] < 1 and \
                r.get("net_rx_mb", 0) < 0.05 and r.get("net_tx_mb", 0) < 0.05:  # (an S3 phase moves only network bytes)
            continue
        rows.append([r["phase"], f"{r['device']} ({'+'.join(r['roles']) or 'other'})", f"{r['seconds']:.1f}",
                     f"{r['read_mb']:.1f}", f"{r['write_mb']:.1f}", str(r["read_ios"]), str(r["write_ios"]),
                     f"{r['read_merges']}/{r['write_merges']}", f"{r['avg_read_kb']:.0f}", f"{r['avg_write_kb']:.0f}",
                     f"{r['read_mb_s']:.1f}", f"{r['write_mb_s']:.1f}", f"{r['util_pct']:.0f}", f"{r['cpu_busy_pct']:.0f}",
                     f"{r['cpu_iowait_pct']:.0f}", _net(r.get("net_rx_mb", 0), r["seconds"]), _net(r.get("net_tx_mb", 0), r["seconds"])])
    return rows


def _net(mb: float, seconds: float) -> str:
    """Network bytes of a phase and their rate: what an object store or remote HDFS moved over the wire (a one-box
    study's services talk over loopback, which is counted too)."""
    return f"{mb:.1f} ({mb / seconds:.1f})" if seconds > 0 else f"{mb:.1f}"


MACHINE_HEAD = ["directory", "role", "device", "rotational", "scheduler", "file system", "mount options"]


def dir_roles(spec: dict) -> dict[str, str]:
    """Each local directory's roles in the study, from the spec: a directory holding data in one configuration and
    intermediate data in another (or both in one) is "data+intermediate" (the storage_map of older
    study.json files kept only the last role)."""
    roles: dict[str, list[str]] = {}
    for c in spec.get("storage", []):
        for role in ("data", "intermediate"):
            for d in c.get(role) or []:
                if role not in roles.setdefault(d, []):
                    roles[d].append(role)
    return {d: "+".join(r) for d, r in roles.items()}


def _machine_rows(study) -> list[list[str]]:
    sm = study.get("storage_map") or {}
    roles = dir_roles(study.get("spec") or {})
    rows = []
    for d, info in sm.get("dirs", {}).items():
        dev = info.get("device")
        facts = sm.get("devices", {}).get(dev, {}) if dev else {}
        m = info.get("mount", {})
        emu = (study.get("emulated") or {}).get(dev)
        what = f"emulated {emu['profile']['name']}: {emu['profile']['read_mb_s']:.0f}/{emu['profile']['write_mb_s']:.0f} MB/s read/write, " \
               f"{emu['profile']['read_iops']:,.0f} read IOPS; " if emu else ""
        rows.append([d, roles.get(d, info.get("role", "")), f"{dev} ({what}{facts.get('disk')}{', ' + format_size(facts['size_bytes']) if facts.get('size_bytes') else ''})" if dev else "none (tmpfs/overlay/network)",
                     {True: "1 (kernel: rotational)", False: "0 (non-rotational)"}.get(facts.get("rotational"), "–") if dev else "–",
                     facts.get("scheduler") or "–", m.get("fs_type", "–"), m.get("options", "–")])
    return rows


PROBE_HEAD = ["device", "directories", "seq write MB/s", "seq read MB/s", "rand read 64K MB/s (IOPS)", "rand read p99 ms", "O_DIRECT"]


def _probe_rows(study) -> list[list[str]]:
    rows = []
    for dev, p in (study.get("probe") or {}).items():
        t = p.get("tests", {})
        g = lambda k, f: f"{t[k][f]:.0f}" if k in t else "–"
        rr = t.get("rand_read_64k")
        rows.append([dev, ", ".join(p.get("dirs", [])), g("seq_write", "mb_s"), g("seq_read", "mb_s"),
                     f"{rr['mb_s']:.0f} ({rr['iops']:.0f})" if rr else "–", f"{rr['p99_latency_ms']:.2f}" if rr else "–",
                     "yes" if p.get("direct_io") else "no (buffered: includes the page cache)" + (f"; error: {p['error']}" if p.get("error") else "")])
    return rows


def _obs_cols(o) -> list[str]:
    if o is None:
        return ["–", "–"]
    return [o.character, f"{o.efficiency:.0%} ({o.ceiling_note})" if o.efficiency is not None else "–"]


def _baseline_words(an: Analysis) -> str:
    """The baseline as a reader should take it: one variant, or the baseline configuration at each swept value."""
    if not an.per_value:
        return an.baseline
    return f"{an.baseline.split('@')[0]} at the same swept engine value ({', '.join(sorted(set(an.baselines.values())))})"


def _whiskers(an: Analysis) -> str:
    kinds = {s.interval_kind for s in an.runtime.values() if s.n > 1}
    return " or ".join(sorted({"range": "the runs' range", "bootstrap 95%": "bootstrap 95% of the median"}[k] for k in kinds)) or "none (one run)"


def _where(w) -> str:
    return "" if w.config == "all" else f"{w.config} / {w.workload}: "


MAX_FINDINGS = 12  # past this many comparisons, the ones that are not significant are counted, not listed
MAX_UNSTABLE = 6


def _headline(an: Analysis, same_device: dict | None = None, config_of: dict | None = None) -> list[str]:
    """Significant differences first; in a large study the rest is one line (the summary table has each).
    A comparison of two configurations on the same device says it is not a device comparison."""
    config_of = config_of or {}

    def line(c) -> str:
        devs = (same_device or {}).get(frozenset((config_of.get(c.config, c.config), config_of.get(c.baseline, c.baseline))))
        note = f" (same device as {c.baseline}, {', '.join(devs)}: not a device comparison)" if devs else ""
        return f"{c.config} on {c.workload}: {c.verdict}{note}"

    sig = [line(c) for c in an.comparisons if not c.verdict.startswith("not significant")]
    rest = [line(c) for c in an.comparisons if c.verdict.startswith("not significant")]
    if len(sig) + len(rest) <= MAX_FINDINGS:
        return sig + rest
    return sig + [f"{len(rest)} {'other ' if sig else ''}differences from {_baseline_words(an)} are not significant (Welch "
                  "p >= 0.05): the summary table has each, with its interval"]


def _warnings(an: Analysis) -> list:
    """The analysis' warnings; many 'unstable' ones become one line naming the worst."""
    unstable = [w for w in an.warnings if w.text.startswith("unstable")]
    if len(unstable) <= MAX_UNSTABLE:
        return an.warnings
    cvs = {(s.config, s.workload): s.cv for s in an.runtime.values()}
    worst = max(unstable, key=lambda w: cvs.get((w.config, w.workload), 0))
    line = Warning_("all", "all", f"unstable: runtime spread (std dev) above 10% of the mean in {len(unstable)} of "
                    f"{len(an.runtime)} (configuration, workload) pairs, the most {cvs.get((worst.config, worst.workload), 0):.0%} "
                    f"({worst.config} / {worst.workload}); add repeats, make the jobs larger, or check for other load on the machine")
    return [w for w in an.warnings if w not in unstable] + [line]


MAX_NAMED = 3  # a folded warning names this many of the places it applies to


def _fold_warnings(warnings: list) -> list:
    """The same advice for several (configuration, workload) pairs: one warning naming how many and the first few."""
    by_text: dict[str, list] = {}
    for w in warnings:
        by_text.setdefault(w.text, []).append(w)
    out = []
    for text, ws in by_text.items():
        if len(ws) == 1:
            out.append(ws[0])
            continue
        where = ", ".join(f"{w.config} / {w.workload}" for w in ws[:MAX_NAMED]) + (", ..." if len(ws) > MAX_NAMED else "")
        out.append(Warning_("all", "all", f"{text} (in {len(ws)} configuration/workload pairs: {where})"))
    return out


def _fold_notices(blocks: list) -> list:
    """Identical notices (the same warning for many runs) become one, with how many times it was raised."""
    count: dict[tuple[str, str], int] = {}
    for b in blocks:
        if isinstance(b, Notice):
            count[(b.kind, b.text)] = count.get((b.kind, b.text), 0) + 1
    out, seen = [], set()
    for b in blocks:
        if isinstance(b, Notice):
            key = (b.kind, b.text)
            if key in seen:
                continue
            seen.add(key)
            if count[key] > 1:
                b = Notice(b.kind, f"{b.text} (x{count[key]})")
        out.append(b)
    return out


WORKING_SET_HEAD = ["workload", "engine", "data set", "nodes", "RAM per node", "fits in RAM", "shuffle", "task memory",
                    "shuffle in memory", "would not fit from"]


def _working_set_rows(spec, machine) -> list[list[str]]:
    rows = []
    for w in working_sets(spec, machine):
        p = w.placement
        size = lambda b: format_size(b) if b else "–"
        rows.append([w.workload, w.engine, size(w.data_bytes), str(p.nodes) if p.nodes else f"? ({p.where})",
                     size(p.ram_bytes), f"{w.fits_times:,.0f}x over" if w.fits_times and w.fits_times >= 1
                     else ("no" if w.fits_times else "–"), size(w.shuffle_bytes), size(p.task_memory),
                     {True: "yes (no spill)", False: "no (spills)", None: "–"}[w.shuffle_in_memory], size(w.would_not_fit)])
    return rows


def _storage_rows(spec, runs) -> list[list[str]]:
    rows = []
    for c in spec["storage"]:
        inter = ", ".join(c["intermediate"]) + (f" (each split into {c['split']} dirs)" if c["split"] > 1 else "")
        # what put the intermediate dirs under the engine (records before it was recorded: not said)
        applied = sorted({r["storage"].get("intermediate_applied") for r in runs if r["config"] == c["name"]} - {None})
        rows.append([c["name"], ", ".join(c["data"]), inter, ", ".join(applied) or "-", c.get("description", "")])
    return rows


def _summary_rows(an: Analysis) -> list[list[str]]:
    comparisons = {(c.config, c.workload): c for c in an.comparisons}
    rows = []
    for wl in an.workloads:
        for config in an.configs:
            s = an.runtime.get((config, wl))
            if s is None:
                continue
            t = an.throughput.get((config, wl))
            pc = an.per_core.get((config, wl))
            b = an.runtime.get((an.baseline_of(config), wl))
            ratio = "–"
            if config == an.baseline_of(config):
                ratio = "1.00 (baseline)"
            elif b and b.median:
                c = comparisons.get((config, wl))
                iv = c.ratio_interval if c else None
                ratio = f"{s.median / b.median:.2f}" + (f" ({iv[0]:.2f} – {iv[1]:.2f}{'' if c.ratio_interval_kind == 'range' else ', 95%'})" if iv else "")
            rows.append([wl, config, str(s.n), f"{s.median:.2f}", _interval(s), f"{s.mean:.2f}", f"{s.std:.2f}",
                         f"{t.median:.1f}" if t else "–", f"{pc.median:.1f}" if pc else "–", ratio])
    return rows


def _interval(s) -> str:
    if s.n < 2:
        return "–"
    return f"{s.interval[0]:.2f} – {s.interval[1]:.2f}" + ("" if s.interval_kind == "range" else " (95%)")


SUMMARY_HEAD = ["workload", "config", "runs", "median s", "interval of the median s", "mean s", "std dev s",
                "throughput MB/s (median)", "MB/s per core (median)", "runtime / baseline (interval)"]
RUN_HEAD = ["run", "status", "wall s", "key metrics", "bound by", "of the device's ceiling", "started (UTC)", "cache dropped", "error"]


def _key_metrics(r) -> str:
    wl = WORKLOADS.get(r["workload"])
    names = wl.metrics[:3] if wl else ()
    return ", ".join(f"{n}={_fmt(r['metrics'][n])}" for n in names if n in r.get("metrics", {}))


def _run_rows(runs, obs) -> list[list[str]]:
    out = []
    for r in sorted(runs, key=lambda r: r["started_at"] or ""):
        out.append([r["run_key"], r["status"], _fmt(r["wall_s"]), _key_metrics(r), *_obs_cols(obs.get(r["run_key"])), (r["started_at"] or "")[:19],
                    "yes" if r.get("page_cache_dropped") else "no", r.get("error") or ""])
    return out


def _environment(study, runs) -> list[list[str]]:
    m = study.get("machine", {})
    engines = study["spec"].get("engines") or [study["spec"]["engine"]]
    rows = [["machine", f"{m.get('cpu_model')}, {m.get('cpu_cores')} cores, {format_size(m.get('memory_bytes') or 0)} RAM, Linux {m.get('kernel')}"]]
    for e in engines:
        ran = next((r for r in runs if r.get("engine_version") and r.get("engine", e.get("kind")) in (e.get("name"), e.get("kind"))), {})
        where = f"master {e.get('master')}" if e.get("kind", "spark") == "spark" else f"{e.get('mode', 'local')} mode"
        rows.append([f"engine {e.get('name', e.get('kind'))}", f"{ran.get('engine_version', '–')}, {where}"])
        name = e.get("name") or e.get("kind")
        lived = (study.get("engine_applications") or {}).get(name)
        if lived:
            warm = [r["details"]["warm_up"]["s"] for r in runs if r.get("engine") == name and "warm_up" in r.get("details", {})]
            budget = format_size(lived["keep_alive_memory"]) if lived["keep_alive_memory"] else "0: one at a time"
            rows.append([f"engine {name} applications",
                         f"{lived['started']} started" + (f" (each warmed up before its first measured run: median "
                                                          f"{statistics.median(warm):.1f} s)" if warm else "")
                         + f", {lived['resumed']} resumed after idling between their configuration's turns "
                           f"(keep_alive_memory {budget})"])
    return rows + [
        ["tierbench", f"{study.get('tool_version')} (commit {study.get('git_commit') or 'unknown'})"],
        ["command", " ".join(study.get("command_line", []))],
        ["repeats", str(study["spec"]["repeats"])],
        ["page cache", {"auto": "dropped before each run when root", "always": "dropped before each run", "never": "not dropped"}[study["spec"]["drop_caches"]]],
    ]
