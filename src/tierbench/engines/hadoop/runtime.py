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


S3A_POM = Path(__file__).resolve().parent / "s3a-pom.xml"


def _drop_what_hadoop_has(lib: Path) -> None:
    """The S3A fetch's jars that Hadoop's own lib already holds (same classes, perhaps other versions)."""
    have = {j.name.rsplit("-", 1)[0] for j in hadoop_lib().glob("*.jar")}
    for jar in lib.glob("*.jar"):
        if jar.name.rsplit("-", 1)[0] in have and not jar.name.startswith("hadoop-aws"):
            jar.unlink()


def s3a_lib() -> Path:
    """hadoop-aws 3.4.2 and the AWS SDK v2 modules it needs, fetched the first time an S3 study uses the hadoop engine."""
    return maven_fetch(S3A_POM, _home() / "s3a", "the S3A connector for Hadoop 3.4.2", _drop_what_hadoop_has)


def classpath(conf_dir: str | None = None, s3a: bool = False) -> str:
    """Our log4j first (so counters are printed), then the cluster's conf dir, then Hadoop's jars (and S3A's)."""
    parts = [str(log4j_dir())]
    if conf_dir:
        parts.append(conf_dir)
    parts.append(str(hadoop_lib() / "*"))
    if s3a:
        parts.append(str(s3a_lib() / "*"))
    return ":".join(parts)
