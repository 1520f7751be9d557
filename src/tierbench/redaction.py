"""Secrets never go in specs, records, logs or reports: what counts as one, and how it is kept out."""

import json
import os
import re
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
