"""Builds tierbench's Java Spark jobs against the jars that pyspark ships.

Spark 4.3.0 is not on Maven Central, so the jobs are compiled with javac on
pyspark's own jars/ (no version skew). The jar is cached under a name that
hashes the sources and the Spark version, so an edited job is rebuilt and a
stale one is never used. The hadoop engine puts the same jar on its classpath in durable mode, for its
syncing local file system (tierbench.io.SyncingLocalFileSystem: Hadoop API classes only, which Hadoop 3.4.2's
jars hold as pyspark's do). build_jar builds any such jar: the benchmarks build
their peers (bench/java) with it, on top of the jobs jar, so that the product
jar holds no benchmark code.
"""

import fcntl
import hashlib
import os
import subprocess
import tempfile
import zipfile
from pathlib import Path

from ..toolchain import cache_dir, java_tool, spark_version
from .spark_versions import is_project_spark, spark_home

JAVA_SRC = Path(__file__).resolve().parent.parent / "jvm" / "java"


def _sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.java"))


def _resources(root: Path) -> list[Path]:
    """Files the jar holds as they are: META-INF/services (a Hadoop ClientProtocolProvider found by ServiceLoader)."""
    return sorted(p for p in (root / "META-INF").rglob("*") if p.is_file())


class JobsCompileError(RuntimeError):
    """javac refused the sources against a Spark release's jars (its first error in `first_error`)."""

    def __init__(self, message: str, first_error: str):
        super().__init__(message)
        self.first_error = first_error


def jobs_jar(spark: str | None = None) -> Path:
    """Path of the built jobs jar for Spark release `spark` (None: the project's pyspark), building it first if the
    sources changed."""
    return build_jar("tierbench-jobs", JAVA_SRC, spark=spark)


def build_jar(name: str, source_root: Path, on: tuple[Path, ...] = (), spark: str | None = None) -> Path:
    """Path of the jar `name` of the Java sources under source_root, compiled on the jars of Spark release `spark`
    (None: the project's pyspark; another must be installed: spark_versions.ensure_release) and the jars `on` (e.g.
    the jobs jar, for code that uses the jobs), building it first if anything of that changed."""
    h = hashlib.sha256((spark_version() if is_project_spark(spark) else spark).encode())
    for jar in on:
        h.update(jar.name.encode())  # a jar built here is named by the hash of its own sources
    for src in [*_sources(source_root), *_resources(source_root)]:  # a jar's name changes with either
        h.update(src.relative_to(source_root).as_posix().encode())
        h.update(src.read_bytes())
    jar = cache_dir() / "jobs" / f"{name}-{h.hexdigest()[:12]}.jar"
    if jar.is_file():
        return jar
    jar.parent.mkdir(parents=True, exist_ok=True)
    with open(jar.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not jar.is_file():
            _compile(source_root, on, jar, spark_home(spark))
    return jar


def _compile(source_root: Path, on: tuple[Path, ...], jar: Path, home: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="tierbench-javac-") as tmp:
        classpath = os.pathsep.join([str(home / "jars" / "*"), *map(str, on)])
        cmd = [java_tool("javac"), "-nowarn", "-encoding", "UTF-8", "--release", "17", "-d", tmp, "-cp", classpath]
        out = subprocess.run(cmd + [str(s) for s in _sources(source_root)], capture_output=True, text=True)
        if out.returncode != 0:
            first = next((line.strip() for line in out.stderr.splitlines() if ": error:" in line), "")
            raise JobsCompileError(f"compiling tierbench's Java jobs failed:\n{out.stderr[-4000:]}",
                                   first.replace(str(source_root) + "/", ""))
        partial = jar.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(Path(tmp).rglob("*.class")):
                z.write(f, f.relative_to(tmp).as_posix())
            for f in _resources(source_root):
                z.write(f, f.relative_to(source_root).as_posix())
        os.replace(partial, jar)
