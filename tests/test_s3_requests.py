"""S3A's own request statistics -> a run's requests by HTTP kind (engines/s3a_requests.py): the mapping, a run's
difference of two snapshots, the statistics a Hadoop job's JVM logs as it closes its file systems, what the record
says it does not cover, and the report's table. (The counts against a real Ceph RGW and HAProxy: tests/test_s3.py.)"""

import json
import re
import zipfile
from pathlib import Path

import pytest

from conftest import as_runs
from tierbench.engines import s3a_requests
from tierbench.engines.s3a_requests import COUNTERS, KIND_COUNTERS, REQUEST_KINDS

KINDS = ("GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST")  # the contract with the cost model


def test_every_kind_is_in_the_record_and_each_counter_counts_for_one_kind():
    assert REQUEST_KINDS == KINDS
    mapped = [c for kind in KINDS for c in KIND_COUNTERS[kind]]
    assert len(mapped) == len(set(mapped))  # no request counted twice
    for kind in KINDS:
        for counter in KIND_COUNTERS[kind]:
            counts = s3a_requests.requests_by_kind({counter: 3})
            assert counts == {k: 3 if k == kind else 0 for k in KINDS}, counter
    assert s3a_requests.requests_by_kind({}) == dict.fromkeys(KINDS, 0)
    # what is not a request is not counted (bytes, operations, a counter of another connector)
    assert s3a_requests.requests_by_kind({"stream_read_bytes": 10 ** 9, "op_open": 4, "files_created": 2}) == dict.fromkeys(KINDS, 0)


def test_an_output_streams_upload_is_initiated_once_though_s3a_counts_it_twice():
    # a large file's stream: its initiate counted by the stream and the file system, its complete once
    assert s3a_requests.requests_by_kind({"object_multipart_initiated": 2, "multipart_upload_completed": 1})["POST"] == 2
    # under a magic path: the stream's upload is completed by the job commit (counted by the committer)
    magic = {"object_multipart_initiated": 4, "committer_magic_files_created": 2, "committer_commits_completed": 2}
    assert s3a_requests.requests_by_kind(magic)["POST"] == 4
    # the directory committer uploads from the file system itself: counted once
    assert s3a_requests.requests_by_kind({"object_multipart_initiated": 3, "committer_commits_completed": 3})["POST"] == 6


LOGGED = (Path(__file__).parent / "fixtures" / "s3a-statistics-logged.txt").read_text()


def _logged_runs() -> dict[str, str]:
    """The IOStatistics S3AFileSystem logged at close in real Hadoop runs on Ceph, by run."""
    return {block.split(" ", 1)[0]: block for block in LOGGED.split("# ")[1:]}


def test_on_real_runs_the_kinds_add_up_to_every_request_s3as_audit_layer_saw():
    runs = _logged_runs()
    magic = s3a_requests.from_log(runs["r1_magic_teragen"], [])  # magic committer: multipart uploads, job commit
    stats, closed = s3a_requests.logged_statistics(runs["r1_magic_teragen"])
    assert closed == 1 and sum(magic["s3a_requests"].values()) == stats["audit_request_execution"] > 0
    assert magic["s3a_not_covering"] == []
    # without taking the streams' second count off, the kinds would be more than S3A made
    assert stats["object_multipart_initiated"] > magic["s3a_requests"]["POST"] - stats["committer_commits_completed"] \
        - stats["object_bulk_delete_request"]
    # TeraSort's sampler leaves input streams open: their GETs reach no counter, and the record says how many
    sort = s3a_requests.from_log(runs["r1_s3_terasort"], [])
    stats, _ = s3a_requests.logged_statistics(runs["r1_s3_terasort"])
    beyond = stats["audit_request_execution"] - sum(sort["s3a_requests"].values())
    assert beyond > 0 and stats["op_open"] > stats["stream_read_close_operations"]
    gap, = sort["s3a_not_covering"]
    assert gap.startswith(f"{beyond} request(s)") and "never closed" in gap
    # two file systems' lines add up
    both, closed = s3a_requests.logged_statistics(runs["r1_magic_teragen"] + runs["r1_s3_terasort"])
    assert closed == 2 and both["audit_request_execution"] == sum(
        s3a_requests.logged_statistics(b)[0]["audit_request_execution"] for b in runs.values())


