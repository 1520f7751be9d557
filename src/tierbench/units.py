"""Sizes with units, and one rule for them in every option, spec field, hardware file and output:

    KB, MB, GB, TB, PB    powers of 1000  ("1TB" = 10^12 bytes, as the studies, TeraGen and drive makers count)
    KiB, MiB, GiB, TiB    powers of 1024  ("16GiB" of RAM)
    k, m, g, t            powers of 1024, as Java, Spark and Hadoop write memory ("512m", "2g")

A plain number is bytes. tierbench prints sizes in the first form (format_size): "931 GB" is 931 x 10^9 bytes.
"""

import re

_DECIMAL = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_BINARY = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?)(I?B)?\s*$", re.IGNORECASE)
MB = 1 << 20  # (the engines' own megabyte, a MiB: TestDFSIO's MEGA, io.sort.mb, Spark's "m")
RULE = "KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB and a bare k/m/g/t powers of 1024"


def parse_size(value) -> int:
    """Bytes in `value` (an int is bytes), by the module's rule; ValueError with what would be accepted."""
    if isinstance(value, bool):
        raise ValueError(f"expected a size such as \"64MB\" or \"2GiB\", got {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"a size must be positive, got {value}")
        return value
    if isinstance(value, str):
        m = _SIZE.match(value)
        if m:
            number, prefix, suffix = float(m.group(1)), m.group(2).upper(), (m.group(3) or "").upper()
            if not suffix and not prefix and "." in m.group(1):
                raise ValueError(f"a size in bytes must be whole, got {value!r}")
            if prefix == "P" and not suffix:
                raise ValueError(f"{value!r}: write PB (10^15 bytes) or PiB (2^50)")
            binary = suffix == "IB" or (prefix and not suffix)  # KiB..., or Java's bare k/m/g/t
            size = int(number * (_BINARY if binary else _DECIMAL)[prefix])
            if size <= 0:
                raise ValueError(f"a size must be positive, got {value!r}")
            return size
    raise ValueError(f"expected a size such as \"64MB\", \"1.5GB\" or \"512KiB\" ({RULE}), got {value!r}")


def format_size(n_bytes: float) -> str:
    """A size as the rule writes it: powers of 1000 ("931 GB" = 931 x 10^9 bytes)."""
    for unit, mult in (("PB", 10**15), ("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n_bytes >= mult:
            return f"{n_bytes / mult:.3g} {unit}"
    return f"{int(n_bytes)} B"
