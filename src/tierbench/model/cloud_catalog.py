"""The cloud catalog: instance types, volume types and object stores with their prices, per cloud (cloud.toml, shipped
in this package), and a user's own file over it (`tierbench predict --cloud aws --cloud-catalog MINE.toml`).

A user's file has the shipped file's shape. An entry it names that the catalog has is changed field by field (the
entry's source then says which figures are whose); an entry the catalog lacks must give every field. Any mistake is a
SpecError naming the file and the field, as hardware descriptions' are (hardware.py). docs/cloud.md has the format.
"""

import tomllib
from dataclasses import dataclass, field as dc_field
from functools import cache
from importlib import resources

from ..bounds import Bound, field, shown
from ..errors import SpecError
from ..fields import table, unknown_fields
from ..tomlfile import read_toml

REQUEST_KINDS = ("GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST")  # as S3A's statistics name them
USD_PER_HOUR = Bound(0.0001, 10_000, "USD per hour", positive=True)
USD_PER_MONTH = Bound(0, 1_000, "USD per month")
USD_PER_1000 = Bound(0, 100, "USD per 1,000 requests")
MB_S = Bound(0.1, 10_000_000, "MB/s", positive=True)
IOPS = Bound(1, 1e9, "IOPS", positive=True)
PER_GB = Bound(0, 1_000, "per GB")
GBPS = Bound(0.001, 10_000, "Gbit/s", positive=True)
COUNT = Bound(1, 10_000, whole=True)
NVME_COUNT = Bound(0, 64, "drives", whole=True)
SIZE_GB = Bound(1, 1_000_000, "GB", positive=True)
RATE = Bound(1, 1e9, "requests per second", positive=True)

TEXT = ("source", "read", "kind", "name", "region", "scratch")
INSTANCE = {"vcpus": COUNT, "memory_gib": SIZE_GB, "usd_per_hour": USD_PER_HOUR, "network_gbps": GBPS,
            "volume_mb_s": MB_S, "volume_iops": IOPS, "nvme_count": NVME_COUNT}
NVME = {"nvme_gb": SIZE_GB, "nvme_read_mb_s": MB_S, "nvme_write_mb_s": MB_S, "nvme_read_iops": IOPS, "nvme_write_iops": IOPS}
VOLUME = {"usd_per_gb_month": USD_PER_MONTH, "mb_s": Bound(0, 1e7, "MB/s"), "iops": IOPS, "included_mb_s": Bound(0, 1e7, "MB/s"),
          "included_iops": Bound(0, 1e9, "IOPS"), "usd_per_mb_s_month": USD_PER_MONTH, "usd_per_iops_month": USD_PER_MONTH,
          "max_mb_s": MB_S, "max_iops": IOPS}
VOLUME_OPTIONAL = {"mb_s_per_gb": PER_GB, "iops_per_gb": PER_GB, "min_gb": SIZE_GB}
STORE = {"usd_per_gb_month": USD_PER_MONTH, "get_per_s_per_prefix": RATE, "put_per_s_per_prefix": RATE, "prefixes": COUNT}
CLOUD = {"hdfs_replication": Bound(1, 512, "copies", whole=True)}


@dataclass(frozen=True)
class Instance:
    name: str
    kind: str
    vcpus: int
    memory_gib: float
    usd_per_hour: float
    network_gbps: float  # sustained (baseline)
    volume_mb_s: float   # the instance's cap on its network volumes (EBS / PD / managed disks), sustained
    volume_iops: float
    nvme_count: int      # local NVMe (instance storage, local SSD, temp disk) drives
    source: str
    read: str
    nvme_gb: float = 0.0
    nvme_read_mb_s: float = 0.0
    nvme_write_mb_s: float = 0.0
    nvme_read_iops: float = 0.0
    nvme_write_iops: float = 0.0


