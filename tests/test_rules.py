"""The what-if model's rules at the target (model/rules.py), each on hand-made figures, and the one that can be
checked against a real run: MapReduce's spill and merge passes against the Spilled Records of a recorded TeraSort."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tierbench.model.hardware import catalog
from tierbench.model.predict import Machine, Pool, intermediate_at_target
from tierbench.model.profile import PhaseProfile, profile_run
from tierbench.model.rules import (hadoop_intermediate, merge_passes, node_page_cache, read_back_share,
                                   spark_intermediate, stream_mb_s)
from tierbench.store import ResultsDir

MB = 1e6
MiB = 1 << 20


def test_merge_passes_take_the_sort_factor_at_a_time():
    assert [merge_passes(n) for n in (1, 2, 10, 11, 100, 101)] == [0, 1, 1, 2, 2, 3]


def test_a_map_that_fits_its_sort_buffer_writes_once_and_a_reducer_that_fits_merges_in_memory():
    r = hadoop_intermediate(64 * MB, 100 * MB, 100 * MB, 512 * MB)
    assert (r.map_spills, r.map_passes, r.reduce_passes, r.written, r.read) == (1, 0, 0, 1, 0)


def test_the_sandisk_terasort_at_1tb_spills_twice_per_map_and_merges_three_passes_per_reducer():
    # a 128 MB split in a 100 MB buffer (80% full: spills) -> 2 spills merged once; 1 TB over 36 reducers of
    # 512 MB heap: 27.8 GB each through a 358 MB in-memory buffer merged at 66% -> 118 files, 3 passes of 10
    r = hadoop_intermediate(128 * MiB, 100 * MiB, 1e12 / 36, 512 * MiB)
    assert (r.map_spills, r.map_passes, r.reduce_passes) == (2, 1, 3)
    assert r.written == 1 + 1 + 3 and r.read == 1 + 3


def test_the_rule_gives_the_spilled_records_of_a_recorded_terasort():
    """The quickstart's TeraSort (hadoop engine, committed fixture): 21.3 MB splits, a 17 MB sort buffer, 6
    reducers of 8 MB over 128 MB. Hadoop counted 3 spilled records per map output record; the rule says 3."""
    stored = ResultsDir(Path(__file__).parent / "fixtures" / "scale-model-results").load(analysed=True)
    run = next(r for r in stored.runs if r.workload == "terasort" and r.ok)
    conf, params = run.engine_conf, run.params
    rule = hadoop_intermediate(params["split_size"], int(conf["mapreduce.task.io.sort.mb"]) * MiB,
                               128 * MiB / params["partitions"], int(conf["mapreduce.reduce.memory.totalbytes"]))
    assert profile_run(run, stored.study.storage_map).spilled == pytest.approx(rule.written) == 3


@given(st.floats(1 * MB, 1e9), st.floats(1 * MB, 1e9), st.floats(1 * MB, 1e11), st.floats(8 * MB, 8e9))
def test_more_task_memory_never_means_more_intermediate_bytes(map_output, buffer, reduce_input, memory):
    small = hadoop_intermediate(map_output, buffer, reduce_input, memory)
    big = hadoop_intermediate(map_output, 2 * buffer, reduce_input, 2 * memory)
    assert big.written <= small.written and big.read <= small.read
    assert small.written >= 1 and small.read >= 0


def test_spark_writes_its_shuffle_once_unless_it_spills():
    fits = spark_intermediate(64 * MB, 64 * MB, 4e9, 4)
    assert (fits.written, fits.read) == (1, 0)
    spills = spark_intermediate(2e9, 2e9, 1e9, 4)  # 4 tasks share a 1 GB executor's execution memory
    assert (spills.written, spills.read) == (3, 2)


def test_the_page_cache_keeps_the_last_bytes_written():
    assert read_back_share(1e9, 2e9) == 0.0
    assert read_back_share(4e9, 1e9) == pytest.approx(0.75)
    assert read_back_share(0, 1e9) == 0.0
    # 16 GB less 12 slots x 512 MB: 10 GB; never under 5% of the memory
    assert node_page_cache(16 * 2**30, 12, 512 * 2**20) == 10 * 2**30
    assert node_page_cache(4e9, 12, 1e9) == pytest.approx(0.2e9)


def test_streams_sharing_an_hdd_seek_and_an_ssd_barely_notices():
    hdd, ssd = catalog()["hdd-7200-2014"], catalog()["sata-ssd-2014"]
    assert stream_mb_s(hdd, "read", 64, 1) == hdd.mb_s("read", 64)  # one stream: the drive's own figure
    twelve = stream_mb_s(hdd, "read", 64, 12)
    assert twelve == pytest.approx(0.065536 / (0.065536 / 130 + 1 / 150))  # 0.5 ms of transfer + 6.7 ms of seek
    assert 8 < twelve < 10
    assert stream_mb_s(hdd, "read", 4096, 12) > 5 * twelve  # bigger requests amortise the seek
    assert stream_mb_s(ssd, "read", 1024, 12) > 0.9 * ssd.read_mb_s
    from dataclasses import replace
    throttle = replace(hdd, seeks=False)  # an emulated device: the throttle's limits, no head to move
    assert stream_mb_s(throttle, "read", 64, 12) == throttle.mb_s("read", 64)


def test_the_target_engine_sets_the_intermediate_bytes_over_what_the_run_measured():
    from tierbench.model.profile import RunProfile

    ph = PhaseProfile("map", 10, 1, 2, {"data.read": 1e9, "intermediate.write": 3e9, "intermediate.read": 2e9},
                      {}, {}, shuffle_bytes=1e9)
    measured = RunProfile("r", "terasort", "terasort", "c", "c", 1e9, 10, 2, {}, [ph], engine="hadoop", spilled=3.0)
    pool = (Pool(catalog()["hdd-7200-2014"], 2, {"data": 1.0, "intermediate": 1.0}),)
    as_measured = Machine("m", 1, 2, 1e9, 1.0, pool)
    assert intermediate_at_target(measured, [ph], as_measured) == [ph]  # no engine named: as measured
    # MapReduce on 6 nodes of 12 slots with 512 MB heaps, 1 TB of shuffle: a reducer per slot (72) takes 13.9 GB
    # through a 375 MB buffer -> 56 files, 2 merge passes; with the map's 2 spills: 4 writes per byte, not 3
    target = Machine("t", 6, 12, 1e9, 3.0, pool, engine="hadoop", task_heap=512 * MiB)
    big = ph.scaled(1e12 / 1e9)
    out = intermediate_at_target(measured, [big], target)[0]
    assert out.bytes["intermediate.write"] == pytest.approx(big.bytes["intermediate.write"] * 4 / 3)
    assert out.bytes["data.read"] == big.bytes["data.read"]


def test_hadoops_terasort_writes_one_copy_of_its_output_whatever_the_replication():
    from tierbench.model.predict import modelled_seconds
    from tierbench.model.profile import RunProfile
    from tierbench.model.rules import output_copies

    assert output_copies("terasort", "hadoop", 3.0) == 1.0   # TeraSort sets its output's replication to 1
    assert output_copies("teragen", "hadoop", 3.0) == 3.0    # other jobs take the file system's
    assert output_copies("terasort", "spark", 3.0) == 3.0    # a Spark sort writes with dfs.replication
    assert output_copies("terasort", None, 1.0) == 1.0       # a measured machine: as measured
    # the same profile on a 3-replica MapReduce cluster: its TeraSort writes (and sends) a third of a TeraGen's
    ph = PhaseProfile("write", 1, 1, 1, {"data.write": 1e9}, {"data.write": 1024}, {}, output_bytes=1e9)
    pool = (Pool(catalog()["hdd-7200"], 1, {"data": 1.0, "intermediate": 1.0}),)
    cluster = Machine("t", 4, 8, 125.0, 3.0, pool, engine="hadoop")
    seconds = {w: modelled_seconds(RunProfile("r", w, w, "c", "c", 1e9, 10, 2, {}, [ph], engine="hadoop"), cluster)[1][0]
               for w in ("terasort", "teragen")}
    drive = "hdd-7200 (data+intermediate)"
    assert seconds["teragen"]["times"][drive] == pytest.approx(3 * seconds["terasort"]["times"][drive])
    assert seconds["terasort"]["times"]["network"] == 0.0 and seconds["teragen"]["times"]["network"] > 0


def test_a_rotating_drive_seeks_once_per_run_its_system_gathers_not_per_request():
    from tierbench.model.rules import request_kib

    hdd, ssd = catalog()["hdd-7200"], catalog()["sata-ssd"]
    assert request_kib(hdd, "data.read", 64, on_hdfs=True) == 4096          # the DataNode's read-ahead
    assert request_kib(hdd, "data.read", 64, on_hdfs=False) == 128          # local files: the read-ahead window
    assert request_kib(hdd, "intermediate.read", 64, on_hdfs=True) == 128   # spills and merges are local files
    assert request_kib(hdd, "data.write", 64, on_hdfs=True) == 1280         # writeback's run (max_sectors_kb)
    assert request_kib(hdd, "intermediate.write", 2048, on_hdfs=True) == 2048  # never smaller than asked
    assert request_kib(ssd, "data.read", 64, on_hdfs=True) == 64            # no seek figures: as measured
    # so 12 streams sharing a 2014 HDD read a job's input at most of its rate, not at the 9 MB/s of 64 KiB seeks
    old = catalog()["hdd-7200-2014"]
    assert stream_mb_s(old, "read", request_kib(old, "data.read", 64, True), 12) > 0.8 * old.read_mb_s
    assert stream_mb_s(old, "read", 64, 12) < 0.1 * old.read_mb_s
