"""tierbench report DIR: re-render report.html and report.md from stored results."""

from ..errors import UserError


def add_parser(subparsers):
    rep = subparsers.add_parser("report", help="re-render report.html and report.md from stored results (offline)")
    rep.add_argument("dir", help="a results directory")
    rep.add_argument("--allow-mixed", action="store_true", help="pool runs recorded on different machines or with "
                     "different engine or tierbench versions (refused otherwise; the report warns)")
    return rep


def run(args) -> int:
    from ..report import render_report
    from ..report.render import ReportNotWritten

    try:
        html_path, md_path = render_report(args.dir, allow_mixed=args.allow_mixed)
    except ReportNotWritten as e:  # (a read-only folder, a directory where the report goes, a full disk)
        raise UserError(f"cannot write the report {e.filename}: {e.strerror}; the results folder must be writable and "
                        "report.html and report.md files (or absent)") from None
    print(f"report: {html_path.resolve()}\n        {md_path.resolve()}")
    return 0
