"""Hadoop's TeraSort in local mode on several intermediate directories (`mapreduce.cluster.local.dir` with more than
one entry), as the Cloudera study's scale model gives MapReduce its drives: the map outputs and spills spread over
the directories as MapReduce's LocalDirAllocator spreads them, and the sort is still correct.

Before tierbench's MapOutputFiles (tierbench.io), Hadoop 3.4.2's local runner failed here: a map that spills more
than once allocates its merged output and that output's index separately (one round-robin step apart, so in two
different directories), and the local runner's reduce side reads the index beside the output (LocalFetcher:
getOutputFile().suffix(".index")): FileNotFoundException for file.out.index."""

import json
import re
import tomllib

import pytest

from conftest import write_spec
from tierbench.engines.jobs_jar import JAVA_SRC
from tierbench.errors import SpecError
from tierbench.job import JobRequest
from tierbench.spec import parse_spec
from tierbench.storage import emulation

OUTPUT_CLASS = "tierbench.io.MapOutputFiles"


def _spec(tmp_path, storage: str, engine: str = 'kind = "hadoop"', durability: str = "engine"):
    raw = tomllib.loads(f'name = "ld"\ndurability = "{durability}"\n[engine]\n{engine}\n{storage}\n'
                        '[[workloads]]\nname = "teragen"\nrows = 1000\n[[workloads]]\nname = "terasort"\n')
    return parse_spec(raw, "ld.toml", tmp_path)


def _generic(spec, tmp_path) -> dict:
    """The settings the hadoop engine gives TeraSort in this spec's first configuration."""
    from tierbench.study.runner import make_engines
    from tierbench.storage.layout import StudyLayout

    engine = make_engines(spec, tmp_path / "logs")["hadoop"]
    config, sort = spec.storage[0], spec.workloads[1]
    local_dirs = StudyLayout(spec).intermediate_dirs(config, "v")
    req = JobRequest("r1/v/terasort", sort, spec.workloads[0], [f"file://{tmp_path}/in"], [f"file://{tmp_path}/out"],
                     local_dirs, tmp_path / "scratch", config.engine_settings(), config.default_fs)
    return engine._generic(req)


def test_a_split_data_drive_runs_on_hadoop_its_data_in_the_first_dir_the_shuffle_in_all(tmp_path, monkeypatch):
    """The Cloudera study's hybrid: one emulated drive standing for 6 HDDs as 6 dirs, an SSD as 10 beside them."""
    # the layout makes the intermediate dirs on the devices' mount points, which no device is mounted on here:
    # under a cache of the test's own, not the machine's
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    spec = _spec(tmp_path, """
[storage.hybrid-split]
data = { emulate = "hdd", size = "1GB", split = 6 }
intermediate = { emulate = "nvme", size = "1GB", split = 10, with_data = true }
""")
    config = spec.storage[0]
    hdd = emulation.root_dir() / "ld-hybrid-split-data" / "mnt"
    assert config.data[0] == str(hdd / "d0") and len(config.data) == 6
    local_dirs = _generic(spec, tmp_path)["mapreduce.cluster.local.dir"].split(",")
    assert len(local_dirs) == 16 and sum(d.startswith(str(hdd) + "/") for d in local_dirs) == 6  # 6 of 16 shares


@pytest.mark.parametrize("data, words", [
    ('{ emulate = "hdd", size = "1GB", drives = 2, split = 3 }', "these are 2 emulated drives"),
    ('["/tmp/ld-a", "/tmp/ld-b"]', "these are 2 directories"),
])
def test_a_data_set_over_several_drives_is_refused_on_hadoop_where_its_file_system_cannot_spread_it(tmp_path, data, words):
    with pytest.raises(SpecError, match=f"storage.a.data.*one directory here, and {words}.*durability"):
        _spec(tmp_path, f"[storage.a]\ndata = {data}\n")  # durability = "engine": Hadoop's own local file system
    yarn = f'kind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{tmp_path}"'
    with pytest.raises(SpecError, match=f"one directory here, and {words}"):
        _spec(tmp_path, f"[storage.a]\ndata = {data}\n", yarn, durability="durable")


def test_durable_local_mode_spreads_a_data_set_over_its_data_dirs_as_hdfs_volumes(tmp_path):
    from tierbench.engines.hadoop.engine import VOLUMES_KEY
    from tierbench.study.runner import make_engines

    spec = _spec(tmp_path, f'[storage.a]\ndata = ["{tmp_path}/a", "{tmp_path}/b"]\n', durability="durable")
    config, gen = spec.storage[0], spec.workloads[0]
    outputs = [f"file://{tmp_path}/a/gen", f"file://{tmp_path}/b/gen"]
    req = JobRequest("r1/v/teragen", gen, None, [], outputs, [tmp_path / "i"], tmp_path / "scratch",
                     config.engine_settings(), config.default_fs)
    engine = make_engines(spec, tmp_path / "logs")["hadoop"]
    assert engine._generic(req)[VOLUMES_KEY] == f"{tmp_path}/a/gen,{tmp_path}/b/gen"
    one = JobRequest("r1/v/teragen", gen, None, [], outputs[:1], [tmp_path / "i"], tmp_path / "scratch", {}, "file:///")
    assert VOLUMES_KEY not in engine._generic(one)  # one location: the job's own path


