"""Durable writes (spec `durability`): in durable mode a job's writes reach the device inside the run's time, so
almost nothing is left for the sync after the job; in engine mode the same job leaves them in the page cache.
Real Spark on this machine's own disk, sampled from /proc/diskstats."""

import json

import pytest

from conftest import TERA_64MB, tierbench, write_spec
from tierbench.sampling.devices import device_of

SPEC = """
name = "{name}"
repeats = 1
warm_up = false
durability = "{mode}"
[engine]
master = "local[2]"
[storage.disk]
data = ["{d}/data"]
intermediate = ["{d}/tmp"]
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "32MiB"
""" + TERA_64MB
WRITERS = ("dfsio-write", "teragen", "terasort")


def writeback(record: dict) -> tuple[float, float]:
    """(MB the job wrote: output + shuffle, MB the devices took in the sync after the job)."""
    s = record["samples"]
    after = sum(v for cols in s["devices"].values() for v, tag in zip(cols["wr_bytes"], s["tags"]) if tag == "writeback")
    return record["io"]["output_mb"] + record["io"]["intermediate_mb"], after / 2**20


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    out = {}
    for mode in ("durable", "engine"):
        d = tmp_path_factory.mktemp(mode)
        if device_of(str(d)) is None:
            pytest.skip(f"{d} is on no block device (tmpfs/overlay): writeback cannot be measured")
        spec = write_spec(d / "s.toml", SPEC.format(name=f"wb-{mode}", mode=mode, d=d))
        tierbench("run", spec, "--out", d / "results", timeout=900, check=True)
        records = [json.loads(l) for l in (d / "results" / "runs.jsonl").read_text().splitlines()]
        out[mode] = ({r["workload"]: r for r in records}, (d / "results" / "report.md").read_text())
    return out


@pytest.mark.e2e
@pytest.mark.parametrize("workload", WRITERS)
def test_durable_mode_leaves_almost_nothing_for_the_writeback(studies, workload):
    rec = studies["durable"][0][workload]
    assert rec["status"] == "ok" and rec["durability"] == "durable" and rec["sync_gaps"] == []
    wrote, after = writeback(rec)
    assert wrote >= 60  # MB
    assert after < 0.05 * wrote, f"{workload}: {after:.1f} of {wrote:.0f} MB written back after the job"


@pytest.mark.e2e
@pytest.mark.parametrize("workload", ("dfsio-write", "teragen"))
def test_engine_mode_leaves_the_writes_in_the_page_cache(studies, workload):
    rec = studies["engine"][0][workload]
    assert rec["durability"] == "engine"
    wrote, after = writeback(rec)
    assert after > 0.5 * wrote, f"{workload}: only {after:.1f} of {wrote:.0f} MB written back after the job"


@pytest.mark.e2e
def test_the_modes_set_the_engine_and_the_report_says_what_it_saw(studies):
    durable, engine = studies["durable"][0]["terasort"], studies["engine"][0]["terasort"]
    assert durable["engine_conf"]["spark.shuffle.sync"] == "true"
    assert durable["engine_conf"]["spark.hadoop.tierbench.durable"] == "true"
    assert "spark.hadoop.tierbench.durable" not in engine["engine_conf"]
    assert "spark.shuffle.sort.io.plugin.class" not in engine["engine_conf"]
    # the same rows either way: syncing changes when bytes reach the device, not which bytes
    assert studies["durable"][0]["teragen"]["details"]["checksum"] == studies["engine"][0]["teragen"]["details"]["checksum"]
    assert "writes absorbed by the page cache" in studies["engine"][1]
    assert "writes absorbed by the page cache" not in studies["durable"][1]
