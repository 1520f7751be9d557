"""The spec's cost sections: `[cost]` (period, power price, drive classes) and `[storage.NAME.cost]`.

    [cost]
    years = 3                      # period of use
    utilisation = 1.0              # share of the period spent running the job back to back
    usd_per_kwh = 0.15
    example_prices = true          # the report labels the figures as from example prices
    target_size = "1TB"            # the job size you care about: figures also given at it (linear extrapolation)
    [cost.drive_classes.ssd]
    price_usd = 120
    capacity = "960GB"             # 960 x 10^9 bytes, as drives are sold (GB: powers of 1000, units.py)
    watts = 3
    endurance_tbw = 600            # or: dwpd = 1, warranty_years = 5
    [storage.fast.cost]
    price_usd = 4000               # the configuration's price, or a bill of materials:
    nodes = 1
    node_price_usd = 3000
    node_watts = 150
    drives = { ssd = 2 }           # per node
    network_usd = 0
    data_drive = "ssd"             # where the data dirs are (default: the only class)
    intermediate_drive = "ssd"     # where the intermediate dirs are (default: data_drive)
    protection = { replication = 3 }   # or { ec = "3+2" }
"""

import re
from dataclasses import dataclass, field, replace

from .. import bounds
from ..errors import SpecError
from ..fields import boolean, required, table, unknown_fields

COST_KEYS = ("years", "utilisation", "usd_per_kwh", "example_prices", "target_size", "drive_classes")
DRIVE_KEYS = ("price_usd", "capacity", "watts", "endurance_tbw", "dwpd", "warranty_years")
CONFIG_COST_KEYS = ("price_usd", "nodes", "node_price_usd", "node_watts", "drives", "network_usd",
                    "data_drive", "intermediate_drive", "protection")


TB = 10**12  # drive makers' terabytes (endurance and capacity are sold in these)


@dataclass(frozen=True)
class DriveClass:
    name: str
    price_usd: float
    capacity_bytes: int
    watts: float = 0.0
    endurance_bytes: float | None = None  # rated bytes written over the warranty (TBW), None = not rated (HDD)


@dataclass(frozen=True)
class ConfigCost:
    """What a storage configuration costs to buy and run (from the spec's cost section)."""
    price_usd: float
    nodes: int = 1
    node_watts: float = 0.0
    drives: dict = field(default_factory=dict)  # drive class name -> count per node
    data_drive: str | None = None  # the class holding the data dirs
    intermediate_drive: str | None = None  # the class holding the intermediate dirs
    copies: float = 1.0  # data-protection overhead: replication factor, or (k+m)/k for erasure coding

    def watts(self, classes: dict[str, DriveClass]) -> float:
        return self.nodes * (self.node_watts + sum(classes[c].watts * n for c, n in self.drives.items()))

    def usable_bytes(self, classes: dict[str, DriveClass]) -> float | None:
        if not self.data_drive:
            return None
        raw = self.nodes * self.drives.get(self.data_drive, 0) * classes[self.data_drive].capacity_bytes
        return raw / self.copies


@dataclass(frozen=True)
class CostSpec:
    years: float = 3.0
    utilisation: float = 1.0
    usd_per_kwh: float = 0.0
    example_prices: bool = False
    drive_classes: dict = field(default_factory=dict)  # name -> DriveClass
    configs: dict = field(default_factory=dict)  # storage config name -> ConfigCost
    target_bytes: int | None = None  # target_size: per-job figures are also extrapolated to this data size


# the bounds every cost figure shares with `tierbench cost` and hardware descriptions (tierbench.bounds)
DRIVES_COUNT = replace(bounds.DRIVES_PER_NODE, low=0)  # a class a configuration does not use: 0 drives of it
COPIES = replace(bounds.REPLICATION, whole=False)  # protection.replication: a factor, as the spec always took it
EC = re.compile(r"^\s*(\d{1,9})\s*\+\s*(\d{1,9})\s*$")  # few digits: int() refuses thousands


def _table_of(src, where, value, accepted) -> dict:
    """A cost table with only `accepted` keys."""
    unknown_fields(src, f"{where}.", table(src, where, value), accepted)
    return value


