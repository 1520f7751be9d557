"""tierbench cost: cost per job for a runtime and a price, or a published cost table recomputed."""

import json

from .. import bounds
from ..errors import UserError


DESCRIPTION = """\
What-if pricing without running anything, with the published studies' formulas (the price: hardware only):
  jobs/day = 86400 / runtime in seconds x utilisation
  jobs in N years = jobs/day x 365 x N;  $/job = price / jobs in N years
--reference recomputes a published cost table from its runtimes and prices and checks every figure."""

EPILOG = """\
examples:
  tierbench cost --runtime-s 11589 --price-usd 37561   # $4.60 per job over 3 years
  tierbench cost --runtime-s 485 --price-usd 46567 --years 5 --json
  tierbench cost --reference sandisk_testdfsio_2014    # a published table, recomputed"""


def add_parser(subparsers):
    c = subparsers.add_parser("cost", help="$/job for a runtime and a price, or a published table",
                              description=DESCRIPTION, epilog=EPILOG)
    # the numbers are read by bounds.named, not argparse's float: one line for "abc", and nan/inf refused
    c.add_argument("--runtime-s", metavar="SECONDS", help=f"one job's runtime, seconds ({bounds.RUNTIME_S.text()})")
    c.add_argument("--price-usd", metavar="USD", help="the configuration's price, USD (hardware; "
                   f"{bounds.PRICE_USD.text()})")
    c.add_argument("--years", metavar="YEARS", default=3, help="period of use, years (default: 3; "
                   f"{bounds.YEARS.text()})")
    c.add_argument("--utilisation", metavar="SHARE", default=1.0, help="share of the period spent running the job, "
                   f"0-1 (default: 1; {bounds.UTILISATION.text()})")
    c.add_argument("--reference", metavar="[FILE#]SECTION", help="recompute a published table: a SECTION of the "
                   "studies' tables shipped with tierbench (sandisk_testdfsio_2014, sandisk_terasort_2014), or "
                   "FILE#SECTION of your own file")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return c


def run(args) -> int:
    from ..analysis.cost import cost_per_job
    from ..analysis.reference import FIGURES, recompute

    years = bounds.named("years", args.years, bounds.YEARS, "--years")
    utilisation = bounds.named("utilisation", args.utilisation, bounds.UTILISATION, "--utilisation")
    if args.reference:
        rows, note = recompute(args.reference, years)
        if args.json:
            print(json.dumps([r.__dict__ for r in rows], indent=2))
        else:
            print(f"{args.reference} ({note})")
            print(f"{'config':<44} {'runtime s':>10} {'price $':>9} {'jobs/day':>20} {'jobs in 3 years':>24} {'$/job':>14}  check")
            for r in rows:
                cells = [f"{r.shown(f, 'computed')} ({r.shown(f, 'published')})" for f in FIGURES]
                worst = "MISMATCH" if "MISMATCH" in r.status.values() else ("last digit" if "last digit" in r.status.values() else "exact")
                print(f"{r.config + ' ' + r.column:<44} {r.runtime_s:>10g} {r.price_usd:>9g} {cells[0]:>20} {cells[1]:>24} {cells[2]:>14}  {worst}")
            print("computed (published); 'last digit': one unit off in the last published digit")
        return 1 if any("MISMATCH" in r.status.values() for r in rows) else 0
    if args.runtime_s is None or args.price_usd is None:
        raise UserError("cost: give --runtime-s and --price-usd (or --reference FILE#SECTION)")
    c = cost_per_job(bounds.named("runtime_s", args.runtime_s, bounds.RUNTIME_S, "--runtime-s"),
                     bounds.named("price_usd", args.price_usd, bounds.PRICE_USD, "--price-usd"), years, utilisation)
    if args.json:
        print(json.dumps(c.to_dict(), indent=2))
    else:
        print(f"runtime              {c.runtime_s:g} s")
        print(f"price                ${c.price_usd:,.2f}")
        print(f"jobs per day         {c.jobs_per_day:,.2f}   (86400 / runtime x utilisation {c.utilisation:g})")
        print(f"jobs in {c.years:g} years      {c.jobs_in_period:,.2f}")
        print(f"$ per job            ${c.usd_per_job:,.4f}   (hardware only)")
    return 0
