"""Benchmark: tierbench's Java TeraGen/TeraSort vs. a plain PySpark DataFrame equivalent, same run.

Not a test: it prints times and ratios. Both sides run in one local Spark
application with the same settings, on the same directory, alternating, with
the page cache dropped before each step when running as root.

  .venv/bin/python bench/bench_terasort.py --size 1GB --repeats 2

Peers: "DataFrame TeraGen" writes the same number of 100-byte rows (10-byte
random key + 90 bytes of hash output, incompressible) as Parquet with
spark.range; "DataFrame sort" reads that Parquet, orderBy(key), writes Parquet.
"""

import argparse
import math
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from common import drop_caches, run_main, spark_session, timed_job


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB", help="data size (default 1GB)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--dir", default="/tmp/tierbench-bench", help="scratch directory (deleted at the end)")
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--driver-memory", default="6g")
    args = ap.parse_args()

    from pyspark.sql import functions as F
    from tierbench.units import parse_size

    rows = parse_size(args.size) // 100
    tasks = max(2, math.ceil(rows * 100 / (64 << 20)))
    scratch = Path(args.dir) / "tierbench-bench"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    spark, jobs = spark_session("tierbench bench", scratch, args.driver_memory, args.master,
                                **{"spark.sql.shuffle.partitions": str(tasks)})

    tb = lambda job, **p: timed_job(spark, jobs, job, **p)

    def df_gen(out):
        drop_caches()
        t = time.perf_counter()
        h = F.sha2(F.col("id").cast("string"), 512)  # 128 hex digits
        (spark.range(0, rows, 1, tasks)
         .select(F.unhex(F.substring(h, 1, 20)).alias("key"),
                 F.unhex(F.concat(F.substring(h, 21, 108), F.substring(F.sha2(F.col("id").cast("string"), 256), 1, 52))).alias("value"))
         .write.mode("overwrite").parquet(out))
        return time.perf_counter() - t

    def df_sort(inp, out):
        drop_caches()
        t = time.perf_counter()
        spark.read.parquet(inp).orderBy("key").write.mode("overwrite").parquet(out)
        return time.perf_counter() - t

    times = {k: [] for k in ("tb_gen", "tb_sort", "df_gen", "df_sort")}
    print(f"size {args.size} = {rows:,} rows of 100 bytes, {tasks} tasks, master {args.master}, "
          f"{os.cpu_count()} cores, page cache {'dropped' if os.geteuid() == 0 else 'NOT dropped (not root)'} before each step")
    for rep in range(1, args.repeats + 1):
        for d in ("tg", "ts", "dg", "ds"):
            shutil.rmtree(scratch / d, ignore_errors=True)
        s, g = tb("teragen", rows=rows, tasks=tasks, output=[(scratch / "tg").as_uri()])
        times["tb_gen"].append(s)
        s, srt = tb("terasort", input=[(scratch / "tg").as_uri()], output=[(scratch / "ts").as_uri()])
        times["tb_sort"].append(s)
        _, v = tb("teravalidate", input=[(scratch / "ts").as_uri()])
        assert v["error_count"] == 0 and v["checksum"] == g["checksum"], v
        times["df_gen"].append(df_gen(str(scratch / "dg")))
        times["df_sort"].append(df_sort(str(scratch / "dg"), str(scratch / "ds")))
        print(f"repeat {rep}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items()), flush=True)
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"{'step':<10} {'tierbench (median s)':>22} {'DataFrame (median s)':>22} {'DataFrame / tierbench':>22}")
    print(f"{'generate':<10} {med['tb_gen']:>22.1f} {med['df_gen']:>22.1f} {med['df_gen'] / med['tb_gen']:>21.2f}x")
    print(f"{'sort':<10} {med['tb_sort']:>22.1f} {med['df_sort']:>22.1f} {med['df_sort'] / med['tb_sort']:>21.2f}x")
    goal = med["df_sort"] / med["tb_sort"] >= 1.2
    print(f"goal (tierbench TeraSort >= 1.2x faster than the DataFrame sort): {'met' if goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
