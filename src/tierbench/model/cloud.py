"""Cloud what-if: each instance type x storage option x node count of a cloud's catalog (cloud.toml) as a model
Machine, each job of a study predicted on it, priced per job, and ranked (`tierbench predict RESULTS --cloud aws`).

The storage options of an instance:
  local NVMe   the data (HDFS, `hdfs_replication` copies) on the instance's own NVMe drives; only where it has some
  a volume     the data (HDFS, `hdfs_replication` copies) on one network volume per node (gp3, pd-balanced, ...): its
               figures are what the option provisions (plus what grows with its size), capped by the instance's own
               volume bandwidth and IOPS
  the store    the data on the object store, one copy: per node as fast as the instance's network, its requests as
               many per second as the store's per-prefix limits allow, shared by the nodes
Shuffle and spill go to the instance's local NVMe when it has some, else to the volume (the cloud's `scratch` volume
type when the data is in the object store): where Spark on EMR, Dataproc and HDInsight puts them.
"""

import statistics
from dataclasses import dataclass, replace

from .cloud_catalog import Cloud, Instance
from .cloud_cost import (GiB, capped_by_instance, estimated_requests, job_cost, known_counts, request_cost_usd,
                         scaled_requests, volume_limits, volume_usd_per_month)
from .hardware import Drive
from .predict import Machine, Model, Pool

LOCAL, VOLUME, STORE = "local NVMe", "volume", "object store"
STORED_COPIES_OF_DATA = 2  # the job's input and its output are both held while it runs
SCRATCH_HEADROOM = 1.5  # intermediate space per node: the job's data share, with room (as advise's SSD size)
WITHIN = 0.10  # "as fast": within 10% of the fastest runtime


@dataclass(frozen=True)
class StoreDrive(Drive):
    """An object store as a node sees it: its MB/s the node's network, its requests per second the store's prefix
    limits' share of the node; its requests are the connector's (S3A's read splits, upload parts), not the device
    requests measured, so it ignores the profile's request size."""
    read_request_kib: float = 32 * 1024
    write_request_kib: float = 64 * 1024

    def mb_s(self, rw: str, io_kib: float) -> float:
        return super().mb_s(rw, self.read_request_kib if rw == "read" else self.write_request_kib)


@dataclass(frozen=True)
class Option:
    """One storage choice on one instance type and node count, and what its storage costs."""
    cloud: str
    instance: Instance
    storage: str        # LOCAL, a volume type's name, or the store's name
    kind: str           # LOCAL, VOLUME or STORE
    nodes: int
    machine: Machine
    volume_usd_per_month_per_node: float
    volume_gb_per_node: float
    stored_gb: float    # in the object store


def storage_choices(cloud: Cloud, inst: Instance) -> list[tuple[str, str]]:
    """(kind, name) of every storage option the instance has in this cloud."""
    out = [(LOCAL, LOCAL)] if inst.nvme_count else []
    out += [(VOLUME, v) for v in cloud.volumes]
    return out + ([(STORE, cloud.store.name)] if cloud.store else [])


def nvme_drive(inst: Instance) -> Drive:
    return Drive(f"NVMe of {inst.name}", inst.nvme_read_mb_s, inst.nvme_write_mb_s, inst.nvme_read_iops,
                 inst.nvme_write_iops, inst.source)


def volume_drive(cloud: Cloud, name: str, inst: Instance, size_gb: float) -> Drive:
    vol = cloud.volumes[name]
    mb_s, iops = capped_by_instance(*volume_limits(vol, size_gb), 1, inst)
    return Drive(name, mb_s, mb_s, iops, iops, f"{vol.source} (read {vol.read}); capped by {inst.name}'s "
                 f"{inst.volume_mb_s:g} MB/s and {inst.volume_iops:g} IOPS to its volumes")


