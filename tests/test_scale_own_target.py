"""A scale model of a user's own cluster (`[scale] target = "my-cluster.toml"`), not a copy of a SanDisk one: 10 nodes
of 32 threads, 256 GB, 25 GbE, 12 current HDDs for data and 2 NVMe SSDs for intermediate data, its CPU named. Each
derived setting from that file; the target's job rate from, in order, a study run on the target, a published figure,
or an estimate from the CPUs' scores (with its range); the drives' seeks from the drive's own catalog figures; and the
whole flow on FakeEngine, through the report, advise and predict reading the target from the results. The e2e test
runs a small real scaled study to such a target. Fast except where marked e2e."""

import json
import math
import os
import shutil
import statistics
import tomllib
from pathlib import Path

import pytest

from conftest import tierbench_main
from tierbench.errors import SpecError
from tierbench.model.hardware import catalog, load_hardware
from tierbench.model.rules import TARGET_SORT_BUFFER, TARGET_SPLIT, node_page_cache, stream_mb_s
from tierbench.scale import rate
from tierbench.scale.derive import Measured, parse
from tierbench.units import MB

FIXTURES = Path(__file__).parent / "fixtures"
CORES = os.cpu_count() or 1
MY_CLUSTER = """
name = "my-cluster"
nodes = 10
cores = 32
memory = "256GiB"
network_gbps = 25
replication = 3
engine = "hadoop"
cpu_model = "Intel Xeon Platinum 8380 @ 2.30GHz"
[data]
drive = "hdd-7200"
count = 12
[intermediate]
drive = "nvme-gen3"
count = 2
"""
SPEC = """
name = "own-target"
repeats = 1
drop_caches = "never"
[sampling]
enabled = false
[scale]
target = "my-cluster.toml"
size = "1TB"
data = "64MB"
[engine]
kind = "hadoop"
[storage.hdd]
data = { emulate = "hdd-7200", stands_for = 12, size = "1GB" }
[storage.hybrid]
data = { emulate = "hdd-7200", stands_for = 12, size = "1GB" }
intermediate = { emulate = "nvme-gen3", stands_for = 2, size = "1GB" }
[[workloads]]
name = "teragen"
[[workloads]]
name = "terasort"
"""
GENOA = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n"
UNLISTED = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel Xeon Gold 6148\n"
SCORE_8380, SCORE_GENOA = 62318 / 80, 124119 / 192  # cpu_scores.toml: PassMark CPU Mark per thread


@pytest.fixture
def this_cpu(tmp_path, monkeypatch):
    """This machine's /proc/cpuinfo as another machine's would read (a named fake: the real one is this machine's
    alone); the default, a Genoa EPYC of the table, as the machine these tests were written on."""
    def set_to(text: str) -> None:
        (tmp_path / "cpuinfo").write_text(text)
        monkeypatch.setattr(rate, "CPUINFO", tmp_path / "cpuinfo")
    set_to(GENOA)
    return set_to


def own_spec(tmp_path: Path, cluster: str = MY_CLUSTER, text: str = SPEC, **scale):
    (tmp_path / "my-cluster.toml").write_text(cluster)
    raw = tomllib.loads(text)
    raw["scale"] |= scale
    return parse(raw, str(tmp_path / "s.toml"), tmp_path)


