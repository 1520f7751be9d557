"""Observation: the sampler on real /proc counters, phase attribution, page-cache flags, fio ceilings,
and (as root) IO told apart on two loop devices."""

import json
import os
import shutil

import pytest

from conftest import as_run, write_spec
from tierbench.analysis.observation import observe as _observe
from tierbench.sampling.devices import device_of, storage_map
from tierbench.sampling.phases import WRITEBACK, io_profile, label_samples
from tierbench.sampling.sampler import Sampler


def observe(rec, *args, **kwargs):
    return _observe(as_run(rec), *args, **kwargs)  # (the records here are dicts: the analysis reads StoredRuns)


def test_sampler_counts_the_bytes_written_to_the_device(tmp_path):
    dev = device_of(str(tmp_path))
    if dev is None:
        pytest.skip(f"{tmp_path} is on no block device (tmpfs/overlay): nothing to count")
    s = Sampler([dev], interval_s=0.1).start()
    with open(tmp_path / "f", "wb") as f:
        for _ in range(20):
            f.write(os.urandom(1 << 20))
        f.flush()
        os.fsync(f.fileno())
    samples = s.stop(writeback=True)
    written = sum(samples["devices"][dev]["wr_bytes"])
    assert written >= 20 << 20
    assert samples["tags"][-1] == "writeback" and len(samples["t_ms"]) == len(samples["cpu"]["user"]) >= 2
    assert all(0 <= x <= 100 for x in samples["cpu"]["idle"])


def test_samples_are_labelled_with_the_phase_the_tasks_spent_most_time_in():
    samples = {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000, 2000, 3000, 4000, 4100], "tags": ["job"] * 4 + ["writeback"],
               "devices": {"sda": {k: [1, 2, 3, 4, 5] for k in ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges", "io_ms", "in_flight")}},
               "cpu": {k: [10.0] * 5 for k in ("user", "system", "iowait", "idle", "other")}}
    phases = [{"phase": "map", "start_ms": 200, "end_ms": 2300}, {"phase": "shuffle", "start_ms": 2300, "end_ms": 2500},
              {"phase": "reduce/output", "start_ms": 2500, "end_ms": 3900}]
    labels = label_samples(samples, phases)
    assert labels == ["map", "map", "reduce/output", "reduce/output", WRITEBACK]
    rows = {r["phase"]: r for r in io_profile(samples, labels, {"sda": ["data"]})}
    assert rows["map"]["write_mb"] == 3 / 2**20 and rows["map"]["seconds"] == 2.0 and rows[WRITEBACK]["seconds"] == 0.1


def test_a_sample_that_ends_a_stage_belongs_to_it_not_to_the_next_stages_first_task_phase():
    # the map stage's output is written as its tasks end (their own "map" intervals are over); the sample also
    # holds the first 0.2 s of the reduce stage's fetch: most of it, and the writes, are the map stage's
    samples = {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000, 2000], "tags": ["job"] * 2}
    phases = [{"phase": "map", "start_ms": 0, "end_ms": 1800, "level": 0},
              {"phase": "reduce/output", "start_ms": 1800, "end_ms": 3000, "level": 0},
              {"phase": "map", "start_ms": 0, "end_ms": 900, "level": 1},
              {"phase": "shuffle", "start_ms": 1800, "end_ms": 2600, "level": 1}]
    assert label_samples(samples, phases) == ["map", "map"]


def test_reads_served_from_memory_are_flagged():
    samples = {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000], "tags": ["job"],
               "devices": {"vdz": {k: [0] for k in ("rd_bytes", "wr_bytes", "rd_ios", "wr_ios", "rd_merges", "wr_merges", "io_ms", "in_flight")}},
               "cpu": {k: [50.0] for k in ("user", "system", "iowait", "idle", "other")}}
    rec = {"run_key": "r1/a/dfsio-read", "workload": "dfsio-read", "samples": samples, "page_cache_dropped": False,
           "storage": {"data": ["/d"], "intermediate": ["/d"]}, "metrics": {"data_mb": 100.0, "aggregate_throughput_mb_s": 500.0},
           "details": {"phases": []}}
    smap = {"dirs": {"/d": {"device": "vdz"}}}
    o = observe(rec, smap, {"vdz": {"tests": {"seq_read": {"mb_s": 250.0}}}}, cores=2)
    assert "served from memory" in o.cache_note and "drop_caches" in o.cache_note
    assert o.efficiency == 2.0  # faster than the device can read: the page cache again
    rec["page_cache_dropped"] = True
    samples["devices"]["vdz"]["rd_bytes"] = [100 << 20]
    samples["devices"]["vdz"]["rd_ios"] = [100]
    assert observe(rec, smap, None, cores=2).cache_note is None


