"""The study spec (TOML): its shape, defaults and validation.

Every error names the spec file and the field (e.g. `storage.split.intermediate.split`)
and says what would be accepted; nothing runs until the whole spec is valid.
"""

import hashlib
import json
import os
import re
from dataclasses import dataclass, field, asdict
from pathlib import Path

from ..errors import SpecError
from ..tomlfile import read_toml
from ..redaction import has_password_in_url, has_userinfo, is_secret_key
from ..storage.emulation import parse_emulated
from ..storage.types import StorageConfig, check_dirs, parse_data, positive_int, storage_type, unknown_fields
from ..units import parse_size
from ..ownership import NAME_RE
from ..workloads import WORKLOADS
from .cluster import check_intermediate_applies, check_local_data_reaches_every_node
from .composites import parse_mix, parse_pipelines
from .cost import CostSpec, parse_cost
from .knobs import ENGINE_KNOBS, engine_knob_conf, swept, token

MAX_REPEATS = 1000
MAX_RUNS = 100_000  # a plan larger than this cannot finish (nor fit a report)
ENGINE_KINDS = ("spark", "hadoop")
HADOOP_MODES = ("local", "yarn")
DROP_CACHES = ("auto", "always", "never")
DURABILITY = ("durable", "engine")  # durable: every write on the device before its task ends; engine: as the engine does it
# "off": on a VM whose balloon hands freed pages to its host, that is turned off (as root) while the study runs and
# set back after (host_memory.py); "as-is": the machine is left alone
FREE_PAGE_REPORTING = ("as-is", "off")
TOP_KEYS = ("name", "description", "repeats", "baseline", "drop_caches", "durability", "keep_data", "warm_up", "engine", "engines", "storage",
            "workloads", "cost", "sampling", "probe", "cluster", "pipelines", "mix", "free_page_reporting")
CLUSTER_KEYS = ("nodes", "ssh_config", "processes")
SAMPLING_KEYS = ("enabled", "interval_s")
PROBE_KEYS = ("enabled", "size", "runtime_s")
SPARK_KEYS = ("kind", "master", "driver_memory", "executor_memory", "keep_alive_memory", "conf", *ENGINE_KNOBS)
HADOOP_KEYS = ("kind", "mode", "hadoop_conf_dir", "conf", *ENGINE_KNOBS)
STORAGE_KEYS = ("description", "data", "intermediate", "cost", "setup", "teardown")
INTERMEDIATE_KEYS = ("dirs", "split")


@dataclass(frozen=True)
class EngineSpec:
    name: str = "spark"  # names the engine in a study that compares several
    kind: str = "spark"  # "spark" | "hadoop"
    master: str = "local[*]"  # spark
    driver_memory: str = "2g"  # spark
    executor_memory: str | None = None  # spark
    # spark, local masters: bytes the idle applications of other configurations may hold, so that a switch of
    # configuration reuses a running application instead of starting a JVM; None = a quarter of this machine's memory
    keep_alive_memory: int | None = None
    conf: dict = field(default_factory=dict)  # Spark settings, or Hadoop -D settings
    mode: str = "local"  # hadoop: "local" (LocalJobRunner) or "yarn" (submit with a Hadoop conf dir)
    hadoop_conf_dir: str | None = None  # hadoop, yarn mode: default $HADOOP_CONF_DIR
    knobs: dict = field(default_factory=dict)  # shuffle_compress, io_codec, task_memory as given (already in conf)


@dataclass(frozen=True)
class Variant:
    """A storage configuration run by one engine: the unit that is compared."""
    name: str  # the config's name, or "config@engine" when the study has several engines
    config: str
    engine: str


@dataclass(frozen=True)
class WorkloadSpec:
    name: str  # the workload kind, a key of WORKLOADS
    label: str  # unique within the study; the name unless given
    params: dict  # canonical values (sizes in bytes)

    @property
    def definition(self):
        """The workload itself (workloads.Workload): its engines, checks, metrics, IO roles."""
        return WORKLOADS[self.name]


