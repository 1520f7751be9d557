"""tierbench probe SPEC: each storage directory's device measured with fio, stored with the study's results."""

import sys
from pathlib import Path

from .. import bounds


DESCRIPTION = """\
Runs fio on the device behind every storage directory of a spec: sequential write and read (1 MiB blocks,
O_DIRECT, queue depth 8) and random 64 KiB reads. Its files go under tierbench's own folder there and are
deleted. The result is stored with the study's results, and the report then shows each run's throughput as a
share of its device's ceiling. A spec can also say probe = true to do this before its study."""

EPILOG = """\
examples:
  tierbench probe examples/quick.toml   # stored in ./tierbench-results/quick
  tierbench probe examples/quick.toml --size 1GB --out results/quick"""


def add_parser(subparsers):
    pr = subparsers.add_parser("probe", help="measure each storage directory's device with fio",
                               description=DESCRIPTION, epilog=EPILOG)
    pr.add_argument("spec", help="study spec (TOML)")
    pr.add_argument("--out", metavar="DIR", help="the study's results folder, where the probe is stored (default: "
                    "./tierbench-results/<study name>)")
    pr.add_argument("--size", default=None, help="data written and read per device and test, e.g. 256MB (default: "
                    f"the spec's probe.size or 256MB; {bounds.PROBE_SIZE.words()})")
    return pr


def run(args) -> int:
    from ..scale.derive import load_spec, parse_in
    from ..spec import read_spec
    from ..study.probe import probe_study

    # the option before the spec: a slip in it is one line whatever the spec holds (1 MiB: fio's blocks)
    size = bounds.option_size("--size", args.size, bounds.PROBE_SIZE) if args.size is not None else None
    spec = load_spec(args.spec)
    out = Path(args.out) if args.out else Path("tierbench-results") / spec.name
    raw, base_dir = read_spec(args.spec)
    spec = parse_in(raw, args.spec, base_dir, out)  # (its scratch in the roots of the study in `out`, as `run` names them)
    size = size or spec.probe_size
    result, where = probe_study(spec, out, size, on_phase=lambda t: print(t, file=sys.stderr))
    print(f"{'device':<12} {'seq write MB/s':>15} {'seq read MB/s':>14} {'rand 64K MB/s':>14} {'IOPS':>8}  directories")
    for dev, p in result.items():
        t = p.get("tests", {})
        g = lambda k, f: f"{t[k][f]:.0f}" if k in t else "–"
        print(f"{dev:<12} {g('seq_write', 'mb_s'):>15} {g('seq_read', 'mb_s'):>14} {g('rand_read_64k', 'mb_s'):>14} "
              f"{g('rand_read_64k', 'iops'):>8}  {', '.join(p['dirs'])}" + ("" if p.get("direct_io") else "  (buffered: O_DIRECT refused)")
              + (f"  error: {p['error']}" if p.get("error") else ""))
    print(f"stored in {where}")
    return 0
