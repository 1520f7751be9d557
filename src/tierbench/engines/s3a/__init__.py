"""Hadoop's S3A connector for Spark: hadoop-aws matching pyspark's Hadoop client, and the AWS SDK v2 modules it needs."""

import fcntl
import hashlib
import shutil
import subprocess
from pathlib import Path

from ...errors import UserError
from ..jobs_jar import cache_dir

POM = Path(__file__).resolve().parent / "pom.xml"
# jars Spark already ships (same classes, other versions): removed after the copy, so Spark's win
SPARK_HAS = ("httpclient-", "httpcore-", "commons-codec-", "commons-logging-", "slf4j-api-", "netty-buffer-", "netty-codec-",
             "netty-common-", "netty-handler-", "netty-resolver-", "netty-transport-")


def s3a_jars() -> list[Path]:
    """The S3A jars (36 jars, ~13 MB), fetched from Maven Central into tierbench's cache on first use."""
    home = cache_dir() / "s3a-3.5.0"
    stamp = hashlib.sha256(POM.read_bytes()).hexdigest()[:12]
    lib, marker = home / "lib", home / f".complete-{stamp}"
    if not marker.is_file():
        home.mkdir(parents=True, exist_ok=True)
        with open(home / ".fetch.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not marker.is_file():
                mvn = shutil.which("mvn")
                if not mvn:
                    raise UserError("Maven (mvn) is needed to fetch the S3A connector from Maven Central: install it "
                                    "(Debian: apt-get install maven); ./setup.sh does this when run as root")
                partial = home / "lib.partial"
                shutil.rmtree(partial, ignore_errors=True)
                out = subprocess.run([mvn, "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
                                      f"-DoutputDirectory={partial}", "-DincludeScope=runtime"], capture_output=True, text=True)
                if out.returncode != 0:
                    raise UserError("fetching the S3A connector failed: " + " | ".join((out.stdout + out.stderr).strip().splitlines()[-3:]))
                for jar in partial.iterdir():
                    if jar.name.startswith(SPARK_HAS) and not jar.name.startswith("netty-nio-client"):
                        jar.unlink()
                shutil.rmtree(lib, ignore_errors=True)
                partial.rename(lib)
                for old in home.glob(".complete-*"):
                    old.unlink()
                marker.touch()
    return sorted(lib.glob("*.jar"))
