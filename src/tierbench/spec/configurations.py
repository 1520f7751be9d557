"""The spec's storage configurations, `[storage.NAME]`: where the jobs' data lives (`data`, of a storage type),
where their shuffle and spill go (`intermediate`), emulated devices, and the user's setup and teardown commands."""

import os
from pathlib import Path
from types import SimpleNamespace

from ..errors import SpecError
from ..fields import boolean, check_dirs, positive_int, required, unknown_fields
from ..ownership import NAME_RE
from ..redaction import has_password_in_url
from ..storage.emulated_spec import by_drive, device_name, interleave_drives, parse_emulated
from ..storage.types import StorageConfig, parse_data, storage_type
from ..toolchain import cache_dir
from .cluster import NOT_APPLIED, check_intermediate_applies, check_local_data_reaches_every_node, intermediate_applied
from .knobs import swept, token

STORAGE_KEYS = ("description", "data", "intermediate", "cost", "setup", "teardown", "create_dirs")
INTERMEDIATE_KEYS = ("dirs", "split")
MAX_SPLIT = 64  # subdirectories per intermediate dir
# storage knobs that may be given as lists (a sweep): HDFS replication and the S3A tunables
STORAGE_SWEEPABLE = ("replication", "input_fadvise", "readahead_range", "fast_upload_buffer", "multipart_size",
                     "connection_maximum", "committer", "gateways", "balancer")


def parse_configurations(src, raw: dict, study: str, engines, base_dir: Path, sweeps: list,
                         study_id: str = "") -> tuple[dict, tuple]:
    """[storage.NAME] tables, sweeps expanded -> (the expanded tables, as [cost] reads them; the StorageConfigs).
    `study_id`: the results folder's id, in the names of the devices it emulates (emulated_spec.device_name)."""
    storage_raw = raw.get("storage")
    if not isinstance(storage_raw, dict) or not storage_raw:
        raise SpecError(src, "storage", "at least one storage configuration is needed, e.g. [storage.ssd] data = [\"/ssd/tb\"]")
    storage_raw = _expand_storage_sweeps(src, storage_raw, sweeps)
    durable = raw.get("durability", "durable") == "durable"
    storage = tuple(_parse_configuration(src, (study, study_id), cname, c, engines, base_dir, durable) for cname, c in storage_raw.items())
    named_intermediate = {cname for cname, c in storage_raw.items() if "intermediate" in c}
    check_intermediate_applies(src, engines, storage, named_intermediate)
    check_local_data_reaches_every_node(src, engines, storage)
    return storage_raw, storage


def _parse_configuration(src, study: tuple[str, str], cname: str, c, engines, base_dir: Path, durable: bool) -> StorageConfig:
    where = f"storage.{cname}"
    if not NAME_RE.match(cname):
        raise SpecError(src, where, "a configuration name may use letters, digits, '.', '_' and '-'")
    if not isinstance(c, dict):
        raise SpecError(src, where, "expected a table with `data` (and `intermediate`) directories")
    unknown_fields(src, f"{where}.", c, STORAGE_KEYS)
    data_raw, emulated = required(src, f"{where}.", c, "data", "the directories that hold the jobs' input and output"), {}
    if isinstance(data_raw, dict) and "emulate" in data_raw:  # a device of a known shape, made for the study
        data_raw, emulated["data"], _ = parse_emulated(src, f"{where}.data", data_raw, device_name(*study, cname, "data"))
    data, data_type, replication, store_conf = parse_data(src, f"{where}.data", data_raw, base_dir)
    if "intermediate" not in c and not storage_type(data_type).local_dirs(data) and not emulated:
        c = dict(c, intermediate=_default_intermediate(src, where, data_type, engines))  # (remote data)
    inter_dirs, split, data = _intermediate(src, study, cname, c, data, emulated, base_dir)
    if not boolean(src, f"{where}.create_dirs", c.get("create_dirs", False)):
        _check_parents_exist(src, where, storage_type(data_type).local_dirs(data), inter_dirs)
    drives = len(emulated["data"]) if "data" in emulated else None
    hadoop_spreads = durable and all(e.mode == "local" for e in engines if e.kind == "hadoop")
    storage_type(data_type).check_engines(src, f"{where}.data", data, {e.kind for e in engines}, drives, hadoop_spreads)
    setup, teardown = (_shell_command(src, f"{where}.{key}", c.get(key, "")) for key in ("setup", "teardown"))
    return StorageConfig(cname, data, inter_dirs, split, str(c.get("description", "")), data_type, replication, store_conf,
                         emulated, setup, teardown)


