"""Output committed through Hadoop's committer protocol (issue 18): the spec's `committer`, what a run records of
its commit, and the report's table. The committers themselves run against real Ceph in tests/test_s3.py."""

import shutil
import tomllib
from pathlib import Path

import pytest

from tierbench.errors import SpecError
from tierbench.report.build import StudyResults
from tierbench.spec import parse_spec

S3 = """
name = "c"
[engine]
master = "local[1]"
[storage.s3]
data = {{ type = "s3", endpoint = "http://127.0.0.1:7480", bucket = "bkt", committer = {committer} }}
intermediate = ["{d}/tmp"]
[[workloads]]
name = "teragen"
size = "1MB"
"""


@pytest.mark.parametrize("committer", ["file-v1", "file-v2", "directory", "magic"])
def test_each_committer_reaches_the_jobs_hadoop_settings(tmp_path, committer):
    spec = parse_spec(tomllib.loads(S3.format(d=tmp_path, committer=f'"{committer}"')), "c.toml", tmp_path)
    assert spec.storage[0].engine_settings()["tierbench.committer"] == committer


@pytest.mark.parametrize("committer", ['"file"', '"partitioned"', "true"])
def test_a_committer_that_does_not_exist_is_named(tmp_path, committer):
    with pytest.raises(SpecError) as e:
        parse_spec(tomllib.loads(S3.format(d=tmp_path, committer=committer)), "c.toml", tmp_path)
    assert "storage.s3.data.committer" in str(e.value) and "file-v1, file-v2, directory, magic" in str(e.value)


def test_the_report_shows_commit_times_apart(tmp_path):
    d = tmp_path / "r"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    sr = StudyResults.load(d)
    for r in sr.records:
        if r["workload"] == "teragen" and r["config"] == "split":
            r["details"]["commit"] = {"committer": "magic", "job_commit_ms": 250, "task_commit_ms": [40, 60]}
            r["metrics"].update(job_commit_s=0.25, task_commit_s=0.1)
    sec = next(s for s in sr.document.sections if s.title == "Output commit")
    table = next(b for b in sec.blocks if hasattr(b, "rows"))
    assert table.rows == [["teragen", "split", "magic", table.rows[0][3], "0.250", "0.100", table.rows[0][6]]]
    assert table.rows[0][6].endswith("%")


def test_s3a_tunables_given_as_lists_are_sweeps(tmp_path):
    raw = tomllib.loads(S3.format(d=tmp_path, committer='["file-v1", "magic"]'))
    spec = parse_spec(raw, "c.toml", tmp_path)
    assert [c.name for c in spec.storage] == ["s3.committer-file-v1", "s3.committer-magic"]
    assert spec.sweeps[0]["level"] == "storage" and spec.sweeps[0]["knob"] == "committer"
    assert spec.baseline == "s3.committer-file-v1"
    ra = S3.format(d=tmp_path, committer='"magic"').replace('committer = "magic"', 'readahead_range = ["64KB", "1MB"]')
    spec = parse_spec(tomllib.loads(ra), "c.toml", tmp_path)
    assert [c.engine_settings()["fs.s3a.readahead.range"] for c in spec.storage] == [str(64_000), str(10**6)]
    two = S3.format(d=tmp_path, committer='["file-v1", "magic"]').replace('bucket = "bkt"', 'bucket = "bkt", readahead_range = ["64KB", "1MB"]')
    with pytest.raises(SpecError) as e:
        parse_spec(tomllib.loads(two), "c.toml", tmp_path)
    assert "only one knob per table can be swept" in str(e.value)


