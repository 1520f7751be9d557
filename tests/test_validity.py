"""What the figures measure, decided before a study runs: the working set against memory, configurations on
the same device, a `shared` path that is not a network file system, and durability. Fast: specs, machine facts
and storage maps as the runner stores them; the runner's warnings with the FakeEngine (no JVM)."""

import json
import textwrap
import tomllib
from pathlib import Path

from conftest import as_runs
from tierbench.analysis.stats import Comparison, analyse
from tierbench.analysis.validity import (durability_lines as durability_lines_of_runs, placement, planned_sizes, same_device_lines, shared_fs_lines,
                                         working_set_lines, working_sets)
from tierbench.engines.fake import FakeEngine
from tierbench.report.sections.findings import headline as _headline
from tierbench.study.runner import StudyRunner
from tierbench.spec import parse_spec

GB = 10**9  # (sizes: powers of 1000, units.py)
MACHINE = {"memory_bytes": 24 * GB}
JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())


def spec(tmp_path, body: str, storage: str | None = None, top: str = "") -> dict:
    storage = storage or f"""
        [storage.hdd]
        data = ["{tmp_path}/a"]
        [storage.ssd]
        data = ["{tmp_path}/b"]
        """
    raw = tomllib.loads(textwrap.dedent(f'name = "v"\n{top}\n{storage}\n') + textwrap.dedent(body))
    return parse_spec(raw, "v.toml", tmp_path).to_dict()


TERA = """
[[workloads]]
name = "teragen"
size = "2GB"
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
"""


def test_planned_sizes_follow_the_data_from_producer_to_consumer(tmp_path):
    sizes = planned_sizes(spec(tmp_path, TERA + '[[workloads]]\nname = "shuffle"\nsize = "300MB"\n'))
    rows = 2 * GB // 100
    assert sizes["teragen"] == {"input": 0, "intermediate": 0, "output": rows * 100}
    assert sizes["terasort"] == {"input": rows * 100, "intermediate": rows * 100, "output": rows * 100}
    assert sizes["teravalidate"] == {"input": rows * 100, "intermediate": 0, "output": 0}
    assert sizes["shuffle"] == {"input": 0, "intermediate": 300 * 10**6, "output": 0}


def test_a_working_set_that_fits_in_ram_is_said_with_the_size_that_would_not(tmp_path):
    s = spec(tmp_path, TERA)
    [line] = working_set_lines(s, MACHINE)
    assert "fits 12x over in 24 GB of RAM per node" in line and "above 24 GB would not fit" in line
    assert "writes are still timed to the device" in line  # the default is durable
    big = spec(tmp_path, TERA.replace('"2GB"', '"30GB"'))
    assert working_set_lines(big, MACHINE) == []  # 30 GB does not fit in 24 GB: nothing to warn about
    assert {w.fits_times < 1 for w in working_sets(big, MACHINE)} == {True}


def test_shuffle_against_executor_memory(tmp_path):
    s = spec(tmp_path, TERA.replace('"2GB"', '"200MB"') + '[engine]\ndriver_memory = "4g"\n')
    ws = {w.workload: w for w in working_sets(s, MACHINE)}
    assert ws["terasort"].shuffle_in_memory is True and ws["teragen"].shuffle_in_memory is None
    s = spec(tmp_path, TERA.replace('"2GB"', '"3GB"') + '[engine]\ndriver_memory = "4g"\n')
    assert {w.workload: w for w in working_sets(s, MACHINE)}["terasort"].shuffle_in_memory is False


def test_a_cluster_of_unknown_size_is_not_guessed():
    p = placement({"kind": "spark", "master": "spark://10.0.0.5:7077", "executor_memory": "8g"}, MACHINE)
    assert p.nodes is None and p.ram_bytes is None and p.task_memory == 8 << 30  # Spark's "8g": a bare g is 2^30 (units.py)
    one_box = placement({"kind": "spark", "master": "spark://127.0.0.1:7077"}, MACHINE)
    assert one_box.nodes == 1 and one_box.ram_bytes == 24 * GB  # workers on loopback share this machine's RAM


