"""File-system operations on non-local storage (hdfs://), through Hadoop's own FsShell.

tierbench's namespacing on HDFS works as on local disks: it owns
<uri>/tierbench/<study>/ (marked with an owner file), refuses one it did not
make, and deletes only inside it. The shell runs from Hadoop 3.4.2's jars
(fetched on first use), with the storage's settings as -D options.
"""

import subprocess

from ..errors import UserError

OWNER_FILE = ".tierbench-owner"


class HadoopFs:
    def __init__(self, settings: dict | None = None):
        self.settings = settings or {}

    def _shell(self, *args: str) -> subprocess.CompletedProcess:
        from ..engines.hadoop.runtime import classpath, java_bin

        opts = []
        for k, v in self.settings.items():
            opts += ["-D", f"{k}={v}"]
        cmd = [java_bin(), "-Xmx256m", "-cp", classpath(), "org.apache.hadoop.fs.FsShell", *opts, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    def _check(self, out: subprocess.CompletedProcess, what: str) -> None:
        if out.returncode != 0:
            lines = [l for l in (out.stderr + out.stdout).splitlines() if l.strip() and " WARN " not in l]
            raise UserError(f"{what} failed: {lines[-1] if lines else 'exit ' + str(out.returncode)}")

    def exists(self, uri: str) -> bool:
        out = self._shell("-test", "-e", uri)
        if out.returncode not in (0, 1):
            self._check(out, f"checking {uri}")
        return out.returncode == 0

    def mkdirs(self, uri: str) -> None:
        self._check(self._shell("-mkdir", "-p", uri), f"creating {uri}")

    def touch(self, uri: str) -> None:
        self._check(self._shell("-touchz", uri), f"creating {uri}")

    def remove(self, uri: str) -> None:
        self._check(self._shell("-rm", "-r", "-f", "-skipTrash", uri), f"deleting {uri}")

    def remove_if_empty(self, uri: str) -> None:
        self._shell("-rmdir", "--ignore-fail-on-non-empty", uri)