def option(cloud: Cloud, inst: Instance, kind: str, name: str, nodes: int, size_bytes: float) -> Option:
    """The Machine of `inst` x `nodes` with its data on storage `name`, and what that storage costs per month."""
    copies = 1 if kind == STORE else cloud.hdfs_replication
    data_gb = size_bytes * STORED_COPIES_OF_DATA * copies / nodes / GiB  # per node
    scratch_gb = size_bytes * SCRATCH_HEADROOM / nodes / GiB
    volume_gb, volume_usd, stored_gb = 0.0, 0.0, 0.0
    both = {"data": 1.0, "intermediate": 1.0}
    local = Pool(nvme_drive(inst), inst.nvme_count, {"intermediate": 1.0}) if inst.nvme_count else None
    if kind == LOCAL:
        pools = (replace(local, shares=both),)
    elif kind == VOLUME:
        volume_gb = data_gb + (0.0 if local else scratch_gb)
        drive = volume_drive(cloud, name, inst, volume_gb)
        pools = (Pool(drive, 1, {"data": 1.0}), local) if local else (Pool(drive, 1, both),)
        volume_usd = volume_usd_per_month(cloud.volumes[name], volume_gb)
    else:
        store = cloud.store
        net_mb_s = inst.network_gbps * 1000 / 8
        per_node = store.prefixes / nodes
        drive = StoreDrive(store.name, net_mb_s, net_mb_s, store.get_per_s_per_prefix * per_node,
                           store.put_per_s_per_prefix * per_node, f"{store.source} (read {store.read})")
        if not local:
            volume_gb = scratch_gb
            local = Pool(volume_drive(cloud, cloud.scratch, inst, volume_gb), 1, {"intermediate": 1.0})
            volume_usd = volume_usd_per_month(cloud.volumes[cloud.scratch], volume_gb)
        pools = (Pool(drive, 1, {"data": 1.0}), local)
        stored_gb = size_bytes * STORED_COPIES_OF_DATA / GiB
    m = Machine(f"{inst.name} + {name}", nodes, inst.vcpus, inst.network_gbps * 1000 / 8, float(copies), pools,
                f"{cloud.name} {cloud.region}: {inst.source}", inst.memory_gib * GiB)
    return Option(cloud.name, inst, name, kind, nodes, m, volume_usd, volume_gb, stored_gb)


def request_rates(profiles_runs: list[tuple[str, float, dict | None]]) -> dict[str, dict]:
    """Per job, the median requests per byte over its runs that recorded S3A's statistics: (job, bytes, counts)."""
    per_job: dict[str, list[dict]] = {}
    for job, size, counts in profiles_runs:
        counts = known_counts(counts)
        if counts is not None and size > 0:
            per_job.setdefault(job, []).append({k: v / size for k, v in counts.items()})
    return {job: {k: statistics.median(r.get(k, 0.0) for r in rates) for k in dict.fromkeys(k for r in rates for k in r)}
            for job, rates in per_job.items()}


def job_requests(model: Model, job: str, size: float, measured: dict) -> tuple[dict, str]:
    """(request counts of `job` at `size`, "measured" or "estimated"): from the runs' own S3A statistics when the
    study recorded them, else estimated from the bytes its data moved (cloud_cost.estimated_requests)."""
    if job in measured:
        return scaled_requests(measured[job], size), "measured"
    bases = model.base_profiles(job)
    read = statistics.median(sum(ph.bytes.get("data.read", 0.0) for ph in p.phases) * size / p.size_bytes for p in bases)
    write = statistics.median(sum(ph.bytes.get("data.write", 0.0) for ph in p.phases) * size / p.size_bytes for p in bases)
    return estimated_requests(read, write), "estimated"


def node_counts(text: str) -> list[int]:
    """"4..32" -> 4, 8, 16, 32 (doubling from the first, the last always in); "4,6,8" -> those; "8" -> 8.
    ValueError saying what is accepted otherwise."""
    words = "a node count (8), a list (4,8,16) or a range (4..32: doubling from the first up to the last)"
    try:
        if ".." in text:
            low, high = (int(x) for x in text.split(".."))
            if not 1 <= low <= high:
                raise ValueError
            out, n = [], low
            while n < high:
                out.append(n)
                n *= 2
            return out + [high]
        out = sorted({int(x) for x in text.split(",")})
        if not out or out[0] < 1:
            raise ValueError
        return out
    except ValueError:
        raise ValueError(f"expected {words}; each at least 1, a range's first no larger than its last") from None


def measured_request_rates(results) -> dict[str, dict]:
    """Per job, requests per byte from the runs that recorded S3A's statistics (`details["s3a_requests"]`)."""
    from pathlib import Path

    from ..analysis.cost import job_bytes
    from ..store import ResultsDir

    found = []
    for path in ([results] if isinstance(results, (str, Path)) else results):
        for run in ResultsDir(path).load(analysed=True).runs:
            counts = run.details.get("s3a_requests") if run.ok else None
            if counts is not None:
                job = f"{run.label}@{run.variant.split('@', 1)[1]}" if "@" in run.variant else run.label
                found.append((job, job_bytes(run), counts))
    return request_rates(found)
