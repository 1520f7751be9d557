"""What the benchmarks share: dropping the page cache between steps, and the local Spark session they measure in."""

import os
from pathlib import Path

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


def spark_session(app: str, scratch: Path, driver_memory: str = "6g", master: str = "local[*]", **conf):
    """A local Spark session with tierbench's jobs jar; returns (session, Jobs entry point)."""
    from pyspark.sql import SparkSession

    from tierbench.engines.jobs_jar import jobs_jar

    b = (SparkSession.builder.master(master).appName(app).config("spark.jars", str(jobs_jar()))
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.memory", driver_memory).config("spark.local.dir", str(scratch / "spark-local"))
         .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer"))
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, spark._jvm.tierbench.jobs.Jobs