@dataclass(frozen=True)
class Spec:
    name: str
    source: str
    repeats: int
    engines: tuple[EngineSpec, ...]
    storage: tuple[StorageConfig, ...]
    workloads: tuple[WorkloadSpec, ...]  # producers before consumers
    baseline: str
    drop_caches: str = "auto"
    keep_data: bool = False
    description: str = ""
    cost: CostSpec | None = None  # prices for the cost analysis; not part of what runs
    sampling: bool = True  # sample devices, CPU, network and engine IO during each run
    sampling_interval_s: float = 1.0
    probe: bool = False  # measure the devices' ceilings with fio before the study
    probe_size: int = 256 << 20  # bytes fio writes and reads per device
    probe_runtime_s: int = 5  # seconds of the random-read test
    sweeps: tuple = ()  # {"level", "base", "knob", "members": [{"name", "value"}]}: knobs given as lists
    durability: str = "durable"  # "durable": writes synced inside the run's time; "engine": the engine's own (DURABILITY)
    # [cluster]: hosts observed by an agent over ssh (YARN's nodes, DataNodes, storage servers): {"nodes": [...],
    # "ssh_config": path or None, "processes": a command-line substring whose processes' IO is summed, or None}
    cluster: dict = field(default_factory=dict)
    # a fresh engine application runs the study's workloads once at a small size, unrecorded, before its first
    # measured run: that run is then as warm (JIT, class loading) as the ones after it (warmup.py)
    warm_up: bool = True
    # analysis only (spec/composites.py): workloads totalled as one job, and a weighted workload mix
    pipelines: tuple = ()  # {"name", "workloads": [labels]}
    mix: dict = field(default_factory=dict)  # label -> weight
    free_page_reporting: str = "as-is"  # one of FREE_PAGE_REPORTING

    def config(self, name: str) -> StorageConfig:
        return next(c for c in self.storage if c.name == name)

    def engine(self, name: str) -> EngineSpec:
        return next(e for e in self.engines if e.name == name)

    def variants(self) -> list[Variant]:
        many = len(self.engines) > 1
        return [Variant(f"{c.name}@{e.name}" if many else c.name, c.name, e.name) for c in self.storage for e in self.engines]

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants() if v.name == name)

    def to_dict(self) -> dict:
        return asdict(self)

    def fingerprint(self) -> str:
        """Hash of what determines the runs (not the description), to refuse pooling different studies."""
        d = self.to_dict()
        for c in d["storage"]:
            if not c.get("emulated"):
                c.pop("emulated", None)  # (as fingerprinted before devices could be emulated)
            for command in ("setup", "teardown"):  # how the cluster is prepared, not what runs: a fixed command
                c.pop(command, None)  # may be resumed with (each run records what its setup did)
        if d.get("free_page_reporting") == "as-is":
            d.pop("free_page_reporting")  # (the default; as fingerprinted before the setting existed)
        if d.get("warm_up"):
            d.pop("warm_up")  # (the default; studies recorded before it existed differ in tool version, checked on resume)
        if d.get("durability") == "engine":
            d.pop("durability")  # studies recorded before the setting existed ran with the engine's semantics
        for e in d["engines"]:
            e.pop("keep_alive_memory", None)  # how long JVMs live between runs, not what runs
        if not d.get("cluster"):
            d.pop("cluster", None)  # (as fingerprinted before nodes could be observed)
        for analysis_only in ("description", "source", "cost", "sampling", "sampling_interval_s", "probe", "probe_size",
                              "probe_runtime_s", "pipelines", "mix"):
            d.pop(analysis_only, None)
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def load_spec(path: str | os.PathLike) -> Spec:
    p = Path(path)
    raw = read_toml(path, "spec file", "give the study's .toml file (examples/ has some)")
    return parse_spec(raw, source=str(path), base_dir=p.resolve().parent)


