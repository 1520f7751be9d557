"""The report on emulated devices: what bound a run, judged against the throttle's limits (a throttled loop device's
util % stays low), and the device's ceiling from its fio check. On the committed real results of an emulated
`tierbench quickstart` (tests/fixtures/quickstart-emulated-results: all-HDD, HDD + SATA SSD, all-SSD, 3 repeats,
recorded at commit 78f86d2, before the throttle's limits were stored) and on hand-made samples. Fast: no JVM."""

import re
import shutil
from pathlib import Path

import pytest

from conftest import as_run
from tierbench.analysis.observation import observe as _observe
from tierbench.report.build import StudyResults
from tierbench.report.sections.runs import CEILING_HEAD, RUN_HEAD
from tierbench.storage.emulation import PROFILES, throttle_limits
from tierbench.store import ResultsDir

FIXTURE = Path(__file__).parent / "fixtures" / "quickstart-emulated-results"
MiB = 1 << 20


def observe(rec, *args, **kwargs):
    return _observe(as_run(rec), *args, **kwargs)


@pytest.fixture(scope="module")
def quickstart_results(tmp_path_factory) -> StudyResults:
    """The emulated quickstart's results, its report document built once for the module's tests, which only read
    it (building draws every chart)."""
    d = tmp_path_factory.mktemp("q") / "results"
    shutil.copytree(FIXTURE, d)
    return StudyResults.load(d)


@pytest.fixture(scope="module")
def quickstart(quickstart_results):
    """(the stored study, the report's Every-run rows by run key) of the emulated quickstart."""
    table = next(t for t in quickstart_results.document.tables() if t.head == RUN_HEAD)
    return quickstart_results.stored, {row[0]: dict(zip(RUN_HEAD, row)) for row in table.rows}


def _job_rate(run, dev: str, counter: str) -> float:
    """MB/s (or IO/s) the device moved during the job (the writeback after it left out), from the raw samples."""
    s = run.samples
    job = [i for i, tag in enumerate(s["tags"]) if tag != "writeback"]
    starts = [s["start_ms"]] + s["t_ms"][:-1]
    seconds = sum(s["t_ms"][i] - starts[i] for i in job) / 1000
    return sum(s["devices"][dev][counter][i] for i in job) / seconds


def _data_device(stored, run) -> str:
    return stored.study.storage_map["dirs"][run.storage["data"][0]]["device"]


def test_a_run_at_its_emulated_devices_throttle_is_bound_by_that_limit(quickstart):
    stored, rows = quickstart
    checked = 0
    for run in stored.runs:
        if run.workload not in ("teragen", "teravalidate"):  # (these only write, or only read, their data device)
            continue
        dev = _data_device(stored, run)
        profile = stored.study.emulated[dev]["profile"]
        direction, counter = ("write", "wr_bytes") if run.workload == "teragen" else ("read", "rd_bytes")
        limit = profile[f"{direction}_mb_s"]
        share = _job_rate(run, dev, counter) / MiB / limit
        bound = rows[run.run_key]["bound by"]
        assert share >= 0.8, (run.run_key, share)  # every one of them ran at the throttle's pace
        m = re.fullmatch(rf"{dev} at its emulated {profile['name']} limit \((\d+)% of {limit:.0f} MB/s {direction}\)", bound)
        assert m, (run.run_key, bound)
        assert abs(int(m.group(1)) / 100 - share) <= 0.03, (run.run_key, bound, share)
        checked += 1
    assert checked == 18
    # no run is judged by its loop device's util %: the throttle, not the device, holds the requests back
    assert not [r for r in rows.values() if re.search(r"busiest device loop\d+ \d+%", r["bound by"])]


