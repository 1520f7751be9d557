"""Sane bounds on the numbers people give tierbench, in one place: a spec's [cost], a hardware description and the
options of `tierbench cost`, `predict`, `services` and `probe` refuse the same figures in the same words.

A bound is what makes sense, not merely what can be computed: a drive at 1e-300 MB/s is a number > 0, and a
prediction for it prints a 300-digit runtime; 200,000 DataNodes is a whole number >= 1, and `services up` would
write 200,000 configurations before finding out. A figure outside its bound is a slip (a unit, a digit, a sign),
so it is refused in one line naming the file and field (or the option), the value given and the accepted range
with its unit. nan and inf are never accepted: TOML and Python's float() both read them.
"""

import math
from dataclasses import dataclass

from .errors import SpecError, UserError
from .units import RULE, parse_size

TB = 10**12  # sizes are read and shown as tierbench reads every size: KB/MB/GB/TB are powers of 1000 (units.py)


@dataclass(frozen=True)
class Bound:
    low: float
    high: float
    unit: str = ""
    whole: bool = False      # a count: an integer (TOML's 2.0 is a float, and refused, as the spec always did)
    positive: bool = False   # the quantity must be > 0 (a speed, a runtime); `low` is the least that makes sense
    size: bool = False       # bytes, shown as MB/GB/TB

    @property
    def kind(self) -> str:
        return "whole number" if self.whole else ("size" if self.size else "number")

    def _show(self, x: float, unit: bool = True) -> str:
        if self.size:
            return size_text(x)
        return f"{_num(x)} {self.unit}" if self.unit and unit else _num(x)

    def text(self) -> str:
        """The range as the spec words it, with operators: "> 0, from 0.001 to 1e+09 s", ">= 0 and at most 1e+12 USD"."""
        if self.positive:  # the sign first (what makes the quantity meaningful), then the sane range
            return f"> 0, from {self._show(self.low, unit=False)} to {self._show(self.high)}"
        return f">= {self._show(self.low, unit=False)} and at most {self._show(self.high)}"

    def words(self) -> str:
        """The range in words, as command-line errors give it: "at least 1 and at most 64 DataNodes"."""
        return f"at least {self._show(self.low, unit=False)} and at most {self._show(self.high)}"

    def is_kind(self, value) -> bool:
        """A finite number (an int for a whole number); bool is refused though Python counts it an int."""
        if isinstance(value, bool) or not isinstance(value, int if self.whole else (int, float)):
            return False
        return not isinstance(value, float) or math.isfinite(value)

    def fits(self, value) -> bool:
        return self.is_kind(value) and self.low <= value <= self.high


def _num(x: float) -> str:
    # plain digits where people write them so (ports, counts), powers of ten beyond (1e+09 s, 1e+12 USD)
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e7 else f"{x:g}"


