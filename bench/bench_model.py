"""The what-if model against the published studies: `tierbench predict --published` on a study's results, as a
benchmark. Runs the quickstart (the SanDisk TeraSort study scaled to one machine; root, ~8 min) unless --from
names results run before, then prints every published runtime and ratio to all-HDD beside the prediction, the
error, each prediction's method (scale model or resource model) and interval, the configurations' order, and the
medians issue 34 judges the model by (ratios: median |error| <= 10%, each within 20%, every order right;
runtimes within 25%).

    .venv/bin/python bench/bench_model.py                      # runs the quickstart into --out first
    .venv/bin/python bench/bench_model.py --from tierbench-results/quickstart [--from another-study]

The published figures are the package's copy (analysis/published.toml).
"""

import argparse
import subprocess
import sys

from tierbench.model.published import compare
from tierbench.model.whatif import study_model, validate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="done", metavar="DIR", action="append",
                    help="results run before (repeat for several of one machine); run nothing")
    ap.add_argument("--out", default="/tmp/tierbench-bench-model", help="where the quickstart's results go")
    args = ap.parse_args()
    results = args.done or [args.out]
    if not args.done:
        subprocess.run([sys.executable, "-m", "tierbench", "quickstart", "--out", args.out], check=True)
    model, _, _ = study_model(results)
    out = compare(model, results, validate(model)["hardware_median_abs_error"])
    print(f"{'study':23} {'workload':11} {'configuration':26} {'published':>10} {'predicted':>10} {'interval':>15} "
          f"{'error':>6}  method, label")
    for r in out["runtimes"]:
        span = "{:,.0f}-{:,.0f}".format(*r["interval"]) if r["interval"] else "-"
        print(f"{r['study']:23} {r['workload']:11} {r['config']:26} {r['published_s']:>8,.0f} s {r['predicted_s']:>8,.0f} s "
              f"{span:>15} {r['error']:+6.0%}  {r['method']}, {r['label']}")
    print(f"\n{'study':23} {'workload':11} {'ratio':36} {'published':>9} {'predicted':>9} {'interval':>11} {'error':>6}  label")
    for r in out["ratios"]:
        span = "{:.2f}-{:.2f}".format(*r["interval"]) if r["interval"] else "-"
        print(f"{r['study']:23} {r['workload']:11} {r['compared']:36} {r['published_ratio']:9.2f} {r['predicted_ratio']:9.2f} "
              f"{span:>11} {r['error']:+6.0%}  {r['label']}")
    print()
    for r in out["ranks"]:
        print(f"order {r['study']} {r['workload']}: {'right' if r['right'] else 'WRONG'} "
              f"(published {' < '.join(r['published'])}; predicted {r['predicted_order']}; '=': a tie within 1%)")
    s = out["summary"]
    for key in ("ratios", "runtimes"):
        if key in s:
            left = ", ".join(f"{n} {kind}" for kind, n in s[key]["left_out"].items()) or "none"
            print(f"{key} (predicted rows only; not counted: {left}): median |error| {s[key]['median_abs_error']:.1%}, "
                  f"largest {s[key]['max_abs_error']:.1%}, {s[key]['within']} of {s[key]['of']} within {s[key]['bound']:.0%}")
    for m in out["not_covered"]:
        print(f"not covered: {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
