"""tierbench results DIR: every run record as JSON or CSV on stdout."""

import sys


def add_parser(subparsers):
    res = subparsers.add_parser("results", help="print every run record as JSON or CSV",
                                description="Prints every run record of a results folder on stdout. JSON is the "
                                            "canonical form (a list of the records as stored; their fields: "
                                            "docs/results.md); CSV has one row per run with the metrics as "
                                            "metrics.<name> columns, for a spreadsheet or pandas.",
                                epilog="examples:\n"
                                       "  tierbench results tierbench-results/quickstart > runs.json\n"
                                       "  tierbench results tierbench-results/quickstart --format csv > runs.csv")
    res.add_argument("dir", help="a results folder (tierbench run --out)")
    res.add_argument("--format", choices=("json", "csv"), default="json", help="output format (default: json)")
    return res


def run(args) -> int:
    from ..store import ResultsDir

    records = ResultsDir(args.dir).records()  # first: a folder it refuses is refused before the report's imports (seconds)
    from ..report.render import EXPORTERS

    sys.stdout.write(EXPORTERS[args.format].dump(records))
    return 0
