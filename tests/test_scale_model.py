"""The scale model ([scale]): each derived setting from a target, and the spec's tables it fills. Fast: no JVM."""

import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tierbench.errors import SpecError
from tierbench.model.hardware import catalog, load_hardware
from tierbench.scale.model import TARGET_SORT_BUFFER, TARGET_SPLIT, Here, derive, drive_figures
from tierbench.scale.derive import parse as parse_spec
from tierbench.storage.emulation import Profile, throttle_limits
from tierbench.units import MB

SANDISK = load_hardware("sandisk-hybrid")  # 6 nodes x 12 slots, 16 GB, 2 HDDs + 1 SSD
TB = 10**12


def test_each_ratio_of_the_sandisk_terabyte_is_kept_on_two_cores():
    m = derive(SANDISK, TB, 256 * MB, Here(cores=2), target_reducers=36, task_heap=512 * MB)
    per_node = TB / 6
    cache_there = 16 * 2**30 - 12 * 512 * MB
    assert m.data_bytes / m.page_cache_bytes == pytest.approx(per_node / cache_there, rel=0.01)
    assert m.split_bytes / (m.sort_buffer_mb * MB) == pytest.approx(TARGET_SPLIT / TARGET_SORT_BUFFER, rel=0.15)
    assert m.rate_factor == pytest.approx(2 / 12)  # two cores here stand for a node's twelve
    assert m.tasks == 12  # as many tasks per drive as a target node runs
    assert m.maps == -(-m.data_bytes // m.split_bytes)
    assert m.reducers == 6  # a node's share of the 36, all at once as there
    fetch_here, fetch_there = m.split_bytes / m.reducers, TARGET_SPLIT / 36
    assert fetch_here == pytest.approx(fetch_there, rel=0.01)  # the same IO size on the drives
    names = [s.name for s in m.settings]
    assert {"page cache per node", "shuffle fetch (map output / reducers)", "tasks at once", "drive speed factor k"} <= set(names)
    assert all(s.here and s.target for s in m.settings)
    assert any("network" in b for b in m.breaks)


@settings(max_examples=60, deadline=None)
@given(data_mb=st.integers(64, 4096), size_tb=st.integers(1, 100), cores=st.integers(1, 64), speed=st.floats(0.25, 4))
def test_data_over_cache_and_the_drive_factor_hold_for_any_model(data_mb, size_tb, cores, speed):
    m = derive(SANDISK, size_tb * TB, data_mb * MB, Here(cores=cores), core_speed=speed)
    per_node = size_tb * TB / SANDISK.nodes
    cache_there = max(SANDISK.memory_bytes * 0.05, SANDISK.memory_bytes - SANDISK.cores * 2**30)
    assert m.data_bytes / max(m.page_cache_bytes, 1) == pytest.approx(per_node / cache_there, rel=0.01, abs=1)
    assert m.rate_factor == pytest.approx(cores / (12 * speed))
    assert m.size_factor <= 1 and m.split_bytes >= MB and m.reducers >= 1 and m.sort_buffer_mb >= 1
    hdd = catalog()["hdd-7200-2014"]
    assert drive_figures(m, hdd)["write_iops"] == pytest.approx(hdd.write_iops * m.rate_factor)


QUICK = """
name = "scaled"
repeats = 1
[scale]
target = "sandisk-hybrid"
size = "1TB"
reducers = 36
task_heap = "512MB"
[engine]
kind = "hadoop"
[storage.hdd]
data = { emulate = "hdd-7200-2014", stands_for = 2, size = "2GB" }
[storage.hybrid]
data = { emulate = "hdd-7200-2014", stands_for = 2, size = "2GB" }
intermediate = { emulate = "sata-ssd-2014", size = "2GB" }
[[workloads]]
name = "teragen"
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
"""


def _spec(text=QUICK, **edits):
    raw = tomllib.loads(text)
    for k, v in edits.items():
        raw["scale"][k] = v
    return parse_spec(raw, source="scaled.toml")


def test_the_spec_runs_the_models_sizes_tasks_engine_settings_and_drives():
    spec = _spec()
    m = spec.scale.to_dict()  # (as study.json records it)
    gen, sort, _ = spec.workloads
    assert gen.params["size"] == m["data_bytes"]
    # as many writers as splits (fewer than the slots here): each file at most a split, read as the target's blocks
    assert gen.params["tasks"] == min(m["maps"], m["tasks"])
    assert m["data_bytes"] / gen.params["tasks"] <= 1.1 * m["split_bytes"]  # (FileInputFormat's slop: one split)
    assert gen.params["copies"] == 3  # the target's HDFS replication
    assert sort.params["split_size"] == m["split_bytes"] and sort.params["partitions"] == m["reducers"]
    conf = spec.engines[0].conf
    assert conf["mapreduce.task.io.sort.mb"] == str(m["sort_buffer_mb"])
    assert conf["mapreduce.local.map.tasks.maximum"] == "12"
    hdd = spec.config("hdd").emulated["data"][0]["figures"]
    assert hdd["read_mb_s"] == pytest.approx(2 * 130 * 2 / 12)  # two 2014 HDDs, at k = 2/12
    # six writers a drive there: each 1 MiB request pays a seek (1/150 s) beside its transfer at 130 MB/s
    assert hdd["write_mb_s"] == pytest.approx(2 * 1.048576 / (1.048576 / 130 + 1 / 150) * 2 / 12)
    ssd = spec.config("hybrid").emulated["intermediate"][0]["figures"]
    assert ssd["read_iops"] == pytest.approx(70_000 * 2 / 12)
    assert spec.to_dict()["scale"]["settings"]  # what study.json records
    # the drives over memory where they fit (k x the target may be faster than this machine's disk), the job's JVM
    # without the compiler's warm-up, and both shown among the settings
    assert {e["backing"] for c in spec.storage for es in c.emulated.values() for e in es} == {"memory"}
    assert spec.engines[0].java_options == ("-XX:TieredStopAtLevel=1", "-XX:+UseParallelGC")
    assert any(s["name"] == "hadoop engine's JVM" for s in spec.to_dict()["scale"]["settings"])


def test_a_drive_with_one_writer_at_the_target_writes_at_its_catalog_rate():
    one_each = _spec(QUICK.replace("stands_for = 2", "stands_for = 12"))  # 12 drives for the 12 slots
    hdd = one_each.config("hdd").emulated["data"][0]["figures"]
    assert hdd["write_mb_s"] == pytest.approx(hdd["read_mb_s"]) == pytest.approx(12 * 130 * 2 / 12)


def test_reduce_inputs_are_read_in_requests_the_throttle_charges_at_the_seek_rule():
    spec = _spec()
    size = int(spec.engines[0].conf["tierbench.local.direct.read.bytes"])
    assert size % 4096 == 0  # O_DIRECT's blocks
    # the limits the throttle holds each emulated drive to (an HDD's read IOPS raised above its own figure)
    hdd, ssd = (throttle_limits(Profile("x", **e["figures"], source="")) for e in (
        spec.config("hdd").emulated["data"][0], spec.config("hybrid").emulated["intermediate"][0]))
    # a throttle charges a request its IOPS limit or its MB/s (of 2^20 bytes), whichever is longer: at this size the
    # HDD's IOPS limit gives the seek rule's rate for six streams of 256 KiB requests (transfer at 130 MB/s + a seek
    # of 1/150 s each), within O_DIRECT's rounding to 4 KiB blocks
    throttled = min(hdd["read_mb_s"], size / (1 << 20) * hdd["read_iops"])
    seek_rule = 2 * 0.262144 / (0.262144 / 130 + 1 / 150) * 2 / 12
    assert throttled == pytest.approx(seek_rule, rel=0.04) and throttled < 0.3 * hdd["read_mb_s"]
    assert min(ssd["read_mb_s"], size / (1 << 20) * ssd["read_iops"]) == ssd["read_mb_s"]  # an SSD barely notices
    assert any(s["name"] == "a reducer's reads of its inputs" for s in spec.to_dict()["scale"]["settings"])


def test_a_value_the_user_gave_is_kept_and_the_model_changes_the_fingerprint():
    text = QUICK.replace('name = "terasort"', 'name = "terasort"\npartitions = 7')
    assert _spec(text).workloads[1].params["partitions"] == 7
    own = _spec(QUICK.replace('kind = "hadoop"', 'kind = "hadoop"\njava_options = ["-XX:+UseSerialGC"]').replace(
        'size = "2GB" }', 'size = "2GB", backing = "disk" }'))
    assert own.engines[0].java_options == ("-XX:+UseSerialGC",)
    assert {e.get("backing", "disk") for c in own.storage for es in c.emulated.values() for e in es} == {"disk"}
    spark = QUICK.replace('kind = "hadoop"', 'kind = "spark"')
    with pytest.raises(SpecError, match="copies"):  # the target's replication needs the hadoop engine's file system
        _spec(spark)
    assert _spec().fingerprint() != _spec(data="128MB").fingerprint()


def test_the_dfsio_example_writes_a_nodes_share_by_its_slots_three_times():
    spec = parse_spec(tomllib.loads((Path(__file__).parent.parent / "examples" / "sandisk-dfsio.toml").read_text()),
                      source="sandisk-dfsio.toml", base_dir=Path("examples"))
    write = spec.workloads[0].params
    assert write["files"] == 12  # the node's 12 map slots write at once, as there
    assert write["copies"] == 3  # HDFS replication: the node's drives take each byte three times
    assert write["files"] * write["file_size"] == pytest.approx(512 * 10**6, rel=0.05)  # the model's data
    raw = tomllib.loads((Path(__file__).parent.parent / "examples" / "sandisk-dfsio.toml").read_text())
    raw["engine"] = {"master": "local[2]"}
    with pytest.raises(SpecError, match="copies"):  # one copy is all the spark engine writes
        parse_spec(raw, source="sandisk-dfsio.toml", base_dir=Path("examples"))


def test_the_cloudera_example_keeps_the_ssds_share_of_the_shuffle_and_the_drives_bandwidths():
    path = Path(__file__).parent.parent / "examples" / "cloudera.toml"
    spec = parse_spec(tomllib.loads(path.read_text()), source="cloudera.toml", base_dir=path.parent)
    configs = {c.name: c for c in spec.storage}

    def ssd_share(name):
        dirs = configs[name].intermediate
        return sum("intermediate" in d for d in dirs) / len(dirs)

    assert ssd_share("hybrid") == pytest.approx(1 / 7) and ssd_share("hybrid-split") == pytest.approx(10 / 16)
    drives = {d["device"]: d["figures"] for c in spec.storage for role in c.emulated.values() for d in role}
    hdd11, ssd = drives["cloudera-ssd-hdd-11-data"], drives["cloudera-ssd-ssd-data"]
    assert hdd11["read_mb_s"] == pytest.approx(11 * 130 / 8) and ssd["read_mb_s"] == pytest.approx(1300 / 8)
    assert hdd11["read_iops"] < ssd["read_iops"] / 50  # equal bandwidth, not equal IOPS: the study's point
    sort, shuffle = spec.workloads[1].params, spec.workloads[2].params
    assert sort["partitions"] == shuffle["partitions"] == 16  # the node's 16 reducers at once


@pytest.mark.parametrize("edit, says", [
    ({"target": "no-such-cluster"}, "no-such-cluster"),
    ({"size": "lots"}, "scale.size"),
    ({"data": "400GB"}, "scale.data: '400GB' is not smaller than a target node's share"),
    ({"core_speed": 0}, "scale.core_speed"),
    ({"reducers": 0}, "scale.reducers"),
    ({"colour": "blue"}, "scale.colour"),
])
def test_a_bad_scale_table_is_one_clear_error(edit, says):
    with pytest.raises(SpecError, match=None) as e:
        _spec(**edit)
    assert says in str(e.value)


def test_stands_for_and_catalog_drives_need_a_scale_model():
    raw = tomllib.loads(QUICK)
    del raw["scale"]
    with pytest.raises(SpecError) as e:
        parse_spec(raw, source="scaled.toml")
    assert "storage.hdd.data.stands_for" in str(e.value) and "[scale]" in str(e.value)
    raw["storage"]["hdd"]["data"].pop("stands_for")
    raw["storage"]["hybrid"]["data"].pop("stands_for")
    with pytest.raises(SpecError) as e:
        parse_spec(raw, source="scaled.toml")
    assert "[scale]" in str(e.value) and "hdd-7200-2014" in str(e.value)


def _scaled_results(tmp_path, peaks: dict[str, int], enforced=True, not_covering: dict[str, str] | None = None):
    """The committed quickstart results as if run as a scale model: study.json's spec with the model, and each ok
    run with the page cache its processes held at most (`peaks`: configuration -> bytes) and what of its processes
    the budget did not hold (`not_covering`: configuration -> what)."""
    import json
    import shutil
    from pathlib import Path

    d = tmp_path / "r"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    study = json.loads((d / "study.json").read_text())
    scale = _spec().scale.to_dict()
    study["spec"]["scale"] = scale
    study["memory_budget"] = {"bytes": scale["page_cache_bytes"], "enforced": enforced,
                              **({"group": "/sys/fs/cgroup/memory/tierbench-x-1"} if enforced else {"why": "needs root"})}
    (d / "study.json").write_text(json.dumps(study))
    lines = []
    for line in (d / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        if enforced:
            r["details"]["memory_budget"] = {"page_cache_budget_bytes": scale["page_cache_bytes"],
                                             "page_cache_peak_bytes": peaks[r["config"]]}
            if r["config"] in (not_covering or {}):
                r["details"]["memory_budget"]["not_covering"] = [not_covering[r["config"]]]
        lines.append(json.dumps(r))
    (d / "runs.jsonl").write_text("\n".join(lines) + "\n")
    return d, scale


def _section(d):
    from tierbench.report.build import build_report
    from tierbench.store import ResultsDir

    doc = build_report(ResultsDir(d).load(analysed=True))
    return next((s for s in doc.sections if s.title == "Scale model"), None)


def test_the_report_shows_each_setting_beside_the_targets_and_whether_the_budget_held(tmp_path):
    d, scale = _scaled_results(tmp_path, {"single": 10 << 20, "split": 400 << 20})
    text = str(_section(d))
    for s in scale["settings"]:
        assert s["name"] in text and s["target"] in text
    assert "yes" in text and "NO" in text  # split's 400 MB is over the budget and its slack


def test_runs_whose_executors_the_budget_did_not_hold_are_never_said_to_have_held_it(tmp_path):
    gap = "the executors of the Spark standalone Workers 4242, which this study did not start"
    d, _ = _scaled_results(tmp_path, {"single": 1 << 20, "split": 1 << 20}, not_covering={"split": gap})
    section = _section(d)
    table = next(b for b in section.blocks if getattr(b, "head", None) and "held" in b.head)
    held = {(row[0], row[1]): row[-1] for row in table.rows}
    assert {h for (config, _), h in held.items() if config == "single"} == {"yes"}
    assert {h for (config, _), h in held.items() if config == "split"} == {"not covered"}
    assert f"Not covered: the budget did not hold {gap}" in str(section)


def test_a_group_that_held_no_page_cache_gives_no_data_to_cache_ratio(tmp_path):
    d, _ = _scaled_results(tmp_path, {"single": 0, "split": 0})  # (main's spark engine, unconfined: an empty group)
    text = str(_section(d))
    assert "no page cache was held in the group" in text and "/ 0 B =" not in text


def test_the_report_says_when_the_budget_was_not_enforced(tmp_path):
    d, _ = _scaled_results(tmp_path, {}, enforced=False)
    assert "NOT enforced: needs root" in str(_section(d))
    from pathlib import Path

    assert _section(Path(__file__).parent / "fixtures" / "quickstart-results") is None  # no [scale]: no section


def run_scaled_study(tmp_path, engine: str, teragen: str = "", engine_lines: str = "", scale_lines: str = "",
                     ssd_first: bool = False) -> dict:
    """QUICK as a real study of 64 MB on its emulated HDD pair alone, on `engine` (`teragen`, `engine_lines`,
    `scale_lines`: lines added to its TeraGen, its [engine], its [scale]; `ssd_first`: the all-SSD pair before it, whose
    TeraSort measures the pace the HDD pair then goes at): the HDD pair's runs by workload, once the study.json's
    budget was checked enforced and its group gone, every run ok with the page cache its processes held within the
    budget, and the report written."""
    import json
    import os

    from conftest import can_emulate_or_skip, tierbench, write_spec

    can_emulate_or_skip("the budget's runs have nothing to read from")
    body = QUICK.replace('name = "scaled"', f'name = "scaled-{engine}-e2e-{os.getpid()}"').replace(
        'size = "1TB"', f'size = "1TB"\ndata = "64MB"\n{scale_lines}').replace('kind = "hadoop"', f'kind = "{engine}"\n{engine_lines}')
    body = body.replace('name = "teragen"', 'name = "teragen"\n' + teragen)
    body = body[:body.index("[storage.hybrid]")] + body[body.index("[[workloads]]"):]
    if ssd_first:
        body = body.replace("[storage.hdd]", '[storage.ssd]\ndata = { emulate = "sata-ssd-2014", stands_for = 2, size = "2GB" }\n[storage.hdd]')
    out = tierbench("run", write_spec(tmp_path / "s.toml", body), "--out", tmp_path / "r", timeout=900)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    study = json.loads((tmp_path / "r" / "study.json").read_text())
    assert study["memory_budget"]["enforced"] is True
    assert not Path(study["memory_budget"]["group"]).exists()  # the group is gone with the study
    runs = {r["workload"]: r for r in map(json.loads, (tmp_path / "r" / "runs.jsonl").read_text().splitlines())}
    assert {r["status"] for r in runs.values()} == {"ok"}  # TeraValidate too: the replicas are not part of the data set
    for r in runs.values():  # the engine's processes were in the group: it held their page cache
        b = r["details"]["memory_budget"]  # (TeraGen's few seconds: mostly a JVM reading its jars, writes being synced)
        assert b["polls"] > 10 and b["page_cache_peak_bytes"] >= b["page_cache_median_bytes"] > 0, b
        assert "not_covering" not in b, b
    for r in (runs["terasort"], runs["teravalidate"]):
        b = r["details"]["memory_budget"]
        assert b["page_cache_median_bytes"] <= b["page_cache_budget_bytes"] + (32 << 20), b
    report = (tmp_path / "r" / "report.md").read_text()
    assert "## Scale model" in report and "page cache per node" in report
    return runs


def device_read_bytes(run: dict) -> int:
    return sum(sum(d["rd_bytes"]) for d in run["samples"]["devices"].values())


@pytest.mark.e2e
def test_the_page_cache_budget_holds_and_the_shuffle_is_read_from_the_emulated_drive(tmp_path):
    """A real scaled study (Hadoop's TeraGen and TeraSort, 64 MB on an emulated HDD pair): the engine's JVMs ran in the
    budget's memory group, their page cache stayed within it, and TeraSort read its shuffle back from the device (the
    reducers' merges) -- on a 24 GB machine that otherwise serves 64 MB from memory -- while the maps' spills and
    outputs, which the target's page cache holds, were read from memory."""
    sort = run_scaled_study(tmp_path, "hadoop", ssd_first=True)["terasort"]
    from test_calibration import check_calibration, check_pace_followed

    check_calibration(tmp_path / "r")
    check_pace_followed(tmp_path / "r")
    shuffled = sort["metrics"]["shuffle_mb"] * (1 << 20)
    read, data = device_read_bytes(sort), sort["metrics"]["data_mb"] * (1 << 20)
    # its input (TeraGen's output, evicted) and the reducers' merges of what they fetched (each fetch to disk: the
    # target's reducers merge on disk too) both from the drive: without the budget, neither
    assert read >= shuffled + 0.9 * data, f"TeraSort read {read / 2**20:.0f} MB from its drive for {data / 2**20:.0f} MB " \
                                          f"of input and {shuffled / 2**20:.0f} MB shuffled"
    # the maps' spills and outputs were held (the target's page cache holds a wave of them) and read from memory, not
    # from the drive: the quickstart's all-HDD TeraSort read 4.7-5.4 bytes per byte sorted without (the input, the
    # maps' merges, the fetches, the reducers' merges), 2.3-2.7 with
    held = sort["details"]["held_mb"] * (1 << 20)
    assert held >= shuffled, (held, shuffled)  # every map's output at least (spills besides, where a map spilled twice)
    assert read <= 1.1 * data + 2 * shuffled, f"TeraSort read {read / 2**20:.0f} MB from its drive"
    # the reducers' inputs, fetched and written, were merged past the page cache: each read once from the drive
    direct = sort["details"]["direct_read_mb"] * (1 << 20)
    assert 0.9 * shuffled <= direct <= 1.1 * shuffled, (direct, shuffled)


@pytest.mark.e2e
def test_the_spark_engines_page_cache_is_held_by_the_budget_too(tmp_path):
    """The same study on the Spark engine (local mode: the executors are threads of the application's JVM, born in the
    group from its worker process): TeraSort reads its input from the drive (the page cache is dropped before each
    run) and its shuffle too, which without the budget stays in memory between the map and the reduce stage. The
    filler is random so that the shuffle, compressed by Spark, is as large as the data."""
    sort = run_scaled_study(tmp_path, "spark", 'copies = 1\nfiller = "random"', scale_lines="core_speed = 1.0")["terasort"]
    from tierbench.scale.memory_budget import ANON_ROOM, HEADROOM

    b = sort["details"]["memory_budget"]  # between two polls within the limit (what the polls left: run_scaled_study)
    assert b["page_cache_peak_bytes"] <= b["page_cache_budget_bytes"] + HEADROOM + ANON_ROOM, b
    read, data = device_read_bytes(sort), sort["metrics"]["data_mb"] * (1 << 20)
    assert read >= 1.6 * data, f"TeraSort read {read / 2**20:.0f} MB from its drive for {data / 2**20:.0f} MB of input " \
                               "and as much shuffled"


def test_a_scale_model_is_not_warned_of_data_that_fits_in_this_machines_memory():
    from tierbench.analysis.validity import working_set_lines

    machine = {"memory_bytes": 24 << 30}
    scaled = _spec().to_dict()
    plain = dict(scaled, scale=None)
    assert working_set_lines(plain, machine) and not working_set_lines(scaled, machine)
