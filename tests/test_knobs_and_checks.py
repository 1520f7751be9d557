"""Knob sweeps in the spec, and the checks that fail a run whose output is wrong (fed wrong outputs on purpose)."""

import pytest

from tierbench.errors import SpecError
from tierbench.spec import make_plan, parse_spec
from tierbench.workloads import measure
from tierbench.workloads.text import grep_expected
from tierbench.workloads.sql import same_rows


def _raw(tmp_path, **extra):
    raw = {"name": "t", "storage": {"a": {"data": [str(tmp_path / "a")]}},
           "workloads": [{"name": "textgen"}, {"name": "wordcount", "split_size": ["64MB", "512MB"]}]}
    raw.update(extra)
    return raw


def test_a_list_sweeps_a_workload_knob(tmp_path):
    spec = parse_spec(_raw(tmp_path), "s.toml")
    assert [w.label for w in spec.workloads] == ["textgen", "wordcount.split_size-64MB", "wordcount.split_size-512MB"]
    assert [w.params["split_size"] for w in spec.workloads[1:]] == [64 * 10**6, 512 * 10**6]
    assert spec.sweeps == ({"level": "workload", "base": "wordcount", "knob": "split_size",
                            "members": [{"name": "wordcount.split_size-64MB", "value": "64MB"},
                                        {"name": "wordcount.split_size-512MB", "value": "512MB"}]},)
    assert len(make_plan(spec)) == 3 * 3  # default repeats: 3


def test_engine_and_storage_knobs_sweep_into_engines_and_configurations(tmp_path):
    raw = _raw(tmp_path, engine={"io_codec": ["lz4", "zstd"], "task_memory": "1g"})
    raw["storage"]["h"] = {"data": {"type": "hdfs", "uri": "hdfs://nn:8020/x", "replication": [1, 3]},
                           "intermediate": [str(tmp_path / "i")]}
    spec = parse_spec(raw, "s.toml")
    assert [e.name for e in spec.engines] == ["spark.io_codec-lz4", "spark.io_codec-zstd"]
    assert spec.engines[1].conf["spark.io.compression.codec"] == "zstd"
    assert spec.engines[0].conf["spark.driver.memory"] == "1g" == spec.engines[0].conf["spark.executor.memory"]
    assert [c.name for c in spec.storage] == ["a", "h.replication-1", "h.replication-3"]
    assert spec.config("h.replication-3").engine_settings() == {"dfs.replication": "3"}
    assert [s["level"] for s in spec.sweeps] == ["engine", "storage", "workload"]
    assert len(spec.variants()) == 6


def test_hadoop_engine_knobs_map_to_mapreduce_settings(tmp_path):
    raw = _raw(tmp_path, engine={"kind": "hadoop", "shuffle_compress": True, "io_codec": "snappy", "task_memory": "2g"})
    raw["workloads"] = [{"name": "teragen"}]
    conf = parse_spec(raw, "s.toml").engines[0].conf
    assert conf["mapreduce.map.output.compress"] == "true"
    assert conf["mapreduce.map.output.compress.codec"].endswith("SnappyCodec")
    assert conf["mapreduce.map.memory.mb"] == "2048" and conf["mapreduce.map.java.opts"] == "-Xmx1638m"


@pytest.mark.parametrize("change,field,words", [
    ({"engine": {"shuffle_compress": [True, False], "io_codec": ["lz4", "zstd"]}}, "engine.io_codec", "only one knob"),
    ({"engine": {"io_codec": "brotli"}}, "engine.io_codec", "lz4, lzf, snappy, zstd"),
    ({"engine": {"shuffle_compress": "yes"}}, "engine.shuffle_compress", "true or false"),
    ({"engine": {"task_memory": "lots"}}, "engine.task_memory", "JVM memory size"),
    ({"workloads": [{"name": "shuffle", "size": []}]}, "workloads[0].size", "empty list"),
    ({"workloads": [{"name": "shuffle", "partitions": [2, 2]}]}, "workloads[0].partitions", "same value twice"),
    ({"workloads": [{"name": "datawrite"}, {"name": "copy", "to": "b"}]}, "workloads[1].to", "not a storage configuration"),
    ({"workloads": [{"name": "sqlgen"}, {"name": "sql", "queries": ["q99"]}]}, "workloads[1].queries", "accepted: q01"),
    ({"workloads": [{"name": "textgen", "plant_every": 5}]}, "workloads[0].plant", "no `plant`"),
    ({"workloads": [{"name": "textgen", "plant": "two words"}]}, "workloads[0].plant", "without spaces"),
    ({"workloads": [{"name": "textgen", "output_codec": "zip"}]}, "workloads[0].output_codec", "'gzip'"),
])
def test_knob_mistakes_name_the_field(tmp_path, change, field, words):
    with pytest.raises(SpecError) as e:
        parse_spec(_raw(tmp_path, **change), "s.toml")
    assert field in str(e.value) and words in str(e.value)


def test_wordcount_that_lost_words_fails_the_run():
    job = {"words": 999, "distinct_words": 10, "bytes_read": 100, "bytes_written": 10, "map_tasks": 1, "reduce_tasks": 1}
    assert measure("wordcount", job, 1.0, {"words": 999}).failure is None
    assert "textgen wrote 1000" in measure("wordcount", job, 1.0, {"words": 1000}).failure


