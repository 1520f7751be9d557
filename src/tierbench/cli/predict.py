"""tierbench predict: a study's measured runs -> runtimes and $/job on hardware you don't own, at the size you care about."""

import json

from .. import bounds
from ..errors import UserError
from ..units import format_size

MAX_NODE_COUNTS = 64  # --nodes values at once: what a reader of predictions.json can take, with room to spare


DESCRIPTION = """\
A bottleneck model of a study's stored runs (per phase: bytes per data role, request sizes, CPU, tasks; a phase
takes its slowest resource's time), calibrated on the configurations whose devices have known speeds. It first
reproduces what was measured (each configuration from the others, the largest size from the smaller ones: the
error estimate), then predicts each job on each --hardware or --cloud option. The result is printed and stored
beside the runs (predictions.json: the report shows it). The model and where it fails: docs/model.md."""

EPILOG = """\
examples:
  tierbench predict tierbench-results/quickstart --hardware sandisk-all-ssd --size 1TB
  tierbench predict tierbench-results/quickstart --cloud aws --size 1TB --nodes 4..32
  tierbench predict tierbench-results/quickstart --published   # SanDisk's studies"""


def add_parser(subparsers):
    c = subparsers.add_parser("predict", help="runtimes and $/job on hardware or clouds you don't have",
                              description=DESCRIPTION, epilog=EPILOG)
    c.add_argument("results", nargs="*", help="a study's results folder, or several of one machine (e.g. one study "
                   "at several sizes); the predictions are stored in the first")
    c.add_argument("--calibrate", metavar="CONFIGS", help="calibrate on these configurations only (comma-separated; "
                   "default: those whose devices have known speeds)")
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    hardware = c.add_argument_group("on hardware you describe")
    hardware.add_argument("--hardware", action="append", default=[], metavar="HW.toml",
                          help="a hardware description (docs/hardware.md), or a shipped one: sandisk-all-hdd, "
                               "sandisk-all-ssd, sandisk-hybrid (the SanDisk 2014 cluster); repeatable (default for a "
                               "scale model's results: its target, as the results keep it)")
    # numbers are read by bounds.option, not argparse's int/float: one line for "abc", and nan/inf refused
    hardware.add_argument("--nodes", help="the node count instead of the hardware's; with --cloud, the counts to "
                          f"try: 8, 4,8,16 or 4..32 (the default; at most {MAX_NODE_COUNTS} counts)")
    hardware.add_argument("--years", default=3, help="period for $/job, years (default: 3, as the studies)")
    c.add_argument_group("at another size").add_argument(
        "--size", help="the data size to predict for, e.g. 1TB = 10^12 bytes (TB/GB/MB: powers of 1000; TiB/GiB/MiB: "
        "of 1024; the same in every option and file); default: the scale model's target size, [scale] size in the "
        "spec, when the study has one; else the largest measured")
    cloud = c.add_argument_group("in a cloud")
    cloud.add_argument("--cloud", action="append", default=[], metavar="CLOUD",
                       help="rank instance type x storage (local NVMe, volumes, object store) x node count by $/job "
                            "and runtime (aws, gcp, azure; repeatable; docs/cloud.md)")
    cloud.add_argument("--cloud-catalog", metavar="FILE", help="your own catalog (prices, instance types) over the "
                       "shipped one (docs/cloud.md)")
    published = c.add_argument_group("the published studies")
    published.add_argument("--published", action="store_true", help="also predict the SanDisk 2014 studies' "
                           "runtimes and HDD/SSD ratios at 1 TB on their cluster, beside the published ones (needs "
                           "dfsio-write, dfsio-read, teragen, terasort)")
    published.add_argument("--drives", action="store_true", help="list the catalog of typical drives (MB/s, IOPS, "
                           "sources) and exit")
    return c