def test_the_io_profile_gives_each_phase_the_emulated_devices_share_of_its_limits(quickstart_results):
    sec = next(s for s in quickstart_results.document.all_sections() if s.title == "r1/hybrid/terasort")
    table = next(b for b in sec.blocks if hasattr(b, "rows"))
    cells = {(row[0], row[1].split(" ")[0]): row[-1] for row in table.rows}
    assert table.head[-1] == "of the emulated limit"
    # the map reads the input from the HDD at its pace while the SSD takes the shuffle far below its own
    assert re.fullmatch(r"(8\d|9\d)% of 30 MB/s read", cells[("map", "loop1")]), cells
    assert int(cells[("map", "loop2")].split("%")[0]) < 40 and "76 MB/s write" in cells[("map", "loop2")]


def test_the_ceiling_of_an_emulated_device_is_its_fio_check(quickstart):
    stored, rows = quickstart
    for run in stored.runs:
        dev = _data_device(stored, run)
        emu = stored.study.emulated[dev]
        measured = {"teragen": emu["measured"]["write_mb_s"], "teravalidate": emu["measured"]["read_mb_s"],
                    "terasort": min(emu["measured"]["read_mb_s"], emu["measured"]["write_mb_s"])}[run.workload]
        cell = rows[run.run_key][CEILING_HEAD]
        m = re.fullmatch(rf"(\d+)% \((\d+) of (\d+) MB/s \(\S+ on {dev}: fio check of the emulated {emu['profile']['name']}\)\)", cell)
        assert m, (run.run_key, cell)
        achieved = run.metrics["throughput_mb_s"]
        assert (int(m.group(2)), int(m.group(3))) == (round(achieved), round(measured))
        assert int(m.group(1)) == round(100 * achieved / measured)


# -- hand-made samples of one emulated device ------------------------------------------------------------------

HDD = {"name": "hdd", "read_mb_s": 30.0, "write_mb_s": 20.0, "read_iops": 50.0, "write_iops": 50.0}
SMAP = {"dirs": {"/d": {"device": "loop7"}}}


def _samples(read_mb=(0, 0, 0, 0), write_mb=(19, 19, 19, 19), write_ios=None, io_ms=10, cpu=20.0):
    """Four 1-s intervals of a job on loop7: MB read and written in each, 1 MiB per IO unless said."""
    n = len(write_mb)
    cols = {"rd_bytes": [x * MiB for x in read_mb], "wr_bytes": [x * MiB for x in write_mb], "rd_ios": list(read_mb),
            "wr_ios": list(write_ios or write_mb), "rd_merges": [0] * n, "wr_merges": [0] * n, "io_ms": [io_ms] * n}
    return {"interval_s": 1.0, "start_ms": 0, "t_ms": [1000 * (i + 1) for i in range(n)], "tags": ["job"] * n,
            "devices": {"loop7": cols}, "cpu": {"user": [cpu] * n, "system": [0.0] * n, "iowait": [0.0] * n,
                                              "idle": [100 - cpu] * n, "other": [0.0] * n}}


def _record(samples, throughput=19.0):
    return {"run_key": "r1/hdd/teragen", "workload": "teragen", "samples": samples, "page_cache_dropped": True,
            "storage": {"data": ["/d"], "intermediate": ["/d"]}, "details": {"phases": []},
            "metrics": {"data_mb": 76.0, "throughput_mb_s": throughput}}


def _emulated(**entry):
    return {"loop7": {"name": "t-hdd", "profile": HDD, **entry}}


def test_a_device_writing_at_its_throttle_is_bound_by_it_though_its_util_is_low():
    rec = _record(_samples())  # 19 of 20 MB/s written, the device 1% busy
    assert observe(rec, SMAP, None, cores=2, emulated=_emulated()).character == \
        "loop7 at its emulated hdd limit (95% of 20 MB/s write)"
    assert observe(rec, SMAP, None, cores=2).character.startswith("mixed")  # (what the util % said of it)


def test_small_writes_meet_the_iops_limit_the_throttle_applied():
    # 4 KiB writes: 0.2 MB/s, far from the bandwidth; 76 IO/s against the 80 write IOPS the throttle applies to an
    # hdd of 20 MB/s (4 per write MB/s: the profile's 50 would cap a sequential stream below its bandwidth)
    assert throttle_limits(PROFILES["hdd"].scaled(0.1))["write_iops"] == pytest.approx(4 * 19)
    rec = _record(_samples(write_mb=(0.3,) * 4, write_ios=(76,) * 4))
    assert observe(rec, SMAP, None, cores=2, emulated=_emulated()).character == \
        "loop7 at its emulated hdd limit (95% of 80 write IOPS)"


