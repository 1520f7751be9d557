"""File-system operations on non-local storage (hdfs://, s3a://), through Hadoop's own FsShell.

tierbench's namespacing there works as on local disks: it owns
<uri>/tierbench/<study>/ (marked with an owner file), refuses one it did not
make, and deletes only inside it. The shell runs on pyspark's own Hadoop
client jars (plus the S3A connector for s3a://), with the storage's settings
as -D options; S3 credentials come from the environment, never from here.
"""

import subprocess
import tempfile

from .. import processes
from ..errors import UserError
from .types import Connector

OWNER_FILE = ".tierbench-owner"


def _conf_dir():
    from ..toolchain import cache_dir

    d = cache_dir() / "fsshell-conf"
    d.mkdir(parents=True, exist_ok=True)
    site = d / "core-site.xml"  # FsShell wants one on its classpath
    if not site.is_file():
        site.write_text("<?xml version=\"1.0\"?>\n<configuration/>\n")
    return d


class HadoopFs:
    def __init__(self, settings: dict | None = None, connector: Connector = Connector()):
        self.settings = settings or {}
        self.connector = connector

    @classmethod
    def for_config(cls, config) -> "HadoopFs":
        """The shell for a storage configuration's remote file system, with its settings and connector, and
        short timeouts and retries (a dead endpoint fails in seconds), unless the configuration sets them. The
        shell runs on pyspark's Hadoop client, so its connector is the one built for Spark."""
        connector = config.type.connector("spark")
        return cls({**config.type.fail_fast, **config.engine_settings(), **dict(connector.settings)}, connector)

    def _shell(self, *args: str) -> subprocess.CompletedProcess:
        from ..toolchain import java_bin, pyspark_home

        cp = [str(_conf_dir()), str(pyspark_home() / "jars" / "*"), *self.connector.jars()]
        # its temporary files (S3A's upload buffers under hadoop.tmp.dir, /tmp/hadoop-<user> by default: a -touchz
        # left /tmp/hadoop-root/s3a behind) in a directory of its own, deleted when it ends
        with tempfile.TemporaryDirectory(prefix="tierbench-fsshell-") as tmp:
            opts = []
            for k, v in {"hadoop.tmp.dir": tmp, **self.settings}.items():
                opts += ["-D", f"{k}={v}"]
            cmd = [java_bin(), "-Xmx256m", f"-Djava.io.tmpdir={tmp}", "-cp", ":".join(cp), "org.apache.hadoop.fs.FsShell",
                   *opts, *args]
            return processes.run(cmd, capture_output=True, text=True, timeout=300)  # (a JVM: ended whole on an interrupt)

    @staticmethod
    def _said(out: subprocess.CompletedProcess) -> list[str]:
        return [l.strip() for l in (out.stderr + out.stdout).splitlines()
                if l.strip() and " WARN " not in l and "log4j" not in l.lower() and not l.strip().startswith("at ")]

    def _check(self, out: subprocess.CompletedProcess, what: str) -> None:
        if out.returncode != 0:
            lines = self._said(out)
            raise UserError(f"{what} failed: {lines[-1][:400] if lines else 'exit ' + str(out.returncode)}")

    def exists(self, uri: str) -> bool:
        out = self._shell("-test", "-e", uri)
        if out.returncode == 1 and not self._said(out):
            return False  # plainly not there
        self._check(out, f"reaching {uri}")  # anything else is a wrong endpoint, bucket or credential
        return True

    def mkdirs(self, uri: str) -> None:
        self._check(self._shell("-mkdir", "-p", uri), f"creating {uri}")

    def touch(self, uri: str) -> None:
        self._check(self._shell("-touchz", uri), f"creating {uri}")

    def remove(self, uri: str) -> None:
        self._check(self._shell("-rm", "-r", "-f", "-skipTrash", uri), f"deleting {uri}")

    def remove_if_empty(self, uri: str) -> None:
        self._shell("-rmdir", "--ignore-fail-on-non-empty", uri)

    def list_tree(self, uri: str) -> list[str]:
        """Every path under uri (recursive), as the file system names them."""
        out = self._shell("-ls", "-R", uri)
        self._check(out, f"listing {uri}")
        return [line.split()[-1] for line in out.stdout.splitlines() if line.strip() and not line.startswith("Found ")]

    def get(self, uris: list[str], local_dir) -> None:
        """Copy remote trees into a local directory (each as local_dir/<last name>)."""
        self._check(self._shell("-get", *uris, str(local_dir)), f"fetching {len(uris)} paths to {local_dir}")
