"""Benchmark: MB/s per core of every IO-heavy workload, end to end, as a durable study measures them.

Not a test: it runs one study with `tierbench run` -- one configuration on --dir, durable writes, Spark
local[*], the page cache dropped before each run (as root), each workload at --size -- and prints each
workload's throughput (its own metric: DFSIO's aggregate MB/s, the others' MB over the job's wall) divided
by the cores the engine computed with, as the report's summary does (analysis/stats.py: engine_cores).
Beside it, fio's sequential ceilings on the same directory in the same run: a workload cannot beat
the device, and per core it cannot beat the device's MB/s over the cores.

Goal (issue 20): at least 150 MB/s per core for DFSIO, Tera*, datawrite, dataread, copy, shuffle and grep.

  .venv/bin/python bench/bench_per_core.py --size 1GB
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import fio, run_main  # noqa: E402

from tierbench.analysis.stats import engine_cores  # noqa: E402
from tierbench.store import StoredRun  # noqa: E402
from tierbench.units import parse_size  # noqa: E402

GOAL_MB_S_PER_CORE = 150

SPEC = """
name = "bench-per-core"
repeats = {repeats}
drop_caches = "auto"
durability = "durable"
[engine]
master = "local[*]"
driver_memory = "4g"
[storage.dir]
data = ["{root}/data"]
[[workloads]]
name = "dfsio-write"
files = 4
file_size = "{quarter}"
[[workloads]]
name = "dfsio-read"
[[workloads]]
name = "datawrite"
size = "{size}"
[[workloads]]
name = "dataread"
[[workloads]]
name = "copy"
[[workloads]]
name = "teragen"
size = "{size}"
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
[[workloads]]
name = "textgen"
size = "{size}"
[[workloads]]
name = "grep"
[[workloads]]
name = "shuffle"
size = "{size}"
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB", help="data per workload (DFSIO: 4 files of a quarter each)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--dir", default="/tmp", help="a directory on the device to measure")
    args = ap.parse_args()
    size = parse_size(args.size)
    root = Path(args.dir) / "tierbench-bench-per-core"  # ours alone: deleted at the end
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    try:
        write, read = fio(root / "fio", "write", 2, 1 << 30), fio(root / "fio", "read", 2, 1 << 30)
        shutil.rmtree(root / "fio")
        spec = root / "study.toml"
        spec.write_text(SPEC.format(root=root, size=size, quarter=size // 4, repeats=args.repeats))
        out = subprocess.run([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(root / "results")],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"the study failed: {out.stderr[-2000:]}")
        records = [json.loads(line) for line in (root / "results" / "runs.jsonl").read_text().splitlines()]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    cores = os.cpu_count()
    print(f"{cores} cores; fio on {args.dir}: sequential write {write:.0f} MB/s ({write / cores:.0f} per core), "
          f"read {read:.0f} MB/s ({read / cores:.0f} per core); each workload at {args.size}, median of {args.repeats}, durable")
    print(f"\n{'workload':14s} {'MB/s':>8s} {'MB/s per core':>14s}   goal >= {GOAL_MB_S_PER_CORE}")
    for wl in dict.fromkeys(r["workload"] for r in records):
        runs = [r for r in records if r["workload"] == wl and r["status"] == "ok"]
        tp = [r["metrics"].get("aggregate_throughput_mb_s", r["metrics"].get("throughput_mb_s")) for r in runs]
        if not runs or None in tp:
            continue
        mb_s = statistics.median(tp)
        per_core = statistics.median(t / engine_cores(StoredRun.from_dict(r)) for t, r in zip(tp, runs))
        print(f"{wl:14s} {mb_s:8.0f} {per_core:14.0f}   {'met' if per_core >= GOAL_MB_S_PER_CORE else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
