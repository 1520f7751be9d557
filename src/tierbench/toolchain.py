"""What tierbench needs from the machine, in one place: its cache dir, the JDK, pyspark's home, jars fetched
by Maven from Maven Central (Hadoop's, and the S3A connector for Hadoop and for Spark, by the poms in
jvm/poms/), the JVM flags Hadoop needs on Java 17, Hadoop conf dirs, and process checks.
Engines, services and storage all use these; this module imports nothing of tierbench's but errors."""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import UserError

# Java 17 closes these to reflection that Hadoop 3.4's daemons and tasks use
ADD_OPENS = " ".join(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
    "java.lang", "java.lang.reflect", "java.util", "java.util.concurrent", "java.io", "java.net", "java.nio", "sun.nio.ch"))


# the pyspark release pyproject.toml pins (tests/test_spark_versions.py holds them equal): the spark engine's default,
# in the venv already; another release of the spec's `spark` is installed into the cache (engines/spark_versions.py)
PROJECT_SPARK = "4.3.0"


def cache_dir() -> Path:
    return Path(os.environ.get("TIERBENCH_CACHE", Path.home() / ".cache" / "tierbench"))


def pyspark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_version() -> str:
    import pyspark

    return pyspark.__version__


def java_tool(name: str) -> str:
    """A JDK program (java, javac): from $JAVA_HOME when set, else from PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / name).exists():
        return str(Path(home) / "bin" / name)
    found = shutil.which(name)
    if not found:
        raise UserError(f"{name} (a Java 17+ JDK) was not found: install it (Debian: apt-get install openjdk-17-jdk-headless) "
                        "or set JAVA_HOME; ./setup.sh does this for you when run as root")
    return found


def java_bin() -> str:
    return java_tool("java")


def maven_fetch(pom: Path, home: Path, what: str, prune=None) -> Path:
    """The runtime jars a pom declares, copied from Maven Central into home/lib the first time (under a lock;
    a marker named after the pom's hash makes an edited pom fetch again). `prune(lib_dir)` may drop jars."""
    lib = home / "lib"
    marker = home / f".complete-{hashlib.sha256(pom.read_bytes()).hexdigest()[:12]}"
    if marker.is_file():
        return lib
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():
            return lib
        mvn = shutil.which("mvn")
        if not mvn:
            raise UserError(f"Maven (mvn) is needed to fetch {what} from Maven Central: install it "
                            "(Debian: apt-get install maven); ./setup.sh does this when run as root")
        partial = home / "lib.partial"
        shutil.rmtree(partial, ignore_errors=True)
        out = subprocess.run([mvn, "-q", "-B", "-f", str(pom), "dependency:copy-dependencies",
                              f"-DoutputDirectory={partial}", "-DincludeScope=runtime"], capture_output=True, text=True)
        if out.returncode != 0:
            tail = (out.stdout + out.stderr).strip().splitlines()[-5:]
            raise UserError(f"fetching {what} from Maven Central failed: " + " | ".join(tail))
        if prune:
            prune(partial)
        shutil.rmtree(lib, ignore_errors=True)
        partial.rename(lib)
        for old in home.glob(".complete-*"):
            old.unlink()
        marker.touch()
    return lib



# -- the jars tierbench fetches: each set by its pom in jvm/poms/, into tierbench's cache on first use ----------

POMS = Path(__file__).resolve().parent / "jvm" / "poms"
HADOOP_VERSION = "3.4.2"

HADOOP_LOG4J = """\
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


def _hadoop_home() -> Path:
    return cache_dir() / f"hadoop-{HADOOP_VERSION}"


def hadoop_lib() -> Path:
    """The directory of Hadoop 3.4.2's jars (the hadoop engine's, and the embedded HDFS's and YARN's), fetching
    them (about 95 MB, ~30 s) the first time."""
    return maven_fetch(POMS / "hadoop.xml", _hadoop_home(), "Hadoop's jars")


def hadoop_log4j_dir() -> Path:
    """A classpath directory with the log4j settings Hadoop's JVMs are started with (and an empty core-site.xml)."""
    d = _hadoop_home() / "log4j"
    d.mkdir(parents=True, exist_ok=True)
    f = d / "log4j.properties"
    if not f.is_file() or f.read_text() != HADOOP_LOG4J:
        f.write_text(HADOOP_LOG4J)
    # an empty core-site.xml: some tools (FsShell) refuse to start without one on the classpath
    site = d / "core-site.xml"
    if not site.is_file():
        site.write_text("<?xml version=\"1.0\"?>\n<configuration/>\n")
    return d


def _drop_what_hadoop_has(lib: Path) -> None:
    """The S3A fetch's jars that Hadoop's own lib already holds (same classes, perhaps other versions)."""
    have = {j.name.rsplit("-", 1)[0] for j in hadoop_lib().glob("*.jar")}
    for jar in lib.glob("*.jar"):
        if jar.name.rsplit("-", 1)[0] in have and not jar.name.startswith("hadoop-aws"):
            jar.unlink()


