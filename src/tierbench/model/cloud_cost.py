"""The arithmetic of a job's price in a cloud: the instances' hours, the volumes' and the object store's GB-months
pro-rated to the job's runtime, and the object store's requests -- and the figures of a network volume as its
provisioned limits and the instance's own cap allow.

A GB-month here is 2^30 bytes for a month of 730 hours, as the providers bill it. The storage is charged for the job's
runtime only: the job's share of storage that exists while it runs (a cluster that keeps its volumes between jobs
pays them round the clock: docs/cloud.md).
"""

import math
from dataclasses import asdict, dataclass

from .cloud_catalog import REQUEST_KINDS, Instance, Volume

GiB = 1 << 30
MiB = 1 << 20
SECONDS_PER_MONTH = 730 * 3600  # the providers' month of 730 hours
KINDS_PRICED_AS_GET = "GET"  # S3: "GET, SELECT, and all other requests": a kind without a price of its own is one

# S3A's defaults (Hadoop 3.4), for estimating requests when a run recorded none: a read split is fs.s3a.block.size
# (32 MiB) and is one GET from its start to its end; a written object is uploaded in parts of fs.s3a.multipart.size
# (64 MiB). How large a task's objects are is the job's: 128 MiB is taken (one HDFS block's worth).
S3A_READ_REQUEST = 32 * MiB
S3A_PART = 64 * MiB
OBJECT_BYTES = 128 * MiB
KEYS_PER_LIST = 1000  # a LIST page


@dataclass(frozen=True)
class JobCost:
    compute_usd: float    # nodes x hours x the instance's $/h
    volumes_usd: float    # the nodes' volumes (GB and provisioned IOPS, MB/s) for the runtime
    store_usd: float      # the object store's GB-months for the runtime
    requests_usd: float   # the object store's requests
    total_usd: float

    def to_dict(self) -> dict:
        return asdict(self)


def job_cost(seconds: float, nodes: int, usd_per_hour: float, volume_usd_per_month_per_node: float = 0.0,
             stored_gb: float = 0.0, store_usd_per_gb_month: float = 0.0, requests_usd: float = 0.0) -> JobCost:
    """$ per job: runtime x nodes x $/h, plus the volumes and the object store's GB-months pro-rated to the runtime,
    plus the requests' cost (which does not depend on the runtime)."""
    if seconds <= 0 or nodes < 1:
        raise ValueError(f"a job of {seconds} s on {nodes} nodes has no cost")
    compute = seconds / 3600 * nodes * usd_per_hour
    volumes = volume_usd_per_month_per_node * nodes * seconds / SECONDS_PER_MONTH
    store = stored_gb * store_usd_per_gb_month * seconds / SECONDS_PER_MONTH
    return JobCost(compute, volumes, store, requests_usd, compute + volumes + store + requests_usd)


def request_cost_usd(counts: dict, usd_per_1000: dict) -> float:
    """The cost of `counts` (request kind -> count, as S3A's statistics: {"GET": n, "PUT": n, ...}; absent kinds are 0)
    at `usd_per_1000` (kind -> USD per 1,000 requests). A kind the prices do not name is priced as a GET, as S3 prices
    "GET and all other requests"."""
    total = 0.0
    for kind, n in counts.items():
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n < 0:
            raise ValueError(f"request count of {kind!r}: expected a number >= 0, got {n!r}")
        price = usd_per_1000.get(kind, usd_per_1000.get(KINDS_PRICED_AS_GET, 0.0))
        total += n / 1000 * price
    return total


def scaled_requests(per_byte: dict, size_bytes: float) -> dict:
    """Request counts at `size_bytes` from counts per byte of data: requests grow with the data (same object sizes)."""
    return {kind: rate * size_bytes for kind, rate in per_byte.items()}


def estimated_requests(read_bytes: float, write_bytes: float) -> dict:
    """S3A's requests for reading and writing so many bytes, estimated from its default part and block sizes when a
    run recorded no statistics: one GET per read split and one HEAD per object opened, one LIST per 1,000 objects
    listed; per object written a multipart upload (POST to start, a PUT per part, POST to complete), two HEADs and a
    LIST (the checks of create()), and no COPY or DELETE (a committer that renames nothing: S3A's magic one)."""
    objects_read = math.ceil(read_bytes / OBJECT_BYTES) if read_bytes > 0 else 0
    objects_written = math.ceil(write_bytes / OBJECT_BYTES) if write_bytes > 0 else 0
    parts = math.ceil(write_bytes / S3A_PART) if write_bytes > 0 else 0
    return {"GET": math.ceil(read_bytes / S3A_READ_REQUEST) if read_bytes > 0 else 0,
            "HEAD": objects_read + 2 * objects_written,
            "LIST": math.ceil(objects_read / KEYS_PER_LIST) + objects_written,
            "PUT": parts, "POST": 2 * objects_written, "COPY": 0, "DELETE": 0}


def known_counts(counts) -> dict | None:
    """A run's `s3a_requests` as numbers by kind (absent kinds 0), or None when it holds no such dict."""
    if not isinstance(counts, dict):
        return None
    out = {k: float(v) for k, v in counts.items()
           if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0}
    return {k: out.get(k, 0.0) for k in dict.fromkeys((*REQUEST_KINDS, *out))}


# -- volumes -----------------------------------------------------------------------------------------------------

def volume_limits(vol: Volume, size_gb: float) -> tuple[float, float]:
    """(MB/s, IOPS) of one volume of `size_gb`: what the option provisions, plus what grows with the size, within
    the type's maxima."""
    size_gb = max(size_gb, vol.min_gb)
    return (min(vol.max_mb_s, vol.mb_s + vol.mb_s_per_gb * size_gb),
            min(vol.max_iops, vol.iops + vol.iops_per_gb * size_gb))


def capped_by_instance(mb_s: float, iops: float, count: int, inst: Instance) -> tuple[float, float]:
    """Per-volume (MB/s, IOPS) when `count` volumes share the instance's volume bandwidth and IOPS caps: the sum of
    the volumes cannot exceed what the instance moves to its network volumes."""
    return min(mb_s, inst.volume_mb_s / count), min(iops, inst.volume_iops / count)


def volume_usd_per_month(vol: Volume, size_gb: float) -> float:
    """One volume for a month: its GB, and what it provisions above the included IOPS and MB/s."""
    size_gb = max(size_gb, vol.min_gb)
    extra_mb_s = max(0.0, vol.mb_s - vol.included_mb_s)
    extra_iops = max(0.0, vol.iops - vol.included_iops)
    return size_gb * vol.usd_per_gb_month + extra_mb_s * vol.usd_per_mb_s_month + extra_iops * vol.usd_per_iops_month
