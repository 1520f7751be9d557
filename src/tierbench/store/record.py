"""A run's record: every field defined once, here, with what it holds (docs/results.md explains each).

Records are stored as JSON objects (one line of runs.jsonl each); `RunRecord.to_dict()` is that form. RunRecord is
what a run fills in as it goes; a record read back is a stored.StoredRun (frozen, with the same fields).
`upgrade()` brings a record of an older schema version up to this one, so old results folders stay
readable; each version's change is in FORMAT_HISTORY.
"""

from dataclasses import asdict, dataclass, field, fields

SCHEMA_VERSION = 5
FORMAT_HISTORY = {
    1: "first version (tierbench 0.1.0)",
    2: "`io`: MB the run moved per data class (input read, intermediate written, output written), from the "
       "workload's IO roles; records of version 1 get it on read",
    3: "`durability`: \"durable\" (the jobs' writes synced before their tasks ended) or \"engine\" (the engine's own "
       "semantics), and `sync_gaps`: what durable mode could not sync on this engine and storage; records of "
       "earlier versions ran with the engine's semantics and get \"engine\" on read",
    4: "`nodes`: on a cluster, each observed node's facts (agent, cores, RAM, the devices of the data, intermediate "
       "and shuffle dirs as that node sees them) and its own series in the `samples` format, from the node agents; "
       "`details.nodes_unobserved` and `details.nodes_page_cache_dropped`; stages carry bytes per host. Earlier "
       "records observed only the launcher host and have no `nodes`",
    5: "the derived outputs in files of their own beside runs.jsonl: `tierbench probe`'s in probe.json, `tierbench "
       "predict`'s in predictions.json; study.json of earlier versions held them as `probe` and `predictions`, which "
       "are read as before (and moved to the file when that output is made again). Records are as in version 4",
}


@dataclass
class RunRecord:
    study: str
    run_key: str  # r<repeat>/<variant>/<label>
    variant: str  # the storage configuration, or config@engine when a study has several engines
    config: str
    workload: str  # the workload kind
    label: str  # the workload entry (unique in the study)
    params: dict
    engine: str
    engine_kind: str
    knobs: dict
    repeat: int
    storage: dict  # name, type, data, intermediate, split, local_dirs, settings
    machine: dict
    tool_version: str
    git_commit: str | None
    command_line: list
    started_at: str
    schema_version: int = SCHEMA_VERSION
    attempt: int = 1
    status: str = "failed"  # "ok" or "failed"; failed runs are kept
    wall_s: float | None = None
    metrics: dict = field(default_factory=dict)  # name (unit in the name) -> number
    io: dict = field(default_factory=dict)  # {"input_mb", "intermediate_mb", "output_mb"}
    details: dict = field(default_factory=dict)  # non-numeric facts: checksums, per-task times, phases, stages
    ended_at: str | None = None
    error: str | None = None
    page_cache_dropped: bool = False
    durability: str = "engine"  # "durable" or "engine": the study's `durability`
    sync_gaps: list = field(default_factory=list)  # durable mode: writes the engine could not sync on this storage
    engine_version: str | None = None
    engine_conf: dict = field(default_factory=dict)  # secrets redacted
    samples: dict | None = None  # the sampler's series (the launcher host); absent when the run was not sampled
    nodes: dict | None = None  # host -> facts and series from the node agents (a cluster); absent otherwise

    def to_dict(self) -> dict:
        d = asdict(self)
        for optional in OPTIONAL_FIELDS:
            if d[optional] is None:
                d.pop(optional)
        return d


OPTIONAL_FIELDS = ("samples", "nodes")  # only when sampled / observed on a cluster
RECORD_FIELDS = tuple(f.name for f in fields(RunRecord) if f.name not in OPTIONAL_FIELDS)


def io_of(workload: str, metrics: dict) -> dict:
    """The `io` field: MB moved per data class, from the workload's IO roles (empty for an unknown workload)."""
    from ..workloads import WORKLOADS

    wl = WORKLOADS.get(workload)
    if wl is None:
        return {}
    return {f"{k}_mb": v for k, v in wl.io.mb(metrics).items()}


def upgrade(record: dict) -> dict:
    """A stored record brought up to SCHEMA_VERSION (a new dict; the file is not rewritten)."""
    r = dict(record)
    version = r.get("schema_version", 1)
    r.setdefault("variant", r.get("config"))  # early version-1 records: one engine, the variant is the configuration
    # a hand-made record with a variant only: its configuration is the variant's (config@engine) first part
    r.setdefault("config", r["variant"].split("@", 1)[0] if isinstance(r.get("variant"), str) else None)
    if version < 2:
        r["io"] = io_of(r.get("workload", ""), r.get("metrics", {})) if r.get("status") == "ok" else {}
    if version < 3:
        r.setdefault("durability", "engine")
        r.setdefault("sync_gaps", [])
    r["schema_version"] = SCHEMA_VERSION
    return r


def upgrade_study(study: dict) -> dict:
    """A stored study (checked) brought up to this version: each known workload's parameters that its spec does not
    hold (it was stored before they existed) at their defaults, which are what ran before them."""
    from ..workloads import WORKLOADS

    out = dict(study, spec=dict(study["spec"]))
    out["spec"]["workloads"] = [dict(w, params=_with_defaults(WORKLOADS[w["name"]].params, w["params"]))
                                if w["name"] in WORKLOADS else w for w in study["spec"]["workloads"]]
    return out


def _with_defaults(declared, params: dict) -> dict:
    out = dict(params)
    for p in declared:
        if p.name not in out:
            out[p.name] = p.parse(p.default) if p.kind == "size" and p.default is not None else p.default
    return out
