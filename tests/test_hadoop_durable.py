"""Durable writes on the hadoop engine (spec `durability`): in local mode Hadoop's own jobs write through
tierbench's SyncingLocalFileSystem (fs.file.impl), so Hadoop's TeraGen meets an emulated device's pace instead
of the page cache's (measured before it: 117 MB/s on a 60 MB/s emulated HDD); engine mode is Hadoop as it is."""

import json
import os
import re
from pathlib import Path

import pytest

from conftest import can_emulate_or_skip, tierbench, write_spec
from tierbench.engines.jobs_jar import JAVA_SRC
from tierbench.job import JobRequest
from tierbench.spec import parse_spec
from tierbench.units import MB

SYNCING_FS = "tierbench.io.SyncingLocalFileSystem"
MAP_OUTPUT_GAP = "map outputs"


def _spec(tmp_path, durability: str, mode: str = "local"):
    disk = {"data": [str(tmp_path / "data")], "intermediate": [str(tmp_path / "tmp")]}
    raw = {"name": "d", "durability": durability, "engine": {"kind": "hadoop", "mode": mode}, "storage": {"disk": disk},
           "workloads": [{"name": "teragen", "rows": 1000}, {"name": "terasort"}]}
    if mode == "yarn":  # a cluster's own: its NodeManagers' local dirs hold the map outputs
        raw["engine"]["hadoop_conf_dir"] = str(tmp_path)
        del disk["intermediate"]
    return parse_spec(raw, "d.toml", tmp_path)


def _generic(spec, tmp_path) -> dict:
    from tierbench.study.runner import make_engines

    engine = make_engines(spec, tmp_path / "logs")["hadoop"]
    config, sort = spec.storage[0], spec.workloads[1]
    req = JobRequest("r1/disk/terasort", sort, spec.workloads[0], [f"file://{tmp_path}/in"], [f"file://{tmp_path}/out"],
                     [tmp_path / "tmp"], tmp_path / "scratch", config.engine_settings(), config.default_fs)
    return engine, engine._generic(req)


def test_durable_local_mode_names_the_syncing_file_system_and_engine_mode_does_not(tmp_path):
    engine, durable = _generic(_spec(tmp_path, "durable"), tmp_path)
    assert durable["fs.file.impl"] == SYNCING_FS
    assert not any(MAP_OUTPUT_GAP in gap for gap in engine.sync_gaps)  # map outputs go through it too
    engine, plain = _generic(_spec(tmp_path, "engine"), tmp_path)
    assert "fs.file.impl" not in plain
    # and its local runner, which runs the maps a job asks for (Hadoop's own forces one): nothing else differs
    assert durable["mapreduce.framework.name"] == "tierbench-local" and plain["mapreduce.framework.name"] == "local"
    assert {k: v for k, v in durable.items() if k not in ("fs.file.impl", "mapreduce.framework.name")} == \
        {k: v for k, v in plain.items() if k != "mapreduce.framework.name"}


def test_the_specs_own_engine_settings_still_win(tmp_path):
    spec = _spec(tmp_path, "durable")
    spec.engines[0].conf["fs.file.impl"] = "org.apache.hadoop.fs.LocalFileSystem"
    assert _generic(spec, tmp_path)[1]["fs.file.impl"] == "org.apache.hadoop.fs.LocalFileSystem"


def test_on_yarn_the_tasks_file_system_is_hadoops_and_the_gap_is_recorded(tmp_path):
    engine, generic = _generic(_spec(tmp_path, "durable", "yarn"), tmp_path)
    assert "fs.file.impl" not in generic  # the NodeManagers' task JVMs do not have tierbench's classes
    assert any(MAP_OUTPUT_GAP in gap for gap in engine.sync_gaps)


def test_a_local_job_is_polled_every_50_ms_and_a_clusters_as_hadoop_polls_it(tmp_path):
    """A run's time ends at its log's "completed successfully", which the job client prints when it next polls the
    job: in local mode every 50 ms (in memory); on YARN, Hadoop's default (a second, over RPC to the cluster)."""
    _, local = _generic(_spec(tmp_path, "durable"), tmp_path)
    assert local["mapreduce.client.progressmonitor.pollinterval"] == "50"
    _, yarn = _generic(_spec(tmp_path, "durable", "yarn"), tmp_path)
    assert "mapreduce.client.progressmonitor.pollinterval" not in yarn


def test_the_named_file_system_is_a_class_of_the_jobs_jar():
    package, _, name = SYNCING_FS.rpartition(".")
    source = (JAVA_SRC / package.replace(".", "/") / f"{name}.java").read_text()
    assert re.search(rf"^package {re.escape(package)};", source, re.M)
    assert re.search(rf"public class {name} extends LocalFileSystem", source)  # FileSystem.getLocal casts to it