def size_text(n: float) -> str:
    for unit, mult in (("TB", TB), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= mult:
            return f"{_num(n / mult)} {unit}"
    return f"{_num(n)} bytes"


def shown(value) -> str:
    """A value as the user gave it, on one line: typed text as typed, anything odd (empty, spaces, newlines) quoted."""
    if isinstance(value, str) and value and value.isprintable() and not any(c.isspace() for c in value):
        return value
    return repr(value)


def field(src: str, name: str, value, bound: Bound):
    """A number of a file (a spec, a hardware description): SpecError naming the file, the field, the value and
    the range. Returns an int for a whole number, else a float."""
    if not bound.fits(value):
        raise SpecError(src, name, f"expected a {bound.kind} {bound.text()}, got {value!r}")
    return value if bound.whole else float(value)


def named(name: str, value, bound: Bound, flag: str = "") -> float:
    """A figure of a command named as its field (`tierbench cost`'s runtime_s, as its --json output and the spec's
    [cost] name them) and by the `flag` it came from, from the command line's text or a number."""
    number = _parse(value, bound)
    if number is None or not bound.fits(number):
        given = f"{flag} {shown(value)}" if flag else shown(value)
        raise UserError(f"{name}: must be {'a whole number ' if bound.whole else ''}{bound.text()}, got {given}")
    return number if bound.whole else float(number)


def option(flag: str, value, bound: Bound, in_range: bool = True):
    """A command-line option's number, from its text (or its default): UserError "--flag VALUE: must be ...".
    argparse's own type=int/float would print its usage and a second line, and accepts nan and inf.
    in_range=False: only its kind is checked here, the range by the caller's own check (which names it too)."""
    number = _parse(value, bound)
    if not (bound.fits(number) if in_range else bound.is_kind(number)):
        raise UserError(f"{flag} {shown(value)}: must be a {bound.kind}, {bound.words()}")
    return number if bound.whole else float(number)


def size_of(value) -> int:
    """parse_size, its every refusal a ValueError: 400 digits of "GB" are a float's inf, which int() refuses with
    an OverflowError."""
    try:
        return parse_size(value)
    except OverflowError:
        raise ValueError(f"{shown(value)} is too large for a size") from None


def option_size(flag: str, value, bound: Bound) -> int:
    """A command-line size ("256MB", "1TB") within `bound` (a size bound)."""
    try:
        n = size_of(value)
    except ValueError:
        n = None
    if n is None or not bound.fits(n):
        raise UserError(f"{flag} {shown(value)}: must be a size such as 64MB or 1TB ({RULE}), {bound.words()}")
    return n


def field_size(src: str, name: str, value, bound: Bound, what: str = "") -> int:
    """A size of a file ("16GB"), within `bound`; parse_size's own words (and `what`) when it is no size at all."""
    try:
        n = size_of(value)
    except ValueError as e:
        raise SpecError(src, name, f"{e}{what}") from None
    return in_size_bound(src, name, value, n, bound)


def in_size_bound(src: str, name: str, value, n: int, bound: Bound) -> int:
    if not bound.fits(n):
        raise SpecError(src, name, f"{value!r} is {size_text(n)}: expected a size {bound.words()}")
    return n


def _parse(value, bound: Bound):
    """The number in a command line's text (or a number as is); None when it is none."""
    if not isinstance(value, str):
        return value
    try:
        return int(value) if bound.whole else float(value)
    except ValueError:  # also Python's limit on the digits of an int
        return None


# -- the bounds ------------------------------------------------------------------------------------------------
# a period of use, and the share of it spent running jobs: below these a $/job is a figure of 300 digits
YEARS = Bound(0.01, 100, "years", positive=True)
UTILISATION = Bound(0.001, 1, positive=True)  # a share of the period
RUNTIME_S = Bound(0.001, 1e9, "s", positive=True)  # 1e9 s: 31 years
PRICE_USD = Bound(0, 1e12, "USD")
HARDWARE_PRICE_USD = Bound(1, 1e12, "USD", positive=True)  # a whole cluster's: 0 would mean "no price"
USD_PER_KWH = Bound(0, 100, "USD/kWh")
WATTS = Bound(0, 1e6, "W")
ENDURANCE_TBW = Bound(1, 1e7, "TB written", positive=True)
DWPD = Bound(0.01, 1000, "drive writes per day", positive=True)

# a cluster: the largest Hadoop clusters have had some 10,000s of nodes
NODES = Bound(1, 100_000, "nodes", whole=True)
CORES = Bound(1, 10_000, "task slots per node", whole=True)
DRIVES_PER_NODE = Bound(1, 1000, "drives per node", whole=True)
REPLICATION = Bound(1, 512, "copies", whole=True)  # HDFS's own ceiling (dfs.replication.max)
ERASURE_BLOCKS = Bound(1, 64, "blocks", whole=True)  # k or m of k+m
NETWORK_GBPS = Bound(0.001, 10_000, "Gbit/s", positive=True)
DRIVE_MB_S = Bound(0.1, 100_000, "MB/s", positive=True)
DRIVE_IOPS = Bound(1, 1e8, "IOPS", positive=True)
CPU_MB_S_PER_THREAD = Bound(0.01, 10_000, "MB/s", positive=True)  # a job's input per thread when CPU-bound
NODE_MEMORY = Bound(10**6, 1024 * TB, size=True)
DATA_SIZE = Bound(10**6, 10_000 * TB, size=True)  # a job's data: a predicted size, cost.target_size
DRIVE_CAPACITY = Bound(10**6, 10_000 * TB, size=True)

# one machine's services, each a JVM or a daemon of its own
PORT = Bound(1, 65535, "(a TCP port)", whole=True)
DATANODES = Bound(1, 64, "DataNodes on this machine", whole=True)
DATANODE_DIRS = Bound(1, 64, "data dirs per DataNode", whole=True)
SPARK_WORKERS = Bound(1, 64, "Workers on this machine", whole=True)
OSDS = Bound(1, 16, "OSDs on this machine", whole=True)  # as services/s3.py's topology checks
GATEWAYS = Bound(1, 16, "radosgw instances", whole=True)
# fio's blocks are 1 MiB; the top is only a sanity limit: whether the device can hold it is the free-space check's
PROBE_SIZE = Bound(10**6, 1024 * TB, size=True)
EMULATED_SIZE = Bound(256 * 10**6, 64 * TB, size=True)  # ext4 and the data at least (as a spec's emulate size); sparse
