"""tierbench results DIR: every run record as JSON or CSV on stdout."""

import sys


def add_parser(subparsers):
    res = subparsers.add_parser("results", help="export every run record as JSON or CSV",
                                description="Print all run records of a results directory. JSON is the canonical form (a list "
                                            "of records as stored, schema in docs/results.md); CSV has one row per run with "
                                            "the metrics as metrics.<name> columns.")
    res.add_argument("dir", help="a results directory")
    res.add_argument("--format", choices=("json", "csv"), default="json", help="output format (default: json)")
    return res


def run(args) -> int:
    from ..store import ResultsDir

    records = ResultsDir(args.dir).records()  # first: a folder it refuses is refused before the report's imports (seconds)
    from ..report.render import EXPORTERS

    sys.stdout.write(EXPORTERS[args.format].dump(records))
    return 0
