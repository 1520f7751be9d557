"""Hadoop's S3A connector for Spark: hadoop-aws matching pyspark's Hadoop client, and the AWS SDK v2 modules it needs."""

from pathlib import Path

from ...toolchain import cache_dir, maven_fetch

POM = Path(__file__).resolve().parent / "pom.xml"
# jars Spark already ships (same classes, other versions): removed after the copy, so Spark's win
SPARK_HAS = ("httpclient-", "httpcore-", "commons-codec-", "commons-logging-", "slf4j-api-", "netty-buffer-", "netty-codec-",
             "netty-common-", "netty-handler-", "netty-resolver-", "netty-transport-")


def _drop_what_spark_has(lib: Path) -> None:
    for jar in lib.iterdir():
        if jar.name.startswith(SPARK_HAS) and not jar.name.startswith("netty-nio-client"):
            jar.unlink()


def s3a_jars() -> list[Path]:
    """The S3A jars (36 jars, ~13 MB), fetched from Maven Central into tierbench's cache on first use."""
    return sorted(maven_fetch(POM, cache_dir() / "s3a-3.5.0", "the S3A connector", _drop_what_spark_has).glob("*.jar"))
