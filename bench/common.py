"""What the benchmarks share: dropping the page cache between steps, and the local Spark session they measure in."""

import json
import os
import subprocess
from pathlib import Path

from tierbench.units import MB  # noqa: E402 (tierbench's MB/s: MiB per second, as its reports)

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


def drop_caches() -> bool:
    """Drop the page cache (root only), so each step reads from the device."""
    if os.geteuid() != 0:
        return False
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def peers_jar() -> Path:
    """The benchmarks' peers of tierbench's jobs (bench/java, e.g. tierbench.bench.PeerSorts), built on the jobs jar:
    benchmark code stays out of the jar tierbench runs."""
    from tierbench.engines.jobs_jar import build_jar, jobs_jar

    return build_jar("tierbench-bench-peers", Path(__file__).resolve().parent / "java", on=(jobs_jar(),))


def spark_session(app: str, scratch: Path, driver_memory: str = "6g", master: str = "local[*]", **conf):
    """A local Spark session with tierbench's jobs jar and the peers' jar; returns (session, Jobs entry point)."""
    from pyspark.sql import SparkSession

    from tierbench.engines.jobs_jar import jobs_jar

    jars = f"{jobs_jar()},{peers_jar()}"
    b = (SparkSession.builder.master(master).appName(app).config("spark.jars", jars)
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.memory", driver_memory).config("spark.local.dir", str(scratch / "spark-local"))
         .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer"))
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, spark._jvm.tierbench.jobs.Jobs


def timed_job(spark, jobs, job: str, **params) -> tuple[float, dict]:
    """Run one of tierbench's Java jobs (a workload's name, or the job's Class.method) after dropping the page
    cache: (seconds, its result)."""
    import json
    import time

    from tierbench.workloads import WORKLOADS

    job = WORKLOADS[job].spark_job if job in WORKLOADS else job
    drop_caches()
    t = time.perf_counter()
    r = json.loads(jobs.run(spark._jsc, job, json.dumps(params)))
    return time.perf_counter() - t, r


def timed_hadoop(scratch: Path, main_class: str, *args: str, settings: dict | None = None) -> tuple[float, str]:
    """Run an upstream Hadoop job in LocalJobRunner after dropping the page cache: (the job's seconds, its log).
    The job's time is from its first log line to the last "completed successfully" (the JVM start excluded)."""
    import subprocess
    import time

    from tierbench.engines.hadoop.logparse import job_seconds
    from tierbench.engines.hadoop.runtime import classpath
    from tierbench.toolchain import java_bin

    drop_caches()
    conf = {"mapreduce.framework.name": "local", "fs.defaultFS": "file:///", "hadoop.tmp.dir": scratch / "hadoop-tmp",
            "mapreduce.cluster.local.dir": scratch / "hadoop-local", "mapreduce.job.reduces": 2, **(settings or {})}
    cmd = [java_bin(), "-Xmx2g", "-cp", classpath(), main_class]
    for k, v in conf.items():
        cmd += ["-D", f"{k}={v}"]
    t = time.perf_counter()
    out = subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=scratch)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"hadoop {main_class} failed:\n{out.stderr[-2000:]}")
    log = out.stderr + out.stdout
    return job_seconds(log) or wall, log


def fio(workdir: Path, rw: str, files: int, size: int) -> float:
    """Aggregate MB/s of `files` fio jobs, one file each, as fio reports it."""
    # the device's own ceiling: O_DIRECT, 16 requests in flight (measured here: buffered psync with fsyncs, one
    # request at a time, was slower than durable DFSIO, whose writers sync in the background while they write,
    # so it was no ceiling); a write is on the device when it completes, and end_fsync flushes its cache
    # (reads stay buffered, as DFSIO's are: the kernel's read-ahead is part of what a reader gets)
    cmd = ["fio", "--name=tierbench-durable", f"--directory={workdir}", f"--rw={rw}", "--bs=1M", f"--size={size}",
           f"--numjobs={files}", "--group_reporting", "--output-format=json"]
    if rw == "write":
        cmd += ["--ioengine=libaio", "--iodepth=16", "--direct=1", "--end_fsync=1"]
    else:
        cmd += ["--ioengine=psync", "--direct=0"]
    workdir.mkdir(parents=True, exist_ok=True)
    drop_caches()
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"fio failed: {out.stderr.strip()[-500:]}")
    # fio's own figure (its jobs' bytes over their IO time, summed by group_reporting): the pure IO loop, what
    # "fio's sequential write" means to its users; the wall around the fio process was 5% lower here (its start,
    # laying out the files)
    job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0]
    return job[rw]["bw_bytes"] / MB


def run_on_emulated_device(script: str, profile: str, size_bytes: int, argv: list[str]) -> int:
    """Bring up an emulated device of `profile` (storage/emulation.py) with room for `size_bytes`, run `script`
    with `argv` on it (--dir at its mount, --against-emulated NAME) in a child process -- the child's Spark
    JVM ends with it, so the device can be unmounted -- and take the device down."""
    import sys

    from tierbench.storage import emulation

    if profile not in emulation.PROFILES:
        raise SystemExit(f"--emulate {profile!r}: accepted: {', '.join(emulation.PROFILES)}")
    name = f"bench-{Path(script).stem.removeprefix('bench_')}-{os.getpid()}"
    dev = emulation.up(name, profile, size_bytes)
    try:
        print(emulation.describe(dev), flush=True)
        emulation.enter_group()  # the child, its Spark JVM and fio inherit it
        return subprocess.run([sys.executable, script, "--dir", dev.mount, *argv, "--against-emulated", name]).returncode
    finally:
        emulation.down(name)


def run_main(main) -> int:
    """A bench's main, on a VM with free page reporting off for its run and set back after (as root, where it is on:
    tierbench/study/host_memory.py): otherwise each page a JVM or the page cache takes anew is a host fault too, a cost of
    the VM that grows faster than the data. TIERBENCH_VM_AS_IS=1 leaves the VM as it is."""
    from tierbench.study.host_memory import freed_pages_kept

    import sys

    if os.environ.get("TIERBENCH_VM_AS_IS") or {"-h", "--help"} & set(sys.argv[1:]):
        return main()  # --help changes nothing on the machine
    with freed_pages_kept() as done:  # a child on an emulated device finds it off already
        if done:
            print(done, flush=True)
        return main()
