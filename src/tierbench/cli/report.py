"""tierbench report DIR: re-render report.html and report.md from stored results."""

from ..errors import UserError


DESCRIPTION = """\
Writes report.html and report.md again from a study's recorded runs (runs.jsonl and study.json in its results
folder), offline: nothing is run. Use it after an upgrade of tierbench, after copying results from another
machine, or when a study's own report could not be written. What the report shows: docs/reports.md."""

EPILOG = """\
examples:
  tierbench report tierbench-results/quickstart
  tierbench report results/quick --allow-mixed   # runs of two machines pooled (it warns)"""


def add_parser(subparsers):
    rep = subparsers.add_parser("report", help="re-render a study's report from its results, offline",
                                description=DESCRIPTION, epilog=EPILOG)
    rep.add_argument("dir", help="a results folder (tierbench run --out)")
    rep.add_argument("--allow-mixed", action="store_true", help="pool runs recorded on different machines or with "
                     "different engine or tierbench versions (refused otherwise; the report warns)")
    return rep


def render(results_dir, allow_mixed: bool = False):
    """report.html and report.md written, or one line saying why not (the runs stay recorded either way)."""
    from ..report import render_report  # numpy/scipy/matplotlib: only once there is something to report
    from ..report.render import ReportNotWritten

    try:
        return render_report(results_dir, allow_mixed=allow_mixed)
    except ReportNotWritten as e:  # (a read-only folder, a directory where the report goes, a full disk)
        raise UserError(f"cannot write the report {e.filename}: {e.strerror}; the runs are recorded: make room or make "
                        "the folder writable (report.html and report.md files, or absent), then tierbench report") from None


def run(args) -> int:
    html_path, md_path = render(args.dir, allow_mixed=args.allow_mixed)
    print(f"report: {html_path.resolve()}\n        {md_path.resolve()}")
    return 0
