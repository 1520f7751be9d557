"""What tierbench needs from the machine, in one place: its cache dir, the JDK, pyspark's home, jars fetched
by Maven from Maven Central, the JVM flags Hadoop needs on Java 17, Hadoop conf dirs, and process checks.
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