# -- e2e: Hadoop's TeraGen on an emulated device, durable and engine mode ------------------------------------

LIMIT_MB_S = 40  # the device's write limit (10^6 bytes/s, as the profiles count); reads and IOPS out of the way
STUDY_HEAD = """
name = "hd-{name}"
repeats = 1
warm_up = false
durability = "{mode}"
[engine]
kind = "hadoop"
[storage.dev]
data = ["{d}/data"]
intermediate = ["{d}/tmp"]
create_dirs = true
"""
STUDY = STUDY_HEAD + """
[[workloads]]
name = "teragen"
size = "192MiB"
tasks = 4
copies = {copies}
"""
DFSIO = STUDY_HEAD + """
[[workloads]]
name = "dfsio-write"
files = 4
file_size = "16MiB"
copies = 3
[[workloads]]
name = "dfsio-read"
"""


def _written(record: dict) -> tuple[float, float]:
    """(MB the device took during the job, MB after it: the sync that ends each run)."""
    s = record["samples"]
    cols = [(v, tag) for dev in s["devices"].values() for v, tag in zip(dev["wr_bytes"], s["tags"])]
    return sum(v for v, t in cols if t != "writeback") / MB, sum(v for v, t in cols if t == "writeback") / MB


@pytest.fixture(scope="module")
def teragens(tmp_path_factory):
    from tierbench.storage import emulation

    can_emulate_or_skip("Hadoop's TeraGen cannot be held to a device's pace")
    name = f"test-hsync-{os.getpid()}"
    profile = emulation.Profile("custom", 5 * LIMIT_MB_S, LIMIT_MB_S, 5000, 5000, "test")
    dev = emulation.up(name, "custom", 2 << 30, custom=profile, on_phase=lambda _: None)
    try:
        out = {}
        for run, mode, copies in (("durable", "durable", 1), ("engine", "engine", 1), ("copies", "durable", 3)):
            d = tmp_path_factory.mktemp(run)
            spec = write_spec(d / "s.toml", STUDY.format(name=run, mode=mode, copies=copies, d=Path(dev.mount) / run))
            tierbench("run", spec, "--out", d / "r", timeout=600, check=True)
            out[run] = json.loads((d / "r" / "runs.jsonl").read_text().splitlines()[-1])
            out[run]["_log"] = str(d / "r" / out[run]["details"]["log"])
        d = tmp_path_factory.mktemp("dfsio")  # TestDFSIO writes its files itself, outside the job's output directory
        spec = write_spec(d / "s.toml", DFSIO.format(name="dfsio", mode="durable", d=Path(dev.mount) / "dfsio"))
        tierbench("run", spec, "--out", d / "r", timeout=600, check=True)
        out["dfsio-write"], out["dfsio-read"] = map(json.loads, (d / "r" / "runs.jsonl").read_text().splitlines()[-2:])
        yield out
    finally:
        emulation.down(name)


@pytest.mark.e2e
def test_hadoops_teragen_writes_at_the_devices_pace_when_durable(teragens):
    rec = teragens["durable"]
    assert rec["status"] == "ok" and rec["engine"] == "hadoop" and rec["engine_conf"]["fs.file.impl"] == SYNCING_FS
    limit = LIMIT_MB_S * 1e6 / MB  # in the MB (2^20 bytes) tierbench's metrics count
    mb_s = rec["metrics"]["throughput_mb_s"]
    print(f"durable Hadoop TeraGen: {mb_s:.1f} MB/s, {mb_s / limit:.2f} of the device's {limit:.1f}")
    assert mb_s <= 1.15 * limit, f"{mb_s:.1f} MB/s on a {limit:.1f} MB/s device: the page cache, not the device"
    during, after = _written(rec)
    assert during >= 190 and after < 0.05 * during, (during, after)  # on the device before the job ended
    assert not any(MAP_OUTPUT_GAP in gap for gap in rec["sync_gaps"])


@pytest.mark.e2e
def test_in_engine_mode_hadoop_leaves_its_writes_in_the_page_cache_as_before(teragens):
    rec, durable = teragens["engine"], teragens["durable"]
    assert rec["status"] == "ok" and "fs.file.impl" not in rec["engine_conf"]
    during, after = _written(rec)
    assert after > 0.5 * (during + after), (during, after)  # (its MB/s may pass the device's: not held to it)
    assert rec["details"]["checksum"] == durable["details"]["checksum"]  # the same rows either way


