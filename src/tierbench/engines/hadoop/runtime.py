"""Hadoop's jars, fetched from Maven Central by the pom beside this file into tierbench's cache on first use."""

from pathlib import Path

from ...toolchain import cache_dir, maven_fetch

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


def hadoop_lib() -> Path:
    """The directory of Hadoop's jars, fetching them (about 95 MB, ~30 s) the first time."""
    return maven_fetch(POM, _home(), "Hadoop's jars")


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
