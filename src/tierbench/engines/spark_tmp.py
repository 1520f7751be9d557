"""Where a Spark application's JVMs keep their temporary files: under tierbench's own roots, not /tmp."""

from pathlib import Path

JVM_TMP = "_jvm-tmp"  # beside a configuration's intermediate dirs, under tierbench's own root


def jvm_tmp_conf(conf: dict, jvm_tmp: Path, executors_here: bool) -> dict:
    """The application's JVMs' temporary files in `jvm_tmp` (tierbench's, deleted with the study), not in /tmp,
    where they would outlive it: the native libraries lz4-java and snappy unpack at every start, S3A's upload
    buffers and MapReduce's local files under hadoop.tmp.dir (/tmp/hadoop-<user> by default). The driver always
    runs here; the executors' settings only in local mode (the driver's JVM): a path of this machine means nothing
    on another cluster's nodes, and the embedded standalone cluster's executors keep /tmp (their node agents'
    per-host lock lives in java.io.tmpdir: given the study's dir, the agents stopped answering, 2026-11-27). A
    java.io.tmpdir the spec gives wins."""
    opt = f"-Djava.io.tmpdir={jvm_tmp}"
    out = {}
    keys = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions") if executors_here else (
        "spark.driver.extraJavaOptions",)
    for key in keys:
        given = conf.get(key, "")
        if "-Djava.io.tmpdir=" not in given:
            out[key] = f"{given} {opt}".strip()
    if executors_here and "spark.hadoop.hadoop.tmp.dir" not in conf:
        out["spark.hadoop.hadoop.tmp.dir"] = str(jvm_tmp / "hadoop")
    return out
