"""Builds tierbench's Java Spark jobs against the jars that pyspark ships.

Spark 4.3.0 is not on Maven Central, so the jobs are compiled with javac on
pyspark's own jars/ (no version skew). The jar is cached under a name that
hashes the sources and the Spark version, so an edited job is rebuilt and a
stale one is never used.
"""

import fcntl
import hashlib
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from ..toolchain import cache_dir, java_tool, pyspark_home, spark_version

JAVA_SRC = Path(__file__).resolve().parent.parent / "jvm" / "java"


def _sources() -> list[Path]:
    return sorted(JAVA_SRC.rglob("*.java"))


def jobs_jar() -> Path:
    """Path of the built jobs jar, building it first if the sources changed."""
    h = hashlib.sha256(spark_version().encode())
    for src in _sources():
        h.update(src.name.encode())
        h.update(src.read_bytes())
    jar = cache_dir() / "jobs" / f"tierbench-jobs-{h.hexdigest()[:12]}.jar"
    if jar.is_file():
        return jar
    jar.parent.mkdir(parents=True, exist_ok=True)
    with open(jar.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if jar.is_file():
            return jar
        with tempfile.TemporaryDirectory(prefix="tierbench-javac-") as tmp:
            classpath = str(pyspark_home() / "jars" / "*")
            cmd = [java_tool("javac"), "-nowarn", "-encoding", "UTF-8", "--release", "17", "-d", tmp, "-cp", classpath] + [str(s) for s in _sources()]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                raise RuntimeError(f"compiling tierbench's Java jobs failed:\n{out.stderr[-4000:]}")
            partial = jar.with_suffix(".partial")
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
                for f in sorted(Path(tmp).rglob("*.class")):
                    z.write(f, f.relative_to(tmp).as_posix())
            os.replace(partial, jar)
    return jar
