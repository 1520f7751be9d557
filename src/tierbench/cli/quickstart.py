"""tierbench quickstart: the built-in quick study: on emulated HDD and SSD devices where this machine can emulate
them (root; cgroup v1 blkio and memory, or v2 io and memory), else on local directories under --out."""

import sys
import tomllib
from importlib import resources
from pathlib import Path

from .run import add_allow_mixed, run_study

EMULATED, LOCAL = "quickstart-emulated.toml", "quickstart.toml"


DESCRIPTION = """\
The SanDisk 2014 TeraSort study (TeraGen + TeraSort of 1 TB on six nodes) as a scale model on this machine:
all-HDD vs. HDDs with an SSD for intermediate data vs. all-SSD, on emulated 2014 drives sized by this
machine's measured TeraSort rate, 3 repeats (docs/scale-model.md).

Takes about 6 minutes on 2 cores. Needs root and the cgroup v1 blkio and memory controllers, or cgroup v2's io and
memory; without them (or with --local) it says why and runs a shorter study on local directories under --out: one
directory for
everything vs. separate data and intermediate directories, DFSIO and TeraGen/Sort/Validate, 2 repeats.

At the end it prints where report.html, report.md and the runs (runs.jsonl) are."""

EPILOG = """\
examples:
  tierbench quickstart                 # results in ./tierbench-results/quickstart
  tierbench quickstart --resume        # continue an interrupted quickstart
  tierbench quickstart --local --out results/local   # the local study"""


def add_parser(subparsers):
    q = subparsers.add_parser("quickstart", help="the built-in HDD vs. SSD study, about 6 minutes",
                              description=DESCRIPTION, epilog=EPILOG)
    q.add_argument("--out", metavar="DIR", default="tierbench-results/quickstart",
                   help="where the results (and the local study's data) go (default: %(default)s)")
    q.add_argument("--resume", action="store_true", help="continue an interrupted quickstart")
    q.add_argument("--local", action="store_true", help="the local-directories study even where devices can be "
                   "emulated")
    add_allow_mixed(q)
    return q


LOCAL_STUDY = "the local-directories study (one directory vs. separate data and intermediate directories)"


def choose(local: bool) -> str:
    """The built-in spec for this machine, said in one line with why (what it can emulate, or why it cannot)."""
    from ..errors import UserError
    from ..scale.memory_budget import can_budget
    from ..storage.cgroups import current
    from ..storage.emulation import check_can_emulate

    if local:
        print(f"tierbench: the quickstart runs {LOCAL_STUDY}: --local asks for it", file=sys.stderr)
        return LOCAL
    try:
        check_can_emulate()
        why = can_budget()
        if why:
            raise UserError(f"the scale model's {why.removeprefix('a ')}")
    except UserError as e:
        print(f"tierbench: the quickstart runs {LOCAL_STUDY}: {e}", file=sys.stderr)
        return LOCAL
    h = current()
    print(f"tierbench: the quickstart runs the scale model study on emulated HDD and SSD devices: this machine has "
          f"root and {h.name} with {'blkio' if h.io_name == 'blkio' else 'io'} and memory", file=sys.stderr)
    return EMULATED


def run(args) -> int:
    which = choose(args.local)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath(which).read_text())
    out_dir = Path(args.out).resolve()
    return run_study(f"quickstart (built in: {which})", str(out_dir), args.resume, base_dir=out_dir, raw=raw,
                     allow_mixed=args.allow_mixed)
