"""What a stored record and a stored study must hold for the analysis, the report and the model to read them
(the kinds are in shape.py; docs/results.md says what each field means).

Only what those readers use is checked, to the depth they use it: a field nobody reads is not refused, and
fields of newer versions are allowed. A record that fails is skipped (with a warning); a study.json that
fails is refused, since nothing can be analysed without it.
"""

from .record import SCHEMA_VERSION
from .shape import ANY, BOOL, DIGITS, INT, NUM, STR, ListOf, MapOf, Nullable, Obj, OneOf, describe, problem

OBJ = MapOf(ANY)
SERIES = ListOf(NUM)  # one sampled column, one number per interval

# a run's sampled series (the launcher host's, or a node's): the IO profile indexes every column by interval
SAMPLES = Obj({
    "interval_s": NUM, "start_ms?": Nullable(NUM), "t_ms": SERIES, "tags": ListOf(STR),
    "devices": MapOf(Obj({k: SERIES for k in ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges",
                                               "io_ms")})),
    "cpu": Obj({k: SERIES for k in ("user", "system", "iowait", "other")}),
    "net?": Nullable(Obj({"rx_bytes": SERIES, "tx_bytes": SERIES})),
})
INTERVAL = Obj({"phase": STR, "start_ms": NUM, "end_ms": NUM, "level?": INT})
STAGE = Obj({"submitted_ms": NUM, "completed_ms": NUM, "tasks?": Nullable(NUM), "hosts?": Nullable(MapOf(OBJ)),
             **{f"{k}?": Nullable(NUM) for k in ("input_bytes", "output_bytes", "shuffle_read_bytes",
                                                  "shuffle_write_bytes", "disk_spill_bytes")}})

# the engine's settings as given (strings); those the analysis turns into numbers must be numbers
ENGINE_CONF = Obj({k + "?": DIGITS for k in ("mapreduce.local.map.tasks.maximum",)}, rest=STR)

RECORD = Obj({
    # the first four in this order: older tierbench versions named them first, and tests expect it
    "run_key": STR, "status": STR, "workload": STR, "label": STR,
    "schema_version?": INT, "repeat": INT, "config?": STR, "variant?": STR,
    "wall_s?": Nullable(NUM),
    "metrics": MapOf(Nullable(NUM)),
    "io?": MapOf(Nullable(NUM)),
    "details": Obj({"phases?": ListOf(INTERVAL), "stages?": ListOf(STAGE), "warm_up?": Obj({"s": NUM}),
                    "storage_health?": Nullable(Obj({k + "?": Nullable(NUM) for k in (
                        "dead_datanodes", "under_replicated_blocks", "blocks_written")})),
                    "commit?": Nullable(Obj({"committer?": Nullable(STR)})),
                    "gateways?": Nullable(Obj({"balancer": STR, "serving": ANY, "requests?": Nullable(MapOf(NUM))})),
                    "queries?": Nullable(ListOf(Obj({"name": STR, "s": NUM, "rows": ANY}))),
                    "verification?": Nullable(OBJ),
                    "nodes_unobserved?": ListOf(STR), "nodes_page_cache_dropped?": MapOf(OBJ)}),
    "params?": OBJ, "knobs?": OBJ, "engine?": STR, "engine_kind?": STR, "engine_conf?": Nullable(ENGINE_CONF),
    "engine_version?": Nullable(STR), "tool_version?": Nullable(STR), "git_commit?": Nullable(STR),
    "started_at?": Nullable(STR), "ended_at?": Nullable(STR), "error?": Nullable(STR),
    "page_cache_dropped?": BOOL, "durability?": STR, "sync_gaps?": ListOf(STR), "command_line?": ListOf(ANY),
    "machine?": Nullable(Obj({"cpu_cores?": Nullable(INT), "memory_bytes?": Nullable(NUM), "cpu_model?": Nullable(STR)})),
    "storage?": Obj({"data?": ListOf(STR), "intermediate?": ListOf(STR), "type?": Nullable(STR),
                     "intermediate_applied?": Nullable(STR)}),
    "samples?": Nullable(SAMPLES),
    "nodes?": Nullable(MapOf(Obj({"samples?": Nullable(SAMPLES), "devices?": Nullable(MapOf(ListOf(STR))),
                                  "cores?": Nullable(INT), "mem_bytes?": Nullable(NUM)}))),
})