def test_storage_map_names_devices_and_mounts(tmp_path):
    m = storage_map({"data": [str(tmp_path / "not-yet")]})
    info = m["dirs"][str(tmp_path / "not-yet")]
    assert info["role"] == "data" and info["mount"]["mount_point"] and info["mount"]["fs_type"]
    if info["device"]:
        assert "rotational" in m["devices"][info["device"]] and m["devices"][info["device"]]["scheduler"] is not None


def test_probe_cli_measures_each_device_and_cleans_up(tmp_path, tb):
    assert shutil.which("fio"), "fio is not installed: ./setup.sh --test installs it (Debian package fio)"
    spec = write_spec(tmp_path / "s.toml", f"""
name = "p"
[storage.a]
data = ["{tmp_path}/d1"]
[[workloads]]
name = "teragen"
""")
    out = tb("probe", spec, "--out", tmp_path / "res", "--size", "8MB", check=True)
    probe = json.loads((tmp_path / "res" / "probe.json").read_text())
    (dev, entry), = probe.items()
    assert set(entry["tests"]) == {"seq_write", "seq_read", "rand_read_64k"}
    assert all(t["mb_s"] > 0 for t in entry["tests"].values())
    assert "seq write MB/s" in out.stdout and dev in out.stdout
    assert not (tmp_path / "d1" / "tierbench").exists()  # fio's files deleted with the root it made


def test_io_is_attributed_to_the_data_and_the_intermediate_device(two_loop_devices, tmp_path, tb):
    # A sample interval goes whole to the phase that held most of it, so the job must last many intervals: with
    # 38 MB and 0.25 s samples the sort's output took one or two samples, and CI once saw 11 of its MB land in a
    # sample that was mostly the map phase's. 95 MB at 0.05 s: the output spans ~10 samples.
    (data_dev, data_mnt), (inter_dev, inter_mnt) = two_loop_devices
    spec = write_spec(tmp_path / "s.toml", f"""
name = "loops"
repeats = 1
[sampling]
interval_s = 0.05
[engine]
master = "local[2]"
driver_memory = "1g"
conf = {{ "spark.shuffle.compress" = "false" }}
[storage.loops]
data = ["{data_mnt}"]
intermediate = ["{inter_mnt}"]
[[workloads]]
name = "teragen"
rows = 1_000_000
[[workloads]]
name = "terasort"
partitions = 2
""")
    out = tb("run", spec, "--out", tmp_path / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    study = json.loads((tmp_path / "res" / "study.json").read_text())
    assert study["storage_map"]["dirs"][str(data_mnt)]["device"] == data_dev
    assert study["storage_map"]["dirs"][str(inter_mnt)]["device"] == inter_dev
    recs = {json.loads(l)["workload"]: json.loads(l) for l in (tmp_path / "res" / "runs.jsonl").read_text().splitlines()}
    o = observe(recs["terasort"], study["storage_map"], None, cores=2)
    w = {}
    for r in o.profile:
        w[(r["phase"], r["device"])] = w.get((r["phase"], r["device"]), 0) + r["write_mb"]
    mb = 1_000_000 * 100 / 2**20  # 95 MB of rows
    # the map phase writes the shuffle to the intermediate device, not to the data device
    assert w.get(("map", inter_dev), 0) > 0.5 * mb, w
    assert w.get(("map", data_dev), 0) < 0.2 * mb, w
    # the sorted output goes to the data device, after the shuffle
    out_data = w.get(("reduce/output", data_dev), 0) + w.get((WRITEBACK, data_dev), 0)
    assert out_data > 0.5 * mb, w
    # the intermediate device takes the shuffle once and none of the output. (Not per phase: the kernel writes the
    # shuffle's pages back when it chooses, and on a fast machine 45% of them reached the device in the reduce phase)
    inter = sum(v for (_, dev), v in w.items() if dev == inter_dev)
    assert 0.5 * mb < inter < 1.5 * mb, w
    assert set(o.roles[data_dev]) == {"data"} and set(o.roles[inter_dev]) == {"intermediate"}
    html = (tmp_path / "res" / "report.html").read_text()
    assert "IO profile per phase" in html and f"{inter_dev} (intermediate)" in html


def test_a_remote_store_is_not_said_to_lack_a_block_device():
    """HDFS and S3 keep their data on the store's servers: their runs have no local data device by design, and
    the report must not warn that reads cannot be checked; a local dir without a device still is warned of."""
    from tierbench.analysis.observation import _read_note as read_note_of_run

    _read_note = lambda rec, *args: read_note_of_run(as_run(rec), *args)  # noqa: E731 (the records here are dicts)

    assert _read_note({"storage": {"type": "s3"}}, [], [], 64.0) is None
    assert _read_note({"storage": {"type": "hdfs"}}, [], [], 64.0) is None
    assert "no block device" in _read_note({"storage": {"type": "local"}}, [], [], 64.0)