@pytest.mark.e2e
def test_copies_stand_for_hdfs_replication_the_drive_takes_each_and_the_data_set_is_one(teragens):
    """A scale model's TeraGen with `copies = 3`: the device takes three copies of the output before the job ends
    (as a node's drives take its share of three replicas), and the data set is still the one TeraGen wrote."""
    rec, one = teragens["copies"], teragens["durable"]
    assert rec["status"] == "ok" and rec["params"]["copies"] == 3
    during, _ = _written(rec)
    assert during >= 3 * 190, during
    assert rec["details"]["checksum"] == one["details"]["checksum"] and rec["metrics"]["rows"] == one["metrics"]["rows"]
    assert rec["wall_s"] > 2 * one["wall_s"]  # three copies at the device's pace


@pytest.mark.e2e
def test_durable_local_teragen_runs_the_maps_it_is_given_not_hadoops_one(teragens):
    """Hadoop's local provider sets a job's maps to 1; tierbench's local runner keeps TeraGen's `tasks` (4 here)."""
    rec = teragens["durable"]
    assert rec["engine_conf"]["mapreduce.framework.name"] == "tierbench-local"
    assert rec["metrics"]["tasks"] == 4, rec["metrics"]


@pytest.mark.e2e
def test_testdfsio_copies_reach_the_drive_and_the_read_sees_the_files_written_once(teragens):
    """TestDFSIO writes its files under io_data itself (not as the job's output): `copies = 3` reaches the drive
    there too, and dfsio-read still finds exactly the 4 files of 16 MB written (the copies are hidden)."""
    write, read = teragens["dfsio-write"], teragens["dfsio-read"]
    assert write["status"] == "ok" and read["status"] == "ok", (write.get("error"), read.get("error"))
    during, _ = _written(write)
    assert during >= 3 * 64, during
    assert read["metrics"]["files"] == 4 and read["metrics"]["data_mb"] == pytest.approx(64)


@pytest.mark.e2e
def test_a_local_jobs_end_is_seen_when_it_ends_not_at_the_clients_next_poll(teragens):
    """The job client's "completed successfully" (where a run's time ends) follows the local runner's last line
    within 0.3 s; polled once a second, as Hadoop does by default, it came 0.87 s after it in a quickstart's run."""
    from tierbench.engines.hadoop.logparse import timestamps

    for key in ("durable", "engine", "copies"):
        ts = timestamps(Path(teragens[key]["_log"]).read_text())
        executor_done = next(t for t, line in ts if "map task executor complete" in line)
        completed = next(t for t, line in ts if "completed successfully" in line)
        assert 0 <= (completed - executor_done).total_seconds() <= 0.3, (key, executor_done, completed)


def test_the_local_jobs_jvm_takes_the_specs_java_options_and_a_bad_or_yarn_one_is_refused(tmp_path):
    from tierbench.errors import SpecError
    from tierbench.study.runner import make_engines

    raw = {"name": "d", "engine": {"kind": "hadoop", "java_options": ["-XX:TieredStopAtLevel=1"]},
           "storage": {"disk": {"data": [str(tmp_path / "data")], "intermediate": [str(tmp_path / "tmp")]}},
           "workloads": [{"name": "teragen", "rows": 1000}, {"name": "terasort"}]}
    spec = parse_spec(raw, "d.toml", tmp_path)
    engine = make_engines(spec, tmp_path / "logs")["hadoop"]
    config, sort = spec.storage[0], spec.workloads[1]
    req = JobRequest("r1/disk/terasort", sort, spec.workloads[0], [f"file://{tmp_path}/in"], [f"file://{tmp_path}/out"],
                     [tmp_path / "tmp"], tmp_path / "scratch", config.engine_settings(), config.default_fs)
    cmd = engine._command(req, engine._generic(req))
    assert cmd[1:3] == ["-Xmx1g", "-XX:TieredStopAtLevel=1"]  # before the main class: the JVM's, not the job's
    assert f"-Djava.io.tmpdir={tmp_path / 'scratch' / 'jvm-tmp'}" in cmd[:cmd.index("-cp")]  # the run's, not /tmp
    raw["engine"]["java_options"] = ["-Dsecret=x"]
    with pytest.raises(SpecError, match=r"engine\.java_options.*-XX:TieredStopAtLevel=1"):
        parse_spec(raw, "d.toml", tmp_path)
    raw["engine"].update(java_options=["-XX:+UseParallelGC"], mode="yarn", hadoop_conf_dir=str(tmp_path))
    with pytest.raises(SpecError, match="local mode only"):
        parse_spec(raw, "d.toml", tmp_path)
