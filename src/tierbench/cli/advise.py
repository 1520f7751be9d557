"""tierbench advise: which tier for data and intermediate data, the SSD's split and size, which knob -- with numbers."""

import argparse
import json

from ..errors import UserError
from ..units import parse_size


def add_parser(subparsers):
    c = subparsers.add_parser(
        "advise", help="which tier for data and for intermediate data, SSD split and size, which knob: with the numbers",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="From a study's runs and the what-if model (tierbench predict): the jobs predicted on one "
                    "cluster shape (--hardware, default the SanDisk 2014 cluster: 6 nodes x 2 drives) as all-HDD, "
                    "HDD + one SSD per node for intermediate data, and all-SSD; the directories to split an SSD into "
                    "beside HDDs so round-robin loads each by its speed; the SSD space intermediate data needs per "
                    "node (measured intermediate bytes at --size); and what each swept knob did, measured.",
        epilog="examples:\n"
               "  tierbench advise tierbench-results/quickstart\n"
               "  tierbench advise RESULTS --hardware my-cluster.toml --size 10TB --json")
    c.add_argument("results", nargs="+", help="a study's results directory, or several of one machine")
    c.add_argument("--hardware", metavar="HW.toml", help="the cluster shape (a file or a shipped name; default "
                   "sandisk-all-hdd): its nodes, cores, network and drive count are kept, its drives are varied")
    c.add_argument("--size", help="the data size to advise for, e.g. 1TB (default: the largest measured)")
    c.add_argument("--json", action="store_true", help="print JSON")
    return c


def run(args) -> int:
    from ..model.advise import advise
    from ..model.hardware import load_hardware
    from ..model.whatif import study_model

    try:
        size = parse_size(args.size) if args.size else None
    except ValueError as e:
        raise UserError(f"--size: {e}") from None
    hw = load_hardware(args.hardware) if args.hardware else None
    model, _, _ = study_model(args.results)
    items = advise(model, hw, size)
    if args.json:
        print(json.dumps([a.to_dict() for a in items], indent=2))
        return 0
    for a in items:
        print(f"{a.topic}: {a.advice}")
        for n in a.numbers:
            print(f"    {n}")
    return 0