def _statistic_names(jar: Path) -> set[str]:
    """The counter names hadoop-aws' Statistic enum holds, as the strings of its class file (no JVM needed)."""
    data = zipfile.ZipFile(jar).read("org/apache/hadoop/fs/s3a/Statistic.class")
    return {m.decode() for m in re.findall(rb"[a-z][a-z0-9_.-]{3,}", data)}


@pytest.mark.e2e  # (the connectors are fetched from Maven Central on first use, as the S3 studies fetch them)
@pytest.mark.parametrize("connector", ["hadoop_s3a_lib", "spark_s3a_jars"])
def test_every_counter_mapped_is_one_the_fetched_s3a_has(connector):
    """The names are S3A's (a renamed counter would silently count 0): checked in the jars tierbench fetches, the
    hadoop engine's (hadoop-aws 3.4.2) and pyspark's (3.5.0)."""
    from tierbench import toolchain

    fetched = getattr(toolchain, connector)()
    jars = fetched if isinstance(fetched, list) else sorted(fetched.glob("*.jar"))
    jar = next(j for j in jars if j.name.startswith("hadoop-aws-"))
    missing = [c for c in COUNTERS if c not in _statistic_names(jar)]
    assert not missing, missing


def test_a_run_counts_its_own_requests_not_the_jvms_so_far():
    before = {"filesystems": 1, "counters": {"object_put_request": 40, "action_http_get_request": 7, "audit_request_execution": 60}}
    after = {"filesystems": 1, "counters": {"object_put_request": 44, "action_http_get_request": 7, "object_list_request": 2,
                                            "audit_request_execution": 66}}
    d = s3a_requests.from_snapshots(before, after, [])
    assert d["s3a_requests"] == {"GET": 0, "PUT": 4, "LIST": 2, "HEAD": 0, "DELETE": 0, "COPY": 0, "POST": 0}
    assert d["s3a_statistics"]["object_put_request"] == 4 and d["s3a_statistics"]["audit_request_execution"] == 6
    assert set(d["s3a_statistics"]) == set(COUNTERS) and d["s3a_not_covering"] == []
    # a file system made during the run counts from 0
    fresh = s3a_requests.from_snapshots({"filesystems": 0, "counters": {}}, after, [])
    assert fresh["s3a_requests"]["PUT"] == 44


def test_a_file_system_closed_during_the_run_is_told_and_no_count_goes_negative():
    before = {"filesystems": 2, "counters": {"object_put_request": 40}}
    after = {"filesystems": 1, "counters": {"object_put_request": 30}}
    d = s3a_requests.from_snapshots(before, after, [])
    assert d["s3a_requests"]["PUT"] == 0 and any("closed during the run" in g for g in d["s3a_not_covering"])


def test_no_s3a_file_system_no_figures_and_unread_counters_claim_none():
    assert s3a_requests.from_snapshots({"filesystems": 0, "counters": {}}, {"filesystems": 0, "counters": {}}, []) == {}
    d = s3a_requests.from_snapshots({"error": "could not read Hadoop's FileSystem cache: x"}, {"filesystems": 1}, ["the executors'"])
    assert "s3a_requests" not in d and d["s3a_not_covering"][0] == "the executors'" and "FileSystem cache" in d["s3a_not_covering"][1]


def test_the_spark_engine_says_a_cluster_s_executors_are_not_counted():
    assert s3a_requests.spark_not_covering("local[2]") == []
    gap, = s3a_requests.spark_not_covering("spark://127.0.0.1:7077")
    assert "executors" in gap and "spark://127.0.0.1:7077" in gap


def test_the_engines_details_reach_the_record():
    from tierbench.workloads import measure

    recorded = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())["teragen"]
    job = {**recorded["result"], **s3a_requests.details({"object_put_request": 2}, ["x"])}
    m = measure("teragen", job, recorded.get("wall_s", 1.0))
    assert m.details["s3a_requests"]["PUT"] == 2 and m.details["s3a_not_covering"] == ["x"]
    assert m.details["s3a_statistics"]["object_put_request"] == 2


