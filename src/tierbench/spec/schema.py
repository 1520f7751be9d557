"""The study spec (TOML): its shape, defaults and validation.

Every error names the spec file and the field (e.g. `storage.split.intermediate.split`)
and says what would be accepted; nothing runs until the whole spec is valid. Each table has its own parser:
the study's own fields here, [engine(s)] in engine.py, [storage.NAME] in configurations.py, [[workloads]] in
workload_list.py, [cost] in cost.py, [cluster] in cluster.py, [[pipelines]] and [mix] in composites.py.
"""

import os
from dataclasses import dataclass, field, asdict
from pathlib import Path

from ..errors import SpecError
from ..fields import between, boolean, choice, positive_int, size, unknown_fields
from ..ownership import NAME_RE
from ..storage.types import StorageConfig
from ..tomlfile import read_toml
from .cluster import parse_cluster
from .composites import parse_mix, parse_pipelines
from .configurations import parse_configurations
from .cost import CostSpec, parse_cost
from .engine import EngineSpec, parse_engines
from .fingerprint import run_fingerprint
from .scale import ScaleModel
from .workload_list import WorkloadSpec, check_against_producers, parse_workloads

MAX_REPEATS = 1000
MAX_RUNS = 100_000  # a plan larger than this cannot finish (nor fit a report)
DROP_CACHES = ("auto", "always", "never")
DURABILITY = ("durable", "engine")  # durable: every write on the device before its task ends; engine: as the engine does it
# "off": on a VM whose balloon hands freed pages to its host, that is turned off (as root) while the study runs and
# set back after (study/host_memory.py); "as-is": the machine is left alone
FREE_PAGE_REPORTING = ("as-is", "off")
TOP_KEYS = ("name", "description", "repeats", "baseline", "drop_caches", "durability", "keep_data", "warm_up", "engine", "engines", "storage",
            "workloads", "cost", "sampling", "probe", "cluster", "pipelines", "mix", "free_page_reporting", "scale")
SAMPLING_KEYS = ("enabled", "interval_s")
PROBE_KEYS = ("enabled", "size", "runtime_s")


@dataclass(frozen=True)
class Variant:
    """A storage configuration run by one engine: the unit that is compared."""
    name: str  # the config's name, or "config@engine" when the study has several engines
    config: str
    engine: str


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
    # measured run: that run is then as warm (JIT, class loading) as the ones after it (study/warmup.py)
    warm_up: bool = True
    # analysis only (spec/composites.py): workloads totalled as one job, and a weighted workload mix
    pipelines: tuple = ()  # {"name", "workloads": [labels]}
    mix: dict = field(default_factory=dict)  # label -> weight
    free_page_reporting: str = "as-is"  # one of FREE_PAGE_REPORTING
    scale: ScaleModel | None = None  # [scale]: the scale model's derived settings (spec/scale.py; scale/ derives them)
    # the results folder's own id (study/identity.py), in its emulated devices' names and its data roots' so that two
    # studies of one spec in two folders never share them; "" for a folder recorded before it existed (its old names)
    study_id: str = ""

    @property
    def root_name(self) -> str:
        """The name of the study's data roots (`<dir>/tierbench/<root_name>`): the study's, and its folder's id."""
        return f"{self.name}-{self.study_id}" if self.study_id else self.name

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
        return {**asdict(self), "scale": self.scale.to_dict() if self.scale else None}

    def fingerprint(self) -> str:
        """Hash of what determines the runs (fingerprint.RUN_FIELDS), to refuse pooling different studies."""
        return run_fingerprint(self.to_dict())


def load_spec(path: str | os.PathLike) -> Spec:
    raw, base_dir = read_spec(path)
    return parse_spec(raw, source=str(path), base_dir=base_dir)


def read_spec(path: str | os.PathLike) -> tuple[dict, Path]:
    """A spec file's TOML tables, and the folder its relative paths are taken in."""
    raw = read_toml(path, "spec file", "give the study's .toml file (examples/ has some)")
    return raw, Path(path).resolve().parent


def parse_spec(raw: dict, source: str = "<spec>", base_dir: Path | None = None, study_id: str = "",
               scale: ScaleModel | None = None) -> Spec:
    """A spec's TOML tables -> Spec, table by table (each error naming the field); nothing is left unchecked.
    `study_id`: the results folder's id (study/identity.py), in its devices' and data roots' names. A spec with
    [scale] is read by the scale model (scale/derive.py parse), which writes its derived settings into the tables
    and gives its model as `scale`: they are checked here as a user's would be."""
    src = source
    base_dir = base_dir or Path.cwd()
    unknown_fields(src, "", raw, TOP_KEYS)
    if "scale" in raw and scale is None:
        raise SpecError(src, "scale", "a scale model's spec is read through tierbench.scale.derive.parse, which "
                        "derives its settings (an internal error: please report it)")
    study = _parse_study(src, raw)
    sweeps: list[dict] = []  # the knobs given as lists, as each table expands them
    engines = parse_engines(src, raw, sweeps)
    storage_raw, storage = parse_configurations(src, raw, study["name"], engines, base_dir, sweeps, study_id)
    baseline = _parse_baseline(src, raw, engines, storage, sweeps)
    workloads = parse_workloads(src, raw, engines, [c.name for c in storage], sweeps)
    cost = parse_cost(src, raw.get("cost"), storage_raw)
    sampling, probe = _parse_sampling(src, raw), _parse_probe(src, raw)
    check_against_producers(src, workloads)
    _check_plan_size(src, study["repeats"], len(storage) * len(engines), len(workloads))
    wl_dicts = [{"name": w.name, "label": w.label} for w in workloads]
    return Spec(**study, source=src, engines=engines, storage=storage, workloads=tuple(workloads), baseline=baseline,
                cost=cost, **sampling, **probe, sweeps=tuple(sweeps), cluster=parse_cluster(src, raw.get("cluster"), base_dir),
                pipelines=parse_pipelines(src, raw.get("pipelines"), wl_dicts), mix=parse_mix(src, raw.get("mix"), wl_dicts),
                scale=scale, study_id=study_id)