def storage_map(**dirs) -> dict:
    return {"dirs": {d: {"device": dev, "mount": {"fs_type": fs, "source": f"/dev/{dev}"}} for d, (dev, fs) in dirs.items()}}


def test_configurations_on_one_device_are_not_a_device_comparison(tmp_path):
    s = spec(tmp_path, TERA)
    a, b = f"{tmp_path}/a", f"{tmp_path}/b"
    [line] = same_device_lines(s, storage_map(**{a: ("vda", "ext4"), b: ("vda", "ext4")}))
    assert "every configuration" in line and "vda" in line and "not a device comparison" in line
    assert same_device_lines(s, storage_map(**{a: ("vda", "ext4"), b: ("vdb", "ext4")})) == []


def test_the_finding_itself_says_it_is_not_a_device_comparison():
    an = analyse([], "hdd", ["hdd", "ssd"], ["teragen"])
    an.comparisons = [Comparison("ssd", "teragen", "hdd", 0.5, 0.001, "2.00x faster than hdd (Welch p=0.001)")]
    [line] = _headline(an, {frozenset(("hdd", "ssd")): ["vda"]}, {"hdd": "hdd", "ssd": "ssd"})
    assert line.endswith("(same device as hdd, vda: not a device comparison)")
    # said from the ratio and p, not the verdict's words: a runtime 0.50 of hdd's is twice as fast
    assert _headline(an, {}, {}) == ["ssd on teragen: 2.0x as fast as hdd (runtime 0.50 of hdd's); significant, Welch p=0.001"]


def test_a_shared_path_on_a_local_file_system_is_said_so(tmp_path):
    storage = f"""
        [storage.nfs]
        data = {{ type = "shared", path = "{tmp_path}/mnt" }}
        """
    s = spec(tmp_path, TERA, storage)
    [line] = shared_fs_lines(s, storage_map(**{f"{tmp_path}/mnt": ("vda", "ext4")}))
    assert "storage nfs" in line and "ext4" in line and "not a network file system" in line
    assert shared_fs_lines(s, storage_map(**{f"{tmp_path}/mnt": (None, "nfs4")})) == []


def durability_lines(spec, records):
    return durability_lines_of_runs(spec, as_runs(records))  # (hand-made record dicts: the analysis reads StoredRuns)


def test_durability_lines(tmp_path):
    durable = spec(tmp_path, TERA)
    assert durable["durability"] == "durable" and durability_lines(durable, [{"sync_gaps": []}]) == []
    gap = "Hadoop's jobs do not sync file:// output"
    assert durability_lines(durable, [{"sync_gaps": [gap]}, {"sync_gaps": [gap]}]) == [f"durable mode could not sync every write: {gap}"]
    engine = spec(tmp_path, TERA, top='durability = "engine"')
    assert "page cache" in durability_lines(engine, [])[0]
    old = {k: v for k, v in durable.items() if k != "durability"}  # stored before the setting existed
    assert "engine" in durability_lines(old, [])[0]


def test_the_runner_warns_before_anything_runs(tmp_path, capsys):
    from test_lifecycle import make_spec

    s = make_spec(tmp_path, workloads='[[workloads]]\nname = "teragen"\nrows = 20003\ntasks = 2\n')  # two configs, one disk
    engine = FakeEngine(JOB_RESULTS)
    runner = StudyRunner(s, tmp_path / "results", ["t"], engines={"spark": engine})
    real_run = engine.run
    seen = []
    engine.run = lambda req, cb: (seen.append(capsys.readouterr().err), real_run(req, cb))[1]
    runner.run()
    err = seen[0]  # what was printed before the first run
    assert "tierbench: warning: working set: every data set of the study fits in memory" in err
    assert "tierbench: warning: same device: every configuration" in err