def test_the_limits_recorded_with_the_study_are_the_ones_judged_by():
    limits = {"read_mb_s": 30.0, "write_mb_s": 38.0, "read_iops": 60.0, "write_iops": 152.0}
    o = observe(_record(_samples()), SMAP, None, cores=2, emulated=_emulated(limits=limits))
    assert o.character == "mixed (20% CPU, busiest device loop7 at 50% of its emulated hdd limit (38 MB/s write))"


def test_a_busy_cpu_with_the_device_far_below_its_limit_is_cpu_bound():
    o = observe(_record(_samples(write_mb=(4,) * 4, cpu=90.0)), SMAP, None, cores=2, emulated=_emulated())
    assert o.character == "CPU-bound (90% CPU, busiest device loop7 at 20% of its emulated hdd limit (20 MB/s write))"


def test_reading_then_writing_each_at_the_throttle_is_at_the_limit_throughout():
    # on average 48% of the read limit and 48% of the write limit; in each second, at one of them
    rec = _record(_samples(read_mb=(29, 29, 0, 0), write_mb=(0, 0, 19, 19)))
    assert observe(rec, SMAP, None, cores=2, emulated=_emulated()).character == \
        "loop7 at its emulated hdd limit (96% of 30 MB/s read or 20 MB/s write)"


def test_reading_and_writing_at_once_on_a_time_shared_device_adds_the_two_loads():
    # each second half the read limit and half the write limit: one drive's whole time where they share it
    rec = _record(_samples(read_mb=(15,) * 4, write_mb=(10,) * 4))
    assert observe(rec, SMAP, None, cores=2, emulated=_emulated()).character.startswith("mixed")  # (50%: separate budgets)
    assert observe(rec, SMAP, None, cores=2, emulated=_emulated(time_shared=True)).character == \
        "loop7 at its emulated hdd limit (100% of 30 MB/s read or 20 MB/s write)"


@pytest.mark.parametrize("entry, probe, ceiling, source", [
    ({"measured": {"read_mb_s": 29.0, "write_mb_s": 19.5}}, None, 19.5, ": fio check of the emulated hdd"),
    ({}, None, 20.0, ": the emulated hdd's throttle (no fio check stored)"),
    ({"measured": {"read_mb_s": 29.0, "write_mb_s": 19.5}}, {"loop7": {"tests": {"seq_write": {"mb_s": 25.0}}}}, 25.0, ""),
])
def test_an_emulated_devices_ceiling_is_the_probe_else_its_fio_check_else_its_throttle(entry, probe, ceiling, source):
    o = observe(_record(_samples()), SMAP, probe, cores=2, emulated=_emulated(**entry))
    assert o.efficiency == pytest.approx(19.0 / ceiling)
    assert o.ceiling_note == f"19 of {ceiling:.0f} MB/s (seq_write on loop7{source})"


def test_a_study_json_with_unreadable_limits_is_refused_naming_them(tmp_path):
    from tierbench.errors import UserError

    d = tmp_path / "r"
    shutil.copytree(FIXTURE, d)
    study = ResultsDir(d).study()
    study["emulated"]["loop0"]["limits"] = {"read_mb_s": "fast"}
    (d / "study.json").write_text(__import__("json").dumps(study))
    with pytest.raises(UserError, match=r"limits"):
        ResultsDir(d).load()


# -- what a study records (root, loop devices and the blkio controller: e2e) --------------------------------------

