"""The what-if model on recorded runs (tests/fixtures/model-results: the SanDisk shape -- all-SSD, all-HDD,
HDD + SSD intermediate, 2 drives per JBOD -- on emulated devices, DFSIO and the Tera suite at 64 MB, recorded
with tests/fixtures/model-fixture.toml), and its parts on small constructed cases."""

import json
import math
import shutil
import statistics
from pathlib import Path

import pytest

from conftest import one_error_line, tierbench_main
from tierbench.errors import UserError
from tierbench.model import measured
from tierbench.model.hardware import Drive, load_hardware
from tierbench.model.predict import Machine, Model, Pool, machine_of, modelled_seconds, phase_times
from tierbench.model.profile import PhaseProfile
from tierbench.model.published import compare
from tierbench.model.whatif import predict, study_model

FIXTURE = Path(__file__).parent / "fixtures" / "model-results"
HDD = Drive("hdd", 100, 100, 100, 100, "test", seeks=False)  # a throttle's: streams cost no seek (test_rules.py has that rule)
SSD = Drive("ssd", 500, 500, 50_000, 50_000, "test")


@pytest.fixture(scope="module")
def recorded():
    return measured.load(FIXTURE)


def test_profiles_split_device_bytes_by_role(recorded):
    profiles, machines, _ = recorded
    assert set(machines) == {"all-ssd", "all-hdd", "hybrid"}
    sort = next(p for p in profiles if p.config == "hybrid" and p.workload == "terasort")
    inter = sum(ph.bytes["intermediate.write"] for ph in sort.phases)
    data_w = sum(ph.bytes["data.write"] for ph in sort.phases)
    # the hybrid's SSD took the shuffle, its HDDs the sorted output: both about the 64 MB sorted
    assert 40e6 < inter < 120e6 and 40e6 < data_w < 120e6, (inter, data_w)
    assert sort.devices["intermediate"] != sort.devices["data"] and not sort.intermediate_on_data
    gen = next(p for p in profiles if p.config == "all-ssd" and p.workload == "teragen")
    assert sum(ph.bytes["intermediate.write"] for ph in gen.phases) < 0.1 * sum(ph.bytes["data.write"] for ph in gen.phases)
    assert all(ph.cpu_s > 0 and ph.tasks >= 1 for ph in gen.phases)


def test_measured_machines_know_their_emulated_drives(recorded):
    _, machines, _ = recorded
    hdd = machines["all-hdd"]
    assert len(hdd.pools) == 1 and hdd.pools[0].count == 2 and hdd.pools[0].shares == {"data": 1.0, "intermediate": 1.0}
    hybrid = machines["hybrid"]
    assert sorted((p.count, tuple(p.shares)) for p in hybrid.pools) == [(1, ("intermediate",)), (2, ("data",))]
    ssd_write = machines["all-ssd"].pools[0].drive.write_mb_s
    assert ssd_write / hdd.pools[0].drive.write_mb_s == pytest.approx(500 / 190, rel=0.01)  # the profiles' ratio


def test_profiled_on_the_ssd_it_predicts_the_emulated_hdd_and_hybrid_within_15_percent(recorded):
    """Validation 1 of the issue: profile on the fast device, predict the slow configurations, compare."""
    profiles, machines, _ = recorded
    model = Model(profiles, machines).calibrate(["all-ssd"])
    rows = []
    for job in model.labels():
        for config in ("all-hdd", "hybrid"):
            p = model.predict(job, machines[config])
            rows.append((job, config, p.seconds, p.measured_s, p.seconds / p.measured_s - 1))
        own = model.predict(job, machines["all-ssd"])
        assert own.seconds == pytest.approx(own.measured_s, rel=0.15)  # it reproduces what it was calibrated on
    for r in rows:
        print(f"{r[0]:12s} {r[1]:8s} predicted {r[2]:6.2f} s measured {r[3]:6.2f} s {r[4]:+.0%}")
    errors = [abs(r[4]) for r in rows]
    assert statistics.median(errors) <= 0.15, rows
    # the slow configurations are predicted slower, as they were: the model sees the devices, not only CPU
    for job in model.labels():
        assert model.predict(job, machines["all-hdd"]).seconds > model.predict(job, machines["all-ssd"]).seconds


