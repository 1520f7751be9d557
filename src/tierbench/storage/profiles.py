"""The emulated devices' profiles: a drive's four figures (sequential MB/s, random IOPS, read and write), the
catalogue's from data sheets, scaled to this machine, and the limits the throttle holds a device of them to."""

from dataclasses import dataclass

FIGURES = ("read_mb_s", "write_mb_s", "read_iops", "write_iops")  # a drive's four figures, as a Profile has them
HEADROOM = 0.8  # the fastest profile at 80% of the real disk: the throttle, not the disk, sets the pace


@dataclass(frozen=True)
class Profile:
    name: str
    read_mb_s: float
    write_mb_s: float
    read_iops: float
    write_iops: float
    source: str

    def scaled(self, factor: float) -> "Profile":
        return Profile(self.name, self.read_mb_s * factor, self.write_mb_s * factor, self.read_iops * factor,
                       self.write_iops * factor, f"{self.source}; scaled x{factor:.3g} to this machine")


PROFILES = {p.name: p for p in (
    Profile("hdd", 200, 190, 180, 180,
            "7,200 rpm enterprise HDD data sheets (e.g. Seagate Exos 7E8: up to 215 MB/s sequential; ~170 random 4K IOPS "
            "from 8.5 ms seek + 4.2 ms rotation); the SanDisk 2014 studies' nodes used 7.2K rpm HDDs"),
    Profile("sata-ssd", 540, 500, 90_000, 60_000,
            "SATA III SSD data sheets (e.g. Samsung 870 EVO: 560/530 MB/s, 98K/88K 4K IOPS; SanDisk CloudSpeed "
            "in the 2014 studies: about 450-500 MB/s): the SATA link caps them"),
    Profile("nvme", 3500, 3000, 500_000, 400_000,
            "PCIe 3.0 x4 NVMe SSD data sheets (e.g. Samsung 970 PRO: 3,500/2,700 MB/s, 500K/500K 4K IOPS)"),
)}


def scale_factor(ceiling_mb_s: float) -> float:
    fastest = max(p.write_mb_s for p in PROFILES.values())
    return min(1.0, HEADROOM * ceiling_mb_s / fastest)


# IOPS never cap a sequential stream below its bandwidth: reads come in requests of up to 1 MiB (the read-ahead;
# measured: 26 IOPS held a 26 MB/s stream to 20 MB/s), and the throttle counts writeback's requests before they are
# merged, ~256 KiB each (measured: 19 write IOPS held an fsync'ed 20 MB/s stream to 13 MB/s; 40 let it run at 19.5)
READ_IOPS_PER_MB_S = 2
WRITE_IOPS_PER_MB_S = 4
# cgroup v2 (measured in its guest, Debian 12's 6.1 under QEMU, tests/guest): with these floors an hdd's sequential
# fio at 12 MB/s met 10.5 read and 9.5 write (24 and 45 IOPS; requests of 862 and 683 KiB), where the same rate
# with an SSD's IOPS met 11.7 and 10.2. v2's throttle counts a stream's bios before they merge, about 128 KiB each:
# a 12 MB/s stream needs ~96 IOPS. Measured in the guest, hdd reads at 12 MB/s: floors x2 (48 IOPS) 9.3, 10.5, 10.9;
# x3 (72) 10.4, 11.4, 10.3; x8 (192) 11.9, 11.8 (the SSDs 11.1-11.9 throughout). On v2 the floors are eight times
# these: twice a stream's need, as v1's are. The price: an emulated hdd's small random reads run up to the floor
# (192 IOPS at 12 MB/s; v1: 24), far above its profile's own, so on v2 an hdd's seeks are not emulated by IOPS
V2_FLOOR_FACTOR = 8


def floor_factor() -> float:
    from .cgroups import CgroupV2, current

    return V2_FLOOR_FACTOR if isinstance(current(), CgroupV2) else 1


def read_iops_limit(read_iops: float, read_mb_s: float) -> float:
    """The read IOPS the throttle holds a device of these figures to (raised from its own: READ_IOPS_PER_MB_S)."""
    return max(read_iops, READ_IOPS_PER_MB_S * floor_factor() * read_mb_s)


def throttle_limits(p: Profile) -> dict[str, float]:
    """The limits the root group's throttle holds a device of this profile to (what `_throttle` writes): its MB/s
    (tierbench's MB, 2^20 bytes), and its IOPS, raised where they would cap a sequential stream below its bandwidth."""
    return {"read_mb_s": p.read_mb_s, "write_mb_s": p.write_mb_s,
            "read_iops": read_iops_limit(p.read_iops, p.read_mb_s),
            "write_iops": max(p.write_iops, WRITE_IOPS_PER_MB_S * floor_factor() * p.write_mb_s)}


def stored_limits(entry: dict) -> dict[str, float]:
    """The throttle's limits of an emulated device as study.json's `emulated` holds it: those recorded when the
    study ran, else (results from before they were recorded) worked out from its profile as applied."""
    if entry.get("limits"):
        return dict(entry["limits"])
    p = entry["profile"]
    return throttle_limits(Profile(p.get("name", "?"), p["read_mb_s"], p["write_mb_s"], p["read_iops"], p["write_iops"],
                                   p.get("source", "")))


def custom_profile(entry: dict, ceiling_mb_s: float, backing: str) -> Profile:
    """A device entry's own figures, slowed alike only where what it lies on (disk or memory: its ceiling) could not
    keep their pace."""
    f = entry["figures"]
    factor = min(1.0, HEADROOM * ceiling_mb_s / max(f["read_mb_s"], f["write_mb_s"]))
    source = "the study's own figures" + (f"; slowed x{factor:.3g} to this machine's {backing}" if factor < 1 else "")
    return Profile(entry["profile"], *(round(f[k] * factor, 3) for k in FIGURES), source)