def test_each_setting_is_derived_from_the_users_own_target(tmp_path, this_cpu):
    spec = own_spec(tmp_path)
    m, target = spec.scale, load_hardware(tmp_path / "my-cluster.toml")
    speed = SCORE_8380 / SCORE_GENOA  # core_speed: an estimate from the CPUs' scores
    k = CORES / (32 * speed)
    assert m.rate_factor == pytest.approx(k)
    e = m.core_speed_estimate
    assert (e["core_speed"], e["low"], e["high"]) == pytest.approx((speed, speed / 2, speed * 2))
    assert (e["k_low"], e["k_high"]) == pytest.approx((k / 2, k * 2))
    # a node's share of one wave of reducers on every slot (10 x 32), all at once; tasks as a node's slots
    assert (m.reducers, m.tasks) == (32, 32) and m.size_factor == pytest.approx(0.1)
    assert m.split_bytes / m.reducers == pytest.approx(TARGET_SPLIT / 320, rel=1e-6)  # the target's fetch size
    assert m.sort_buffer_mb == round(TARGET_SORT_BUFFER * 0.1 / MB) and m.maps == math.ceil(64 * 10**6 / m.split_bytes)
    # the page cache budget: the target node's (256 GB less 32 task heaps) shrunk as the data is
    cache_t = node_page_cache(target.memory_bytes, 32, 1 << 30)
    assert m.page_cache_bytes == int(cache_t * 64 * 10**6 / (1e12 / 10))
    assert m.write_copies == 3 and m.hold_map_output  # 224 GB of cache holds a wave of 32 maps' output
    gen, sort = spec.workloads
    assert gen.params["copies"] == 3 and sort.params["partitions"] == 32
    conf = spec.engines[0].conf
    assert conf["mapreduce.task.io.sort.mb"] == str(m.sort_buffer_mb) and conf["mapreduce.local.map.tasks.maximum"] == "32"
    # the emulated drives: 12 current HDDs and 2 NVMe SSDs, x k; the HDDs' writes pay a seek every 1,280 KiB (the
    # drive's own figure, a rule: not the 1,024 KiB fitted to SanDisk's 2014 HDD), 32 writers on 12 drives
    hdd, nvme = catalog()["hdd-7200"], catalog()["nvme-gen3"]
    assert (hdd.write_seek_kib, hdd.read_seek_kib, nvme.write_seek_kib) == (1280, 128, None)
    data = spec.config("hdd").emulated["data"][0]["figures"]
    assert data["read_mb_s"] == pytest.approx(12 * 200 * k)
    mib = 1280 * 1024 / 1e6
    assert data["write_mb_s"] == pytest.approx(12 * mib / (mib / 190 + 1 / 180) * k)
    assert data["write_mb_s"] == pytest.approx(12 * stream_mb_s(hdd, "write", 1280, 32 / 12) * k)
    fast = spec.config("hybrid").emulated["intermediate"][0]["figures"]
    assert fast["read_iops"] == pytest.approx(2 * 500_000 * k) and fast["read_mb_s"] == pytest.approx(2 * 3500 * k)
    shown = {s.name: s for s in m.settings}
    assert "1280 KiB on hdd-7200" in shown["a drive's write rate, several writers on it"].here
    assert "128 KiB on hdd-7200" in shown["a reducer's reads of its inputs"].target
    assert shown["page cache per node"].keeps == "data per node / page cache = 0.42"  # (not "0")
    assert "ESTIMATE" in shown["core_speed (an ESTIMATE)"].name and "0.0" not in shown["drive speed factor k"].target
    # the reducers' direct reads in requests whose IOPS limit charges the HDD's own seek (128 KiB): smaller than
    # where the same cluster had SanDisk's 2014 HDDs (256 KiB, fitted)
    (tmp_path / "x").mkdir()
    old = own_spec(tmp_path / "x", MY_CLUSTER.replace('"hdd-7200"', '"hdd-7200-2014"'),
                   SPEC.replace('"hdd-7200"', '"hdd-7200-2014"'))
    assert int(conf["tierbench.local.direct.read.bytes"]) < int(old.engines[0].conf["tierbench.local.direct.read.bytes"])
    # and the description as loaded, with its file: the results keep it
    assert m.target_hardware == {"file": str(tmp_path / "my-cluster.toml"), "description": tomllib.loads(MY_CLUSTER)}


def test_where_this_machines_cpu_is_not_in_the_table_core_speed_is_1_within_a_factor_4(tmp_path, this_cpu):
    this_cpu(UNLISTED)
    m = own_spec(tmp_path).scale
    e = m.core_speed_estimate
    assert (e["core_speed"], e["low"], e["high"]) == (1.0, 0.25, 4.0)
    assert "Intel Xeon Gold 6148" in e["source"] and "not in the table" in e["source"]
    assert m.rate_factor == pytest.approx(CORES / 32)