def record_problem(rec, analysed: bool = False) -> str | None:
    """What makes a parsed line of runs.jsonl unreadable as a run record, or None. `analysed`: also what keeps the
    analysis (the report, the model) from using it: a successful run without a runtime (exported, not compared)."""
    if not isinstance(rec, dict):
        return f"a JSON {describe(rec).removeprefix('a ')}, not an object"
    found = problem(RECORD, rec)
    if found:
        return found
    if rec.get("config") is None and rec.get("variant") is None:
        return "`config` is missing or not a str (nor is there a `variant`)"
    version = rec.get("schema_version", 1)
    if not 1 <= version <= SCHEMA_VERSION:
        return f"`schema_version` is {version}: this tierbench reads 1 to {SCHEMA_VERSION} (a newer tierbench wrote it)"
    if rec["status"] != "ok":
        return None
    if analysed and rec.get("wall_s") is None:  # (NUM checked it is a finite number when it is not null)
        return (f"`wall_s` is {'missing' if 'wall_s' not in rec else 'null'} in a run whose status is \"ok\": it has no "
                "runtime to compare")
    if (rec["details"].get("commit") or {}).get("committer") not in (None, "none"):
        missing = next((k for k in ("job_commit_s", "task_commit_s") if rec["metrics"].get(k) is None), None)
        if missing:
            return f"metrics: `{missing}` is missing in a run with a committer (the report compares its commit time)"
    return _sampled_problem(rec)


def _sampled_problem(rec: dict) -> str | None:
    """A sampled successful run is profiled: its directories' devices, its CPU share, a value per interval."""
    if (rec.get("samples") or {}).get("t_ms"):
        for role in ("data", "intermediate"):
            if role not in (rec.get("storage") or {}):
                return f"storage: `{role}` is missing (the directories a sampled run's devices are attributed to)"
        if not isinstance((rec.get("machine") or {}).get("cpu_cores"), int):
            return "machine: `cpu_cores` is missing or not an int (a sampled run's CPU share needs it)"
    series = [("samples", rec.get("samples"))] + [(f"nodes.{host}.samples", node.get("samples"))
                                                  for host, node in (rec.get("nodes") or {}).items()]
    return next((p for p in (_short_series(where, s) for where, s in series if s) if p), None)


def _short_series(where: str, s: dict) -> str | None:
    """A column with fewer values than there are intervals (the IO profile indexes each by interval)."""
    n = len(s["t_ms"])
    columns = [("", "tags", s["tags"])] + [("cpu", k, v) for k, v in s["cpu"].items()] + [
        (f"devices.{d}", k, v) for d, cols in s["devices"].items() for k, v in cols.items()] + [
        ("net", k, v) for k, v in (s.get("net") or {}).items()]
    for sub, key, col in columns:
        if isinstance(col, list) and len(col) < n:
            return f"{where}{'.' + sub if sub else ''}: `{key}` has {len(col)} values for {n} intervals (`t_ms`)"
    return None


STORAGE_CONFIG = Obj({"name": STR, "data": ListOf(STR), "intermediate": ListOf(STR), "split": INT,
                      "description?": Nullable(STR), "data_type?": STR})
WORKLOAD = Obj({"name": STR, "label": STR, "params": OBJ})
ENGINE = Obj({"name?": STR, "kind?": STR, "master?": Nullable(STR), "mode?": Nullable(STR), "conf?": Nullable(OBJ),
              "driver_memory?": Nullable(STR), "executor_memory?": Nullable(STR),
              "keep_alive_memory?": Nullable(NUM)})
# the cost section is made into dataclasses field by field (analysis/cost.py): no field of another name
COST = Obj({"years": NUM, "utilisation": NUM, "usd_per_kwh": NUM, "target_bytes?": Nullable(NUM),
            "drive_classes": MapOf(Obj({"name": STR, "price_usd": NUM, "capacity_bytes": NUM, "watts?": NUM,
                                        "endurance_bytes?": Nullable(NUM)}, closed=True)),
            "configs": MapOf(Obj({"price_usd": NUM, "nodes?": INT, "node_watts?": NUM, "drives?": MapOf(NUM),
                                  "data_drive?": Nullable(STR), "intermediate_drive?": Nullable(STR),
                                  "copies?": NUM}, closed=True))})
SWEEP = Obj({"level": STR, "base": STR, "knob": STR, "members": ListOf(Obj({"name": STR}))})

SPEC = Obj({
    "storage": ListOf(STORAGE_CONFIG), "workloads": ListOf(WORKLOAD), "baseline": STR, "repeats": INT,
    "name": STR, "description?": Nullable(STR), "drop_caches": OneOf("auto", "always", "never"),
    "durability?": Nullable(STR), "engine?": ENGINE, "engines?": ListOf(ENGINE), "cost?": Nullable(COST),
    "sweeps?": Nullable(ListOf(SWEEP)), "pipelines?": ListOf(Obj({"name": STR, "workloads": ListOf(STR)})),
    "mix?": Nullable(MapOf(NUM)), "cluster?": Nullable(OBJ),
    "scale?": Nullable(Obj({"target": STR, "target_size": NUM, "data_bytes": NUM, "rate_factor": NUM, "page_cache_bytes": NUM,
                            "settings": ListOf(Obj({k: STR for k in ("name", "here", "target", "keeps")})),
                            "breaks": ListOf(STR)})),
})

NODE_CHECK = Obj({"error?": Nullable(STR), "summary": MapOf(INT),
                  "checks": ListOf(Obj({k: STR for k in ("node", "name", "status", "found", "where", "fix")}))})
