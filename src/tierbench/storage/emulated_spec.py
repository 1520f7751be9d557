"""The `emulate` tables of a spec's storage configurations (`data = { emulate = "hdd", size = "2GB" }`): checked and
turned into the device entries the study brings up (emulation.bring_up) -- the spec's side of emulation.py."""

from .backing import BACKINGS, DISK
from .emulation import FIGURES, PROFILES, root_dir
from ..ownership import valid_name
from ..units import MB

# figures: a drive of the study's own ({read,write}_mb_s, {read,write}_iops), e.g. a catalog drive scaled by [scale]
# backing: what the image lies on, "disk" (default) or "memory" (storage/backing.py; [scale] asks for memory)
EMULATE_KEYS = ("emulate", "size", "drives", "figures", "stands_for", "split", "backing")
# an emulated intermediate role may also say whether the data drives take their share of the shuffle (with_data)
# and whether it holds a share of the data sets too (holds_data: an HDFS DataNode volume as well)
INTERMEDIATE_EMULATE_KEYS = (*EMULATE_KEYS, "with_data", "holds_data")
DEFAULT_SIZE = "8GB"
MAX_DRIVES = 24
MAX_SPLIT = 64
NAME_MAX = 64  # ownership.NAME_RE's length: a device's name is a folder of the emulation's own
DRIVE_DIGITS = len(str(MAX_DRIVES))  # the drive's number after its name in a JBOD (parse_emulated)


def device_name(study: str, study_id: str, config: str, role: str) -> str:
    """An emulated device's name: `<study>-<id>-<config>-<role>`, the results folder's id (study/identity.py) in it so
    that two folders of one spec never take each other's devices (nor their data roots, which lie on them); the
    study's part cut short where the whole would pass the name's length. Without an id (a folder recorded before
    ids), `<study>-<config>-<role>` as then, so that its --resume finds its devices by their old names."""
    if not study_id:
        return f"{study}-{config}-{role}"
    tail = f"-{study_id}-{config}-{role}"
    return study[:max(1, NAME_MAX - DRIVE_DIGITS - len(tail))] + tail


def parse_emulated(src: str, where: str, value: dict, name: str, intermediate: bool = False) -> tuple[list[str], list[dict], dict]:
    """A `data` or `intermediate` table that asks for emulated devices (`drives` of them: a JBOD): their
    directories, the device entries {"device", "profile", "size"} -- the runner brings the devices up before the
    study and down after it -- and, for `intermediate`, its flags: whether the data drives take shuffle too
    (`with_data`) and whether it takes a share of the data sets too (`holds_data`).

    `split = N` lists each emulated drive as N directories, so Spark's round-robin over local dirs gives that
    drive N shares: the Cloudera study's SSD "split into 10 local directories" beside six HDDs, or (data) one
    device that `stands_for` six HDDs listed as their six directories, so that an SSD beside them gets 1 of 7."""
    from ..errors import SpecError
    from ..fields import unknown_fields
    from ..units import parse_size

    unknown_fields(src, f"{where}.", value, INTERMEDIATE_EMULATE_KEYS if intermediate else EMULATE_KEYS,
                   problem="unknown field beside `emulate`; accepted")
    figures = _figures(src, where, value)
    if figures is None and value["emulate"] not in PROFILES:
        raise SpecError(src, f"{where}.emulate", f"expected one of {', '.join(map(repr, PROFILES))} (or, in a study with "
                        f"[scale], a drive of the catalog, docs/hardware.md), got {value['emulate']!r}")
    try:
        size = parse_size(value.get("size", DEFAULT_SIZE))
    except ValueError as e:
        raise SpecError(src, f"{where}.size", str(e)) from None
    if size < 256 * 10**6:
        raise SpecError(src, f"{where}.size", f"at least 256MB (ext4 and the data), got {value.get('size')!r}")
    drives = value.get("drives", 1)
    if isinstance(drives, bool) or not isinstance(drives, int) or not 1 <= drives <= MAX_DRIVES:
        raise SpecError(src, f"{where}.drives", f"expected a whole number of drives from 1 to {MAX_DRIVES}, got {drives!r}")
    split = value.get("split", 1)
    if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= MAX_SPLIT:
        raise SpecError(src, f"{where}.split", f"expected a whole number of directories per drive from 1 to {MAX_SPLIT}, got {split!r}")
    flags = {key: value.get(key, False) for key in ("with_data", "holds_data")}
    for key, flag in flags.items():
        if not isinstance(flag, bool):
            raise SpecError(src, f"{where}.{key}", f"expected true or false, got {flag!r}")
    backing = value.get("backing", DISK)
    if backing not in BACKINGS:
        raise SpecError(src, f"{where}.backing", f"expected one of {', '.join(map(repr, BACKINGS))}, got {backing!r}")
    names = [name] if drives == 1 else [f"{name}{i}" for i in range(1, drives + 1)]
    mounts = [root_dir() / n / "mnt" for n in names]
    dirs = [str(m) for m in mounts] if split == 1 else [str(m / f"d{i}") for m in mounts for i in range(split)]
    return dirs, [{"device": n, "profile": value["emulate"], "size": size, **({"figures": figures} if figures else {}),
                   **({"backing": backing} if backing != DISK else {})} for n in names], flags


def _figures(src: str, where: str, value: dict) -> dict | None:
    """A device's own figures ([scale] writes the catalog drive's, scaled), checked; None for a named profile."""
    from ..errors import SpecError

    figures = value.get("figures")
    if figures is None:
        if "stands_for" in value:
            raise SpecError(src, f"{where}.stands_for", "needs a study with [scale] and a drive of the catalog")
        return None
    if not isinstance(value["emulate"], str) or not valid_name(value["emulate"]):
        raise SpecError(src, f"{where}.emulate", f"expected a name for the drive, got {value['emulate']!r}")
    if not (isinstance(figures, dict) and set(figures) == set(FIGURES) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0.01 <= v <= 1e7 for v in figures.values())):
        raise SpecError(src, f"{where}.figures", f"expected {{ {', '.join(f + ' = <number>' for f in FIGURES)} }} "
                        f"(MB/s and IOPS), got {figures!r}")
    return {f: float(figures[f]) for f in FIGURES}


def interleave_drives(drives: list[list[str]]) -> list[str]:
    """The directories of several drives (each a list: a drive listed as `split` directories takes that many
    shares) in one list where every prefix holds each drive's share as nearly as it can (smooth weighted round
    robin): a data set of a few files, part i in directory i mod n, then gives an SSD listed as 10 directories beside
    six HDDs 10 of every 16 parts however few there are, as HDFS's round robin over a node's 16 volumes does over
    its thousands of blocks."""
    total, credit, taken, out = sum(map(len, drives)), [0] * len(drives), [0] * len(drives), []
    for _ in range(total):
        for i, dirs in enumerate(drives):
            credit[i] += len(dirs)
        pick = max(range(len(drives)), key=lambda i: (credit[i] if taken[i] < len(drives[i]) else -total, -i))
        credit[pick] -= total
        out.append(drives[pick][taken[pick]])
        taken[pick] += 1
    return out


def by_drive(dirs: list[str], devices: list[dict]) -> list[list[str]]:
    """An emulated role's directories, one list per device (parse_emulated lists each device's `split` in turn)."""
    per = len(dirs) // max(1, len(devices))
    return [dirs[i * per:(i + 1) * per] for i in range(len(devices))]