@pytest.mark.parametrize("cluster, scale, says", [
    (MY_CLUSTER.replace("Intel Xeon Platinum 8380 @ 2.30GHz", "Sparc T5"), {}, "'Sparc T5' is not in tierbench's table"),
    (MY_CLUSTER.replace('cpu_model = "Intel Xeon Platinum 8380 @ 2.30GHz"\n', ""), {"core_speed": "estimate"},
     "\"estimate\" needs the target's CPU"),
    (MY_CLUSTER.replace('cpu_model = "Intel Xeon Platinum 8380 @ 2.30GHz"', "cpu_model = 8380"), {},
     "cpu_model: expected the nodes' CPU"),
    (MY_CLUSTER + "[cpu.terasort]\nresults = 5\n", {}, "cpu.terasort.results: expected a results folder"),
])
def test_an_estimate_that_cannot_be_made_is_one_clear_line(tmp_path, this_cpu, cluster, scale, says):
    with pytest.raises(SpecError) as e:
        own_spec(tmp_path, cluster, **scale)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_core_speed_given_beats_the_estimate(tmp_path, this_cpu):
    m = own_spec(tmp_path, core_speed=0.5).scale
    assert m.core_speed_estimate is None and m.rate_factor == pytest.approx(CORES / 16)
    assert "core_speed_estimate" not in m.to_dict()


def on_target(tmp_path: Path, rate_lines: str) -> str:
    """MY_CLUSTER with a rate for TeraSort (`rate_lines` under [cpu.terasort]), beside a results folder of a study
    "run on the target" (the committed quickstart's, whose fastest TeraSort configuration is its all-SSD one)."""
    shutil.copytree(FIXTURES / "quickstart-emulated-results", tmp_path / "runs" / "on-target")
    return MY_CLUSTER + "[cpu.terasort]\n" + rate_lines


def test_the_rate_of_a_study_run_on_the_target_comes_first(tmp_path):
    from tierbench.store import ResultsDir

    cluster = on_target(tmp_path, 'results = "runs/on-target"\nmb_s_per_thread = 4.26\nsource = "a paper"\n')
    m = own_spec(tmp_path, cluster).scale
    c = m.calibration
    runs = [r for r in ResultsDir(tmp_path / "runs" / "on-target").load().runs if r.label == "terasort" and r.status == "ok"]
    times = {v: [r.wall_s for r in runs if r.variant == v] for v in {r.variant for r in runs}}
    fastest = min(times, key=lambda v: statistics.median(times[v]))
    assert len(times) == 3 and fastest == "ssd"  # (the fixture's: its all-SSD TeraSort, as SanDisk's rate is)
    median = statistics.median(times[fastest])
    data = next(r for r in runs if r.variant == "ssd").metrics["data_mb"] * (1 << 20)  # (TeraSort's: its input)
    assert c.target_mb_s_per_thread == pytest.approx(data / 1e6 / 10 / 32 / median)
    assert c.rate_from == "measured on the target" and m.calibration_pending
    assert f"{tmp_path / 'runs' / 'on-target'}, terasort on ssd" in c.source
    assert f"{len(times['ssd'])} runs" in c.source and "/ 10 nodes / 32 threads /" in c.source
    assert m.to_dict()["calibration"]["rate_from"] == "measured on the target"  # in study.json's spec.scale
    # measured here: core_speed = that rate / this machine's
    raw = tomllib.loads(SPEC)
    measured = parse(raw, str(tmp_path / "s.toml"), tmp_path, measured=Measured((5.0, 5.2, 5.4))).scale
    here = 64 * 10**6 / 1e6 / (5.2 * CORES)
    assert measured.calibration.core_speed == pytest.approx(c.target_mb_s_per_thread / here)


def test_a_published_rate_is_recorded_as_before(tmp_path):
    m = own_spec(tmp_path, MY_CLUSTER + '[cpu.terasort]\nmb_s_per_thread = 3.5\nsource = "our vendor\'s run"\n').scale
    assert (m.calibration.target_mb_s_per_thread, m.calibration.rate_from) == (3.5, "published")
    assert "rate_from" not in m.to_dict()["calibration"]  # (as study.json recorded it before: the fingerprint holds)
    assert m.core_speed_estimate is None  # a rate comes before an estimate