@dataclass(frozen=True)
class Volume:
    """A network volume type as one storage option provisions it: `mb_s` and `iops` per volume, plus `*_per_gb` of
    its size where performance grows with it (Persistent Disk, st1), capped at `max_*`; what is provisioned beyond
    `included_*` is billed per month."""
    name: str
    usd_per_gb_month: float
    mb_s: float
    iops: float
    included_mb_s: float
    included_iops: float
    usd_per_mb_s_month: float
    usd_per_iops_month: float
    max_mb_s: float
    max_iops: float
    source: str
    read: str
    mb_s_per_gb: float = 0.0
    iops_per_gb: float = 0.0
    min_gb: float = 1.0


@dataclass(frozen=True)
class Store:
    name: str
    usd_per_gb_month: float
    get_per_s_per_prefix: float
    put_per_s_per_prefix: float
    prefixes: int
    usd_per_1000: dict  # request kind (REQUEST_KINDS) -> USD per 1,000
    source: str
    read: str


@dataclass(frozen=True)
class Cloud:
    name: str
    region: str
    read: str
    hdfs_replication: int
    scratch: str  # the volume type intermediate data goes to on an instance without local NVMe
    instances: dict = dc_field(default_factory=dict)
    volumes: dict = dc_field(default_factory=dict)
    store: Store | None = None


@cache
def _shipped_text() -> str:
    return resources.files(__package__).joinpath("cloud.toml").read_text()


def load_catalog(override: str | None = None) -> dict[str, Cloud]:
    """The shipped catalog, with a user's file over it when given; SpecError for any mistake in either."""
    raw = tomllib.loads(_shipped_text())
    src = "cloud.toml (shipped)"
    if override is not None:
        mine = read_toml(override, "cloud catalog", "give a TOML file shaped like tierbench's cloud.toml (docs/cloud.md)")
        raw = _merged(raw, mine, str(override))
        src = str(override)
    return {name: _cloud(src, name, entry) for name, entry in raw.items()}


def _merged(base: dict, mine: dict, src: str) -> dict:
    """`mine` over `base`: a cloud's scalar fields replaced, its entries changed field by field (their source saying
    which figures came from `src`) or added whole."""
    table(src, "", mine, "expected tables such as [aws.instances.\"m6i.2xlarge\"]")
    out = {k: dict(v) for k, v in base.items()}
    for cloud, entry in mine.items():
        table(src, shown(cloud), entry, "expected a table of a cloud's region, instances, volumes and store")
        into = out.setdefault(cloud, {})
        for key, value in entry.items():
            if key in ("instances", "volumes"):
                table(src, f"{cloud}.{key}", value, f"expected a table of {key} by name")
                group = dict(into.get(key, {}))
                for name, fields in value.items():
                    table(src, f"{cloud}.{key}.{shown(name)}", fields, "expected a table of fields")
                    group[name] = _over(group.get(name), fields, src)
                into[key] = group
            elif key == "store" and isinstance(value, dict):
                into[key] = _over(into.get(key), value, src)
            else:
                into[key] = value
    return out


def _over(entry: dict | None, fields: dict, src: str) -> dict:
    if entry is None:
        return dict(fields)
    given = ", ".join(f"{k} = {v!r}" for k, v in fields.items() if k not in ("source", "read", "usd_per_1000"))
    out = entry | fields
    if "usd_per_1000" in fields:
        out["usd_per_1000"] = entry.get("usd_per_1000", {}) | fields["usd_per_1000"]
        given = ", ".join(filter(None, [given, "request prices"]))
    if "source" not in fields and given:
        out["source"] = f"{entry.get('source', '')}; with {given} given in {src}"
    return out


def _figures(src: str, where: str, raw: dict, required: dict, optional: dict | None = None) -> dict:
    out = {}
    for name, bound in required.items():
        if name not in raw:
            raise SpecError(src, f"{where}.{name}", f"missing: {bound.unit or 'a number'}, {bound.words()}")
        out[name] = field(src, f"{where}.{name}", raw[name], bound)
    for name, bound in (optional or {}).items():
        if name in raw:
            out[name] = field(src, f"{where}.{name}", raw[name], bound)
    return out