def hadoop_s3a_lib() -> Path:
    """hadoop-aws 3.4.2 and the AWS SDK v2 modules it needs (for Hadoop 3.4.2's jars), fetched the first time."""
    return maven_fetch(POMS / "hadoop-s3a.xml", _hadoop_home() / "s3a", "the S3A connector for Hadoop 3.4.2",
                       _drop_what_hadoop_has)


# jars Spark already ships (same classes, other versions): removed after the copy, so Spark's win
SPARK_HAS = ("httpclient-", "httpcore-", "commons-codec-", "commons-logging-", "slf4j-api-", "netty-buffer-", "netty-codec-",
             "netty-common-", "netty-handler-", "netty-resolver-", "netty-transport-")


def _drop_what_spark_has(lib: Path) -> None:
    for jar in lib.iterdir():
        if jar.name.startswith(SPARK_HAS) and not jar.name.startswith("netty-nio-client"):
            jar.unlink()


def spark_s3a_jars() -> list[Path]:
    """The S3A connector for pyspark's Hadoop client (hadoop-aws at its version, and the AWS SDK v2 modules it
    needs: 36 jars, ~13 MB), fetched from Maven Central into tierbench's cache on first use."""
    return sorted(maven_fetch(POMS / "spark-s3a.xml", cache_dir() / "s3a-3.5.0", "the S3A connector",
                              _drop_what_spark_has).glob("*.jar"))

def table_runtime_jars(spark_minor: str) -> list[Path]:
    """The table formats' Spark runtimes for Spark `spark_minor` ("4.1"): Iceberg's (one shaded jar, 46 MB),
    fetched from Maven Central into tierbench's cache on first use."""
    pom = POMS / f"tables-spark-{spark_minor}.xml"
    return sorted(maven_fetch(pom, cache_dir() / f"tables-spark-{spark_minor}", f"the table formats' runtimes for "
                              f"Spark {spark_minor}").glob("*.jar"))


# Delta's jars beyond Spark's own (its dependencies are Spark's, or serve catalog-managed tables only)
DELTA_OWN = ("delta-spark_", "delta-storage-")


def _keep_deltas_own(lib: Path) -> None:
    for jar in lib.iterdir():
        if not jar.name.startswith(DELTA_OWN):
            jar.unlink()


def delta_runtime_jars(spark_minor: str) -> list[Path]:
    """Delta Lake's Spark runtime for Spark `spark_minor` ("4.1"): delta-spark and delta-storage (9 MB), fetched
    from Maven Central into tierbench's cache on first use."""
    pom = POMS / f"delta-spark-{spark_minor}.xml"
    return sorted(maven_fetch(pom, cache_dir() / f"delta-spark-{spark_minor}", f"Delta Lake's runtime for Spark "
                              f"{spark_minor}", _keep_deltas_own).glob("*.jar"))


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


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours is not alive
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    except OSError:
        return False


# -- the embedded Spark standalone clusters (`tierbench services up spark`), by master URL --------------------
# A study whose master is one of these can restart its Workers on each configuration's intermediate dirs; any
# other spark:// master's Workers keep their own (SPARK_LOCAL_DIRS). The spec's validation asks, so it lives here.

def spark_masters_file() -> Path:
    return cache_dir() / "services" / "spark-masters.json"


def _same_master(url: str) -> str:
    # (Spark takes "spark://h:p," as the list of masters it is, so a URL copied with its comma works too)
    return url.rstrip("/,").replace("://localhost:", "://127.0.0.1:")


def spark_masters() -> dict[str, str]:
    """master URL -> service directory, as `services up spark` recorded them (`services down` forgets them)."""
    try:
        found = json.loads(spark_masters_file().read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def embedded_spark_dir(master: str) -> Path | None:
    """The directory of the `tierbench services up spark` cluster whose Master is `master`, else None. Its
    service.json must still name that master (a directory reused by another `up` has another port)."""
    master = _same_master(master)
    candidates = [spark_masters().get(master), cache_dir() / "services" / "spark"]
    for home in (Path(c) for c in candidates if c):
        try:
            state = json.loads((home / "service.json").read_text())
        except (OSError, ValueError):
            continue
        if isinstance(state, dict) and _same_master(state.get("master_url", "")) == master:
            return home
    return None


def remember_spark_master(master: str, home: Path | None) -> None:
    """Record (home given) or forget (None) which service directory a master URL belongs to."""
    path, masters = spark_masters_file(), spark_masters()
    if home is None:
        masters.pop(_same_master(master), None)
    else:
        masters[_same_master(master)] = str(Path(home).resolve())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(masters, indent=1))
    os.replace(tmp, path)
