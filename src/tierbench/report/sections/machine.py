"""Machine and devices: each local directory of the study, its role, device and mount."""

from ...units import format_size
from ..context import ReportContext
from ..document import Section, Table

MACHINE_HEAD = ["directory", "role", "device", "rotational", "scheduler", "file system", "mount options"]


def sections(ctx: ReportContext) -> list[Section]:
    if not ctx.storage_map:
        return []
    return [Section("Machine and devices", 2, [Table(MACHINE_HEAD, _machine_rows(ctx))])]


def dir_roles(spec: dict) -> dict[str, str]:
    """Each local directory's roles in the study, from the spec: a directory holding data in one configuration and
    intermediate data in another (or both in one) is "data+intermediate" (the storage_map of older
    study.json files kept only the last role)."""
    roles: dict[str, list[str]] = {}
    for c in spec.get("storage", []):
        for role in ("data", "intermediate"):
            for d in c.get(role) or []:
                if role not in roles.setdefault(d, []):
                    roles[d].append(role)
    return {d: "+".join(r) for d, r in roles.items()}


def _device(dev: str, facts: dict, emu: dict | None) -> str:
    what = f"emulated {emu['profile']['name']}: {emu['profile']['read_mb_s']:.0f}/{emu['profile']['write_mb_s']:.0f} MB/s read/write, " \
           f"{emu['profile']['read_iops']:,.0f} read IOPS; " if emu else ""
    return f"{dev} ({what}{facts.get('disk')}{', ' + format_size(facts['size_bytes']) if facts.get('size_bytes') else ''})"


def _rotational(flag: bool | None, emu: dict | None) -> str:
    """The kernel's rotational flag; for an emulated drive, whose flag is its loop device's (a loop device says 1 or 0
    whatever it stands for), said as no property of the drive emulated."""
    said = {True: "1", False: "0"}.get(flag, "–")
    if emu:
        return (f"emulated on a loop device: the loop's flag ({said}) is not the emulated {emu['profile']['name']}'s; "
                "the throttle gives it that drive's speeds")
    return {True: "1 (kernel: rotational)", False: "0 (non-rotational)"}.get(flag, "–")


def _machine_rows(ctx: ReportContext) -> list[list[str]]:
    sm = ctx.storage_map
    roles = dir_roles(ctx.spec or {})
    rows = []
    for d, info in sm.get("dirs", {}).items():
        dev = info.get("device")
        facts = sm.get("devices", {}).get(dev, {}) if dev else {}
        m = info.get("mount", {})
        emu = ctx.facts.emulated.get(dev)
        rows.append([d, roles.get(d, info.get("role", "")), _device(dev, facts, emu) if dev else "none (tmpfs/overlay/network)",
                     _rotational(facts.get("rotational"), emu) if dev else "–",
                     facts.get("scheduler") or "–", m.get("fs_type", "–"), m.get("options", "–")])
    return rows