PREDICTIONS = Obj({  # what `tierbench predict` stores, as the report's what-if section reads it
    "calibrated_on": ListOf(STR),
    "hardware": ListOf(Obj({"name": STR, "nodes": INT, "cores": NUM, "data": STR, "intermediate": STR,
                            "write_copies": NUM})),
    "predictions": ListOf(Obj({"job": STR, "hardware": STR, "nodes": INT, "size_bytes": NUM, "seconds": NUM,
                               "bottleneck": STR, "mb_s?": Nullable(NUM), "jobs_per_day?": NUM, "usd_per_job?": NUM})),
    "validation": Obj({
        "hardware_median_abs_error?": Nullable(NUM), "size_median_abs_error?": Nullable(NUM),
        "hardware": ListOf(Obj({"job": STR, "config": STR, "from": ListOf(STR), "predicted_s": NUM, "measured_s": NUM,
                                "error": NUM})),
        "size": ListOf(Obj({"job": STR, "config": STR, "from_sizes": ListOf(NUM), "size_bytes": NUM,
                            "predicted_s": NUM, "measured_s": NUM, "error": NUM}))}),
})
FIO_TEST = Obj({"mb_s": NUM, "iops?": NUM, "p99_latency_ms?": NUM})
PROBE = MapOf(Obj({"tests?": MapOf(FIO_TEST), "dirs?": ListOf(STR), "error?": Nullable(STR)}))  # `tierbench probe`'s
DRIVE_PROFILE = Obj({"name": STR, "read_mb_s": NUM, "write_mb_s": NUM, "read_iops": NUM, "write_iops": NUM})
THROTTLE_LIMITS = Obj({k: NUM for k in ("read_mb_s", "write_mb_s", "read_iops", "write_iops")})  # as applied

STUDY = Obj({
    "name": STR, "spec": OBJ, "schema_version?": INT,
    "variants?": Nullable(ListOf(Obj({"name": STR, "config": STR, "engine?": STR}))),
    "machine?": Obj({"cpu_cores?": Nullable(INT), "memory_bytes?": Nullable(NUM), "cpu_model?": Nullable(STR),
                     "kernel?": Nullable(STR)}),
    "storage_map?": Obj({"dirs?": MapOf(Obj({"device?": Nullable(STR), "mount?": OBJ, "role?": STR})),
                         "devices?": MapOf(Obj({"rotational?": Nullable(BOOL), "size_bytes?": Nullable(NUM),
                                                "scheduler?": Nullable(STR), "disk?": Nullable(STR)}))}),
    "probe?": Nullable(PROBE),
    "probe_error?": Nullable(STR), "emulated?": Nullable(MapOf(Obj({"name": STR, "profile": DRIVE_PROFILE, "limits?": THROTTLE_LIMITS}))),
    # `predictions` and `probe`: kept in study.json before version 5, in files of their own since (derived.py)
    "node_check?": Nullable(NODE_CHECK), "predictions?": Nullable(PREDICTIONS), "config_commands?": ListOf(OBJ),
    "engine_applications?": Nullable(MapOf(Obj({"started": INT, "resumed": INT, "keep_alive_memory": Nullable(NUM)}))),
    "emulation_skipped?": BOOL, "command_line?": ListOf(STR), "tool_version?": Nullable(STR),
    "git_commit?": Nullable(STR), "plan?": ListOf(OBJ),
})


def study_problem(study) -> str | None:
    """What makes a parsed study.json unreadable as a study, or None."""
    if not isinstance(study, dict):
        return f"a JSON {describe(study).removeprefix('a ')}, not an object"
    found = problem(STUDY, study) or problem(SPEC, study["spec"], "spec")
    if found:
        return found
    spec = study["spec"]
    if not spec.get("engines") and "engine" not in spec:
        return "spec: `engines` is missing or empty (and there is no `engine`)"
    return _params_problem(spec["workloads"]) or _cost_problem(spec.get("cost"))


def _params_problem(workloads: list[dict]) -> str | None:
    """A workload parameter the report computes with (planned sizes) that its workload would not accept."""
    from ..workloads import WORKLOADS

    for i, w in enumerate(workloads):
        declared = {p.name: p for p in WORKLOADS[w["name"]].params} if w["name"] in WORKLOADS else {}
        for name, value in w["params"].items():
            if name in declared and value is not None:
                try:
                    declared[name].parse(value)
                except (ValueError, TypeError, OverflowError) as e:
                    return f"spec.workloads[{i}].params: `{name}` is {describe(value)}: {e}"
    return None


def _cost_problem(cost: dict | None) -> str | None:
    """A configuration's price naming a drive class the cost section does not define."""
    classes = (cost or {}).get("drive_classes", {})
    for name, c in (cost or {}).get("configs", {}).items():
        named = [*c.get("drives", {}), c.get("data_drive"), c.get("intermediate_drive")]
        unknown = next((d for d in named if d is not None and d not in classes), None)
        if unknown is not None:
            return (f"spec.cost.configs.{name}: drive class {unknown!r} is not one of `spec.cost.drive_classes` "
                    f"({', '.join(classes) or 'none'})")
    return None
