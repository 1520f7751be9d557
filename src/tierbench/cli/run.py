"""tierbench run SPEC: run a study and write its report."""

import sys
from pathlib import Path


DESCRIPTION = """\
Checks the whole spec first (a mistake is one line naming the field and what it accepts), then runs every
repeat x storage configuration x workload, records each run the moment it ends and writes report.html and
report.md in the results folder. An interrupted study continues with --resume: the runs already recorded are
kept. The spec's format: docs/spec.md; examples/ has specs to start from."""

EPILOG = """\
examples:
  tierbench run examples/quick.toml                # in ./tierbench-results/quick
  tierbench run examples/quick.toml --out results/quick
  tierbench run examples/quick.toml --out results/quick --resume   # after a stop"""


def add_parser(subparsers):
    r = subparsers.add_parser("run", help="run a study from a spec file and write its report",
                              description=DESCRIPTION, epilog=EPILOG)
    r.add_argument("spec", help="study spec (TOML); see examples/ and docs/spec.md")
    r.add_argument("--out", metavar="DIR", help="results folder (default: ./tierbench-results/<study name>)")
    r.add_argument("--resume", action="store_true", help="continue an interrupted study: the runs already "
                   "recorded ok are kept, not run again")
    r.add_argument("--unemulated", action="store_true", help="run a spec's emulated devices (data = { emulate = ... "
                   "}) as plain directories on this machine's disk, where devices cannot be emulated (no root or no "
                   "blkio); the report says so")
    add_allow_mixed(r)
    return r


def add_allow_mixed(p) -> None:
    p.add_argument("--allow-mixed", action="store_true", help="with --resume: pool new runs with runs recorded on "
                   "another machine or by another tierbench version (refused otherwise; the report warns)")


def run(args) -> int:
    return run_study(args.spec, args.out, args.resume, allow_mixed=args.allow_mixed, unemulated=args.unemulated)


def run_study(spec_path: str, out: str | None, resume: bool, base_dir: Path | None = None, raw=None,
              allow_mixed: bool = False, unemulated: bool = False) -> int:
    """Run the study in spec_path (or the already-read TOML `raw`, named spec_path), render its report, say where."""
    from ..scale.study import run_study as run_in_folder
    from ..spec import read_spec

    if raw is None:
        raw, base_dir = read_spec(spec_path)
    # (the folder before the spec is parsed: its id names the study's devices and data roots; an invalid name is
    # refused by the parse, before anything is made)
    out_dir = Path(out) if out else Path("tierbench-results") / str(raw.get("name", "study"))
    command_line = [Path(sys.argv[0]).name] + sys.argv[1:]
    results = run_in_folder(raw, spec_path, base_dir, out_dir, command_line, resume, allow_mixed, unemulated)
    from .report import render

    html_path, md_path = render(results.path, allow_mixed=allow_mixed)
    records = results.records()
    failed = {r["run_key"] for r in records if r["status"] != "ok"} - {r["run_key"] for r in records if r["status"] == "ok"}
    print(f"\nreport: {html_path.resolve()}")
    print(f"        {md_path.resolve()}")
    print(f"runs:   {results.runs_file.resolve()}")
    if failed:
        print(f"{len(failed)} run(s) failed; see the report. Re-run them with: tierbench run {spec_path} --out {out_dir} --resume", file=sys.stderr)
        return 1
    return 0