def test_grep_expectations():
    assert grep_expected("tierbench-absent", "XNEEDLEX", 7) == 0  # '-' never occurs in the text
    assert grep_expected("XNEEDLEX", "XNEEDLEX", 7) == 7
    assert grep_expected("the", "", 0) is None  # lower-case letters may occur anywhere: unknowable
    assert grep_expected("NEED", "XNEEDLEX", 7) is None  # part of the plant: not necessarily 0
    job = {"matches": 6, "matching_lines": 6, "bytes_scanned": 1, "lines": 10, "pattern": "XNEEDLEX", "bytes_read": 1,
           "map_tasks": 1}
    assert "expected 7" in measure("grep", job, 1.0, {"plant": "XNEEDLEX", "planted": 7, "lines": 10}).failure


def test_copy_with_a_changed_file_fails_the_run():
    original = {"file_bytes": {"part-00000": 10, "part-00001": 10}, "file_crc32": {"part-00000": 1, "part-00001": 2}}
    good = {"bytes_copied": 20, "files": 2, "tasks": 2, **original}
    assert measure("copy", good, 1.0, original).failure is None
    bad = dict(good, file_crc32={"part-00000": 1, "part-00001": 3})
    assert "part-00001: CRC-32 3 in the copy, 2 in the original" in measure("copy", bad, 1.0, original).failure
    short = dict(good, file_bytes={"part-00000": 10})
    assert "part-00001 was not copied" in measure("copy", short, 1.0, original).failure


def test_shuffle_and_dataread_that_lost_bytes_fail():
    job = {"bytes_shuffled": 99, "bytes_expected": 100, "block_bytes": 10, "map_tasks": 2, "reduce_tasks": 5,
           "reducer_bytes": [99]}
    assert "received 99 bytes of the 100" in measure("shuffle", job, 1.0).failure
    assert "read 5 bytes of the 6" in measure("dataread", {"bytes_read": 5, "bytes_listed": 6, "map_tasks": 1}, 1.0, {}).failure


def test_the_hadoop_shuffle_runs_the_spark_jobs_tasks_and_reads_its_counters():
    from types import SimpleNamespace

    from tierbench.engines.hadoop.logparse import HadoopLog
    from tierbench.workloads.registry import WORKLOADS

    shuffle = WORKLOADS["shuffle"]
    assert shuffle.engines == ("spark", "hadoop")
    req = SimpleNamespace(params={"size": 96 << 20, "map_tasks": 3, "partitions": 4, "fetch_size": None})
    assert shuffle.hadoop_command(req, "local") == ({}, [str(96 << 20), "3", "4", str(1 << 20)])
    log = HadoopLog("2026-11-29 07:00:00,000 INFO mapreduce.Job: Counters: 3\n"
                    "\ttierbench.mapreduce.Shuffle$Bytes\n\t\tRECEIVED=100663295\n\t\tSENT=100663296\n"
                    "2026-11-29 07:00:02,500 INFO mapreduce.Job: Job job_1 completed successfully\n")
    job, seconds = shuffle.hadoop_result(log, req)
    assert seconds == 2.5 and (job["map_tasks"], job["reduce_tasks"], job["block_bytes"]) == (3, 4, 8 << 20)
    assert "received 100663295 bytes of the 100663296" in measure("shuffle", job, 1.0).failure  # a byte lost fails


def test_sql_results_compare_as_multisets_with_a_tolerance():
    assert same_rows([["a", 1.0], ["b", 2.0]], [["b", 2.0000000001], ["a", 1]]) is None
    assert "row 1 column 1" in same_rows([["a", 1.0], ["b", 2.0]], [["a", 1.0], ["b", 2.1]])
    assert same_rows([["a"]], []) == "1 rows against 0"
    job = {"queries": [{"name": "q01", "ms": 5, "rows": 1, "data": [[1.0]]}], "verification": {"q01": "row 0: 1 against 2"}}
    assert "not confirmed by DuckDB: q01: row 0" in measure("sql", job, 1.0).failure


def test_a_large_study_lists_significant_findings_and_counts_the_rest():
    """Many variants x workloads (a sweep makes them quickly): the findings stay readable."""
    from conftest import as_runs
    from tierbench.analysis.stats import analyse
    from tierbench.analysis.caveats import summarised_warnings as _warnings
    from tierbench.report.sections.findings import headline as _headline

    configs, workloads = [f"c{i}" for i in range(5)], [f"w{j}" for j in range(4)]
    recs = []
    for i, c in enumerate(configs):
        for w in workloads:
            for k, wall in enumerate((10.0, 13.0, 7.0) if i < 4 else (30.0, 30.5, 29.5)):  # c4 is clearly slower
                recs.append({"status": "ok", "variant": c, "config": c, "label": w, "wall_s": wall, "metrics": {}})
    an = analyse(as_runs(recs), "c0", configs, workloads)
    lines = _headline(an)
    assert [l.split(":")[0] for l in lines[:4]] == [f"c4 on w{j}" for j in range(4)]  # the significant ones, each
    assert lines[4].startswith("12 other differences from c0 are not significant") and len(lines) == 5
    warned = [w.text for w in _warnings(an)]
    assert len(warned) == 1 and "unstable: runtime spread (std dev) above 10% of the mean in 16 of 20" in warned[0]
