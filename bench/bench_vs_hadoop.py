"""Benchmark: tierbench's Spark TeraGen/TeraSort vs upstream Hadoop 3.4.2's, local mode, same run.

Not a test: prints times and ratios. Both run on this machine on the same
scratch directory, alternating, the page cache dropped before each step when
root. Spark: local[*] with tierbench's Java jobs. Hadoop: its own
hadoop-mapreduce-examples TeraGen/TeraSort in LocalJobRunner (one JVM per job,
as `hadoop jar` would run it; its time is the job's, from its first log line
to "completed successfully", not the JVM start).

  .venv/bin/python bench/bench_vs_hadoop.py --size 1GB --repeats 1
"""

import argparse
import math
import os
import shutil
import statistics
import sys
from pathlib import Path

from common import run_main, spark_session, timed_hadoop, timed_job


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--dir", default="/tmp/tierbench-bench-hadoop")
    args = ap.parse_args()

    from tierbench.units import parse_size

    rows = parse_size(args.size) // 100
    tasks = max(2, math.ceil(rows * 100 / (64 << 20)))
    scratch = Path(args.dir) / "tierbench-bench"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    spark, jobs = spark_session("tierbench bench vs hadoop", scratch)

    tb = lambda job, **p: timed_job(spark, jobs, job, **p)
    hadoop = lambda main_class, *a: timed_hadoop(scratch, main_class, *a)[0]

    times = {k: [] for k in ("tb_gen", "tb_sort", "h_gen", "h_sort")}
    print(f"size {args.size} = {rows:,} rows, {os.cpu_count()} cores, Spark local[*] vs Hadoop LocalJobRunner, "
          f"page cache {'dropped' if os.geteuid() == 0 else 'NOT dropped (not root)'} before each step", flush=True)
    for rep in range(1, args.repeats + 1):
        for d in ("tg", "ts", "hg", "hs", "hadoop-tmp", "hadoop-local"):
            shutil.rmtree(scratch / d, ignore_errors=True)
        s, g = tb("teragen", rows=rows, tasks=tasks, output=[f"file://{scratch / 'tg'}"])
        times["tb_gen"].append(s)
        s, _ = tb("terasort", input=[f"file://{scratch / 'tg'}"], output=[f"file://{scratch / 'ts'}"])
        times["tb_sort"].append(s)
        times["h_gen"].append(hadoop("org.apache.hadoop.examples.terasort.TeraGen", str(rows), f"file://{scratch / 'hg'}"))
        times["h_sort"].append(hadoop("org.apache.hadoop.examples.terasort.TeraSort", f"file://{scratch / 'hg'}", f"file://{scratch / 'hs'}"))
        _, v = tb("teravalidate", input=[f"file://{scratch / 'hs'}"])
        assert v["error_count"] == 0 and v["checksum"] == g["checksum"], v  # same data sorted by both
        print(f"repeat {rep}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items()), flush=True)
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"{'step':<10} {'tierbench Spark (s)':>20} {'Hadoop local (s)':>18} {'Hadoop / tierbench':>20}")
    for step, a, b, goal in (("TeraGen", "tb_gen", "h_gen", 1.5), ("TeraSort", "tb_sort", "h_sort", 2.0)):
        ratio = med[b] / med[a]
        print(f"{step:<10} {med[a]:>20.1f} {med[b]:>18.1f} {ratio:>19.2f}x   goal >= {goal}x: {'met' if ratio >= goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