def run(args) -> int:
    from ..model.hardware import catalog, load_hardware
    from ..scale.target import choose_size
    from ..model.whatif import predict

    if args.drives:
        for name, d in catalog().items():
            print(f"{name:16s} read {d.read_mb_s:>6,.0f} MB/s {d.read_iops:>9,.0f} IOPS   write {d.write_mb_s:>6,.0f} MB/s "
                  f"{d.write_iops:>9,.0f} IOPS   {d.source}")
        return 0
    if not args.results or not (args.hardware or args.published or args.cloud or _scale_target_of(args.results)):
        raise UserError("predict: give a results directory and at least one --hardware HW.toml "
                        "(or a shipped one: sandisk-all-hdd, sandisk-all-ssd, sandisk-hybrid) or --cloud aws|gcp|azure; "
                        "a scale model's results need none: their target (tierbench predict --help)")
    # every option checked before the hardware files are read and before anything is stored in the results
    clouds, cloud_nodes = cloud_options(args)
    nodes = (bounds.option("--nodes", args.nodes, bounds.NODES) if args.nodes is not None and not args.cloud
             else cloud_nodes[0] if args.cloud and args.nodes is not None else None)
    size = bounds.option_size("--size", args.size, bounds.DATA_SIZE) if args.size is not None else None
    years = bounds.option("--years", args.years, bounds.YEARS)
    hardware = [load_hardware(h) for h in args.hardware]  # (a bad file is said before the results are read)
    choice = choose_size(args.results, size)
    if not hardware and choice.target and not (args.published or args.cloud):
        hardware = [choice.hardware()]  # the scale model's target, as the results keep it
    out = predict(args.results, hardware, choice.size_bytes, nodes,
                  [c.strip() for c in args.calibrate.split(",")] if args.calibrate else None, years,
                  published=args.published, clouds=clouds, cloud_nodes=cloud_nodes)
    if choice.note and hardware:  # a scale model's study: the size predicted at, and where it came from
        out = {"size": choice.to_dict()} | out
        _estimated_range(out, choice)
    from ..store import ResultsDir
    ResultsDir(args.results[0]).save_derived("predictions", out)  # (predictions.json, beside the runs)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for line in text_lines(out) + cloud_lines(out.get("cloud")):
        print(line)
    return 0


def _scale_target_of(results: list) -> bool:
    """Whether the results are a scale model's, whose target (as they keep it) predict takes without --hardware."""
    from ..scale.target import scale_target

    try:
        return scale_target(results[0]) is not None
    except UserError:
        return False  # (the results' own error is said where they are read)


def _estimated_range(out: dict, choice) -> None:
    """Where the scale model's core_speed was an estimate: the range each predicted time carries (k's), said."""
    e = (choice.scale or {}).get("core_speed_estimate")
    if not e:
        return
    out["size"]["estimate_note"] = choice.estimate_note()
    for r in out["predictions"]:
        if r.get("method") != "scale model":
            continue  # (the resource model uses no core_speed: a core there does what one here did)
        r["seconds_low"] = r["seconds"] * e["core_speed"] / e["high"]  # (a faster target core: less time)
        r["seconds_high"] = r["seconds"] * e["core_speed"] / e["low"]


def cloud_options(args) -> tuple[list, list[int] | None]:
    """(the clouds of --cloud from the catalog, the node counts of --nodes for them); one-line errors for an unknown
    cloud, a bad catalog file or node range, or a node range given with --hardware."""
    from ..model.cloud import node_counts
    from ..model.cloud_catalog import load_catalog

    if not args.cloud:
        if args.cloud_catalog:
            raise UserError("--cloud-catalog: give --cloud aws|gcp|azure too (the catalog is for --cloud)")
        return [], None
    catalog = load_catalog(args.cloud_catalog)
    unknown = [c for c in args.cloud if c not in catalog]
    if unknown:
        raise UserError(f"--cloud {unknown[0]}: unknown cloud; the catalog has: {', '.join(catalog)}")
    nodes = None
    if args.nodes is not None:
        try:
            nodes = node_counts(args.nodes)
        except ValueError as e:
            raise UserError(f"--nodes {bounds.shown(args.nodes)}: {e}") from None
        if nodes[-1] > bounds.NODES.high:
            raise UserError(f"--nodes {bounds.shown(args.nodes)}: {bounds.NODES.words()}")
        if len(nodes) > MAX_NODE_COUNTS:  # each count is a row per instance and storage: thousands filled 128 MB
            raise UserError(f"--nodes {bounds.shown(args.nodes)}: {len(nodes)} node counts; at most {MAX_NODE_COUNTS} "
                            "at once (a range such as 4..1024 doubles: 4, 8, ..., 1024)")
        if args.hardware and len(nodes) > 1:
            raise UserError(f"--nodes {bounds.shown(args.nodes)}: a list or range is for --cloud; with --hardware too, "
                            "give one node count")
    return [catalog[c] for c in dict.fromkeys(args.cloud)], nodes