def test_the_published_studies_ratios_from_our_scaled_runs(recorded):
    """Validation 2: the SanDisk cluster (as published) and our 64 MB runs -> the papers' runtimes and ratios at 1 TB.
    These runs are no scale model of that cluster, so every figure comes from the resource model."""
    model, _, _ = study_model(FIXTURE, ["all-ssd"])
    out = compare(model, [FIXTURE], 0.1)
    rows = out["ratios"]
    assert {(r["workload"], r["compared"]) for r in rows} >= {("dfsio-read", "all_ssd / all_hdd"), ("terasort", "all_ssd / all_hdd"),
                                                               ("terasort", "hdd_plus_ssd_intermediate / all_hdd")}
    assert {r["method"] for r in out["runtimes"]} == {"resource model"}
    print(f"\n{'study':24s} {'workload':12s} {'compared':38s} published predicted")
    for r in rows:
        print(f"{r['study']:24s} {r['workload']:12s} {r['compared']:38s} {r['published_ratio']:9.2f} {r['predicted_ratio']:9.2f}")
    by = {(r["workload"], r["compared"]): r for r in rows}
    # all-SSD against all-HDD: the papers measured 0.26 to 0.44; the model has every one under 0.5
    for (workload, compared), r in by.items():
        if compared == "all_ssd / all_hdd":
            assert r["predicted_ratio"] < 0.5, r
            assert r["interval"][0] < r["predicted_ratio"] < r["interval"][1]  # +/- the model's 10%, both ways
    # every runtime comes out short of the paper's: what a real cluster's HDFS path loses (its drives moved 37-48% of
    # their figures, SSDs as HDDs: docs/model.md section 4) is not modelled. On all-HDD the drives' seeks are
    # charged per DataNode read-ahead (4 MiB) and writeback run, so those come within a factor 2.2; on SSD the
    # CPU per byte is borrowed from this machine's Spark runs for a MapReduce cluster (said in each row)
    for r in out["runtimes"]:
        assert r["predicted_s"] < r["published_s"], r
        if r["config"] == "all_hdd":
            assert abs(math.log(r["predicted_s"] / r["published_s"])) < math.log(2.2), r
        if r["workload"] != "total":  # (the sum of the jobs)
            assert "CPU per byte borrowed from spark runs: the target runs hadoop" in r["how"], r
    # HDD + SSD for intermediate data: TeraSort faster, TeraGen not (the paper: 0.52 and 0.96); MapReduce's spill
    # and merge passes at the target (model/rules.py) make the TeraSort gain larger than Spark's single write of
    # its shuffle did (0.83 before the rules; 0.71 with them, calibrated on all-SSD alone)
    assert by[("terasort", "hdd_plus_ssd_intermediate / all_hdd")]["predicted_ratio"] < 0.8
    assert by[("teragen", "hdd_plus_ssd_intermediate / all_hdd")]["predicted_ratio"] > 0.95
    # the summary is the rows' own arithmetic
    errs = sorted(abs(r["error"]) for r in rows if r["label"] == "predicted")  # (the totals' ratios are sums)
    assert out["summary"]["ratios"]["median_abs_error"] == pytest.approx(statistics.median(errs))
    assert out["summary"]["ratios"]["within"] == sum(e <= 0.2 for e in errs)


def test_a_jbod_serves_no_more_drives_than_tasks_run_at_once():
    ph = PhaseProfile("write", 10, 2, 2, {"data.write": 600e6}, {"data.write": 1024}, {})
    six = Machine("jbod", 1, 2, 1e9, 1.0, (Pool(HDD, 6, {"data": 1.0}),))
    # 2 tasks on 2 cores write to 2 of the 6 drives: 600 MB at 2 x 100 MB/s
    assert phase_times(ph, six)["hdd (data)"] == pytest.approx(3.0)
    many = PhaseProfile("write", 10, 2, 12, {"data.write": 600e6}, {"data.write": 1024}, {})
    assert phase_times(many, six.with_nodes(1))["hdd (data)"] == pytest.approx(3.0)  # still 2 cores: 2 at once
    wide = Machine("jbod", 1, 8, 1e9, 1.0, (Pool(HDD, 6, {"data": 1.0}),))
    assert phase_times(many, wide)["hdd (data)"] == pytest.approx(1.0)


