"""The study fingerprint: what decides a run, hashed. A results folder records it, and `--resume` pools the stored
runs with new ones only when the spec's fingerprint is still the same (runner.py).

The fields are listed explicitly: a field not listed here (a description, prices, sampling, the fio probe, the
analysis-only pipelines and mix, the setup and teardown commands, how long idle JVMs live) may be edited between
the sessions of one study. The hash is of the spec's dict (Spec.to_dict(), as study.json stores it); its value
must stay the same for every study already recorded, so a field added to what decides a run is left out of the
hash at the value the studies recorded before it existed ran with (UNRECORDED).
"""

import hashlib
import json

RUN_FIELDS = ("name", "repeats", "engines", "storage", "workloads", "baseline", "drop_caches", "keep_data", "sweeps",
              "durability", "cluster", "warm_up", "free_page_reporting", "scale")
# of each engine: not keep_alive_memory (how long JVMs live between runs, not what runs)
ENGINE_RUN_FIELDS = ("name", "kind", "master", "driver_memory", "executor_memory", "conf", "mode", "hadoop_conf_dir", "knobs",
                     "spark")
# (a resumed study never pools two Spark releases; `compare` accepts them: they are what it compares)
ENGINE_UNRECORDED = {"spark": None}  # the project's own pyspark, as every study ran before the knob existed
# of each storage configuration: not setup and teardown (how the cluster is prepared, not what runs: a fixed command
# may be resumed with; each run records what its setup did)
CONFIG_RUN_FIELDS = ("name", "data", "intermediate", "split", "description", "data_type", "replication", "store_conf",
                     "emulated")
UNRECORDED = {
    "scale": None,  # no scale model
    "durability": "engine",  # studies recorded before the setting existed ran with the engine's semantics
    "free_page_reporting": "as-is",  # the default
    "warm_up": True,  # the default (studies recorded before it existed differ in tool version, checked on resume)
    "cluster": {},  # no nodes observed
}
CONFIG_UNRECORDED = {"emulated": {}}  # (as fingerprinted before devices could be emulated)


def run_fingerprint(spec: dict) -> str:
    """16 hex digits of the SHA-256 of the fields of `spec` (a Spec.to_dict()) that decide its runs."""
    decides = _fields(spec, RUN_FIELDS, UNRECORDED)
    if "engines" in decides:
        decides["engines"] = [_fields(e, ENGINE_RUN_FIELDS, ENGINE_UNRECORDED) for e in decides["engines"]]
    if "storage" in decides:
        decides["storage"] = [_fields(c, CONFIG_RUN_FIELDS, CONFIG_UNRECORDED) for c in decides["storage"]]
    return hashlib.sha256(json.dumps(decides, sort_keys=True).encode()).hexdigest()[:16]


def _fields(table: dict, names: tuple[str, ...], unrecorded: dict | None = None) -> dict:
    """The `names` of `table` it has (a study recorded by an older version may lack some), but none at its
    `unrecorded` value."""
    unrecorded = unrecorded or {}
    return {k: table[k] for k in names if k in table and not (k in unrecorded and table[k] == unrecorded[k])}
