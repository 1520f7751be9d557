"""Secrets never go in specs, records, logs or reports: what counts as one, and how it is kept out."""

import json
import os
import re
import threading
from pathlib import Path

SECRET_WORDS = ("secret", "password", "passwd", "access.key", "access_key", "token", "credential", "session.key")
USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*@", re.IGNORECASE)  # scheme://user[:key]@host


PASSWORD_IN_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]*@", re.IGNORECASE)  # scheme://user:key@, anywhere


def has_password_in_url(text: str) -> bool:
    """A URL with a password in it anywhere in the text (a shell command line)."""
    return bool(PASSWORD_IN_URL.search(text))


def is_secret_key(key: str) -> bool:
    k = key.lower()
    return any(w in k for w in SECRET_WORDS)


def has_userinfo(url: str) -> bool:
    """A URL carrying credentials in it (user:key@host)."""
    return bool(USERINFO.match(url))


def redact(conf: dict) -> dict:
    """A configuration as it may be stored: secret-looking keys' values and credentials in URLs hidden."""
    out = {}
    for k, v in conf.items():
        if is_secret_key(k):
            v = "<redacted>"
        elif isinstance(v, str) and has_userinfo(v):
            v = re.sub(r"://[^/@\s]*@", "://<redacted>@", v, count=1)
        out[k] = v
    return out


# -- secrets by value: what a user's command, an engine or a log prints of the credentials tierbench passes on --
MIN_SECRET_CHARS = 8  # shorter values are no credential of any store here, and masking them would garble text
MASK = "<redacted>"


def secret_values(env=None) -> list[str]:
    """The values of the environment's credential variables (AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID,
    AWS_SESSION_TOKEN, anything whose name the secret rules match), longest first."""
    env = os.environ if env is None else env
    found = {v for k, v in env.items() if is_secret_key(k) and isinstance(v, str) and len(v) >= MIN_SECRET_CHARS}
    return sorted(found, key=len, reverse=True)


def mask(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every credential value in it replaced by <redacted> (as written, and as JSON escapes it)."""
    if not isinstance(text, str):
        return text
    for value in secret_values() if secrets is None else secrets:
        for form in {value, json.dumps(value)[1:-1]}:
            if form in text:
                text = text.replace(form, MASK)
    return text


def mask_file(path) -> None:
    """A log file written by a child process, rewritten with its credential values masked (when it holds any)."""
    secrets = secret_values()
    path = Path(path)
    if not secrets or not path.is_file():
        return
    try:
        text = path.read_text(errors="surrogateescape")
    except OSError:
        return
    masked = mask(text, secrets)
    if masked != text:
        tmp = path.with_name(path.name + ".masking")
        tmp.write_text(masked, errors="surrogateescape")
        os.replace(tmp, path)


class MaskedLog:
    """A log file that a child process writes to through a pipe, each line masked before it reaches the disk.

    Why not the file itself, masked afterwards (mask_file): between the write and the masking the secret is on disk,
    and a `kill -9` of tierbench (or a crash) leaves it there for good. A thread of tierbench's reads the pipe line
    by line, masks each line with the credential values of tierbench's environment (the child's are those or fewer)
    and appends it, flushed, so that a log read while the child runs is masked too. Give `fd` as the child's stdout
    or stderr, call `started()` once it is spawned (tierbench's copy of the pipe closed: the pump ends when the
    child's last process closes its end), and `close()` when it is done."""

    def __init__(self, path, mode: str = "a", header: str | None = None):
        from . import safefiles  # (safefiles imports errors only; imported here to keep this module's imports light)

        self.path = Path(path)
        self._secrets = secret_values()
        self._file = safefiles.open_file(self.path, mode, what="a log", encoding=None)
        if header is not None:
            self._write(header)
        self._read_fd, self.fd = os.pipe()
        self._thread = threading.Thread(target=self._pump, name=f"log {self.path.name}", daemon=True)
        self._thread.start()

    def _write(self, text: str) -> None:
        self._file.write((mask(text, self._secrets) if self._secrets else text).encode("utf-8", "surrogateescape"))
        self._file.flush()

    def _pump(self) -> None:
        with os.fdopen(self._read_fd, "rb") as pipe:
            for line in pipe:
                try:
                    self._write(line.decode("utf-8", "surrogateescape"))
                except (OSError, ValueError):  # (the file closed under it: close() gave up waiting)
                    return

    def started(self) -> None:
        """The child has its copy of the pipe: tierbench's is closed, so the pump sees the end of its output."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def drain(self, timeout: float = 2.0) -> None:
        """What the child wrote so far on disk (its processes gone: the pump reaches the end)."""
        self._thread.join(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """The pump ended (or given up after `timeout`: a daemon the child left holds the pipe) and the file closed."""
        self.started()
        self._thread.join(timeout)
        self._file.close()
