"""Benchmark: tierbench's Spark WordCount and Grep vs upstream Hadoop 3.4.2's examples, on the same text, same run.

Not a test: prints times and ratios. tierbench's textgen writes the text once
(plain, uncompressed); then, alternating, tierbench's WordCount and Grep
(Spark local[*]) and Hadoop's WordCount and Grep examples (LocalJobRunner, one
JVM per job; its time is the job's, from its first log line to the last
"completed successfully") read it, the page cache dropped before each step when
root. Both WordCounts must total the same number of words, and both Greps find
the absent pattern 0 times. Note that LocalJobRunner runs one map at a time
(mapreduce.local.map.tasks.maximum = 1) where Spark uses every core: that is
Hadoop's local mode as users meet it, not Hadoop on a cluster.

  .venv/bin/python bench/bench_text.py --size 256MB --repeats 1
"""

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

from common import run_main, spark_session, timed_hadoop, timed_job


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="256MB", help="text to generate (default 256MB)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--dir", default="/tmp/tierbench-bench-text")
    args = ap.parse_args()

    from tierbench.engines.hadoop.logparse import counters
    from tierbench.workloads import generator_tasks
    from tierbench.units import parse_size

    size = parse_size(args.size)
    scratch = Path(args.dir) / "tierbench-bench"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    spark, jobs = spark_session("tierbench bench text", scratch)
    text = f"file://{scratch / 'text'}"

    tb = lambda job, **p: timed_job(spark, jobs, job, **p)
    split = {"mapreduce.input.fileinputformat.split.minsize": 128 << 20}
    hadoop = lambda main_class, *a: timed_hadoop(scratch, main_class, *a, settings=split)

    _, gen = tb("textgen", bytes=size, tasks=generator_tasks(size, 0), output=[text])
    times = {k: [] for k in ("tb_wc", "h_wc", "tb_grep", "h_grep")}
    print(f"text {args.size} ({gen['words']:,} words), {os.cpu_count()} cores, Spark local[*] vs Hadoop LocalJobRunner, "
          f"page cache {'dropped' if os.geteuid() == 0 else 'NOT dropped (not root)'} before each step", flush=True)
    for rep in range(1, args.repeats + 1):
        for d in ("wc", "hwc", "hgrep", "hadoop-tmp", "hadoop-local"):
            shutil.rmtree(scratch / d, ignore_errors=True)
        s, wc = tb("wordcount", input=[text], output=[f"file://{scratch / 'wc'}"], split_bytes=128 << 20)
        times["tb_wc"].append(s)
        s, log = hadoop("org.apache.hadoop.examples.WordCount", text, f"file://{scratch / 'hwc'}")
        times["h_wc"].append(s)
        h_words = {n: v for g in counters(log).values() for n, v in g.items()}["Map output records"]
        assert wc["words"] == h_words == gen["words"], (wc["words"], h_words, gen["words"])  # the same text counted alike
        s, g = tb("grep", input=[text], pattern="tierbench-absent", split_bytes=128 << 20)
        times["tb_grep"].append(s)
        s, log = hadoop("org.apache.hadoop.examples.Grep", text, f"file://{scratch / 'hgrep'}", "\\Qtierbench-absent\\E")
        times["h_grep"].append(s)
        assert g["matches"] == 0 == {n: v for gr in counters(log, block=0).values() for n, v in gr.items()}["Map output records"]
        print(f"repeat {rep}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items()), flush=True)
    spark.stop()
    shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"{'step':<10} {'tierbench Spark (s)':>20} {'Hadoop local (s)':>18} {'Hadoop / tierbench':>20}")
    for step, a, b in (("WordCount", "tb_wc", "h_wc"), ("Grep", "tb_grep", "h_grep")):
        print(f"{step:<10} {med[a]:>20.1f} {med[b]:>18.1f} {med[b] / med[a]:>19.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