def parse_cost(src: str, raw_cost: dict | None, raw_storage: dict) -> CostSpec | None:
    per_config = {name: c["cost"] for name, c in raw_storage.items() if isinstance(c, dict) and "cost" in c}
    if raw_cost is None and not per_config:
        return None
    raw_cost = raw_cost or {}
    _table_of(src, "cost", raw_cost, COST_KEYS)
    years = bounds.field(src, "cost.years", raw_cost.get("years", 3), bounds.YEARS)
    util = bounds.field(src, "cost.utilisation", raw_cost.get("utilisation", 1.0), bounds.UTILISATION)
    kwh = bounds.field(src, "cost.usd_per_kwh", raw_cost.get("usd_per_kwh", 0.0), bounds.USD_PER_KWH)
    example = boolean(src, "cost.example_prices", raw_cost.get("example_prices", False))
    target = None
    if "target_size" in raw_cost:
        target = bounds.field_size(src, "cost.target_size", raw_cost["target_size"], bounds.DATA_SIZE,
                                   what=" (the data one job reads or writes, e.g. \"1TB\")")
    drive_classes = raw_cost.get("drive_classes") or {}
    if not isinstance(drive_classes, dict):
        raise SpecError(src, "cost.drive_classes", "expected a table of drive classes, such as [cost.drive_classes.ssd]")
    classes = {name: _drive_class(src, f"cost.drive_classes.{name}", name, d) for name, d in drive_classes.items()}
    configs = {cname: _config_cost(src, f"storage.{cname}.cost", c, classes) for cname, c in per_config.items()}
    return CostSpec(years, util, kwh, example, classes, configs, target)


def _drive_class(src: str, where: str, name: str, d) -> DriveClass:
    _table_of(src, where, d, DRIVE_KEYS)
    for need in ("price_usd", "capacity"):
        required(src, f"{where}.", d, need)
    capacity = bounds.field_size(src, f"{where}.capacity", d["capacity"], bounds.DRIVE_CAPACITY)
    endurance = None
    if "endurance_tbw" in d and "dwpd" in d:
        raise SpecError(src, where, "give endurance_tbw or dwpd, not both")
    if "endurance_tbw" in d:
        endurance = bounds.field(src, f"{where}.endurance_tbw", d["endurance_tbw"], bounds.ENDURANCE_TBW) * TB
    elif "dwpd" in d:
        dwpd = bounds.field(src, f"{where}.dwpd", d["dwpd"], bounds.DWPD)
        warranty = bounds.field(src, f"{where}.warranty_years", d.get("warranty_years", 5), bounds.YEARS)
        endurance = dwpd * capacity * 365 * warranty
    return DriveClass(name, bounds.field(src, f"{where}.price_usd", d["price_usd"], bounds.PRICE_USD), capacity,
                      bounds.field(src, f"{where}.watts", d.get("watts", 0), bounds.WATTS), endurance)


def _config_cost(src: str, where: str, c, classes: dict) -> ConfigCost:
    _table_of(src, where, c, CONFIG_COST_KEYS)
    nodes = bounds.field(src, f"{where}.nodes", c.get("nodes", 1), bounds.NODES)
    drives = c.get("drives", {})
    _table_of(src, f"{where}.drives", drives, tuple(classes))  # names an undefined class -> error
    for dname, n in drives.items():
        bounds.field(src, f"{where}.drives.{dname}", n, DRIVES_COUNT)
    for key in ("data_drive", "intermediate_drive"):
        v = c.get(key)
        if v is not None and v not in drives:
            raise SpecError(src, f"{where}.{key}", f"{v!r} is not among this configuration's drives ({', '.join(drives) or 'none'})")
    data_drive = c.get("data_drive") or (next(iter(drives)) if len(drives) == 1 else None)
    inter_drive = c.get("intermediate_drive") or data_drive
    copies = _copies(src, f"{where}.protection", c.get("protection"))
    if "price_usd" in c:
        price = bounds.field(src, f"{where}.price_usd", c["price_usd"], bounds.PRICE_USD)
    elif "node_price_usd" in c or drives:
        node = bounds.field(src, f"{where}.node_price_usd", c.get("node_price_usd", 0), bounds.PRICE_USD)
        net = bounds.field(src, f"{where}.network_usd", c.get("network_usd", 0), bounds.PRICE_USD)
        price = nodes * (node + sum(classes[d].price_usd * n for d, n in drives.items())) + net
    else:
        raise SpecError(src, f"{where}.price_usd", "missing: give the configuration's price_usd or a bill of materials (node_price_usd, drives)")
    return ConfigCost(price, nodes, bounds.field(src, f"{where}.node_watts", c.get("node_watts", 0), bounds.WATTS),
                      dict(drives), data_drive, inter_drive, copies)


def _copies(src: str, where: str, prot) -> float:
    """Bytes stored per byte written: the replication factor, or (k+m)/k for erasure coding k+m."""
    if prot is None:
        return 1.0
    _table_of(src, where, prot, ("replication", "ec"))
    if "replication" in prot:
        return bounds.field(src, f"{where}.replication", prot["replication"], COPIES)
    if "ec" in prot:
        m = EC.match(str(prot["ec"]))
        if not m or not all(bounds.ERASURE_BLOCKS.fits(int(g)) for g in m.groups()):
            raise SpecError(src, f"{where}.ec", f"expected \"k+m\" such as \"3+2\", k and m each "
                            f"{bounds.ERASURE_BLOCKS.words()}, got {prot['ec']!r}")
        k, mm = int(m.group(1)), int(m.group(2))
        return (k + mm) / k
    return 1.0