def parse_spec(raw: dict, source: str = "<spec>", base_dir: Path | None = None) -> Spec:
    src = source
    base_dir = base_dir or Path.cwd()
    unknown_fields(src, "", raw, TOP_KEYS)

    name = raw.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise SpecError(src, "name", f"expected a study name of letters, digits, '.', '_' or '-' (up to 64), got {name!r}")
    repeats = positive_int(src, "repeats", raw.get("repeats", 3), 1)
    if repeats > MAX_REPEATS:
        raise SpecError(src, "repeats", f"at most {MAX_REPEATS}, got {repeats:,}")
    drop = raw.get("drop_caches", "auto")
    if drop not in DROP_CACHES:
        raise SpecError(src, "drop_caches", f"expected one of {', '.join(DROP_CACHES)}, got {drop!r}")
    durability = raw.get("durability", "durable")
    if durability not in DURABILITY:
        raise SpecError(src, "durability", f"expected \"durable\" (every write synced before its task ends: the device's "
                        f"speed) or \"engine\" (the engine's own semantics, for parity with Hadoop), got {durability!r}")
    keep = raw.get("keep_data", False)
    if not isinstance(keep, bool):
        raise SpecError(src, "keep_data", f"expected true or false, got {keep!r}")
    reporting = raw.get("free_page_reporting", "as-is")
    if reporting not in FREE_PAGE_REPORTING:
        raise SpecError(src, "free_page_reporting", f"expected \"off\" (on a VM that hands its freed memory to its host, "
                        f"turned off while the study runs and set back after; needs root) or \"as-is\", got {reporting!r}")
    warm_up = raw.get("warm_up", True)
    if not isinstance(warm_up, bool):
        raise SpecError(src, "warm_up", f"expected true (each fresh engine application runs the workloads once at a "
                        f"small size before its first measured run) or false, got {warm_up!r}")

    sweeps: list[dict] = []
    if "engine" in raw and "engines" in raw:
        raise SpecError(src, "engines", "give either [engine] or [engines.NAME] tables, not both")
    if "engines" in raw:
        if not isinstance(raw["engines"], dict) or not raw["engines"]:
            raise SpecError(src, "engines", "expected tables such as [engines.spark] kind = \"spark\" and [engines.hadoop] kind = \"hadoop\"")
        engines = tuple(x for n, e in raw["engines"].items() for x in _parse_engine(src, f"engines.{n}", e, n, sweeps))
    else:
        engines = tuple(_parse_engine(src, "engine", raw.get("engine", {}), None, sweeps))
    if len({e.name for e in engines}) != len(engines):
        raise SpecError(src, "engines", "two engines have the same name after expanding sweeps; rename one")

    storage_raw = raw.get("storage")
    if not isinstance(storage_raw, dict) or not storage_raw:
        raise SpecError(src, "storage", "at least one storage configuration is needed, e.g. [storage.ssd] data = [\"/ssd/tb\"]")
    storage_raw = _expand_storage_sweeps(src, storage_raw, sweeps)
    storage, named_intermediate = [], set()
    for cname, c in storage_raw.items():
        where = f"storage.{cname}"
        if not NAME_RE.match(cname):
            raise SpecError(src, where, "a configuration name may use letters, digits, '.', '_' and '-'")
        if not isinstance(c, dict):
            raise SpecError(src, where, "expected a table with `data` (and `intermediate`) directories")
        unknown_fields(src, f"{where}.", c, STORAGE_KEYS)
        if "data" not in c:
            raise SpecError(src, f"{where}.data", "missing: the directories that hold the jobs' input and output")
        data_raw, emulated = c["data"], {}
        if isinstance(data_raw, dict) and "emulate" in data_raw:  # a device of a known shape, made for the study
            data_raw, emulated["data"], _ = parse_emulated(src, f"{where}.data", data_raw, f"{name}-{cname}-data")
        data, data_type, replication, store_conf = parse_data(src, f"{where}.data", data_raw, base_dir)
        storage_type(data_type).check_engines(src, f"{where}.data", data, {e.kind for e in engines})
        inter, split = c.get("intermediate", list(data)), 1
        if isinstance(inter, dict) and "emulate" in inter:
            inter, emulated["intermediate"], with_data = parse_emulated(src, f"{where}.intermediate", inter,
                                                                       f"{name}-{cname}-intermediate", intermediate=True)
            if with_data and "data" not in emulated:
                raise SpecError(src, f"{where}.intermediate.with_data", "needs emulated data drives too "
                                "(data = { emulate = ..., drives = N }); with data directories, list them in intermediate")
            if with_data:  # the data drives take their share of the shuffle too (the Cloudera study's hybrid)
                inter = [*data, *inter]
                emulated["intermediate"] = [*emulated.get("data", []), *emulated["intermediate"]]
        elif "intermediate" not in c and "data" in emulated:
            emulated["intermediate"] = emulated["data"]  # intermediate defaults to the data dirs: the same device
        if isinstance(inter, dict):
            unknown_fields(src, f"{where}.intermediate.", inter, INTERMEDIATE_KEYS)
            if "dirs" not in inter:
                raise SpecError(src, f"{where}.intermediate.dirs", "missing: the directories for shuffle and spill data")
            split = positive_int(src, f"{where}.intermediate.split", inter.get("split", 1), 1)
            if split > 64:
                raise SpecError(src, f"{where}.intermediate.split", f"expected at most 64 subdirectories, got {split}")
            inter = inter["dirs"]
        inter_dirs = check_dirs(src, f"{where}.intermediate", inter, base_dir)
        desc = c.get("description", "")
        setup, teardown = (_shell_command(src, f"{where}.{key}", c.get(key, "")) for key in ("setup", "teardown"))
        if "intermediate" in c:
            named_intermediate.add(cname)
        storage.append(StorageConfig(cname, data, inter_dirs, split, str(desc), data_type, replication, store_conf, emulated,
                                     setup, teardown))
    check_intermediate_applies(src, engines, storage, named_intermediate)
    check_local_data_reaches_every_node(src, engines, storage)

    variant_names = [f"{c.name}@{e.name}" if len(engines) > 1 else c.name for c in storage for e in engines]
    baseline = raw.get("baseline", variant_names[0])
    for sw in sweeps:  # a swept configuration or engine named by its base name: its first value
        if sw["level"] != "workload" and isinstance(baseline, str) and baseline.split("@")[0] == sw["base"] and baseline not in variant_names:
            baseline = sw["members"][0]["name"] + baseline[len(sw["base"]):]
    if baseline in [c.name for c in storage] and baseline not in variant_names:
        baseline = f"{baseline}@{engines[0].name}"  # a configuration named alone: with the first engine
    if baseline not in variant_names:
        raise SpecError(src, "baseline", f"{baseline!r} is not a storage configuration; accepted: {', '.join(variant_names)}")

    wl_raw = raw.get("workloads")
    if not isinstance(wl_raw, list) or not wl_raw:
        raise SpecError(src, "workloads", "at least one workload is needed, e.g. [[workloads]] name = \"teragen\"")
    workloads = []
    for i, w in enumerate(wl_raw):
        where = f"workloads[{i}]"
        if not isinstance(w, dict) or "name" not in w:
            raise SpecError(src, f"{where}.name", f"missing: which workload; accepted: {', '.join(WORKLOADS)}")
        wl = WORKLOADS.get(w["name"])
        if wl is None:
            raise SpecError(src, f"{where}.name", f"unknown workload {w['name']!r}; accepted: {', '.join(WORKLOADS)}")
        for e in engines:
            if e.kind not in wl.engines:
                raise SpecError(src, f"{where}.name", f"{wl.name} does not run on the {e.kind} engine ({e.name}); it runs on: {', '.join(wl.engines)}")
        label = w.get("label", wl.name)
        if not isinstance(label, str) or not NAME_RE.match(label):
            raise SpecError(src, f"{where}.label", f"expected letters, digits, '.', '_' or '-', got {label!r}")
        allowed = ("name", "label") + tuple(p.name for p in wl.params)
        unknown_fields(src, f"{where}.", w, allowed)
        knob, values = swept(src, where, w, [p.name for p in wl.params if p.kind != "names"])
        members = []
        for value in values or [None]:
            entry = dict(w, **({knob: value} if knob else {}))
            params = _workload_params(src, where, wl, entry, engines, [c.name for c in storage])
            members.append(WorkloadSpec(wl.name, f"{label}.{knob}-{token(value)}" if knob else label, params))
        if knob:
            sweeps.append({"level": "workload", "base": label, "knob": knob,
                           "members": [{"name": m.label, "value": v} for m, v in zip(members, values)]})
        workloads.extend(members)

    labels = [w.label for w in workloads]
    for i, lab in enumerate(labels):
        if labels.index(lab) != i:
            raise SpecError(src, f"workloads[{i}]", f"{lab!r} is listed twice; give one of them a distinct `label`")
    workloads = _order_producers_first(src, workloads)
    cost = parse_cost(src, raw.get("cost"), storage_raw)
    sampling = raw.get("sampling", {})
    unknown_fields(src, "sampling.", sampling if isinstance(sampling, dict) else {"?": 0}, SAMPLING_KEYS)
    enabled = sampling.get("enabled", True)
    if not isinstance(enabled, bool):
        raise SpecError(src, "sampling.enabled", f"expected true or false, got {enabled!r}")
    interval = sampling.get("interval_s", 1.0)
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0.05 <= interval <= 60:
        raise SpecError(src, "sampling.interval_s", f"expected seconds between 0.05 and 60, got {interval!r}")
    probe = raw.get("probe", False)
    probe = {"enabled": probe} if isinstance(probe, bool) else probe
    if not isinstance(probe, dict):
        raise SpecError(src, "probe", f"expected true, false or a table {{ size = \"256MB\" }}, got {probe!r}")
    unknown_fields(src, "probe.", probe, PROBE_KEYS)
    try:
        probe_size = parse_size(probe.get("size", "256MB"))
    except ValueError as e:
        raise SpecError(src, "probe.size", str(e)) from None
    probe_rt = positive_int(src, "probe.runtime_s", probe.get("runtime_s", 5), 1)
    _check_against_producers(src, workloads)
    wl_dicts = [{"name": w.name, "label": w.label} for w in workloads]
    runs = repeats * len(storage) * len(engines) * len(workloads)
    if runs > MAX_RUNS:
        raise SpecError(src, "", f"the plan has {runs:,} runs ({repeats} repeats x {len(storage) * len(engines)} configurations "
                        f"x {len(workloads)} workloads), more than {MAX_RUNS:,}: fewer repeats, sweep values or workloads")
    return Spec(name, src, repeats, engines, tuple(storage), tuple(workloads), baseline, drop, keep,
                str(raw.get("description", "")), cost, enabled, float(interval), bool(probe.get("enabled", True)),
                probe_size, probe_rt, tuple(sweeps), durability, parse_cluster(src, raw.get("cluster"), base_dir), warm_up,
                parse_pipelines(src, raw.get("pipelines"), wl_dicts), parse_mix(src, raw.get("mix"), wl_dicts), reporting)


