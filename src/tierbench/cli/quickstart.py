"""tierbench quickstart: the built-in quick study: on emulated HDD and SSD devices where this machine can emulate
them (root, cgroup-v1 blkio), else on local directories under --out."""

import sys
import tomllib
from importlib import resources
from pathlib import Path

from .run import add_allow_mixed, run_study

EMULATED, LOCAL = "quickstart-emulated.toml", "quickstart.toml"


def add_parser(subparsers):
    q = subparsers.add_parser("quickstart", help="run the built-in quick study (emulated HDD vs. SSD where it can, else local dirs)",
                              description="Where this machine can emulate devices (root and the cgroup-v1 blkio controller): "
                                          "the SanDisk 2014 TeraSort study (1 TB on six nodes) as a scale model on one machine "
                                          "(docs/scale-model.md) -- all-HDD vs. HDD with an SSD for intermediate data vs. "
                                          "all-SSD, on emulated 2014 drives (sized by this machine's TeraSort rate, "
                                          "measured first and again after: whether it held), a page cache budget, durable writes, Hadoop's "
                                          "TeraGen + TeraSort (the jobs the study timed), 3 repeats. Elsewhere: two configurations on local "
                                          "directories under --out (one directory for everything vs. separate data and "
                                          "intermediate directories, the intermediate one split in 4), DFSIO write + read and "
                                          "TeraGen + TeraSort + TeraValidate, 2 repeats; it says why.")
    q.add_argument("--out", default="tierbench-results/quickstart", help="where the results (and local data) go (default: %(default)s)")
    q.add_argument("--resume", action="store_true", help="continue an interrupted quickstart")
    q.add_argument("--local", action="store_true", help="the local-directories study even where devices can be emulated")
    add_allow_mixed(q)
    return q


def choose(local: bool) -> str:
    """The built-in spec for this machine, saying why when it cannot emulate devices."""
    from ..errors import UserError
    from ..storage.emulation import check_can_emulate

    if local:
        return LOCAL
    try:
        check_can_emulate()
    except UserError as e:
        print(f"tierbench: the quickstart runs on local directories: {e}", file=sys.stderr)
        return LOCAL
    return EMULATED


def run(args) -> int:
    which = choose(args.local)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath(which).read_text())
    out_dir = Path(args.out).resolve()
    return run_study(f"quickstart (built in: {which})", str(out_dir), args.resume, base_dir=out_dir, raw=raw,
                     allow_mixed=args.allow_mixed)
