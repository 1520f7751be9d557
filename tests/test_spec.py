"""Spec validation: every mistake is one line naming the field, exit 2, no traceback, nothing run."""

from pathlib import Path

import pytest

from conftest import write_spec
from tierbench.errors import SpecError
from tierbench.spec import make_plan, parse_spec

GOOD = """
name = "t"
repeats = 2
[engine]
master = "local[2]"
[storage.a]
data = ["{d}/a"]
[storage.b]
data = ["{d}/a"]
intermediate = {{ dirs = ["{d}/b"], split = 3 }}
[[workloads]]
name = "terasort"
[[workloads]]
name = "teragen"
rows = 1000
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "1MB"
"""


def test_good_spec_plans_repeats_outermost_and_producers_first(tmp_path):
    spec = parse_spec(__import__("tomllib").loads(GOOD.format(d=tmp_path)), "s.toml")
    assert [w.name for w in spec.workloads] == ["teragen", "terasort", "dfsio-write"]
    assert spec.config("b").split == 3 and spec.config("a").intermediate == spec.config("a").data
    plan = make_plan(spec)
    assert len(plan) == 2 * 2 * 3
    assert [(p.repeat, p.config) for p in plan[:6:3]] == [(1, "a"), (1, "b")]
    assert [p.key for p in plan[:3]] == ["r1/a/teragen", "r1/a/terasort", "r1/a/dfsio-write"]
    assert plan[6].repeat == 2
    assert spec.workloads[2].params["file_size"] == 10**6


@pytest.mark.parametrize("change,field,words", [
    (("name = \"t\"", ""), "name", "study name"),
    (("repeats = 2", "repeats = 0"), "repeats", ">= 1"),
    (("repeats = 2", "repeats = 2\nrepeat = 3"), "repeat", "unknown field"),
    (("file_size = \"1MB\"", "file_size = \"1 parsec\""), "workloads[2].file_size", "size"),
    (("rows = 1000", "rows = 1000\nrowz = 5"), "workloads[1].rowz", "unknown field"),
    (("name = \"teragen\"", "name = \"terragen\""), "workloads[1].name", "unknown workload"),
    (("split = 3", "split = 0"), "storage.b.intermediate.split", ">= 1"),
    (("master = \"local[2]\"", "master = \"mesos-ish\""), "engine.master", "Spark master URL"),
    (("master = \"local[2]\"", "master = \"local[2]\"\nkeep_alive_memory = \"lots\""), "engine.keep_alive_memory", "0 for one"),
    (("repeats = 2", "repeats = 2\nwarm_up = \"yes\""), "warm_up", "true"),
    (("[storage.a]\ndata = [\"{d}/a\"]", "[storage.a]\nintermediate = [\"{d}/a\"]"), "storage.a.data", "missing"),
])
def test_spec_errors_name_the_field(tmp_path, tb_main, change, field, words):
    old, new = change
    text = GOOD.replace(old, new).format(d=tmp_path)
    spec = write_spec(tmp_path / "s.toml", text)
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert field in lines[0] and words in lines[0] and str(spec) in lines[0]
    assert not (tmp_path / "res").exists()


def test_keep_alive_memory_and_warm_up_are_parsed_and_leave_the_fingerprint_alone(tmp_path):
    import tomllib

    base = parse_spec(tomllib.loads(GOOD.format(d=tmp_path)), "s.toml")
    assert base.engines[0].keep_alive_memory is None and base.warm_up  # defaults: a quarter of the memory; warmed
    tuned = parse_spec(tomllib.loads(GOOD.replace("master = \"local[2]\"", "master = \"local[2]\"\nkeep_alive_memory = \"6GB\"")
                                     .format(d=tmp_path)), "s.toml")
    off = parse_spec(tomllib.loads(GOOD.replace("master = \"local[2]\"", "master = \"local[2]\"\nkeep_alive_memory = 0")
                                   .format(d=tmp_path)), "s.toml")
    assert tuned.engines[0].keep_alive_memory == 6 * 10**9 and off.engines[0].keep_alive_memory == 0
    assert base.fingerprint() == tuned.fingerprint() == off.fingerprint()  # how long JVMs live is not what runs
    cold = parse_spec(tomllib.loads(("warm_up = false\n" + GOOD).format(d=tmp_path)), "s.toml")
    assert not cold.warm_up and cold.fingerprint() != base.fingerprint()  # cold first runs are measured differently


