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

docs: README.md, docs/spec.md (study spec), docs/results.md (record schema, metrics)
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tierbench",
        description="Which storage should your Spark/Hadoop cluster run on, and what does each choice cost per job? "
                    "tierbench runs the standard storage benchmarks (TestDFSIO, TeraGen/TeraSort/TeraValidate) on a real "
                    "Spark engine against each storage configuration of a study, repeats them, records every run and "
                    "writes a report with statistics and charts.",
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
            default = "none" if p.default is None else (format_size(p.default) if p.kind == "size" else p.default)
            print(f"    {p.name:<12} {p.kind:<6} default {default}: {p.doc}")
        print(f"    metrics: {', '.join(f'{m} [{METRICS[m].unit}]' for m in w.metrics)}")
        print()
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