@pytest.mark.parametrize("folder, make, says", [
    ("runs/nowhere", None, "runs/nowhere: no study's results there (study.json missing)"),
    ("runs/on-target", "no-terasort", "no finished terasort run there"),
])
def test_a_study_on_the_target_that_cannot_give_a_rate_is_one_line_naming_the_file_and_field(tmp_path, folder, make, says):
    cluster = on_target(tmp_path, f'results = "{folder}"\n')
    if make == "no-terasort":
        runs = tmp_path / "runs" / "on-target" / "runs.jsonl"
        runs.write_text("".join(line + "\n" for line in runs.read_text().splitlines() if '"label":"terasort"' not in line))
    with pytest.raises(SpecError) as e:
        own_spec(tmp_path, cluster)
    line = str(e.value)
    assert str(tmp_path / "my-cluster.toml") in line and "cpu.terasort.results" in line and says in line
    assert "\n" not in line


def test_the_whole_flow_on_fake_engine_to_a_users_target(tmp_path, this_cpu):
    """The study (FakeEngine for the jobs, plain directories for the drives) records the model with the target's
    description; the report says the estimate and the drives' own seeks; advise and predict, with the file moved
    away, read the target from the results."""
    from tierbench.engines.fake import FakeEngine
    from tierbench.scale.derive import parse_in
    from tierbench.scale.hooks import study_runner

    (tmp_path / "my-cluster.toml").write_text(MY_CLUSTER)
    raw = tomllib.loads(SPEC.replace('kind = "hadoop"', 'kind = "spark"'))
    raw["name"] = f"own-target-{os.getpid()}"
    del raw["sampling"]  # (advise and predict profile sampled runs)
    raw["storage"] = {"hdd": {"data": [str(tmp_path / "hdd")], "create_dirs": True}}
    raw["workloads"][0]["copies"] = 1  # (the spark engine writes one: the fake stands in for it)
    out = tmp_path / "r"
    spec = parse_in(raw, str(tmp_path / "s.toml"), tmp_path, out)
    jobs = json.loads((FIXTURES / "job-results.json").read_text())
    study_runner(spec, out, ["tierbench", "run"], engines={"spark": FakeEngine(jobs)}).run()
    scale = json.loads((out / "study.json").read_text())["spec"]["scale"]
    assert scale["target_hardware"]["description"]["nodes"] == 10 and scale["core_speed_estimate"]["high"] > 0
    assert {r["status"] for r in map(json.loads, (out / "runs.jsonl").read_text().splitlines())} == {"ok"}
    probed(out)
    (tmp_path / "my-cluster.toml").rename(tmp_path / "elsewhere.toml")
    tierbench_main("report", out, check=True)
    report = (out / "report.md").read_text()
    assert "comes from an ESTIMATE of core_speed" in report and "hdd-7200: 1280 KiB writes, 128 KiB reads (cited rule" in report
    assert "(data / page cache = 0.42, as there)" in report  # (not "0")
    advice = json.loads(tierbench_main("advise", out, "--json", check=True).stdout)
    assert (advice[0]["hardware"], advice[0]["hardware_from"]) == ("my-cluster", "scale target")
    predicted = json.loads(tierbench_main("predict", out, "--json", check=True).stdout)["predictions"]
    assert {(p["hardware"], p["nodes"]) for p in predicted} == {("my-cluster", 10)}
    for p in predicted:  # the estimate's range is the scale model's (the resource model uses no core_speed)
        if p["method"] == "scale model":
            assert p["seconds_low"] < p["seconds"] < p["seconds_high"] and "ESTIMATE" in p["interval_from"]
            assert p["interval"][0] <= p["seconds_low"] and p["seconds_high"] <= p["interval"][1]
        else:
            assert "seconds_low" not in p