def s3a_requests_match_the_run_and_haproxy(runs: list[dict], files: int) -> None:
    """S3A's own counts (details.s3a_requests), each run's only: plausible for what it did (a file written is at
    least a PUT, a file read at least a GET), adding up to every request S3A's audit layer saw, and within what
    HAProxy counted for the same run (S3A's window is inside HAProxy's: only requests S3A does not count differ).
    The end-to-end tests on a real Ceph RGW behind HAProxy (tests/test_s3.py) check their runs with it."""
    for r in runs:
        counted, raw = r["details"]["s3a_requests"], r["details"]["s3a_statistics"]
        assert list(counted) == ["GET", "PUT", "LIST", "HEAD", "DELETE", "COPY", "POST"], r["run_key"]
        total, audited = sum(counted.values()), raw["audit_request_execution"]
        # local mode covers the whole job; only requests no counter of a kind holds (a stream never closed) are told
        told = [f"{audited - total} request(s) S3A's audit layer saw"] if total < audited else []
        assert [g[:len(t)] for g, t in zip(r["details"]["s3a_not_covering"], told)] == told, r["details"]
        assert len(r["details"]["s3a_not_covering"]) == len(told) and total <= audited, (r["run_key"], counted, raw)
        haproxy = sum(r["details"]["gateways"]["requests"].values())
        assert 0.8 * haproxy <= total <= audited <= haproxy, (r["run_key"], counted, raw, r["details"]["gateways"])
        print(r["run_key"], counted, "S3A:", total, "audit:", audited, "HAProxy:", haproxy)  # (the figures, for the record)
        if r["workload"] == "dfsio-write":
            assert counted["PUT"] >= files, (r["run_key"], counted)
        if r["workload"] == "dfsio-read":
            assert counted["GET"] >= files, (r["run_key"], counted)
        if r["workload"] == "teragen" and r["config"] == "magic":  # (the committer studies name a configuration after it)
            assert counted["POST"] >= 2 * r["params"]["tasks"], (r["run_key"], counted)  # each file initiated, completed


def _record(config, counts, io_mb=(0, 1024), haproxy=None, gaps=()):
    details = {"s3a_requests": dict(zip(KINDS, counts)), "s3a_not_covering": list(gaps)}
    if haproxy is not None:
        details["gateways"] = {"balancer": "haproxy", "serving": 2, "requests": haproxy}
    return {"status": "ok", "config": config, "workload": "dfsio-write", "label": "dfsio-write", "details": details,
            "io": {"input_mb": io_mb[0], "output_mb": io_mb[1]}}


def test_requests_per_run_per_gb_and_haproxys_count_beside_them():
    from tierbench.analysis.object_requests import object_requests

    runs = as_runs([_record("s3", (0, 10, 2, 4, 0, 0, 0), haproxy={"gw": 9, "gw2": 8}),
                    _record("s3", (2, 20, 2, 6, 0, 0, 0), io_mb=(512, 1536), haproxy={"gw": 15, "gw2": 16}),
                    _record("s3", (1, 14, 2, 5, 0, 0, 0), io_mb=(0, 2048), gaps=["the executors' requests"]),
                    {"status": "ok", "config": "hdfs", "workload": "dfsio-write", "label": "dfsio-write"},
                    {**_record("s3", (9, 9, 9, 9, 9, 9, 9)), "status": "failed"}])
    found, = object_requests(runs, ["s3", "hdfs"], ["dfsio-write"])
    assert (found.workload, found.config, found.runs) == ("dfsio-write", "s3", 3)  # the failed run and hdfs left out
    assert found.by_kind == {"GET": 1, "PUT": 14, "LIST": 2, "HEAD": 5, "DELETE": 0, "COPY": 0, "POST": 0}
    assert found.total == 22  # median of 16, 30, 22
    assert found.per_gb == 15  # median of 16/1, 30/2, 22/2
    assert found.balancer == 24  # median of 17 and 31: the third run did not go through HAProxy
    assert found.not_covering == ("the executors' requests",)
    assert object_requests(runs, ["hdfs"], ["dfsio-write"]) == []


