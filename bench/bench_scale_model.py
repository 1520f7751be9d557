"""The scale model against the published study: runs a scaled example (default examples/sandisk-terasort-scaled.toml)
and prints each published runtime ratio of the SanDisk 2014 TeraSort study beside the model's, with the error and
Welch's p for the model's difference.

    .venv/bin/python bench/bench_scale_model.py [--spec FILE] [--repeats N] [--out DIR]

Needs root (emulated devices, the page cache budget). The published figures are the package's copy
(analysis/published.toml, [sandisk_terasort_2014]).
"""

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

from scipy.stats import ttest_ind

from tierbench.analysis.reference import load_section
from tierbench.store import ResultsDir

ROOT = Path(__file__).resolve().parent.parent
# published configuration -> the example's; published column -> workload
CONFIGS = {"all_hdd": "hdd", "hdd_plus_ssd_intermediate": "hybrid", "all_ssd": "ssd"}
COLUMNS = {"teragen": 0, "terasort": 1}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default=str(ROOT / "examples" / "sandisk-terasort-scaled.toml"),
                    help="a scaled study whose configurations are named hdd, hybrid and ssd")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="/tmp/tierbench-bench-scale-model")
    ap.add_argument("--from", dest="done", metavar="DIR", help="print the table of a results folder run before; run nothing")
    args = ap.parse_args()
    if not args.done:
        spec = Path(args.out + ".toml")  # the example with the repeats asked for, beside the results
        text = Path(args.spec).read_text()
        spec.write_text(re.sub(r"(?m)^repeats = \d+", f"repeats = {args.repeats}", text))
        subprocess.run([sys.executable, "-m", "tierbench", "run", str(spec), "--out", args.out], check=True)
    runs = [r for r in ResultsDir(Path(args.done or args.out)).load().runs if r.status == "ok"]
    _, published = load_section("sandisk_terasort_2014")
    results = published["results"]
    print(f"{'workload':10} {'ratio':18} {'published':>9} {'model':>7} {'error':>7} {'p':>7}")
    errors = []
    for workload, col in COLUMNS.items():
        times = {c: [r.wall_s for r in runs if r.config == c and r.label == workload] for c in CONFIGS.values()}
        base = results["all_hdd"][col]
        for pub_name, config in list(CONFIGS.items())[1:]:
            want, got = results[pub_name][col] / base, statistics.median(times[config]) / statistics.median(times["hdd"])
            p = ttest_ind(times[config], times["hdd"], equal_var=False).pvalue if min(len(times[config]), len(times["hdd"])) > 1 else float("nan")
            errors.append(abs(got - want))
            print(f"{workload:10} {config + ' / hdd':18} {want:9.2f} {got:7.2f} {got - want:+7.2f} {p:7.3f}")
    print(f"median |error| {statistics.median(errors):.2f} (of runtime ratios; the issue's goal: each within 0.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
