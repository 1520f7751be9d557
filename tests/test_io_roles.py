"""The checks that read a workload's IO roles cover every workload (before, three hand-kept tables missed
dataread, grep, wordcount, copy and sql for the page-cache and efficiency checks, and gave textgen, datawrite,
copy and wordcount no drive wear). Fast: records built from replayed real Spark job results; no JVM."""

import json
from pathlib import Path

import pytest

from tierbench.analysis.cost import bytes_written_model
from tierbench.analysis.observation import observe
from tierbench.store.record import SCHEMA_VERSION, io_of, upgrade
from tierbench.workloads import WORKLOADS, measure

JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
COUNTERS = ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges", "io_ms", "in_flight")


def record(workload: str, device_read_mb: float = 0.0) -> dict:
    job = JOB_RESULTS[workload]
    m = measure(workload, job["result"], job["wall_s"], {})
    samples = {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000], "tags": ["job"],
               "devices": {"vdz": {k: [0] for k in COUNTERS}}, "cpu": {k: [50.0] for k in ("user", "system", "iowait", "idle", "other")}}
    samples["devices"]["vdz"]["rd_bytes"] = [int(device_read_mb * 2**20)]
    return {"run_key": f"r1/a/{workload}", "workload": workload, "samples": samples, "page_cache_dropped": True,
            "storage": {"data": ["/d"], "intermediate": ["/d"]}, "metrics": m.metrics, "details": {"phases": []}}


READERS = sorted(w for w, wl in WORKLOADS.items() if wl.io.input)
WRITERS = sorted(w for w, wl in WORKLOADS.items() if wl.io.output or wl.io.intermediate)
SMAP = {"dirs": {"/d": {"device": "vdz"}}}
PROBE = {"vdz": {"tests": {"seq_read": {"mb_s": 900.0}, "seq_write": {"mb_s": 1500.0}}}}


def test_the_readers_include_the_ones_the_old_tables_missed():
    assert {"dataread", "grep", "wordcount", "copy", "sql", "dfsio-read", "terasort", "teravalidate"} <= set(READERS)


@pytest.mark.parametrize("workload", READERS)
def test_reads_served_from_memory_are_flagged_for_every_reader(workload):
    rec = record(workload, device_read_mb=0.0)
    assert rec["metrics"]["data_mb"] > 0
    o = observe(rec, SMAP, PROBE, cores=2)
    assert o.cache_note and "served from memory" in o.cache_note, workload
    # the same run whose device did read its input is not flagged
    assert observe(record(workload, device_read_mb=rec["metrics"]["data_mb"]), SMAP, PROBE, cores=2).cache_note is None


@pytest.mark.parametrize("workload", sorted(w for w, wl in WORKLOADS.items()
                                             if (wl.io.input or wl.io.output) and "throughput_mb_s" in wl.metrics))
def test_efficiency_against_the_ceiling_for_every_reader_and_writer(workload):
    rec = record(workload, device_read_mb=1e6)
    o = observe(rec, SMAP, PROBE, cores=2)
    assert o.efficiency is not None and o.efficiency > 0, workload


@pytest.mark.parametrize("workload", ["textgen", "datawrite", "copy", "wordcount", "teragen", "terasort", "dfsio-write", "shuffle", "sqlgen"])
def test_drive_wear_model_counts_every_writer(workload):
    rec = record(workload)
    written = bytes_written_model(workload, rec["metrics"])
    assert written["data"] + written["intermediate"] > 0, workload
    if workload == "shuffle":
        assert written["data"] == 0 and written["intermediate"] == rec["metrics"]["data_mb"] * 2**20


def test_readers_write_nothing_in_the_wear_model():
    for w in ("dataread", "grep", "teravalidate", "dfsio-read", "sql"):
        assert bytes_written_model(w, record(w)["metrics"]) == {"data": 0.0, "intermediate": 0.0}


def test_a_version_1_record_is_upgraded_with_its_io():
    rec = {**record("terasort"), "schema_version": 1, "status": "ok"}
    up = upgrade(rec)
    assert up["schema_version"] == SCHEMA_VERSION and up["io"] == io_of("terasort", rec["metrics"])
    assert up["durability"] == "engine" and up["sync_gaps"] == []  # written before durable mode existed
    assert up["io"]["intermediate_mb"] == up["io"]["input_mb"] == rec["metrics"]["data_mb"] > 0
    assert "io" not in rec  # the stored record itself is not changed