def test_small_requests_meet_iops_and_waves_overlap_the_resources():
    m = Machine("one", 1, 2, 1e9, 1.0, (Pool(HDD, 1, {"data": 1.0, "intermediate": 1.0}),))
    shuffle = PhaseProfile("fetch", 1, 0.0, 2, {"intermediate.read": 4096 * 1000}, {"intermediate.read": 4}, {})
    assert phase_times(shuffle, m)["hdd (data+intermediate)"] == pytest.approx(10.0)  # 1000 reads at 100 IOPS
    # one wave: compute then IO (the sum); 50 waves of the same work: close to the slowest alone
    one = PhaseProfile("p", 1, 8.0, 2, {"data.write": 400e6}, {"data.write": 1024}, {})
    assert modelled_seconds(_profile([one]), m)[0] == pytest.approx(4 + 4)
    waves = PhaseProfile("p", 1, 8.0, 100, {"data.write": 400e6}, {"data.write": 1024}, {})
    assert modelled_seconds(_profile([waves]), m)[0] == pytest.approx(4 + 4 / 50)


def test_more_nodes_share_the_work_and_replicas_cross_the_network():
    hw = load_hardware("sandisk-all-ssd")
    ph = PhaseProfile("reduce", 1, 12.0, 144, {"data.write": 6e9}, {"data.write": 1024}, {}, shuffle_bytes=6e9,
                      output_bytes=6e9)
    six, twelve = phase_times(ph, machine_of(hw)), phase_times(ph, machine_of(hw.with_nodes(12)))
    drives = "sata-ssd-2014 (data+intermediate)"
    assert twelve[drives] == pytest.approx(six[drives] / 2)
    # 5/6 of the shuffle and 2 of 3 replicas cross the 10 Gb/s links, per node
    assert six["network"] == pytest.approx((6e9 * 5 / 6 + 6e9 * 2) / 6 / 1.25e9)
    # three copies on the drives: three times the bytes of one
    one_copy = Machine(hw.name, 6, 12, 1250, 1.0, machine_of(hw).pools)
    assert six[drives] == pytest.approx(3 * phase_times(ph, one_copy)[drives])


def test_the_overhead_is_a_line_in_the_size_when_sizes_differ():
    small = _profile([PhaseProfile("p", 1, 2.0, 2, {}, {}, {})], size=1e9, wall=3.0)
    big = _profile([PhaseProfile("p", 1, 4.0, 2, {}, {}, {})], size=2e9, wall=5.0)
    m = Machine("cpu", 1, 2, 1e9, 1.0, (Pool(SSD, 1, {"data": 1.0}),))
    model = Model([small, big], {"c": m}).calibrate()
    # modelled 1 s and 2 s: overheads 2 and 3 -> 1 + 1 per GB; at 4 GB: 4 s modelled + 5 s
    assert model.predict("w", m, 4e9).seconds == pytest.approx(9.0)


def _profile(phases, size=1e9, wall=1.0):
    from tierbench.model.profile import RunProfile
    return RunProfile("r", "w", "w", "c", "c", size, wall, 2, {"data": ["sda"], "intermediate": ["sda"]}, phases)


# -- the command -------------------------------------------------------------------------------------------

@pytest.fixture
def results(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "r")
    return tmp_path / "r"


def test_predict_prints_stores_and_the_report_shows_it(results):
    out = tierbench_main("predict", results, "--hardware", "sandisk-all-hdd", "--hardware", "sandisk-all-ssd",
                    "--size", "1TB", "--published")
    assert out.returncode == 0, out.stderr
    assert "reproducing the measured configurations (each from the others): median |error|" in out.stdout
    assert "sandisk-all-ssd" in out.stdout and "1 TB" in out.stdout and "published  0.44" in out.stdout
    stored = json.loads((results / "predictions.json").read_text())  # (beside the runs, not in study.json: issue 32)
    assert {r["hardware"] for r in stored["predictions"]} == {"sandisk-all-hdd", "sandisk-all-ssd"}
    assert stored["validation"]["hardware_median_abs_error"] <= 0.15
    hdd = {r["job"]: r for r in stored["predictions"] if r["hardware"] == "sandisk-all-hdd"}
    ssd = {r["job"]: r for r in stored["predictions"] if r["hardware"] == "sandisk-all-ssd"}
    assert hdd["terasort"]["usd_per_job"] > ssd["terasort"]["usd_per_job"]  # the papers' finding, from the model
    assert hdd["terasort"]["usd_per_job"] == pytest.approx(37561 / (86400 / hdd["terasort"]["seconds"] * 365 * 3))
    assert tierbench_main("report", results).returncode == 0
    md = (results / "report.md").read_text()
    assert "## What-if: predicted on other hardware" in md and "How the model reproduced the measured runs" in md
    html = (results / "report.html").read_text()
    assert "id='chart-whatif'" in html and html.count("<svg") >= 2