@pytest.mark.e2e
def test_a_study_records_the_limits_its_throttle_applied(tmp_path):
    """study.json's `emulated` holds the limits as the blkio throttle holds them while the runs run (its IOPS
    raised above the profile's), which the report judges the runs by."""
    import json
    import os
    import tomllib

    from conftest import can_emulate_or_skip
    from tierbench.engines.fake import FakeEngine
    from tierbench.spec import parse_spec
    from tierbench.scale.hooks import study_runner
    from tierbench.storage import emulation

    can_emulate_or_skip("there is no throttle to record")
    jobs = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
    spec = parse_spec(tomllib.loads(f"""
name = "limits-{os.getpid()}"
repeats = 1
drop_caches = "never"
[sampling]
enabled = false
[storage.hdd]
data = {{ emulate = "hdd", size = "256MiB" }}
[[workloads]]
name = "teragen"
rows = 20003
tasks = 2
"""), "l.toml", tmp_path)
    throttle = {}

    def read_throttle(run_key, step):  # (the devices are up only while the study runs)
        for key in ("read_bps_device", "write_bps_device", "read_iops_device", "write_iops_device"):
            for line in (emulation.BLKIO / f"blkio.throttle.{key}").read_text().split("\n"):
                if line.strip():
                    throttle[(line.split()[0], key)] = int(line.split()[1])

    study_runner(spec, tmp_path / "r", ["t"], engines={"spark": FakeEngine(jobs)}, on_step=read_throttle).run()
    (entry,) = json.loads((tmp_path / "r" / "study.json").read_text())["emulated"].values()
    applied = {k: throttle[(entry["major_minor"], key)] for k, key in (
        ("read_mb_s", "read_bps_device"), ("write_mb_s", "write_bps_device"),
        ("read_iops", "read_iops_device"), ("write_iops", "write_iops_device"))}
    limits = entry["limits"]
    assert applied["read_mb_s"] == int(limits["read_mb_s"] * MiB) and applied["write_mb_s"] == int(limits["write_mb_s"] * MiB)
    assert applied["read_iops"] == int(limits["read_iops"]) and applied["write_iops"] == int(limits["write_iops"])
    assert limits["write_iops"] > entry["profile"]["write_iops"]  # (a scaled hdd's 27 IOPS would cap its stream)
    assert not emulation.devices_under(spec.storage[0].local_data)  # brought down after the study


def test_report_md_holds_the_node_check_table_the_html_has(quickstart_results):
    """Under report.md's Node check heading, the same table as report.html's: its head, and each row as GFM table
    cells (a cell's own | escaped, so every row splits into the head's cells). (Guards a reported defect -- the
    heading without its table in report.md -- that these real results did not reproduce.)"""
    from tierbench.analysis.node_check import folded
    from tierbench.report import EXPORTERS
    from tierbench.report.sections.environment import NODE_CHECK_HEAD

    d = FIXTURE  # (only read)
    lines = EXPORTERS["md"].render(quickstart_results).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("### Node check"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("#"))
    table = [line for line in lines[start:end] if line.startswith("|")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in table]
    assert cells[0] == NODE_CHECK_HEAD and set(cells[1]) == {"---"}
    assert len(cells) - 2 == len(folded(ResultsDir(d).study()["node_check"]["checks"])) > 5  # (one row per finding)
    assert all(len(row) == len(NODE_CHECK_HEAD) for row in cells)
    html = EXPORTERS["html"].render(quickstart_results)
    node_check_html = html[html.index("Node check <span"):html.index("<h2>Every run")]
    assert node_check_html.count("<tr>") == len(cells) - 1  # (the head and each row)


def test_a_writer_of_copies_is_held_against_the_ceiling_with_every_copy(quickstart):
    """A scale model's TeraGen with copies = 3 puts three bytes on its device per byte of data: its share of the
    ceiling counts all three, and the cell says so."""
    import dataclasses

    from tierbench.analysis.emulated import emulated_devices
    from tierbench.analysis.observation import efficiency

    stored, _ = quickstart
    run = next(r for r in stored.runs if r.workload == "teragen")
    dev, devices = _data_device(stored, run), emulated_devices(stored.study.emulated)
    one, note_one = efficiency(run, None, [dev], devices)
    three, note = efficiency(dataclasses.replace(run, params={**run.params, "copies": 3}), None, [dev], devices)
    assert three == pytest.approx(3 * one) and "3 copies of" in note and "copies" not in note_one