def test_the_report_shows_the_requests_by_kind(tmp_path):
    import shutil

    from tierbench.report.build import StudyResults

    d = tmp_path / "r"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    sr = StudyResults.load(d)
    for r in sr.records:
        if r["workload"] == "dfsio-write" and r["config"] == "split":
            r["details"].update(s3a_requests.details({"object_put_request": 4, "object_list_request": 1,
                                                      "object_metadata_request": 3}, ["the executors' requests"]))
    sec = next(s for s in sr.document.sections if s.title == "Object store requests")
    table = next(b for b in sec.blocks if hasattr(b, "rows"))
    assert table.head[3:10] == list(KINDS)
    row, = table.rows
    runs = sum(1 for r in sr.records if r["workload"] == "dfsio-write" and r["config"] == "split" and r["status"] == "ok")
    assert row[:11] == ["dfsio-write", "split", str(runs), "0", "4", "1", "3", "0", "0", "0", "8"]
    assert row[12] == "–"  # no HAProxy in that study
    gaps = next(b for b in sec.blocks if hasattr(b, "items"))
    assert gaps.items == ["dfsio-write on split: not counted: the executors' requests"]
    assert not [s for s in StudyResults.load(d).document.sections if s.title == "Object store requests"]


def _hadoop_generic(tmp_path, data, conf=None) -> tuple:
    from tierbench.job import JobRequest
    from tierbench.spec import parse_spec
    from tierbench.study.runner import make_engines

    raw = {"name": "h", "engine": {"kind": "hadoop", "conf": conf or {}}, "workloads": [{"name": "teragen", "rows": 1000}],
           "storage": {"c": {"data": data, "intermediate": [str(tmp_path / "tmp")]}}}
    spec = parse_spec(raw, "h.toml", tmp_path)
    engine, config = make_engines(spec, tmp_path / "logs")["hadoop"], spec.storage[0]
    engine._connectors = (config.type.connector("hadoop"),)  # as open() sets them, without fetching the jars
    req = JobRequest("r1/c/teragen", spec.workloads[0], None, [], [f"{config.data[0]}/out"], [tmp_path / "tmp"],
                     tmp_path / "scratch", config.engine_settings(), config.default_fs)
    return engine, engine._generic(req)


def test_the_hadoop_engine_has_s3a_log_its_statistics_and_reads_them_from_the_jobs_log(tmp_path):
    s3 = {"type": "s3", "endpoint": "http://127.0.0.1:7480", "bucket": "bench"}
    engine, generic = _hadoop_generic(tmp_path, s3)
    assert generic["fs.iostatistics.logging.level"] == "info"
    log = ("2026-11-26 00:41:17,872 INFO statistics.IOStatisticsLogging: IOStatistics: counters=((object_put_request=3)\n"
           "(op_create=3)\n(stream_write_bytes=4096));\n\ngauges=();\n")
    assert engine._s3a_details(log)["s3a_requests"]["PUT"] == 3 and engine._s3a_details(log)["s3a_not_covering"] == []
    # the counts it did not see are not claimed
    unseen = engine._s3a_details("no statistics here")
    assert "s3a_requests" not in unseen and "fs.iostatistics.logging.level" in unseen["s3a_not_covering"][0]
    # the spec's own setting still wins; a storage without a connector logs nothing more
    assert _hadoop_generic(tmp_path, s3, {"fs.iostatistics.logging.level": "debug"})[1]["fs.iostatistics.logging.level"] == "debug"
    engine, generic = _hadoop_generic(tmp_path, [str(tmp_path / "data")])
    assert "fs.iostatistics.logging.level" not in generic and engine._s3a_details(log) == {}


def test_the_end_to_end_check_holds_for_a_plausible_run_and_catches_an_implausible_one():
    good = {"run_key": "r1/s3/dfsio-read", "workload": "dfsio-read", "config": "s3", "params": {},
            "details": {**s3a_requests.details({"action_http_get_request": 4, "object_metadata_request": 4,
                                                "audit_request_execution": 8}, []),
                        "gateways": {"requests": {"gw": 4, "gw2": 4}}}}
    s3a_requests_match_the_run_and_haproxy([good], files=4)
    for bad in ({"gw": 2, "gw2": 2},  # HAProxy saw fewer requests than S3A counted
                {"gw": 40, "gw2": 40}):  # or many more: S3A's counts miss most of the run
        with pytest.raises(AssertionError):
            s3a_requests_match_the_run_and_haproxy([{**good, "details": {**good["details"], "gateways": {"requests": bad}}}], files=4)
    with pytest.raises(AssertionError):  # a read of 4 files that opened fewer
        s3a_requests_match_the_run_and_haproxy([good], files=5)
