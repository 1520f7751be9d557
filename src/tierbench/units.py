"""Sizes with units, as people write them in specs: "64MB", "1.5 GB", "512 KiB".

Hadoop's benchmarks count a megabyte as 2^20 bytes (TestDFSIO's MEGA), and so
does tierbench: KB/MB/GB/TB and KiB/MiB/GiB/TiB both mean powers of 1024.
"""

import re

_MULTIPLIERS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(I?B)?\s*$", re.IGNORECASE)
MB = 1 << 20


def parse_size(value, decimal: bool = False) -> int:
    """Bytes in `value` (an int is bytes); ValueError with what would be accepted.

    decimal=True reads KB/MB/GB/TB as powers of 1000, as drive makers sell capacity
    (KiB/MiB/GiB/TiB stay binary)."""
    if isinstance(value, bool):
        raise ValueError(f"expected a size such as \"64MB\" or \"2GB\", got {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"a size must be positive, got {value}")
        return value
    if isinstance(value, str):
        m = _SIZE.match(value)
        if m:
            number, prefix = float(m.group(1)), m.group(2).upper()
            binary_suffix = (m.group(3) or "").upper() == "IB"
            if m.group(3) is None and prefix == "" and "." in m.group(1):
                raise ValueError(f"a size in bytes must be whole, got {value!r}")
            mult = _MULTIPLIERS[prefix]
            if decimal and not binary_suffix and prefix:
                mult = 1000 ** "KMGT".index(prefix) * 1000
            size = int(number * mult)
            if size <= 0:
                raise ValueError(f"a size must be positive, got {value!r}")
            return size
    raise ValueError(f"expected a size such as \"64MB\", \"1.5GB\" or \"512KiB\", got {value!r}")


def format_size(n_bytes: float) -> str:
    for unit, mult in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n_bytes >= mult:
            return f"{n_bytes / mult:.3g} {unit}"
    return f"{int(n_bytes)} B"
