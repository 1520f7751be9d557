"""Where a Spark application's JVMs keep their temporary files: a folder tierbench owns, not /tmp's shared space and
not a path from the user.

Why not the study's data root (as until issue 60): java.io.tmpdir goes into spark.*.extraJavaOptions, which Spark
splits at whitespace and quotes, so a data dir named `x -javaagent:/tmp/a.jar` ran that agent as root in the driver,
and an honest path with a space broke the JVM's start. The folder is under tierbench's cache dir (root's own), named
by the study's results folder (two studies never share one) and the application, made fresh for each application
and deleted when it stops.
"""

import hashlib
import re
import shutil
import tempfile
from pathlib import Path

from ..errors import UserError
from ..toolchain import cache_dir
from .cmdline import OPTION_WORD, option_word

JVM_TMP = "jvm-tmp"  # under tierbench's cache dir


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:40] or "_"


def study_tmp_root(study: str, results_key: str) -> Path:
    """The folder of one study's applications' temporary folders: under the cache dir when its path is plain, else
    (a cache dir with a space in its path) under the system's temporary dir, which must be."""
    name = f"{_slug(study)}-{hashlib.sha256(results_key.encode()).hexdigest()[:12]}"
    for base in (cache_dir() / JVM_TMP, Path(tempfile.gettempdir()) / "tierbench-jvm-tmp"):
        if OPTION_WORD.match(str(base)):
            return base / name
    option_word(cache_dir(), "java.io.tmpdir")  # (the one line saying why)
    raise UserError("no folder for the JVM's temporary files")  # (unreachable: option_word raised)


def make_app_tmp(root: Path, variant: str) -> Path:
    """A fresh folder of root's for one application (0700: its JVM's files are root's alone)."""
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return Path(tempfile.mkdtemp(prefix=f"{_slug(variant)}-", dir=root))


def remove_app_tmp(path: Path | None) -> None:
    """An application's temporary folder, once its JVM is gone; the study's folder too when it is left empty."""
    if path is None:
        return
    shutil.rmtree(path, ignore_errors=True)
    try:
        path.parent.rmdir()
    except OSError:  # (another application of the study still has its folder there)
        pass


def jvm_tmp_conf(conf: dict, jvm_tmp: Path, executors_here: bool) -> dict:
    """The application's JVMs' temporary files in `jvm_tmp` (make_app_tmp's), not in /tmp, where they would outlive
    it: the native libraries lz4-java and snappy unpack at every start, S3A's upload buffers and MapReduce's local
    files under hadoop.tmp.dir (/tmp/hadoop-<user> by default). The driver always runs here; the executors' settings
    only in local mode (the driver's JVM): a path of this machine means nothing on another cluster's nodes, and the
    embedded standalone cluster's executors keep /tmp (their node agents' per-host lock lives in java.io.tmpdir:
    given the study's dir, the agents stopped answering, 2026-11-27). A java.io.tmpdir the spec gives wins."""
    opt = f"-Djava.io.tmpdir={option_word(jvm_tmp, 'spark.driver.extraJavaOptions')}"
    out = {}
    keys = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions") if executors_here else (
        "spark.driver.extraJavaOptions",)
    for key in keys:
        given = conf.get(key, "")
        if "-Djava.io.tmpdir=" not in given:
            out[key] = f"{given} {opt}".strip()
    if executors_here and "spark.hadoop.hadoop.tmp.dir" not in conf:
        out["spark.hadoop.hadoop.tmp.dir"] = str(jvm_tmp / "hadoop")
    if "spark.sql.warehouse.dir" not in conf:  # (a SparkSession makes it, empty, in the working directory otherwise;
        # file: so that a cluster's default file system does not take the local path for one of its own)
        out["spark.sql.warehouse.dir"] = f"file:{jvm_tmp / 'spark-warehouse'}"
    return out