def test_predict_as_json_with_more_nodes_scales_the_price(results):
    out = tierbench_main("predict", results, "--hardware", "sandisk-all-ssd", "--nodes", "12", "--json")
    rows = json.loads(out.stdout)["predictions"]
    assert {r["nodes"] for r in rows} == {12} and {r["price_usd"] for r in rows} == {46567 * 2}


@pytest.mark.parametrize("args, words", [
    ((), "give a results directory and at least one --hardware"),
    (("--hardware", "nowhere.toml"), "nowhere.toml: no such hardware description file"),
    (("--hardware", "sandisk-all-ssd", "--size", "lots"), "lots"),
    (("--hardware", "sandisk-all-ssd", "--nodes", "0"), "--nodes 0"),
    (("--hardware", "sandisk-all-ssd", "--calibrate", "floppy"), "--calibrate floppy: not a configuration"),
])
def test_bad_input_is_one_line(results, args, words):
    one_error_line(tierbench_main("predict", *((results,) if args else ()), *args), words)


def test_a_study_of_devices_of_unknown_speed_says_what_would_calibrate_it(tmp_path):
    shutil.copytree(Path(__file__).parent / "fixtures" / "engines-results", tmp_path / "r")
    with pytest.raises(UserError) as e:
        predict(tmp_path / "r", [load_hardware("sandisk-all-ssd")])
    assert "no configuration's devices have known speeds" in str(e.value) and "tierbench probe" in str(e.value)


def test_the_drive_catalog_is_listed_with_sources():
    out = tierbench_main("predict", "--drives")
    assert out.returncode == 0 and "hdd-7200" in out.stdout and "Exos" in out.stdout


# -- advise ------------------------------------------------------------------------------------------------

def test_the_split_that_loads_each_drive_by_its_speed_is_the_cloudera_studys():
    from tierbench.model.advise import split_dirs

    # Cloudera 2014: a PCIe SSD of ~1.3 GB/s beside 6 HDDs of ~120 MB/s; the study found 10 local dirs best
    k, share = split_dirs(1300, 120, 6)
    assert k in (10, 11) and share == pytest.approx(1300 / (1300 + 720))
    assert split_dirs(100, 100, 1)[0] == 1  # equal drives: one dir each


def test_advice_names_the_shuffle_heavy_job_and_sizes_the_ssd(results):
    out = tierbench_main("advise", results, "--size", "1TB", "--json")
    assert out.returncode == 0, out.stderr
    items = {a["topic"]: a for a in json.loads(out.stdout)}
    assert {"data tier", "intermediate tier", "split the SSD", "intermediate SSD size"} <= set(items)
    inter = items["intermediate tier"]
    assert "terasort" in inter["advice"] and "teragen" not in inter["advice"]  # only the job that shuffles
    assert any(n.startswith("terasort:") for n in items["intermediate SSD size"]["numbers"])
    assert "per node" in items["intermediate SSD size"]["advice"]
    text = tierbench_main("advise", results)
    assert text.returncode == 0 and "split the SSD: " in text.stdout


def test_a_shuffle_larger_than_memory_is_read_back_from_the_drives():
    from dataclasses import replace

    from tierbench.model.predict import shuffle_from_drives

    # measured small: the shuffle was written (synced) and read back from memory (no intermediate reads)
    write = PhaseProfile("map", 1, 1.0, 2, {"intermediate.write": 1e9}, {"intermediate.write": 512}, {})
    fetch = PhaseProfile("reduce", 1, 1.0, 2, {"intermediate.read": 0.0}, {}, {}, shuffle_bytes=1e9)
    prof = _profile([write, fetch])
    big = Machine("big", 1, 2, 1e9, 1.0, (Pool(HDD, 1, {"data": 1.0, "intermediate": 1.0}),), memory_bytes=64e9)
    assert shuffle_from_drives(prof, big, 1.0)[1].bytes["intermediate.read"] == 0.0  # 1 GB fits in 64 GB
    # 2.5 GB of RAM less 2 task heaps of 1 GB: a 0.5 GB page cache keeps half of the 1 GB shuffle, the other
    # half comes from the drives, in the requests it was written in
    small = replace(big, memory_bytes=2.5e9, task_heap=1e9)
    fetched = shuffle_from_drives(prof, small, 1.0)[1]
    assert fetched.bytes["intermediate.read"] == pytest.approx(0.5e9) and fetched.io_kib["intermediate.read"] == 512
    assert modelled_seconds(prof, small)[0] > modelled_seconds(prof, big)[0] + 4  # 0.5 GB at 100 MB/s more