def _parse_study(src, raw: dict) -> dict:
    """The study's own fields (the spec's top level): name, repeats, and how each run is done."""
    name = raw.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise SpecError(src, "name", f"expected a study name of letters, digits, '.', '_' or '-' (up to 64), got {name!r}")
    repeats = positive_int(src, "repeats", raw.get("repeats", 3), 1)
    if repeats > MAX_REPEATS:
        raise SpecError(src, "repeats", f"at most {MAX_REPEATS}, got {repeats:,}")
    drop = choice(src, "drop_caches", raw.get("drop_caches", "auto"), DROP_CACHES)
    durability = raw.get("durability", "durable")
    if durability not in DURABILITY:
        raise SpecError(src, "durability", f"expected \"durable\" (every write synced before its task ends: the device's "
                        f"speed) or \"engine\" (the engine's own semantics, for parity with Hadoop), got {durability!r}")
    keep = boolean(src, "keep_data", raw.get("keep_data", False))
    reporting = raw.get("free_page_reporting", "as-is")
    if reporting not in FREE_PAGE_REPORTING:
        raise SpecError(src, "free_page_reporting", f"expected \"off\" (on a VM that hands its freed memory to its host, "
                        f"turned off while the study runs and set back after; needs root) or \"as-is\", got {reporting!r}")
    warm_up = raw.get("warm_up", True)
    if not isinstance(warm_up, bool):
        raise SpecError(src, "warm_up", f"expected true (each fresh engine application runs the workloads once at a "
                        f"small size before its first measured run) or false, got {warm_up!r}")
    return {"name": name, "repeats": repeats, "drop_caches": drop, "durability": durability, "keep_data": keep,
            "free_page_reporting": reporting, "warm_up": warm_up, "description": str(raw.get("description", ""))}


def _parse_baseline(src, raw: dict, engines, storage, sweeps: list) -> str:
    """`baseline`: the variant the others are compared with; by default the first. A swept configuration or engine
    named by its base name means its first value; a configuration named alone, with the first engine."""
    variant_names = [f"{c.name}@{e.name}" if len(engines) > 1 else c.name for c in storage for e in engines]
    baseline = raw.get("baseline", variant_names[0])
    for sw in sweeps:
        if sw["level"] != "workload" and isinstance(baseline, str) and baseline.split("@")[0] == sw["base"] and baseline not in variant_names:
            baseline = sw["members"][0]["name"] + baseline[len(sw["base"]):]
    if baseline in [c.name for c in storage] and baseline not in variant_names:
        baseline = f"{baseline}@{engines[0].name}"
    if baseline not in variant_names:
        raise SpecError(src, "baseline", f"{baseline!r} is not a storage configuration; accepted: {', '.join(variant_names)}")
    return baseline


def _parse_sampling(src, raw: dict) -> dict:
    """[sampling]: whether devices, CPU, network and engine IO are sampled during each run, and how often."""
    sampling = raw.get("sampling", {})
    unknown_fields(src, "sampling.", sampling if isinstance(sampling, dict) else {"?": 0}, SAMPLING_KEYS)
    enabled = boolean(src, "sampling.enabled", sampling.get("enabled", True))
    interval = between(src, "sampling.interval_s", sampling.get("interval_s", 1.0), 0.05, 60, "seconds")
    return {"sampling": enabled, "sampling_interval_s": float(interval)}


def _parse_probe(src, raw: dict) -> dict:
    """`probe`: true, false or a table { size, runtime_s }: the devices' ceilings measured with fio first."""
    probe = raw.get("probe", False)
    probe = {"enabled": probe} if isinstance(probe, bool) else probe
    if not isinstance(probe, dict):
        raise SpecError(src, "probe", f"expected true, false or a table {{ size = \"256MB\" }}, got {probe!r}")
    unknown_fields(src, "probe.", probe, PROBE_KEYS)
    probe_size = size(src, "probe.size", probe.get("size", "256MB"))
    runtime = positive_int(src, "probe.runtime_s", probe.get("runtime_s", 5), 1)
    return {"probe": bool(probe.get("enabled", True)), "probe_size": probe_size, "probe_runtime_s": runtime}


def _check_plan_size(src, repeats: int, variants: int, workloads: int) -> None:
    runs = repeats * variants * workloads
    if runs > MAX_RUNS:
        raise SpecError(src, "", f"the plan has {runs:,} runs ({repeats} repeats x {variants} configurations "
                        f"x {workloads} workloads), more than {MAX_RUNS:,}: fewer repeats, sweep values or workloads")
