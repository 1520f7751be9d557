"""The checks that read a workload's IO roles cover every workload (before, three hand-kept tables missed
dataread, grep, wordcount, copy and sql for the page-cache and efficiency checks, and gave textgen, datawrite,
copy and wordcount no drive wear). Fast: records built from replayed real Spark job results; no JVM."""

import json
from pathlib import Path

import pytest

from tierbench.analysis.cost import bytes_written_model
from conftest import as_run
from tierbench.analysis.observation import MIN_MB
from tierbench.analysis.observation import observe as _observe
from tierbench.store.record import SCHEMA_VERSION, io_of, upgrade
from tierbench.workloads import WORKLOADS, measure

FIXTURES = Path(__file__).parent / "fixtures"
# (the table workloads' results were captured apart, on the Spark release their runtime is built for)
JOB_RESULTS = {**json.loads((FIXTURES / "job-results.json").read_text()),
               **json.loads((FIXTURES / "table-job-results.json").read_text())}
COUNTERS = ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges", "io_ms", "in_flight")


def record(workload: str, device_read_mb: float = 0.0, written_mb: float = 0.0, writeback_mb: float = 0.0) -> dict:
    job = JOB_RESULTS[workload]
    m = measure(workload, job["result"], job["wall_s"], {})
    samples = {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000], "tags": ["job"],
               "devices": {"vdz": {k: [0] for k in COUNTERS}}, "cpu": {k: [50.0] for k in ("user", "system", "iowait", "idle", "other")}}
    samples["devices"]["vdz"]["rd_bytes"] = [int(device_read_mb * 2**20)]
    samples["devices"]["vdz"]["wr_bytes"] = [int(written_mb * 2**20)]
    if writeback_mb:  # the sync after the job
        samples["t_ms"].append(1100)
        samples["tags"].append("writeback")
        for k, col in samples["devices"]["vdz"].items():
            col.append(int(writeback_mb * 2**20) if k == "wr_bytes" else 0)
        for col in samples["cpu"].values():
            col.append(0.0)
    return {"run_key": f"r1/a/{workload}", "workload": workload, "samples": samples, "page_cache_dropped": True,
            "storage": {"data": ["/d"], "intermediate": ["/d"]}, "metrics": m.metrics, "details": {"phases": []}}



def observe(rec, *args, **kwargs):
    return _observe(as_run(rec), *args, **kwargs)  # (the records here are dicts: the analysis reads StoredRuns)


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
    again = observe(record(workload, device_read_mb=rec["metrics"]["data_mb"]), SMAP, PROBE, cores=2)
    assert not any("served from memory" in n for n in again.cache_notes), again.cache_notes


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


@pytest.mark.parametrize("workload", WRITERS)
def test_writes_absorbed_by_the_page_cache_are_flagged_for_every_writer(workload):
    rec = record(workload, device_read_mb=1e6)
    wrote = sum(io_of(workload, rec["metrics"]).values()) - io_of(workload, rec["metrics"])["input_mb"]
    late = observe(record(workload, device_read_mb=1e6, written_mb=0.0, writeback_mb=wrote), SMAP, PROBE, cores=2)
    if wrote < MIN_MB:  # (wordcount's counts at test size) too little for the device counters to tell
        assert not late.cache_notes
        return
    assert any("writes absorbed by the page cache" in n and "durability" in n for n in late.cache_notes), (workload, late.cache_notes)
    synced = observe(record(workload, device_read_mb=1e6, written_mb=wrote, writeback_mb=0.1), SMAP, PROBE, cores=2)
    assert not any("writes absorbed" in n for n in synced.cache_notes), (workload, synced.cache_notes)


def test_a_shuffle_read_back_from_memory_is_flagged():
    rec = record("terasort", device_read_mb=0.0)
    mb = rec["metrics"]["data_mb"]
    notes = observe(record("terasort", device_read_mb=mb, written_mb=2 * mb), SMAP, PROBE, cores=2).cache_notes
    assert any(n.startswith("shuffle read back from memory") for n in notes), notes
    notes = observe(record("terasort", device_read_mb=2 * mb, written_mb=2 * mb), SMAP, PROBE, cores=2).cache_notes
    assert not any(n.startswith("shuffle") for n in notes), notes


def test_a_jbod_is_judged_against_the_sum_of_its_drives():
    rec = record("dfsio-write", device_read_mb=1e6)
    rec["storage"]["data"] = ["/d", "/e"]
    smap = {"dirs": {"/d": {"device": "vdz"}, "/e": {"device": "vdy"}}}
    probe = {"vdz": PROBE["vdz"], "vdy": {"tests": {"seq_read": {"mb_s": 100.0}, "seq_write": {"mb_s": 500.0}}}}
    o = observe(rec, smap, probe, cores=2)
    achieved = rec["metrics"]["aggregate_throughput_mb_s"]
    assert o.efficiency == pytest.approx(achieved / 2000.0) and "vdz+vdy" in o.ceiling_note