def parse_cluster(src, raw, base_dir: Path) -> dict:
    """[cluster]: the hosts tierbench observes over ssh, with the user's own ssh config and keys."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(src, "cluster", f"expected a table, e.g. [cluster] nodes = [\"dn1\", \"dn2\"], got {raw!r}")
    unknown_fields(src, "cluster.", raw, CLUSTER_KEYS)
    nodes = raw.get("nodes", [])
    if not isinstance(nodes, list) or not all(isinstance(n, str) and re.match(r"^[A-Za-z0-9_.@:\[\]-]+$", n) for n in nodes):
        raise SpecError(src, "cluster.nodes", f"expected a list of ssh host names (as in your ssh config: \"dn1\", "
                        f"\"user@10.0.0.5\"), got {nodes!r}")
    if len(set(nodes)) != len(nodes):
        raise SpecError(src, "cluster.nodes", "a node is named twice")
    ssh_config = raw.get("ssh_config")
    if ssh_config is not None:
        if not isinstance(ssh_config, str):
            raise SpecError(src, "cluster.ssh_config", f"expected a path to an ssh config file, got {ssh_config!r}")
        path = Path(ssh_config).expanduser()
        path = path if path.is_absolute() else base_dir / path
        if not path.is_file():
            raise SpecError(src, "cluster.ssh_config", f"{path}: no such file (leave it out to use ~/.ssh/config)")
        ssh_config = str(path)
    processes = raw.get("processes")
    if processes is not None and (not isinstance(processes, str) or not processes.strip()):
        raise SpecError(src, "cluster.processes", f"expected a command-line substring such as \"DataNode\", got {processes!r}")
    return {"nodes": list(nodes), "ssh_config": ssh_config, "processes": processes} if nodes else {}


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


def _workload_params(src, where, wl, w: dict, engines, config_names) -> dict:
    params = {}
    for p in wl.params:
        if p.name in w:
            try:
                params[p.name] = p.parse(w[p.name])
            except ValueError as e:
                raise SpecError(src, f"{where}.{p.name}", str(e)) from None
        else:
            params[p.name] = p.default
    problem = wl.check_params(params, {e.kind for e in engines}, config_names)
    if problem:
        raise SpecError(src, f"{where}.{problem[0]}", problem[1])
    return params


def _check_against_producers(src, workloads) -> None:
    """Each workload's parameters against its producer's (e.g. SQL query names of the generated benchmark)."""
    for i, w in enumerate(workloads):
        wl = WORKLOADS[w.name]
        producer = next((p for p in workloads if p.name == wl.producer), None)
        problem = wl.check_with_producer(w.params, producer.params) if producer else None
        if problem:
            raise SpecError(src, f"workloads[{i}].{problem[0]}", problem[1])


# storage knobs that may be given as lists (a sweep): HDFS replication and the S3A tunables
STORAGE_SWEEPABLE = ("replication", "input_fadvise", "readahead_range", "fast_upload_buffer", "multipart_size",
                     "connection_maximum", "committer", "gateways", "balancer")


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


def _parse_engine(src, where, eng, name, sweeps: list) -> list[EngineSpec]:
    """One engine, or one per value of a swept engine knob (named NAME.KNOB-VALUE)."""
    if not isinstance(eng, dict):
        raise SpecError(src, where, f"expected a table: [{where}]")
    knob, values = swept(src, where, eng, ENGINE_KNOBS)
    if not knob:
        return [_parse_one_engine(src, where, eng, name)]
    base = name or eng.get("kind", "spark")
    out = [_parse_one_engine(src, where, dict(eng, **{knob: v}), f"{base}.{knob}-{token(v)}") for v in values]
    sweeps.append({"level": "engine", "base": base, "knob": knob,
                   "members": [{"name": e.name, "value": v} for e, v in zip(out, values)]})
    return out


def _parse_one_engine(src, where, eng, name) -> EngineSpec:
    if not isinstance(eng, dict):
        raise SpecError(src, where, f"expected a table: [{where}]")
    kind = eng.get("kind", "spark")
    if kind not in ENGINE_KINDS:
        raise SpecError(src, f"{where}.kind", f"expected one of {', '.join(ENGINE_KINDS)}, got {kind!r}")
    name = name or kind
    if not NAME_RE.match(name):
        raise SpecError(src, where, "an engine name may use letters, digits, '.', '_' and '-'")
    unknown_fields(src, f"{where}.", eng, SPARK_KEYS if kind == "spark" else HADOOP_KEYS)
    conf = eng.get("conf", {})
    example = "\"spark.shuffle.compress\" = \"false\"" if kind == "spark" else "\"mapreduce.map.output.compress\" = \"true\""
    if not isinstance(conf, dict) or not all(isinstance(v, (str, int, float, bool)) for v in conf.values()):
        raise SpecError(src, f"{where}.conf", f"expected a table of settings, e.g. {example}")
    conf = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in conf.items()}
    for k, v in conf.items():
        if is_secret_key(k) or has_userinfo(v):
            raise SpecError(src, f"{where}.conf.{k}", "looks like a credential, and a spec is stored with every result: "
                            "give credentials through the environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, "
                            "AWS_PROFILE) or the cluster's own configuration, never in a spec")
    knobs = {k: eng[k] for k in ENGINE_KNOBS if k in eng}
    conf.update(engine_knob_conf(src, where, kind, str(eng.get("master", "local[*]")), knobs))
    if kind == "hadoop":
        mode = eng.get("mode", "local")
        if mode not in HADOOP_MODES:
            raise SpecError(src, f"{where}.mode", f"expected one of {', '.join(HADOOP_MODES)}, got {mode!r}")
        conf_dir = eng.get("hadoop_conf_dir")
        if conf_dir is not None and not (isinstance(conf_dir, str) and Path(conf_dir).is_dir()):
            raise SpecError(src, f"{where}.hadoop_conf_dir", f"{conf_dir!r} is not a directory (a Hadoop conf dir with core-site.xml, yarn-site.xml)")
        if mode == "yarn":
            from ..toolchain import yarn_conf_dir

            if yarn_conf_dir(conf_dir) is None:
                raise SpecError(src, f"{where}.mode", "\"yarn\" needs a Hadoop conf dir: set hadoop_conf_dir, export HADOOP_CONF_DIR, "
                                "or put your cluster's `hadoop` command on PATH (tierbench services up yarn prints one for an embedded YARN)")
        return EngineSpec(name=name, kind=kind, conf=conf, mode=mode, hadoop_conf_dir=conf_dir, master="", driver_memory="",
                          knobs=knobs)
    master = eng.get("master", "local[*]")
    if isinstance(master, str) and has_userinfo(master):
        raise SpecError(src, f"{where}.master", "no user or key in the master URL (user:key@): a spec is stored with every result")
    if not isinstance(master, str) or not re.match(r"^(local(\[(\*|[1-9][0-9]*)(,[0-9]+)?\])?|spark://.+|yarn|k8s://.+|local-cluster\[.+\])$", master):
        raise SpecError(src, f"{where}.master", f"expected a Spark master URL (local[N], local[*], spark://HOST:PORT, yarn, k8s://...), got {master!r}")
    for mem_key in ("driver_memory", "executor_memory"):
        v = eng.get(mem_key)
        if v is not None and not (isinstance(v, str) and re.match(r"^[0-9]+[kmgtKMGT]$", v)):
            raise SpecError(src, f"{where}.{mem_key}", f"expected a JVM memory size such as \"2g\" or \"512m\", got {v!r}")
    keep_alive = eng.get("keep_alive_memory")
    if keep_alive is not None:
        try:
            keep_alive = 0 if keep_alive in (0, "0") else parse_size(keep_alive)
        except ValueError as e:
            raise SpecError(src, f"{where}.keep_alive_memory", f"{e}; or 0 for one application at a time") from None
    return EngineSpec(name=name, kind=kind, master=master, driver_memory=eng.get("driver_memory", "2g"),
                      executor_memory=eng.get("executor_memory"), conf=conf, knobs=knobs, keep_alive_memory=keep_alive)


def _order_producers_first(src, workloads: list[WorkloadSpec]) -> list[WorkloadSpec]:
    """Stable order in which every consumer comes after its producer; a consumer without one is an error."""
    kinds = {w.name for w in workloads}
    for i, w in enumerate(workloads):
        producer = WORKLOADS[w.name].producer
        if producer and producer not in kinds:
            raise SpecError(src, f"workloads[{i}]", f"{w.name} reads the output of {producer}, which the spec does not list; "
                            f"add [[workloads]] name = \"{producer}\"")
        if producer and sum(1 for x in workloads if x.name == producer) > 1:
            raise SpecError(src, f"workloads[{i}]", f"{w.name} reads the output of {producer}, which is listed more than once: "
                            "which one it reads is ambiguous; list it once")
    ordered: list[WorkloadSpec] = []
    remaining = list(workloads)
    while remaining:
        for w in remaining:
            producer = WORKLOADS[w.name].producer
            if producer is None or any(o.name == producer for o in ordered):
                ordered.append(w)
                remaining.remove(w)
                break
    return ordered