def probed(out: Path) -> None:
    """A probe.json for the study's device, as `tierbench probe` writes one (fio's figures, a named stand-in: the
    what-if model needs devices of known speed, and fio is not what this test is about)."""
    dirs = json.loads((out / "study.json").read_text())["storage_map"]["dirs"]
    probe = {d["device"]: {"device": d["device"], "dirs": [path], "tests": {
        "seq_write": {"mb_s": 400.0, "iops": 400.0}, "seq_read": {"mb_s": 500.0, "iops": 500.0},
        "rand_read_64k": {"mb_s": 250.0, "iops": 4000.0, "p99_latency_ms": 2.0}}}
        for path, d in dirs.items()}
    (out / "probe.json").write_text(json.dumps(probe))


@pytest.mark.e2e
def test_a_small_scaled_study_to_a_users_own_target(tmp_path):
    """A real scaled study (Hadoop's TeraGen and TeraSort, 64 MB, one repeat) of MY_CLUSTER on its emulated HDDs:
    no calibration (core_speed estimated from the CPUs' scores, or 1 where this machine's is not in the table), the
    drives at the target's figures x k, every run ok, and the report's scale section saying so."""
    from conftest import can_emulate_or_skip, tierbench, write_spec

    can_emulate_or_skip("the study's drives are emulated")
    (tmp_path / "my-cluster.toml").write_text(MY_CLUSTER)
    body = SPEC.replace('name = "own-target"', f'name = "own-target-e2e-{os.getpid()}"')
    body = body[:body.index("[storage.hybrid]")] + body[body.index("[[workloads]]"):]
    out = tierbench("run", write_spec(tmp_path / "s.toml", body), "--out", tmp_path / "r", timeout=900)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "core_speed" in out.stderr and "ESTIMATE" in out.stderr and not (tmp_path / "r" / "calibration").exists()
    scale = json.loads((tmp_path / "r" / "study.json").read_text())["spec"]["scale"]
    runs = [json.loads(line) for line in (tmp_path / "r" / "runs.jsonl").read_text().splitlines()]
    assert {r["status"] for r in runs} == {"ok"} and {r["workload"] for r in runs} == {"teragen", "terasort"}
    (config,) = json.loads((tmp_path / "r" / "study.json").read_text())["spec"]["storage"]
    figures = config["emulated"]["data"][0]["figures"]  # the target's 12 HDDs x k, as the throttle held them
    assert figures["read_mb_s"] == pytest.approx(12 * 200 * scale["rate_factor"])
    report = (tmp_path / "r" / "report.md").read_text()
    assert "## Scale model" in report and "my-cluster" in report and "ESTIMATE" in report


def test_calibration_json_and_runs_output_say_where_the_targets_rate_comes_from(tmp_path, monkeypatch, capsys):
    from tierbench.scale import calibration
    from tierbench.store.derived import CALIBRATION_FILE

    # (the calibration's runs stood in for: what is checked is what it records beside them)
    monkeypatch.setattr(calibration, "_measure", lambda *a, **k: Measured((5.0, 5.2, 5.4)))
    cluster = on_target(tmp_path, 'results = "runs/on-target"\n')
    spec = own_spec(tmp_path, cluster)
    raw = tomllib.loads(SPEC)
    (tmp_path / "r").mkdir()  # (the calibration's own study makes it)
    out = calibration.calibrated(spec, raw, tmp_path, tmp_path / "r", ["tierbench"], resume=False)
    kept = json.loads((tmp_path / "r" / CALIBRATION_FILE).read_text())
    assert kept["runs_s"] == [5.0, 5.2, 5.4] and kept["rate"]["rate_from"] == "measured on the target"
    assert kept["rate"]["mb_s_per_thread"] == pytest.approx(spec.scale.calibration.target_mb_s_per_thread)
    assert "terasort on ssd" in kept["rate"]["source"]
    said = capsys.readouterr().err
    assert f"MB/s per thread on my-cluster (measured on the target: {tmp_path / 'runs' / 'on-target'}" in said
    assert out.scale.calibration.rate_from == "measured on the target" and out.scale.calibration_measured
