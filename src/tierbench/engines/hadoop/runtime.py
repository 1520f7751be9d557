"""The hadoop engine's classpath: Hadoop's jars (toolchain.hadoop_lib, fetched from Maven Central on first use)."""

from ...toolchain import hadoop_lib, hadoop_log4j_dir
from ..cmdline import joined


def classpath(conf_dir: str | None = None, jars: tuple[str, ...] = ()) -> str:
    """Our log4j first (so counters are printed), then the cluster's conf dir, then Hadoop's jars, then `jars`:
    the storage connector's (classpath entries from `Connector.jars()`: S3A's for s3a://) and tierbench's own
    (the jobs jar, whose SyncingLocalFileSystem durable mode names)."""
    parts = [str(hadoop_log4j_dir())]
    if conf_dir:
        parts.append(conf_dir)
    parts.append(str(hadoop_lib() / "*"))
    parts.extend(jars)
    return joined(parts, "the Hadoop JVM's classpath", sep=":")  # (a ':' in a conf dir's path would add entries)