def test_an_intermediate_drive_that_holds_data_takes_its_share_of_the_data_sets_too(tmp_path, monkeypatch):
    """The Cloudera study's hybrid: the SSD an HDFS and a MapReduce directory, split into 10 beside six HDDs."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    spec = _spec(tmp_path, """
[storage.hybrid-split]
data = { emulate = "hdd", size = "1GB", split = 6 }
intermediate = { emulate = "nvme", size = "1GB", split = 10, with_data = true, holds_data = true }
""", durability="durable")
    config = spec.storage[0]
    ssd = str(emulation.root_dir() / "ld-hybrid-split-intermediate" / "mnt")
    on_ssd = [d.startswith(ssd + "/") for d in config.data]
    assert len(config.data) == 16 and sum(on_ssd) == 10  # 10 of 16 volumes
    assert on_ssd[:4] == [True, False, True, False]  # interleaved: a data set of 4 files puts 2 on each drive
    assert {e["device"] for e in config.emulated["data"]} == {"ld-hybrid-split-data", "ld-hybrid-split-intermediate"}
    assert len(config.intermediate) == 16  # the shuffle's shares as before: 6 + 10
    with pytest.raises(SpecError, match="intermediate.holds_data: needs emulated data drives"):
        _spec(tmp_path, f'[storage.a]\ndata = ["{tmp_path}/d"]\n'
              'intermediate = { emulate = "nvme", size = "1GB", holds_data = true }\n', durability="durable")


def test_local_mode_places_map_outputs_through_tierbench_whatever_the_durability(tmp_path):
    storage = f'[storage.a]\ndata = ["{tmp_path}/d"]\nintermediate = ["{tmp_path}/i1", "{tmp_path}/i2"]\n'
    for durability in ("engine", "durable"):
        assert _generic(_spec(tmp_path, storage, durability=durability), tmp_path)[
            "mapreduce.task.local.output.class"] == OUTPUT_CLASS
    yarn = f'kind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{tmp_path}"'
    storage = f'[storage.a]\ndata = ["{tmp_path}/d"]\n'  # (a cluster's NodeManagers hold the map outputs)
    assert "mapreduce.task.local.output.class" not in _generic(_spec(tmp_path, storage, yarn), tmp_path)


def test_the_named_output_class_is_hadoops_with_the_index_beside_the_output():
    package, _, name = OUTPUT_CLASS.rpartition(".")
    source = (JAVA_SRC / package.replace(".", "/") / f"{name}.java").read_text()
    assert re.search(rf"public class {name} extends MROutputFiles", source)  # Task.setConf's MapOutputFile
    assert re.search(r"getOutputIndexFileForWrite\(long size\)[^}]*getOutputIndexFileForWriteInVolume\(output\)", source)

LOCAL_DIRS = 3
# 32 MB of rows, sorted by maps that spill many times (a 2 MB sort buffer spills every ~1.6 MB): the merge the bug
# was in; two maps at least (engine mode: Hadoop's TeraGen writes one file, of two splits), so that the reduce side
# fetches the outputs of more than one
# Durable: the data set over two data dirs too (tierbench.io.Volumes: HDFS's round robin over its volumes), TeraGen's
# output written twice (a scale model's replication), kept after the study to be looked at
STUDY = """
name = "ld-{mode}"
repeats = 1
warm_up = false
durability = "{mode}"
keep_data = {keep}
[engine]
kind = "hadoop"
conf = {{ "mapreduce.task.io.sort.mb" = "2" }}
[storage.three]
data = [{data}]
intermediate = [{dirs}]
[[workloads]]
name = "teragen"
size = "32MiB"
tasks = 4
copies = {copies}
[[workloads]]
name = "terasort"
split_size = "16MiB"
[[workloads]]
name = "teravalidate"
"""
# what tierbench.io.MapOutputFiles logs of each file it places (log4j names it io.MapOutputFiles); a size asked: a
# file it placed in turn (a lone spill renamed into its output stays where it was)
PLACED = re.compile(r"io\.MapOutputFiles: (spill \d+|map output) of (\S+) in (\S+)( \(\d+ bytes asked\))?")


@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["durable", "engine"])
def test_terasort_on_three_local_dirs_spreads_its_map_outputs_and_sorts_correctly(tmp_path, tb, mode):
    dirs = [tmp_path / f"local{i}" for i in range(LOCAL_DIRS)]
    data = [tmp_path / "data"] + ([tmp_path / "data2"] if mode == "durable" else [])
    quoted = lambda paths: ", ".join(f'"{p}"' for p in paths)
    spec = write_spec(tmp_path / "s.toml", STUDY.format(mode=mode, data=quoted(data), dirs=quoted(dirs),
                                                        keep=str(mode == "durable").lower(), copies=len(data)))
    out = tb("run", spec, "--out", tmp_path / "res", timeout=300)
    recs = {r["workload"]: r for r in map(json.loads, (tmp_path / "res" / "runs.jsonl").read_text().splitlines())}
    assert out.returncode == 0 and all(r["status"] == "ok" for r in recs.values()), \
        [r.get("error") for r in recs.values()] or out.stderr[-3000:]
    sort, validate = recs["terasort"], recs["teravalidate"]
    assert len(sort["engine_conf"]["mapreduce.cluster.local.dir"].split(",")) == LOCAL_DIRS
    # the sort is TeraValidate's: every row, in order, the checksum TeraGen wrote
    assert validate["metrics"]["error_count"] == 0 and validate["metrics"]["rows"] == recs["teragen"]["metrics"]["rows"]
    assert validate["details"]["checksum"] == recs["teragen"]["details"]["checksum"]
    assert sort["metrics"]["map_tasks"] >= 2 and sort["metrics"]["spilled_records"] > sort["metrics"]["rows"]
    placed = PLACED.findall((tmp_path / "res" / sort["details"]["log"]).read_text())
    assert {what for what, _, _, _ in placed} >= {"spill 1", "map output"}, placed[:5]
    turns = [next(i for i, d in enumerate(dirs) if path.removeprefix("file:").startswith(str(d) + "/"))
             for _, _, path, asked in placed if asked]
    # each dir took its turn: the spills and outputs spread over the three dirs as evenly as their number allows
    # (LocalDirAllocator's random steps alone would not: a scale model's few files made the shares a lottery)
    assert max(map(turns.count, range(LOCAL_DIRS))) - min(map(turns.count, range(LOCAL_DIRS))) <= 1, turns
    if mode == "durable":
        _each_data_dir_holds_its_share(data)


def _each_data_dir_holds_its_share(data) -> None:
    """TeraGen's 4 files and their 4 copies spread over both data dirs; the job's path reaches each file (a link
    where the file lies in the other dir)."""
    gen = [p for p in data[0].rglob("tera-input") if p.is_dir()][0]
    parts = sorted(gen.glob("part-m-*"))
    assert len(parts) == 4 and all(p.stat().st_size > 0 for p in parts)
    homes = [p.resolve() for p in parts]
    assert any(h.is_relative_to(data[1].resolve()) for h in homes) and any(
        h.is_relative_to(data[0].resolve()) for h in homes), homes
    replicas = [p for d in data for p in d.rglob(".tierbench-replicas/*part-m-*")]
    assert len(replicas) == 4 and {r.stat().st_size for r in replicas} == {p.stat().st_size for p in parts}
    assert {any(r.is_relative_to(d) for r in replicas) for d in data} == {True}


def test_a_failed_local_job_is_recorded_with_its_tasks_cause_not_the_clients_last_line():
    """The failure this file's e2e test caught, as Hadoop 3.4.2 logged it (abridged): the record says the cause."""
    from tierbench.engines.hadoop.engine import _failure_line

    missing = "File /l2/attempt_m_000000_0/output/file.out.index does not exist"
    log = "\n".join([
        "2026-11-26 08:34:57,996 WARN mapred.LocalJobRunner: job_local2069248187_0001",
        "java.lang.Exception: org.apache.hadoop.mapreduce.task.reduce.Shuffle$ShuffleError: error in shuffle in localfetcher#1",
        "\tat org.apache.hadoop.mapred.LocalJobRunner$Job.runTasks(LocalJobRunner.java:492)",
        "Caused by: org.apache.hadoop.mapreduce.task.reduce.Shuffle$ShuffleError: error in shuffle in localfetcher#1",
        "\tat org.apache.hadoop.mapreduce.task.reduce.Shuffle.run(Shuffle.java:136)",
        f"Caused by: java.io.FileNotFoundException: {missing}",
        "\tat org.apache.hadoop.mapred.SpillRecord.<init>(SpillRecord.java:71)",
        "2026-11-26 08:34:58,419 INFO mapreduce.Job: Job job_local2069248187_0001 failed with state FAILED due to: NA"])
    assert _failure_line(log, 1) == f"hadoop job exited 1: Caused by: java.io.FileNotFoundException: {missing}"
    # a job that fails in its client (no task ran) keeps its own last error line
    client = "2026-11-26 08:00:00,000 ERROR terasort.TeraSort: Output directory file:/out already exists"
    assert _failure_line(client, 2).endswith("Output directory file:/out already exists")
