"""tierbench report DIR: re-render report.html and report.md from stored results."""


def add_parser(subparsers):
    rep = subparsers.add_parser("report", help="re-render report.html and report.md from stored results (offline)")
    rep.add_argument("dir", help="a results directory")
    rep.add_argument("--allow-mixed", action="store_true", help="pool runs recorded on different machines or with "
                     "different engine or tierbench versions (refused otherwise; the report warns)")
    return rep


def run(args) -> int:
    from ..report import render_report

    html_path, md_path = render_report(args.dir, allow_mixed=args.allow_mixed)
    print(f"report: {html_path.resolve()}\n        {md_path.resolve()}")
    return 0
