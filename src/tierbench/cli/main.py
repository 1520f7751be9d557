"""tierbench's command line: thin; each verb parses, calls the library, prints."""

import argparse
import os
import sys
import tomllib
from importlib import resources
from pathlib import Path

from .. import __version__
from ..errors import UserError

EPILOG = """\
examples:
  tierbench quickstart                         a 2-config x 5-workload study on local dirs, with a report
  tierbench run examples/quick.toml            run your own study (results in ./tierbench-results/<name>)
  tierbench run study.toml --resume            continue a study that was interrupted
  tierbench report tierbench-results/quick     re-render the report from stored results, offline
  tierbench results tierbench-results/quick --format csv > runs.csv
  tierbench workloads                          what can run, with parameters and metrics
  tierbench probe study.toml                   measure the study's devices with fio (ceilings for the report)
  tierbench cost --runtime-s 11589 --price-usd 37561    $/job over 3 years, without running anything
  tierbench services up yarn                   an embedded YARN on 127.0.0.1 for the hadoop engine

docs: README.md, docs/spec.md (study spec, engines, cost), docs/results.md (record schema, metrics, IO profile)
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tierbench",
        description="Which storage should your Spark/Hadoop cluster run on, and what does each choice cost per job? "
                    "tierbench runs the standard storage benchmarks (TestDFSIO, TeraGen/TeraSort/TeraValidate) on real "
                    "engines (Spark, or Hadoop's own jars locally or on YARN) against each storage configuration of a "
                    "study, repeats them, samples the devices, records every run and writes a report with statistics, "
                    "IO profiles, cost per job and charts.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tierbench {__version__}")
    sub = p.add_subparsers(dest="verb", metavar="COMMAND")

    r = sub.add_parser("run", help="run a study from a spec file and write its report",
                       description="Validate the spec in full, then run every (repeat x configuration x workload), "
                                   "recording each run the moment it ends, and write report.html and report.md.")
    r.add_argument("spec", help="study spec (TOML); see examples/ and docs/spec.md")
    r.add_argument("--out", help="results directory (default: ./tierbench-results/<study name>)")
    r.add_argument("--resume", action="store_true", help="continue an interrupted study: skip runs already recorded ok")

    q = sub.add_parser("quickstart", help="run the built-in quick study on local directories",
                       description="Two storage configurations on local directories under --out (one directory for "
                                   "everything vs. separate data and intermediate directories, the intermediate one "
                                   "split in 4), DFSIO write + read and TeraGen + TeraSort + TeraValidate, 2 repeats.")
    q.add_argument("--out", default="tierbench-results/quickstart", help="where the data and results go (default: %(default)s)")
    q.add_argument("--resume", action="store_true", help="continue an interrupted quickstart")

    rep = sub.add_parser("report", help="re-render report.html and report.md from stored results (offline)")
    rep.add_argument("dir", help="a results directory")

    res = sub.add_parser("results", help="export every run record as JSON or CSV",
                         description="Print all run records of a results directory. JSON is the canonical form (a list "
                                     "of records as stored, schema in docs/results.md); CSV has one row per run with "
                                     "the metrics as metrics.<name> columns.")
    res.add_argument("dir", help="a results directory")
    res.add_argument("--format", choices=("json", "csv"), default="json", help="output format (default: json)")

    sub.add_parser("workloads", help="list the workloads, their parameters, metrics and engines")

    pr = sub.add_parser("probe", help="measure each storage directory's device with fio (ceilings for the report)",
                        description="Runs fio on the device behind every directory of a spec: sequential write and read "
                                    "(1 MiB, O_DIRECT, queue depth 8) and random 64 KiB reads. Files go under tierbench's "
                                    "namespaced root and are deleted. The result is stored with the study's results, and "
                                    "the report then shows each run's throughput as a share of its device's ceiling. "
                                    "A spec can also say probe = true to do this before a study.")
    pr.add_argument("spec", help="study spec (TOML)")
    pr.add_argument("--out", help="results directory (default: ./tierbench-results/<study name>)")
    pr.add_argument("--size", default=None, help="bytes per device test, e.g. 256MB (default: the spec's probe.size or 256MB)")

    sv = sub.add_parser("services", help="start, stop or inspect real local servers (yarn, spark) on 127.0.0.1",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Real servers for trying tierbench on one machine, each in its own directory with "
                                    "its configuration, logs and pid files. Bound to 127.0.0.1 only.\n"
                                    "  yarn   ResourceManager + NodeManager (Hadoop 3.4.2); its conf dir is what a\n"
                                    "         hadoop engine in mode = \"yarn\" submits with\n"
                                    "  spark  a Spark standalone Master + --workers Workers (pyspark's own); a spark\n"
                                    "         engine with master = \"spark://127.0.0.1:PORT\" runs on it\n"
                                    "  hdfs   a NameNode + --datanodes DataNodes (Hadoop 3.4.2): data = { type = \"hdfs\", ... }\n"
                                    "  s3     a single-node Ceph (mon, mgr, OSD, radosgw) with an S3 user and bucket:\n"
                                    "         data = { type = \"s3\", ... }; installs Ceph from Debian when root",
                        epilog="examples:\n"
                               "  tierbench services up yarn\n"
                               "  export HADOOP_CONF_DIR=$(tierbench services status yarn --conf-dir)\n"
                               "  tierbench services down yarn\n"
               "  tierbench services up spark --workers 2")
    sv.add_argument("action", choices=("up", "down", "status"))
    sv.add_argument("service", choices=("yarn", "spark", "hdfs", "s3"))
    sv.add_argument("--datanodes", type=int, default=2, help="hdfs: number of DataNodes (default: 2)")
    sv.add_argument("--port", type=int, help="hdfs: the NameNode's RPC port; s3: radosgw's port; so that specs can name a fixed "
                    "address such as hdfs://127.0.0.1:8020 or http://127.0.0.1:7480 (default: a free port)")
    sv.add_argument("--datanode-dirs", type=int, default=1, help="hdfs: data dirs per DataNode (default: 1)")
    sv.add_argument("--data-dir", action="append", help="hdfs: where DataNodes keep their blocks (repeat for several "
                    "devices; DataNode i uses the i-th, round-robin; default: inside the service's directory)")
    sv.add_argument("--workers", type=int, default=2, help="spark: number of Workers (default: 2), 1 core and 1 GB each")
    sv.add_argument("--dir", help="the service's directory (default: ~/.cache/tierbench/services/NAME)")
    sv.add_argument("--conf-dir", action="store_true", help="status: print only the service's Hadoop conf dir")

    c = sub.add_parser("cost", help="cost per job for a runtime and a price, or recompute a published cost table",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="What-if pricing without running anything, with the studies' formulas:\n"
                                   "  jobs/day = 86400 / runtime_s x utilisation; jobs in N years = jobs/day x 365 x N;\n"
                                   "  $/job = price / jobs in N years.",
                       epilog="examples:\n"
                              "  tierbench cost --runtime-s 11589 --price-usd 37561\n"
                              "  tierbench cost --runtime-s 485 --price-usd 46567 --years 5 --json\n"
                              "  tierbench cost --reference ../shared/reference/seed_results.toml#sandisk_testdfsio_2014")
    c.add_argument("--runtime-s", type=float, help="one job's runtime in seconds")
    c.add_argument("--price-usd", type=float, help="the configuration's price in USD")
    c.add_argument("--years", type=float, default=3, help="period of use in years (default: 3)")
    c.add_argument("--utilisation", type=float, default=1.0, help="share of the period spent running the job (default: 1)")
    c.add_argument("--reference", metavar="FILE#SECTION", help="recompute a published table from a reference file")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return p


def _cmd_run(spec_path: str, out: str | None, resume: bool, base_dir: Path | None = None, raw=None) -> int:
    from ..spec import load_spec, parse_spec
    from ..runner import StudyRunner

    spec = parse_spec(raw, source=spec_path, base_dir=base_dir) if raw is not None else load_spec(spec_path)
    out_dir = Path(out) if out else Path("tierbench-results") / spec.name
    runner = StudyRunner(spec, out_dir, [Path(sys.argv[0]).name] + sys.argv[1:], resume=resume)
    results = runner.run()
    from ..report import render_report  # numpy/scipy/matplotlib: only once there is something to report

    html_path, md_path = render_report(results.path)
    records = results.records()
    failed = {r["run_key"] for r in records if r["status"] != "ok"} - {r["run_key"] for r in records if r["status"] == "ok"}
    print(f"\nreport: {html_path.resolve()}")
    print(f"        {md_path.resolve()}")
    print(f"runs:   {results.runs_file.resolve()}")
    if failed:
        print(f"{len(failed)} run(s) failed; see the report. Re-run them with: tierbench run {spec_path} --out {out_dir} --resume", file=sys.stderr)
        return 1
    return 0


def _cmd_quickstart(out: str, resume: bool) -> int:
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    out_dir = Path(out).resolve()
    return _cmd_run("quickstart (built in)", str(out_dir), resume, base_dir=out_dir, raw=raw)


def _cmd_workloads() -> int:
    from ..workloads import WORKLOADS, METRICS
    from ..units import format_size

    for w in WORKLOADS.values():
        flow = []
        if w.consumes:
            flow.append(f"reads {w.producer}'s output")
        if w.produces:
            flow.append(f"writes {w.produces}")
        print(f"{w.name}  ({w.title}; engines: {', '.join(w.engines)}{'; ' if flow else ''}{', '.join(flow)})")
        print(f"    {w.doc}")
        for p in w.params:
            default = "none" if p.default is None else (format_size(p.default) if p.kind == "size" else
                                                        str(p.default).lower() if p.kind == "bool" else repr(p.default) if p.kind == "text" else p.default)
            print(f"    {p.name:<12} {p.kind:<6} default {default}: {p.doc}")
        print(f"    metrics: {', '.join(f'{m} [{METRICS[m].unit}]' for m in w.metrics)}")
        print()
    return 0


def _cmd_probe(args) -> int:
    import json

    from ..sampling.probe import probe_dirs
    from ..spec import load_spec
    from ..storage import StudyLayout
    from ..storage.layout import study_root
    from ..store import ResultsDir
    from ..units import parse_size

    spec = load_spec(args.spec)
    try:
        size = parse_size(args.size) if args.size else spec.probe_size
    except ValueError as e:
        raise UserError(f"--size: {e}") from None
    layout = StudyLayout(spec)
    existed = {r for r in layout.roots if r.exists()}  # an interrupted study's data may be there: keep it
    layout.claim()
    dirs = {}
    for c in spec.storage:
        for d in (*c.local_data, *c.intermediate):
            dirs.setdefault(d, study_root(d, spec.name) / "_probe")
    result = probe_dirs(dirs, size, spec.probe_runtime_s, on_phase=lambda t: print(t, file=sys.stderr))
    layout.release(only=[r for r in layout.roots if r not in existed])
    out = Path(args.out) if args.out else Path("tierbench-results") / spec.name
    rd = ResultsDir(out)
    if rd.exists():
        rd.update_study(probe=result)
        where = rd.study_file
    else:
        rd.check_writable_as_new()
        out.mkdir(parents=True, exist_ok=True)
        where = out / "probe.json"
        where.write_text(json.dumps(result, indent=2))
    print(f"{'device':<12} {'seq write MB/s':>15} {'seq read MB/s':>14} {'rand 64K MB/s':>14} {'IOPS':>8}  directories")
    for dev, p in result.items():
        t = p.get("tests", {})
        g = lambda k, f: f"{t[k][f]:.0f}" if k in t else "–"
        print(f"{dev:<12} {g('seq_write', 'mb_s'):>15} {g('seq_read', 'mb_s'):>14} {g('rand_read_64k', 'mb_s'):>14} "
              f"{g('rand_read_64k', 'iops'):>8}  {', '.join(p['dirs'])}" + ("" if p.get("direct_io") else "  (buffered: O_DIRECT refused)")
              + (f"  error: {p['error']}" if p.get("error") else ""))
    print(f"stored in {where}")
    return 0


def _cmd_services(args) -> int:
    from ..services.base import default_dir
    from ..services.yarn import services

    home = Path(args.dir) if args.dir else default_dir(args.service)
    if args.workers < 1:
        raise UserError(f"--workers: at least 1, got {args.workers}")
    if args.port is not None and (args.service not in ("hdfs", "s3") or not 1 <= args.port <= 65535):
        raise UserError(f"--port: a port 1-65535 for hdfs or s3, got {args.port} for {args.service}")
    if args.service == "spark":
        svc = services()["spark"](home, workers=args.workers)
    elif args.service == "hdfs":
        if args.datanodes < 1 or args.datanode_dirs < 1:
            raise UserError("--datanodes and --datanode-dirs: at least 1")
        svc = services()["hdfs"](home, args.datanodes, args.datanode_dirs, args.data_dir, args.port)
    elif args.service == "s3":
        svc = services()["s3"](home, port=args.port)
    else:
        svc = services()[args.service](home)
    if args.action == "up" and args.service == "s3":
        st = svc.up(on_phase=lambda t: print(f"s3: {t}", file=sys.stderr))
        print(f"s3 is up: Ceph RGW at {st['endpoint']}, bucket {st['bucket']}")
        print(f"use it:  export AWS_ACCESS_KEY_ID=$(python3 -c \"import json;print(json.load(open('{st['credentials_file']}'))['access_key'])\")")
        print(f"         export AWS_SECRET_ACCESS_KEY=$(python3 -c \"import json;print(json.load(open('{st['credentials_file']}'))['secret_key'])\")")
        print(f"         and in a spec: data = {{ type = \"s3\", endpoint = \"{st['endpoint']}\", bucket = \"{st['bucket']}\", "
              "signing_algorithm = \"AWS4UnsignedPayloadSignerType\" }")
        print("stop it: tierbench services down s3")
        return 0
    if args.action == "up" and args.service == "hdfs":
        st = svc.up(on_phase=lambda t: print(f"hdfs: {t}", file=sys.stderr))
        print(f"hdfs is up: {st['uri']}, {st['live_datanodes']} DataNode(s) live")
        print(f"use it:  in a spec, data = {{ type = \"hdfs\", uri = \"{st['uri']}/tb\" }}")
        print(f"         (clients' conf: export HADOOP_CONF_DIR={st['conf_dir']})")
        print("stop it: tierbench services down hdfs")
        return 0
    if args.action == "up" and args.service == "spark":
        st = svc.up(on_phase=lambda t: print(f"spark: {t}", file=sys.stderr))
        print(f"spark is up: master {st['master_url']}, web UI {st['web']}, {st['workers_alive']} Worker(s) alive")
        print(f"use it:  in a spec, [engine] master = \"{st['master_url']}\"")
        print("stop it: tierbench services down spark")
        return 0
    if args.action == "up":
        st = svc.up(on_phase=lambda t: print(f"{args.service}: {t}", file=sys.stderr))
        print(f"{args.service} is up: ResourceManager {st['resourcemanager']}, web UI {st['web']}, "
              f"{st['nodes_running']} NodeManager(s) running")
        print(f"use it:  export HADOOP_CONF_DIR={st['conf_dir']}")
        print("         and in a spec: [engine] kind = \"hadoop\", mode = \"yarn\"")
        print(f"stop it: tierbench services down {args.service}")
        return 0
    if args.action == "down":
        print(f"{args.service}: {'stopped' if svc.down() else 'was not running'}")
        return 0
    st = svc.status()
    if args.service == "s3":
        state = "ready" if st["ready"] else ("starting or unhealthy" if any(st["pids"].values()) else "not running")
        print(f"s3: {state}; endpoint {st.get('endpoint') or '-'}, bucket {st.get('bucket') or '-'}; dir {st['dir']}")
        return 0 if st["ready"] else 3
    if args.service == "hdfs":
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["namenode_pid"] else "not running")
        print(f"hdfs: {state}; {st.get('uri') or '-'}, {st['live_datanodes']} DataNode(s) live; dir {st['dir']}")
        return 0 if st["ready"] else 3
    if args.service == "spark":
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["master_pid"] else "not running")
        print(f"spark: {state}; master {st.get('master_url', '-')}, {st['workers_alive']} Worker(s) alive; dir {st['dir']}")
        return 0 if st["ready"] else 3
    if args.conf_dir:
        print(st["conf_dir"])
    else:
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["resourcemanager_pid"] or st["nodemanager_pid"] else "not running")
        print(f"{args.service}: {state}; ResourceManager pid {st['resourcemanager_pid']}, NodeManager pid {st['nodemanager_pid']}, "
              f"{st['nodes_running']} node(s) running; dir {st['dir']}")
    return 0 if st["ready"] or args.conf_dir else 3


def _cmd_cost(args) -> int:
    import json

    from ..analysis.cost import cost_per_job
    from ..analysis.reference import FIGURES, recompute

    if args.reference:
        rows, note = recompute(args.reference, args.years)
        if args.json:
            print(json.dumps([r.__dict__ for r in rows], indent=2))
        else:
            print(f"{args.reference} ({note})")
            print(f"{'config':<44} {'runtime s':>10} {'price $':>9} {'jobs/day':>20} {'jobs in 3 years':>24} {'$/job':>14}  check")
            for r in rows:
                cells = [f"{r.shown(f, 'computed')} ({r.shown(f, 'published')})" for f in FIGURES]
                worst = "MISMATCH" if "MISMATCH" in r.status.values() else ("last digit" if "last digit" in r.status.values() else "exact")
                print(f"{r.config + ' ' + r.column:<44} {r.runtime_s:>10g} {r.price_usd:>9g} {cells[0]:>20} {cells[1]:>24} {cells[2]:>14}  {worst}")
            print("computed (published); 'last digit': one unit off in the last published digit")
        return 1 if any("MISMATCH" in r.status.values() for r in rows) else 0
    if args.runtime_s is None or args.price_usd is None:
        raise UserError("cost: give --runtime-s and --price-usd (or --reference FILE#SECTION)")
    c = cost_per_job(args.runtime_s, args.price_usd, args.years, args.utilisation)
    if args.json:
        print(json.dumps(c.to_dict(), indent=2))
    else:
        print(f"runtime              {c.runtime_s:g} s")
        print(f"price                ${c.price_usd:,.2f}")
        print(f"jobs per day         {c.jobs_per_day:,.2f}   (86400 / runtime x utilisation {c.utilisation:g})")
        print(f"jobs in {c.years:g} years      {c.jobs_in_period:,.2f}")
        print(f"$ per job            ${c.usd_per_job:,.4f}   (hardware only)")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.verb == "run":
            return _cmd_run(args.spec, args.out, args.resume)
        if args.verb == "quickstart":
            return _cmd_quickstart(args.out, args.resume)
        if args.verb == "report":
            from ..report import render_report

            html_path, md_path = render_report(args.dir)
            print(f"report: {html_path.resolve()}\n        {md_path.resolve()}")
            return 0
        if args.verb == "results":
            from ..report.export import EXPORTERS
            from ..store import ResultsDir

            sys.stdout.write(EXPORTERS[args.format](ResultsDir(args.dir).records()))
            return 0
        if args.verb == "workloads":
            return _cmd_workloads()
        if args.verb == "cost":
            return _cmd_cost(args)
        if args.verb == "services":
            return _cmd_services(args)
        if args.verb == "probe":
            return _cmd_probe(args)
        _parser().print_help()
        return 2
    except UserError as e:
        print(f"tierbench: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `tierbench workloads | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("\ntierbench: interrupted; finished runs are saved: continue with --resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
