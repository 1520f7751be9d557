"""The spec's cost sections: `[cost]` (period, power price, drive classes) and `[storage.NAME.cost]`.

    [cost]
    years = 3                      # period of use
    utilisation = 1.0              # share of the period spent running the job back to back
    usd_per_kwh = 0.15
    example_prices = true          # the report labels the figures as from example prices
    target_size = "1TB"            # the job size you care about: figures also given at it (linear extrapolation)
    [cost.drive_classes.ssd]
    price_usd = 120
    capacity = "960GB"             # decimal units, as drives are sold
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
from dataclasses import dataclass, field

from ..analysis.cost import ConfigCost, DriveClass, TB
from ..errors import SpecError
from ..units import parse_size

COST_KEYS = ("years", "utilisation", "usd_per_kwh", "example_prices", "target_size", "drive_classes")
DRIVE_KEYS = ("price_usd", "capacity", "watts", "endurance_tbw", "dwpd", "warranty_years")
CONFIG_COST_KEYS = ("price_usd", "nodes", "node_price_usd", "node_watts", "drives", "network_usd",
                    "data_drive", "intermediate_drive", "protection")


@dataclass(frozen=True)
class CostSpec:
    years: float = 3.0
    utilisation: float = 1.0
    usd_per_kwh: float = 0.0
    example_prices: bool = False
    drive_classes: dict = field(default_factory=dict)  # name -> DriveClass
    configs: dict = field(default_factory=dict)  # storage config name -> ConfigCost
    target_bytes: int | None = None  # target_size: per-job figures are also extrapolated to this data size


def _number(src, where, value, minimum=0.0, strict=False, maximum=None):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(src, where, f"expected a number, got {value!r}")
    if value < minimum or (strict and value == minimum) or (maximum is not None and value > maximum):
        rng = f"{'>' if strict else '>='} {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
        raise SpecError(src, where, f"must be {rng}, got {value!r}")
    return float(value)


def _unknown(src, where, table, allowed):
    if not isinstance(table, dict):
        raise SpecError(src, where, "expected a table")
    for k in table:
        if k not in allowed:
            raise SpecError(src, f"{where}.{k}", f"unknown field; accepted here: {', '.join(allowed)}")


def parse_cost(src: str, raw_cost: dict | None, raw_storage: dict) -> CostSpec | None:
    per_config = {name: c["cost"] for name, c in raw_storage.items() if isinstance(c, dict) and "cost" in c}
    if raw_cost is None and not per_config:
        return None
    raw_cost = raw_cost or {}
    _unknown(src, "cost", raw_cost, COST_KEYS)
    years = _number(src, "cost.years", raw_cost.get("years", 3), 0, strict=True)
    util = _number(src, "cost.utilisation", raw_cost.get("utilisation", 1.0), 0, strict=True, maximum=1)
    kwh = _number(src, "cost.usd_per_kwh", raw_cost.get("usd_per_kwh", 0.0))
    example = raw_cost.get("example_prices", False)
    if not isinstance(example, bool):
        raise SpecError(src, "cost.example_prices", f"expected true or false, got {example!r}")

    target = None
    if "target_size" in raw_cost:
        try:
            target = parse_size(raw_cost["target_size"])
        except ValueError as e:
            raise SpecError(src, "cost.target_size", f"{e} (the data one job reads or writes, e.g. \"1TB\")") from None

    classes = {}
    for name, d in (raw_cost.get("drive_classes") or {}).items():
        where = f"cost.drive_classes.{name}"
        _unknown(src, where, d, DRIVE_KEYS)
        for need in ("price_usd", "capacity"):
            if need not in d:
                raise SpecError(src, f"{where}.{need}", "missing")
        try:
            capacity = parse_size(d["capacity"], decimal=True)
        except ValueError as e:
            raise SpecError(src, f"{where}.capacity", str(e)) from None
        endurance = None
        if "endurance_tbw" in d and "dwpd" in d:
            raise SpecError(src, where, "give endurance_tbw or dwpd, not both")
        if "endurance_tbw" in d:
            endurance = _number(src, f"{where}.endurance_tbw", d["endurance_tbw"], 0, strict=True) * TB
        elif "dwpd" in d:
            dwpd = _number(src, f"{where}.dwpd", d["dwpd"], 0, strict=True)
            warranty = _number(src, f"{where}.warranty_years", d.get("warranty_years", 5), 0, strict=True)
            endurance = dwpd * capacity * 365 * warranty
        classes[name] = DriveClass(name, _number(src, f"{where}.price_usd", d["price_usd"]), capacity,
                                   _number(src, f"{where}.watts", d.get("watts", 0)), endurance)

    configs = {}
    for cname, c in per_config.items():
        where = f"storage.{cname}.cost"
        _unknown(src, where, c, CONFIG_COST_KEYS)
        nodes = c.get("nodes", 1)
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise SpecError(src, f"{where}.nodes", f"expected a whole number >= 1, got {nodes!r}")
        drives = c.get("drives", {})
        _unknown(src, f"{where}.drives", drives, tuple(classes))  # names an undefined class -> error
        for dname, n in drives.items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise SpecError(src, f"{where}.drives.{dname}", f"expected a whole number of drives per node, got {n!r}")
        for key in ("data_drive", "intermediate_drive"):
            v = c.get(key)
            if v is not None and v not in drives:
                raise SpecError(src, f"{where}.{key}", f"{v!r} is not among this configuration's drives ({', '.join(drives) or 'none'})")
        data_drive = c.get("data_drive") or (next(iter(drives)) if len(drives) == 1 else None)
        inter_drive = c.get("intermediate_drive") or data_drive
        copies = 1.0
        prot = c.get("protection")
        if prot is not None:
            _unknown(src, f"{where}.protection", prot, ("replication", "ec"))
            if "replication" in prot:
                copies = _number(src, f"{where}.protection.replication", prot["replication"], 1)
            elif "ec" in prot:
                m = re.match(r"^\s*(\d+)\s*\+\s*(\d+)\s*$", str(prot["ec"]))
                if not m or int(m.group(1)) < 1:
                    raise SpecError(src, f"{where}.protection.ec", f"expected \"k+m\" such as \"3+2\", got {prot['ec']!r}")
                k, mm = int(m.group(1)), int(m.group(2))
                copies = (k + mm) / k
        if "price_usd" in c:
            price = _number(src, f"{where}.price_usd", c["price_usd"])
        elif "node_price_usd" in c or drives:
            node = _number(src, f"{where}.node_price_usd", c.get("node_price_usd", 0))
            net = _number(src, f"{where}.network_usd", c.get("network_usd", 0))
            price = nodes * (node + sum(classes[d].price_usd * n for d, n in drives.items())) + net
        else:
            raise SpecError(src, f"{where}.price_usd", "missing: give the configuration's price_usd or a bill of materials (node_price_usd, drives)")
        configs[cname] = ConfigCost(price, nodes, _number(src, f"{where}.node_watts", c.get("node_watts", 0)),
                                    dict(drives), data_drive, inter_drive, copies)
    return CostSpec(years, util, kwh, example, classes, configs, target)