def _usd(x: float) -> str:
    return f"${x:,.2f}" if x >= 0.1 else f"${x:.2g}"


def _s(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def cloud_lines(cloud: dict | None, top: int = 10) -> list[str]:
    """Per job, the `top` cheapest options and the fastest, marked; every option is in --json and predictions.json."""
    if not cloud:
        return []
    where = "; ".join(f"{c['name']} {c['region']} (prices read {c['read']})" for c in cloud["clouds"])
    margin = cloud["margin_from"]
    lines = ["", f"cloud: {where}; nodes {', '.join(map(str, cloud['nodes']))}; intervals {margin}"]
    for job in dict.fromkeys(r["job"] for r in cloud["rows"]):
        rows = [r for r in cloud["rows"] if r["job"] == job]
        shown = rows[:top] + [r for r in rows[top:] if r["fastest"] or r["best"]]
        best = next(r for r in rows if r["best"])
        lines += ["", f"{job} at {format_size(best['size_bytes'])} ({len(rows)} options, requests "
                      f"{cloud['requests_from'][job]}): cheapest within {cloud['within']:.0%} of the fastest: "
                      f"{best['instance']} + {best['storage']} x {best['nodes']}, {_s(best['seconds'])} s, {_usd(best['usd_per_job'])}"]
        lines.append(f"  {'':2}{'cloud':<6} {'instance':<20} {'storage':<22} {'nodes':>5} {'predicted s':>21} "
                     f"{'by time':>7} {'$/job':>21}  bottleneck (phase: resource)")
        for r in shown:
            flag = "* " if r["best"] else ("f " if r["fastest"] else "  ")
            secs = (f"{_s(r['seconds'])} ({_s(r['seconds_range'][0])}-{_s(r['seconds_range'][1])})"
                    if "seconds_range" in r else _s(r["seconds"]))
            cost = (f"{_usd(r['usd_per_job'])} ({_usd(r['usd_range'][0])}-{_usd(r['usd_range'][1])})"
                    if "usd_range" in r else _usd(r["usd_per_job"]))
            lines.append(f"  {flag}{r['cloud']:<6} {r['instance']:<20} {r['storage']:<22} {r['nodes']:>5} {secs:>21} "
                         f"{'#' + str(r['rank_seconds']):>7} {cost:>21}  {r['bottleneck']}")
    lines.append("(* the cheapest within 10% of the fastest runtime; f the fastest; cheapest first, 'by time' the place "
                 "by runtime; $/job: the "
                 "instances' hours + storage pro-rated to the runtime + requests; assumptions: docs/cloud.md)")
    return lines


def _pct(x) -> str:
    return "n/a" if x is None else f"{x:+.0%}"


def text_lines(out: dict) -> list[str]:
    v = out["validation"]
    lines = [n for n in (out["size"]["note"], out["size"].get("estimate_note")) if n] if "size" in out else []
    lines += [f"calibrated on: {', '.join(out['calibrated_on'])}"
             + (f"; devices of unknown speed (not used): {', '.join(out['unknown_devices'])}" if out["unknown_devices"] else "")]
    if v["hardware"]:
        lines.append(f"reproducing the measured configurations (each from the others): median |error| "
                     f"{v['hardware_median_abs_error']:.0%} over {len(v['hardware'])} jobs x configurations")
        for r in v["hardware"]:
            lines.append(f"  {r['job']:<24} {r['config']:<14} predicted {r['predicted_s']:8.1f} s  measured "
                         f"{r['measured_s']:8.1f} s  {_pct(r['error'])}")
    else:
        lines.append("no error estimate across hardware: one configuration has devices of known speed (measure a "
                     "second one, e.g. on an emulated HDD, to get one)")
    if v["size"]:
        lines.append(f"reproducing the largest size from the smaller ones: median |error| {v['size_median_abs_error']:.0%}")
        for r in v["size"]:
            lines.append(f"  {r['job']:<24} {r['config']:<14} {format_size(r['size_bytes']):>8}: predicted "
                         f"{r['predicted_s']:8.1f} s  measured {r['measured_s']:8.1f} s  {_pct(r['error'])}")
    if not out["predictions"]:
        return lines + _published_lines(out)
    lines.append("")
    jw = max([len(r["job"]) for r in out["predictions"]] + [3])
    hw = max([len(r["hardware"]) for r in out["predictions"]] + [8])
    lines.append(f"{'job':<{jw}} {'hardware':<{hw}} {'nodes':>5} {'size':>8} {'predicted':>11} {'interval':>19} "
                 f"{'MB/s':>8} {'jobs/day':>9} {'$/job':>8}  bottleneck (phase: resource)")
    for r in out["predictions"]:
        cost = (f"{r['jobs_per_day']:9.1f} {r['usd_per_job']:8.2f}" if "usd_per_job" in r else f"{'-':>9} {'-':>8}")
        span = f"{r['interval'][0]:,.1f}-{r['interval'][1]:,.1f} s" if r.get("interval") else "-"
        lines.append(f"{r['job']:<{jw}} {r['hardware']:<{hw}} {r['nodes']:>5} {format_size(r['size_bytes']):>8} "
                     f"{r['seconds']:9.1f} s {span:>19} {r['mb_s'] or 0:8.1f} {cost}  {r['bottleneck']}")
    used = [f"{m}: {w}" for m, w in dict.fromkeys((r.get("method", "resource model"), r.get("interval_from") or
                                                   "its error reproducing the measured configurations")
                                                  for r in out["predictions"])]
    lines.append(f"($/job: hardware price over {out['years']:g} years of back-to-back jobs; interval, {'; '.join(used)}; "
                 f"methods and assumptions: docs/model.md)")
    lines += sorted({f"note: {r['job']} on {r['hardware']}: {r['cpu_borrowed']}" for r in out["predictions"]
                     if r.get("cpu_borrowed")})
    return lines + _published_lines(out)


def _label(row: dict) -> str:
    return row.get("label", "predicted")


def _published_lines(out: dict) -> list[str]:
    if "published" not in out:
        return []
    pub = out["published"]
    lines = ["", "the published studies on their cluster at their sizes, predicted from this study's runs "
             "(method: the scale model when the runs model that cluster at that size, else the resource model)"]
    if not pub["runtimes"]:
        lines.append("  none: the study has none of dfsio-write, dfsio-read, teragen, terasort")
    for r in pub["runtimes"]:
        span = "({:,.0f}-{:,.0f})".format(*r["interval"]) if r["interval"] else "(no interval)"
        lines.append(f"  {r['study']:<23} {r['workload']:<11} {r['config']:<26} published {r['published_s']:>8,.0f} s  "
                     f"predicted {r['predicted_s']:>8,.0f} s {span}  {_pct(r['error'])}  {r['method']}, {_label(r)}")
    for r in pub["ratios"]:
        span = "({:.2f}-{:.2f})".format(*r["interval"]) if r["interval"] else "(no interval)"
        lines.append(f"  {r['study']:<23} {r['workload']:<11} {r['compared']:<36} published {r['published_ratio']:5.2f}  "
                     f"predicted {r['predicted_ratio']:5.2f} {span}  {_pct(r['error'])}  {_label(r)}")
    for r in pub["ranks"]:
        lines.append(f"  {r['study']:<23} {r['workload']:<11} order fastest first: published {' < '.join(r['published'])}; "
                     f"predicted {'the same' if r['predicted_order'] == ' < '.join(r['published']) else r['predicted_order']}"
                     f"{'' if r['right'] else ' (reversed: ' + ', '.join(f'{a} / {b}' for a, b in r['reversed']) + ')'}")
    s = pub["summary"]
    for key, what in (("ratios", "ratios to all-HDD"), ("runtimes", "runtimes")):
        if key in s:
            left = ", ".join(f"{n} {kind}" for kind, n in s[key].get("left_out", {}).items())
            lines.append(f"  {what} (predicted rows only{'; not counted: ' + left if left else ''}): median |error| "
                         f"{s[key]['median_abs_error']:.0%}, largest {s[key]['max_abs_error']:.0%}, "
                         f"{s[key]['within']} of {s[key]['of']} within {s[key]['bound']:.0%}")
    if "ranks" in s:
        lines.append(f"  order of the configurations: right in {s['ranks']['right']} of {s['ranks']['of']}")
    lines += [f"  not covered: {m}" for m in pub["not_covered"]]
    return lines