def _intermediate(src, study: tuple[str, str], cname: str, c: dict, data, emulated: dict, base_dir: Path) -> tuple[tuple, int, tuple]:
    """`intermediate`: directories (the data dirs when not given), a table { dirs, split }, or emulated drives
    (`emulated` gains their devices) -> (the directories, the split, the data directories: with `holds_data`, the
    intermediate drive's directories after the data drives')."""
    where = f"storage.{cname}.intermediate"
    inter, split = c.get("intermediate", list(data)), 1
    if isinstance(inter, dict) and "emulate" in inter:
        inter, emulated["intermediate"], flags = parse_emulated(src, where, inter, device_name(*study, cname, "intermediate"),
                                                               intermediate=True)
        for key, flag in flags.items():
            if flag and "data" not in emulated:
                raise SpecError(src, f"{where}.{key}", "needs emulated data drives too (data = { emulate = ..., "
                                "drives = N }); with data directories, list them in intermediate (and in data)")
        own, own_devices = list(inter), list(emulated["intermediate"])
        if flags["with_data"]:  # the data drives take their share of the shuffle too (the Cloudera study's hybrid),
            # interleaved: MapReduce's LocalDirAllocator takes the dirs in turn from a random one, and a job's few
            # large files (a map's spills and output) in a run of the list's dirs all landed on one drive when
            # the list was the data drives' and then the SSD's (examples/cloudera.toml's split hybrid, 2026-11-29:
            # the SSD took 42-72% of a TeraSort's writes for its 10 of 16 shares)
            inter = interleave_drives(by_drive(list(data), emulated["data"]) + by_drive(own, own_devices))
            emulated["intermediate"] = [*emulated.get("data", []), *emulated["intermediate"]]
        if flags["holds_data"]:  # and the intermediate drive a share of the data sets: an HDFS volume as well
            data = interleave_drives(by_drive(list(data), emulated["data"]) + by_drive(own, own_devices))
            emulated["data"] = [*emulated["data"], *own_devices]
    elif "intermediate" not in c and "data" in emulated:
        emulated["intermediate"] = emulated["data"]  # intermediate defaults to the data dirs: the same device
    if isinstance(inter, dict):
        unknown_fields(src, f"{where}.", inter, INTERMEDIATE_KEYS)
        required(src, f"{where}.", inter, "dirs", "the directories for shuffle and spill data")
        split = positive_int(src, f"{where}.split", inter.get("split", 1), 1)
        if split > MAX_SPLIT:
            raise SpecError(src, f"{where}.split", f"expected at most {MAX_SPLIT} subdirectories, got {split}")
        inter = inter["dirs"]
    return check_dirs(src, where, inter, base_dir), split, tuple(data)


def _default_intermediate(src, where: str, data_type: str, engines) -> list[str]:
    """`intermediate` left out with remote data (hdfs, s3), which has no local directory to default to: where every
    engine is a cluster manager's (YARN, another spark://), its executors use the manager's own local dirs -- the
    documented meaning of leaving it out, recorded as intermediate_applied "none" -- and tierbench's and the driver's
    own scratch goes to tierbench's folder. Where tierbench itself puts shuffle and spill (a local master, hadoop's
    local mode), they must be named: a default would silently benchmark whichever disk holds it."""
    for e in engines:
        applied = intermediate_applied(e, SimpleNamespace(setup=""))  # (what tierbench applies, whatever setup does)
        if applied != NOT_APPLIED:
            raise SpecError(src, f"{where}.intermediate", f"missing: with {data_type} data there is no local directory to "
                            f"default to, and engine {e.name!r} puts its shuffle and spill in these ({applied}): name "
                            "local directories, e.g. intermediate = [\"/ssd/tb-tmp\"]")
    return [str(cache_dir() / "scratch")]


def _check_parents_exist(src, where: str, data: tuple, intermediate: tuple) -> None:
    """A directory the spec names may be missing (tierbench creates it), its parent may not: a typo, or a disk not
    mounted, would otherwise be benchmarked on whatever disk holds the nearest folder that exists -- often the root
    disk. tierbench's own folder (emulated devices' mount points, the default scratch) is exempt: it makes those."""
    own = cache_dir().resolve()
    for role, dirs in (("data", data), ("intermediate", intermediate)):
        for d in dirs:
            path = Path(d)
            if not path.parent.is_dir() and not Path(os.path.realpath(path)).is_relative_to(own):
                raise SpecError(src, f"{where}.{role}", f"{path}: its parent {path.parent} does not exist (a typo, or a "
                                "disk not mounted? tierbench would create it on the disk of the nearest folder that "
                                f"exists): fix the path, mount the disk, or set {where}.create_dirs = true to create it")


def _shell_command(src, where, value) -> str:
    """storage.NAME.setup / teardown: one shell command line (sh -c), e.g. your Ansible playbook's."""
    if not isinstance(value, str) or "\0" in value or "\n" in value.strip():
        raise SpecError(src, where, f"expected one shell command line (run with sh -c), e.g. \"ansible-playbook "
                        f"local-dirs.yml -e dirs=$TIERBENCH_INTERMEDIATE\", got {value!r}")
    if has_password_in_url(value):  # the command is stored with every run and in the report
        raise SpecError(src, where, "a URL with a password in it (scheme://user:password@host): the command is stored "
                        "with the results and shown in the report; pass the secret in an environment variable instead, "
                        "e.g. http://$USER:$PASSWORD@host")
    return value.strip()


def _expand_storage_sweeps(src, storage_raw: dict, sweeps: list) -> dict:
    """`replication = [1, 2, 3]` in an hdfs data table, or an S3A tunable as a list (`readahead_range = ["64KB",
    "1MB"]`): one configuration per value, named NAME.KNOB-VALUE (the study's readahead figure is such a sweep)."""
    out = {}
    for cname, c in storage_raw.items():
        data = c.get("data") if isinstance(c, dict) else None
        knob, values = swept(src, f"storage.{cname}.data", data, STORAGE_SWEEPABLE) if isinstance(data, dict) else (None, [])
        if knob:
            names = [f"{cname}.{knob}-{token(v)}" for v in values]
            for n, v in zip(names, values):
                out[n] = dict(c, data=dict(data, **{knob: v}))
            sweeps.append({"level": "storage", "base": cname, "knob": knob,
                           "members": [{"name": n, "value": v} for n, v in zip(names, values)]})
        else:
            out[cname] = c
    return out