def test_warm_up_runs_every_workload_small_except_a_copy_elsewhere():
    from tierbench.workloads import WORKLOADS

    gen = WORKLOADS["teragen"].warm_up_params({"rows": 10**9, "size": 1 << 40, "tasks": 512, "filler": "random"})
    assert WORKLOADS["teragen"].rows(gen) * 100 <= 16 << 20 and gen["tasks"] == 2 and gen["filler"] == "random"
    for name, size_key, params in (("dfsio-write", "file_size", {"files": 64, "file_size": 1 << 30, "buffer_size": 1_000_000}),
                                   ("datawrite", "size", {"size": 1 << 40, "files": 0}),
                                   ("textgen", "size", {"size": 1 << 40, "tasks": 0, "vocabulary": 10, "zipf": 1.0,
                                                        "plant": "", "plant_every": 0}),
                                   ("shuffle", "size", {"size": 1 << 40, "map_tasks": 100, "partitions": 1000, "fetch_size": None})):
        small = WORKLOADS[name].warm_up_params(params)
        assert small[size_key] <= 16 << 20 and set(small) == set(params), name
    sort = {"partitions": 64, "split_size": 1 << 27}
    assert WORKLOADS["terasort"].warm_up_params(sort) == sort  # a consumer reads the small data set as it is
    assert WORKLOADS["copy"].warm_up_params({"tasks": 4, "to": "other"}) is None  # it would write into another configuration
    assert WORKLOADS["copy"].warm_up_params({"tasks": 4, "to": ""}) == {"tasks": 4, "to": ""}


def test_consumer_without_producer_is_a_spec_error(tmp_path):
    raw = {"name": "t", "storage": {"a": {"data": [str(tmp_path)]}}, "workloads": [{"name": "teravalidate"}]}
    with pytest.raises(SpecError, match=r"workloads\[0\].*reads the output of terasort"):
        parse_spec(raw, "s.toml")


def test_unwritable_path_is_a_spec_error(tmp_path, tb_main):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    spec = write_spec(tmp_path / "s.toml", GOOD.format(d=tmp_path).replace(f"{tmp_path}/b", f"{blocker}/sub"))
    out = tb_main("run", spec)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "storage.b.intermediate[0]" in out.stderr and "is a file, not a directory" in out.stderr


def test_missing_and_malformed_spec_files(tmp_path, tb_main):
    out = tb_main("run", tmp_path / "nope.toml")
    assert out.returncode == 2 and "no such spec file" in out.stderr
    bad = write_spec(tmp_path / "bad.toml", "name = \n")
    out = tb_main("run", bad)
    assert out.returncode == 2 and "not valid TOML" in out.stderr and "Traceback" not in out.stderr


def test_relative_paths_are_taken_from_the_spec_file(tmp_path):
    raw = {"name": "t", "storage": {"a": {"data": ["rel/dir"], "create_dirs": True}}, "workloads": [{"name": "teragen"}]}
    spec = parse_spec(raw, "s.toml", base_dir=tmp_path)
    assert spec.config("a").data == (str(tmp_path / "rel" / "dir"),)


def test_random_filler_is_refused_on_the_hadoop_engine(tmp_path):
    raw = {"name": "t", "engine": {"kind": "hadoop"}, "storage": {"a": {"data": [str(tmp_path)]}},
           "workloads": [{"name": "teragen", "filler": "random"}]}
    with pytest.raises(SpecError, match=r"workloads\[0\]\.filler.*Hadoop's TeraGen"):
        parse_spec(raw, "s.toml")
    raw["engine"] = {"kind": "spark"}
    assert parse_spec(raw, "s.toml").workloads[0].params["filler"] == "random"
    raw["workloads"][0]["filler"] = "zeros"
    with pytest.raises(SpecError, match="expected one of 'hadoop', 'random'"):
        parse_spec(raw, "s.toml")


def test_each_recorded_study_keeps_its_fingerprint():
    """--resume pools stored runs only with a spec of the same fingerprint: the fields that decide a run
    (spec/fingerprint.py) hash as they did when the fixtures were recorded."""
    import json

    from tierbench.spec.fingerprint import run_fingerprint

    studies = sorted((Path(__file__).resolve().parent / "fixtures").glob("*-results/study.json"))
    checked = 0
    for path in studies:
        study = json.loads(path.read_text())
        if "engines" in study["spec"]:  # (the quickstart fixture predates [engines]: no spec of today's shape is it)
            assert run_fingerprint(study["spec"]) == study["fingerprint"], path
            checked += 1
    assert checked >= 4
