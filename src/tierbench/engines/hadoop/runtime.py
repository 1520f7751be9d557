"""Hadoop's jars, fetched from Maven Central by the pom beside this file into tierbench's cache on first use."""

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from ...errors import UserError
from ..jobs_jar import cache_dir, java_tool

HADOOP_VERSION = "3.4.2"
POM = Path(__file__).resolve().parent / "pom.xml"

LOG4J = """\
# tierbench: Hadoop's client and local-mode tasks log to stderr at INFO, so that
# job counters and TestDFSIO's results are printed (and kept with each run).
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{yyyy-MM-dd HH:mm:ss,SSS} %p %c{2}: %m%n
log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
log4j.logger.org.apache.hadoop.metrics2=WARN
"""


def _home() -> Path:
    return cache_dir() / f"hadoop-{HADOOP_VERSION}"


def java_bin() -> str:
    return java_tool("java")


def installed_conf_dir() -> str | None:
    """The conf dir of a Hadoop installed on this machine (a `hadoop` command on PATH), as it reports it."""
    hadoop = shutil.which("hadoop")
    if not hadoop:
        return None
    try:
        out = subprocess.run([hadoop, "envvars"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stdout.splitlines():
        if line.startswith("HADOOP_CONF_DIR="):
            return line.split("=", 1)[1].strip().strip("'\"") or None
    return None


def yarn_conf_dir(configured: str | None) -> str | None:
    """Where a yarn-mode job finds its cluster: the spec's hadoop_conf_dir, else $HADOOP_CONF_DIR,
    else the conf dir of a `hadoop` command on PATH."""
    return configured or os.environ.get("HADOOP_CONF_DIR") or installed_conf_dir()


def hadoop_lib() -> Path:
    """The directory of Hadoop's jars, fetching them (about 95 MB, ~30 s) the first time."""
    lib = _home() / "lib"
    stamp = hashlib.sha256(POM.read_bytes()).hexdigest()[:12]
    marker = _home() / f".complete-{stamp}"
    if marker.is_file():
        return lib
    _home().mkdir(parents=True, exist_ok=True)
    with open(_home() / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():
            return lib
        mvn = shutil.which("mvn")
        if not mvn:
            raise UserError("Maven (mvn) is needed to fetch Hadoop's jars from Maven Central: install it "
                            "(Debian: apt-get install maven); ./setup.sh does this when run as root")
        partial = _home() / "lib.partial"
        shutil.rmtree(partial, ignore_errors=True)
        out = subprocess.run([mvn, "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
                              f"-DoutputDirectory={partial}", "-DincludeScope=runtime"], capture_output=True, text=True)
        if out.returncode != 0:
            tail = (out.stdout + out.stderr).strip().splitlines()[-5:]
            raise UserError("fetching Hadoop's jars from Maven Central failed: " + " | ".join(tail))
        shutil.rmtree(lib, ignore_errors=True)
        partial.rename(lib)
        for old in _home().glob(".complete-*"):
            old.unlink()
        marker.touch()
    return lib


def log4j_dir() -> Path:
    d = _home() / "log4j"
    d.mkdir(parents=True, exist_ok=True)
    f = d / "log4j.properties"
    if not f.is_file() or f.read_text() != LOG4J:
        f.write_text(LOG4J)
    # an empty core-site.xml: some tools (FsShell) refuse to start without one on the classpath
    site = d / "core-site.xml"
    if not site.is_file():
        site.write_text("<?xml version=\"1.0\"?>\n<configuration/>\n")
    return d


def classpath(conf_dir: str | None = None) -> str:
    """Our log4j first (so counters are printed), then the cluster's conf dir, then Hadoop's jars."""
    parts = [str(log4j_dir())]
    if conf_dir:
        parts.append(conf_dir)
    parts.append(str(hadoop_lib() / "*"))
    return ":".join(parts)
