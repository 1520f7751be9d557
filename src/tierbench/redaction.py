"""Secrets never go in specs, records, logs or reports: what counts as one, and how it is kept out."""

import re

SECRET_WORDS = ("secret", "password", "passwd", "access.key", "access_key", "token", "credential", "session.key")
USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*@", re.IGNORECASE)  # scheme://user[:key]@host


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
