"""tierbench quickstart: the built-in quick study on local directories under --out."""

import tomllib
from importlib import resources
from pathlib import Path

from .run import add_allow_mixed, run_study


def add_parser(subparsers):
    q = subparsers.add_parser("quickstart", help="run the built-in quick study on local directories",
                              description="Two storage configurations on local directories under --out (one directory for "
                                          "everything vs. separate data and intermediate directories, the intermediate one "
                                          "split in 4), DFSIO write + read and TeraGen + TeraSort + TeraValidate, 2 repeats.")
    q.add_argument("--out", default="tierbench-results/quickstart", help="where the data and results go (default: %(default)s)")
    q.add_argument("--resume", action="store_true", help="continue an interrupted quickstart")
    add_allow_mixed(q)
    return q


def run(args) -> int:
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    out_dir = Path(args.out).resolve()
    return run_study("quickstart (built in)", str(out_dir), args.resume, base_dir=out_dir, raw=raw, allow_mixed=args.allow_mixed)