def _text(src: str, where: str, raw: dict, name: str, default: str | None = None) -> str:
    value = raw.get(name, default)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(src, f"{where}.{name}", f"expected a non-empty string, got {value!r}" if name in raw
                        else "missing: a string (every figure needs its source and the date it was read)")
    return value


def _instance(src: str, where: str, name: str, raw: dict) -> Instance:
    unknown_fields(src, f"{where}.", raw, (*INSTANCE, *NVME, "kind", "source", "read"), key=shown)
    figures = _figures(src, where, raw, INSTANCE)
    if figures["nvme_count"]:
        figures |= _figures(src, where, raw, NVME)
    return Instance(name, raw.get("kind", ""), source=_text(src, where, raw, "source"),
                    read=_text(src, where, raw, "read"), **figures)


def _volume(src: str, where: str, name: str, raw: dict) -> Volume:
    unknown_fields(src, f"{where}.", raw, (*VOLUME, *VOLUME_OPTIONAL, "source", "read"), key=shown)
    figures = _figures(src, where, raw, VOLUME, VOLUME_OPTIONAL)
    if figures["mb_s"] <= 0 and figures.get("mb_s_per_gb", 0.0) <= 0:
        raise SpecError(src, f"{where}.mb_s", "a volume needs a speed: mb_s > 0, or mb_s_per_gb > 0 for one whose "
                        "throughput grows with its size")
    return Volume(name, source=_text(src, where, raw, "source"), read=_text(src, where, raw, "read"), **figures)


def _store(src: str, where: str, raw: dict) -> Store:
    table(src, where, raw, "expected a table: name, usd_per_gb_month, request prices, ...")
    unknown_fields(src, f"{where}.", raw, (*STORE, "name", "usd_per_1000", "source", "read"), key=shown)
    prices = table(src, f"{where}.usd_per_1000", raw.get("usd_per_1000"),
                   f"missing: a table of USD per 1,000 requests by kind ({', '.join(REQUEST_KINDS)})")
    unknown_fields(src, f"{where}.usd_per_1000.", prices, REQUEST_KINDS, "not a request kind; accepted", key=shown)
    per_1000 = {k: field(src, f"{where}.usd_per_1000.{k}", v, USD_PER_1000) for k, v in prices.items()}
    return Store(_text(src, where, raw, "name"), usd_per_1000=per_1000, source=_text(src, where, raw, "source"),
                 read=_text(src, where, raw, "read"), **_figures(src, where, raw, STORE))


def _cloud(src: str, name: str, raw: dict) -> Cloud:
    where = shown(name)
    table(src, where, raw, "expected a table of a cloud's region, instances, volumes and store")
    unknown_fields(src, f"{where}.", raw, ("region", "read", "hdfs_replication", "scratch", "instances", "volumes", "store"),
                   key=shown)
    instances = {n: _instance(src, f"{where}.instances.{shown(n)}", n, table(src, f"{where}.instances.{shown(n)}", e))
                 for n, e in table(src, f"{where}.instances", raw.get("instances", {})).items()}
    volumes = {n: _volume(src, f"{where}.volumes.{shown(n)}", n, table(src, f"{where}.volumes.{shown(n)}", e))
               for n, e in table(src, f"{where}.volumes", raw.get("volumes", {})).items()}
    if not instances:
        raise SpecError(src, f"{where}.instances", "missing: at least one instance type")
    scratch = _text(src, where, raw, "scratch")
    if scratch not in volumes:
        raise SpecError(src, f"{where}.scratch", f"{scratch!r} is not one of the cloud's volumes: {', '.join(volumes) or 'none'}")
    store = _store(src, f"{where}.store", raw["store"]) if "store" in raw else None
    return Cloud(name, _text(src, where, raw, "region"), _text(src, where, raw, "read"),
                 _figures(src, where, raw, CLOUD)["hdfs_replication"], scratch, instances, volumes, store)