def test_the_hadoop_engine_on_s3_works_on_the_bucket_with_its_staging_local(tmp_path):
    from tierbench.engines.hadoop.engine import HadoopEngine
    from tierbench.job import JobRequest
    from tierbench.storage.types import hadoop_committer_settings

    hadoop = S3.format(d=tmp_path, committer='"magic"').replace('master = "local[1]"', 'kind = "hadoop"')
    spec = parse_spec(tomllib.loads(hadoop + '[[workloads]]\nname = "dfsio-write"\n'), "c.toml", tmp_path)
    assert spec.engines[0].kind == "hadoop"
    config = spec.storage[0]
    assert config.default_fs == "s3a://bkt"  # TestDFSIO works on the default file system
    req = JobRequest("r1/s3/dfsio-write", spec.workloads[1], None, [], ["s3a://bkt/x"], [tmp_path / "local"], tmp_path / "scratch",
                     config.engine_settings(), config.default_fs)
    generic = HadoopEngine(spec.engines[0], tmp_path)._generic(req)
    assert generic["fs.defaultFS"] == "s3a://bkt"
    assert generic["mapreduce.jobtracker.staging.root.dir"] == f"file://{tmp_path / 'scratch' / 'staging'}"
    assert hadoop_committer_settings("file-v2") == {"mapreduce.fileoutputcommitter.algorithm.version": "2"}
    assert hadoop_committer_settings("magic")["fs.s3a.committer.name"] == "magic"
    assert hadoop_committer_settings(None) == {}


def test_a_sql_runs_runtime_is_its_queries_time_and_registration_is_shown_apart(tmp_path):
    """The sweep fixture's sql runs (recorded before registration was timed) compare by their queries' time."""
    from conftest import as_run
    from tierbench.analysis.stats import runtime_of as runtime_of_run
    from tierbench.store import ResultsDir

    runtime_of = lambda record: runtime_of_run(as_run(record))  # noqa: E731 (the records here are dicts)

    recs = ResultsDir(Path(__file__).parent / "fixtures" / "sweep-sql-results").records()
    sql = next(r for r in recs if r["workload"] == "sql")
    assert runtime_of(sql) == sql["metrics"]["queries_s"] < sql["wall_s"]
    teragen_like = next(r for r in recs if r["workload"] != "sql")
    assert runtime_of(teragen_like) == teragen_like["wall_s"]
    d = tmp_path / "s"
    shutil.copytree(Path(__file__).parent / "fixtures" / "sweep-sql-results", d)
    sr = StudyResults.load(d)
    for r in sr.records:
        if r["workload"] == "sql":
            r["metrics"]["register_s"] = 4.5
    doc = sr.document
    summary = next(s for s in doc.sections if s.title.startswith("Summary"))
    rows = next(b for b in summary.blocks if hasattr(b, "rows")).rows
    one = next(r for r in rows if r[0] == "sql" and r[1] == "one@spark.shuffle_compress-true")
    mine = [r for r in sr.records if r["workload"] == "sql" and r["variant"] == "one@spark.shuffle_compress-true"]
    import statistics

    assert float(one[3]) == pytest.approx(statistics.median(r["metrics"]["queries_s"] for r in mine), abs=0.01)
    sec = next(s for s in doc.sections if s.title == "SQL queries")
    apart = [b for b in sec.blocks if hasattr(b, "head") and b.head[3] == "registering the tables s"]
    assert apart and all(row[3] == "4.50" for row in apart[0].rows)


def test_the_io_profile_gives_each_phases_network_rate():
    """A phase of an S3 run moves network bytes and no local device bytes: its row stays, with MB and MB/s."""
    from types import SimpleNamespace

    from tierbench.report.sections.profile import PROFILE_HEAD, profile_rows as _profile_rows

    row = {"phase": "generate + write", "device": "vdb", "roles": ["intermediate"], "seconds": 4.0, "read_mb": 0.0,
           "write_mb": 0.0, "read_ios": 0, "write_ios": 0, "read_merges": 0, "write_merges": 0, "avg_read_kb": 0,
           "avg_write_kb": 0, "read_mb_s": 0, "write_mb_s": 0, "util_pct": 0, "cpu_busy_pct": 50, "cpu_iowait_pct": 0,
           "net_rx_mb": 2.0, "net_tx_mb": 64.0}
    idle = dict(row, net_rx_mb=0.0, net_tx_mb=0.0, phase="idle")
    (out,) = _profile_rows(SimpleNamespace(profile=[row, idle], limit_loads={}))  # (no emulated device)
    assert out[PROFILE_HEAD.index("net out MB (MB/s)")] == "64.0 (16.0)" and out[PROFILE_HEAD.index("net in MB (MB/s)")] == "2.0 (0.5)"
