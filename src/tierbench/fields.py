"""The checks every file tierbench reads shares (a study spec, its storage tables, its [cost], a hardware
description): unknown keys, tables, required fields, whole numbers, sizes, choices, true/false and local
directories. Each refuses in one SpecError naming the file and the field and saying what would be accepted.

It sits below spec/, storage/ and model/ (beside bounds.py, which holds the ranges of numbers), so that each of
them validates with the same words: storage/ may not import spec/ (imports follow the data).
"""

import os
from pathlib import Path

from .bounds import size_of
from .errors import SpecError
from .sampling.devices import mount_of

FILE_SCHEME = "file://"
# the kernel's own file systems: a directory on one of them is no storage
PSEUDO_FS = ("proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts", "debugfs", "securityfs", "tracefs", "configfs",
             "pstore", "bpf", "mqueue", "fusectl", "binfmt_misc", "autofs")


def unknown_fields(src, where, table, accepted, problem="unknown field; accepted here", key=str) -> None:
    """Refuse the first key of `table` that is not `accepted`, named after `where` (a prefix such as
    "storage.a.") as `key` shows it, and list what is accepted after `problem`."""
    for name in table:
        if name not in accepted:
            raise SpecError(src, f"{where}{key(name)}", f"{problem}: {', '.join(accepted)}")


def table(src, where, value, problem="expected a table") -> dict:
    """A TOML table (a dict); `problem` says what kind of table when it is not one."""
    if not isinstance(value, dict):
        raise SpecError(src, where, problem)
    return value


def required(src, where, raw: dict, key: str, what: str = ""):
    """raw[key], or "missing" (and what it is for) naming the field `where` + `key`."""
    if key not in raw:
        raise SpecError(src, f"{where}{key}", f"missing: {what}" if what else "missing")
    return raw[key]


def positive_int(src, field_name, value, minimum):
    """A whole number >= `minimum` (TOML's true is no number, though Python counts it an int)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(src, field_name, f"expected a whole number >= {minimum}, got {value!r}")
    return value


def boolean(src, field_name, value) -> bool:
    if not isinstance(value, bool):
        raise SpecError(src, field_name, f"expected true or false, got {value!r}")
    return value


def choice(src, field_name, value, accepted):
    """One of `accepted` (strings, listed in the error as given)."""
    if value not in accepted:
        raise SpecError(src, field_name, f"expected one of {', '.join(accepted)}, got {value!r}")
    return value


def between(src, field_name, value, low, high, what: str):
    """A number (not nan, not a bool) from `low` to `high`: "expected `what` between `low` and `high`"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise SpecError(src, field_name, f"expected {what} between {low} and {high}, got {value!r}")
    return value


def size(src, field_name, value) -> int:
    """A size such as "256MB" in bytes (KB/MB/GB/TB are powers of 1024), in parse_size's own words when it is none."""
    try:
        return size_of(value)
    except ValueError as e:
        raise SpecError(src, field_name, str(e)) from None


def check_dir(src, field_name, value, base_dir: Path) -> str:
    """A local directory a spec names: absolute, normalised, and somewhere tierbench can write."""
    if not isinstance(value, str) or not value.strip():
        raise SpecError(src, field_name, f"expected a directory path (a string), got {value!r}")
    if "://" in value and not value.startswith(FILE_SCHEME):
        raise SpecError(src, field_name, f"{value!r}: only local directories are supported here (a path or file:// URI)")
    bad = next((c for c in value if c == "," or ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:  # Spark and Hadoop split their directory lists (spark.local.dir, *.dirs) on commas
        raise SpecError(src, field_name, f"{value!r}: a directory path may not hold {bad!r} (engines split directory "
                        "lists on commas; control characters would become folder names): rename the directory")
    path = Path(value.removeprefix(FILE_SCHEME)).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    path = Path(os.path.normpath(path))
    probe = path
    while not probe.exists():
        if os.path.lexists(probe):  # a link to nowhere, or a loop of links: nothing can be made under it
            raise SpecError(src, field_name, f"{path}: {probe} is a dangling symbolic link (or a loop of links)")
        probe = probe.parent
    mount = mount_of(str(probe))
    if mount.get("fs_type") in PSEUDO_FS:
        raise SpecError(src, field_name, f"{path}: {probe} is on {mount['fs_type']} ({mount['mount_point']}), the kernel's "
                        "own file system, not storage; choose a directory on a disk")
    if "ro" in mount.get("options", "").split(","):
        raise SpecError(src, field_name, f"{path}: {mount['mount_point']} is mounted read-only")
    if not probe.is_dir():
        raise SpecError(src, field_name, f"{path}: {probe} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise SpecError(src, field_name, f"{path}: cannot write in {probe} (permission denied); choose a directory you can write to")
    return str(path)


def check_dirs(src, field_name, value, base_dir) -> tuple[str, ...]:
    """One local directory or a non-empty list of them, none twice (each as check_dir has it)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise SpecError(src, field_name, f"expected a non-empty list of directories, got {value!r}")
    dirs = tuple(check_dir(src, f"{field_name}[{i}]", v, base_dir) for i, v in enumerate(value))
    if len(set(dirs)) != len(dirs):
        raise SpecError(src, field_name, "lists the same directory twice")
    return dirs
