"""Hardware descriptions for the what-if model: the drive catalog, a drive's speed at an IO size, and the TOML format."""

from pathlib import Path

import pytest

from tierbench.errors import SpecError
from tierbench.model.hardware import Drive, DriveSet, catalog, hardware_from_dict, load_hardware
from tierbench.storage.emulation import PROFILES


FULL = """
name = "lab"
source = "our purchase order"
nodes = 4
cores = 16
memory = "64GB"
network_gbps = 25
replication = 3

[data]
drive = "hdd-7200"
count = 6

[intermediate]
drive = "nvme-gen3"
count = 2
"""


def write(tmp_path, text, name="hw.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_catalog_entries_have_every_figure_and_a_source():
    drives = catalog()
    assert {"hdd-7200", "hdd-7200-2014", "hdd-10k-sas", "sata-ssd", "sata-ssd-2014", "pcie-ssd-2014", "nvme-gen3",
            "nvme-gen4", "cloud-gp3", "cloud-st1"} <= set(drives)
    for name, d in drives.items():
        assert d.name == name
        assert min(d.read_mb_s, d.write_mb_s, d.read_iops, d.write_iops) > 0, name
        assert d.source.strip(), name


def test_catalog_matches_the_emulation_profiles():
    for drive, profile in (("hdd-7200", "hdd"), ("sata-ssd", "sata-ssd"), ("nvme-gen3", "nvme")):
        d, p = catalog()[drive], PROFILES[profile]
        assert (d.read_mb_s, d.write_mb_s, d.read_iops, d.write_iops) == \
            (p.read_mb_s, p.write_mb_s, p.read_iops, p.write_iops)


def test_sandisk_ssd_keeps_the_published_iops():
    d = catalog()["sata-ssd-2014"]
    assert (d.read_iops, d.write_iops) == (70_000, 14_000)


def test_large_ios_meet_bandwidth_small_ones_meet_iops():
    hdd, ssd = catalog()["hdd-7200"], catalog()["sata-ssd"]
    assert ssd.mb_s("read", 1024) == 540 and ssd.mb_s("write", 1024) == 500
    assert hdd.mb_s("read", 0) == 200 and hdd.mb_s("write", 0) == 190  # sequential
    assert hdd.mb_s("read", 1024) == pytest.approx(180 * 1024 * 1024 / 1e6)  # 189: 1 MiB is just short of the stream
    assert hdd.mb_s("read", 4096) == 200
    assert hdd.mb_s("read", 4) == pytest.approx(180 * 4096 / 1e6)  # ~0.74 MB/s
    assert 0.7 < hdd.mb_s("write", 4) < 0.8
    assert ssd.mb_s("read", 4) == pytest.approx(90_000 * 4096 / 1e6)  # ~369 MB/s: IOPS still bind
    assert ssd.mb_s("write", 64) == 500
    with pytest.raises(ValueError):
        hdd.mb_s("append", 4)


def test_a_drive_set_is_its_drives_together():
    d = Drive("x", 100, 50, 1000, 500, "test")
    assert DriveSet(d, 3).mb_s("write", 0) == 150
    assert DriveSet(d, 2).mb_s("read", 4) == pytest.approx(2 * 1000 * 4096 / 1e6)


def test_a_full_description(tmp_path):
    hw = load_hardware(write(tmp_path, FULL))
    assert (hw.name, hw.source, hw.nodes, hw.cores) == ("lab", "our purchase order", 4, 16)
    assert hw.memory_bytes == 64 * 10**9  # "64GB": powers of 1000 (units.py)
    assert hw.network_gbps == 25 and hw.network_mb_s == 3125
    assert hw.write_copies == 3
    assert hw.data == DriveSet(catalog()["hdd-7200"], 6)
    assert hw.intermediate == DriveSet(catalog()["nvme-gen3"], 2)
    assert not hw.intermediate_on_data
    bigger = hw.with_nodes(10)
    assert bigger.nodes == 10 and hw.nodes == 4 and bigger.data == hw.data


def test_defaults_and_intermediate_on_the_data_drives(tmp_path):
    hw = load_hardware(write(tmp_path, 'nodes = 1\ncores = 2\nmemory = "8GB"\n[data]\ndrive = "sata-ssd"\n',
                             name="small.toml"))
    assert hw.name == "small" and hw.source == ""
    assert hw.network_gbps == 10 and hw.write_copies == 1
    assert hw.data.count == 1
    assert hw.intermediate_on_data and hw.intermediate == hw.data


def test_figures_override_a_catalog_drive(tmp_path):
    hw = load_hardware(write(tmp_path, FULL.replace('count = 6', 'count = 6\nread_mb_s = 150\nwrite_iops = 90')))
    d = hw.data.drive
    assert (d.name, d.read_mb_s, d.write_mb_s, d.read_iops, d.write_iops) == ("hdd-7200", 150, 190, 180, 90)
    assert "read_mb_s = 150" in d.source and "write_iops = 90" in d.source and "hw.toml" in d.source
    assert catalog()["hdd-7200"].read_mb_s == 200  # the catalog itself is untouched


def test_a_drive_of_its_own_figures():
    hw = hardware_from_dict({"nodes": 2, "cores": 8, "memory": "32GiB", "data": {
        "read_mb_s": 300, "write_mb_s": 250.5, "read_iops": 400, "write_iops": 350, "count": 4}}, "code")
    assert hw.data.drive == Drive("custom", 300, 250.5, 400, 350, hw.data.drive.source)
    assert hw.data.count == 4 and hw.name == "code"


def test_erasure_coding_writes_k_plus_m_over_k(tmp_path):
    hw = load_hardware(write(tmp_path, FULL.replace("replication = 3", 'erasure = "3+2"')))
    assert hw.write_copies == pytest.approx(5 / 3)


@pytest.mark.parametrize("change, field, accepted", [
    (('drive = "hdd-7200"', 'drive = "floppy"'), "data.drive", "hdd-7200-2014"),
    (("cores = 16", "cores = 16\nspeed = 3"), "speed", "network_gbps"),
    (("count = 6", "count = 6\nrpm = 7200"), "data.rpm", "read_iops"),
    (("nodes = 4", "nodes = 0"), "nodes", "whole number >= 1"),
    (("replication = 3", 'replication = 3\nerasure = "6+3"'), "erasure", "not both"),
    (("replication = 3", 'erasure = "3-2"'), "erasure", '"k+m"'),
    (('memory = "64GB"', 'memory = "lots"'), "memory", '"64MB"'),
    (('memory = "64GB"', 'memory = 16'), "memory", '"16GB"'),
    (("count = 2", "count = 0"), "intermediate.count", "whole number >= 1"),
    (("network_gbps = 25", "network_gbps = -1"), "network_gbps", "number > 0"),
    (("count = 6", "count = 6\nread_iops = 0"), "data.read_iops", "number > 0"),
    (('[data]\ndrive = "hdd-7200"\ncount = 6', ""), "data", "[data] drive ="),
    (('drive = "hdd-7200"', 'read_mb_s = 100'), "data.drive", "write_iops"),
    (("network_gbps = 25", "network_gbps = 25\nengine = \"flink\""), "engine", "'hadoop', 'spark'"),
    (("network_gbps = 25", "network_gbps = 25\ntask_heap = 512"), "task_heap", "a task's JVM heap"),
])
def test_mistakes_name_the_field_and_what_is_accepted(tmp_path, change, field, accepted):
    old, new = change
    assert old in FULL
    path = write(tmp_path, FULL.replace(old, new, 1))
    with pytest.raises(SpecError) as e:
        load_hardware(path)
    assert e.value.field == field
    assert str(e.value).startswith(f"{path}: {field}: ") and accepted in str(e.value), str(e.value)


def test_not_toml_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "nodes = 4\ncores = = 2\n")
    with pytest.raises(SpecError) as e:
        load_hardware(path)
    assert str(path) in str(e.value) and "not valid TOML" in str(e.value) and "line 2" in str(e.value)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(SpecError) as e:
        load_hardware(tmp_path / "nope.toml")
    assert str(e.value).startswith(f"{tmp_path / 'nope.toml'}: no such hardware description file, nor one shipped")
    assert "sandisk-all-ssd" in str(e.value)


@pytest.mark.parametrize("name", ["sandisk-all-hdd", "sandisk-all-ssd", "sandisk-hybrid"])
def test_the_shipped_descriptions_load_by_name(name):
    hw = load_hardware(name)
    assert (hw.name, hw.nodes, hw.cores, hw.memory_bytes, hw.network_gbps, hw.write_copies) == \
        (name, 6, 12, 16 << 30, 10, 3)
    assert hw.data.count == 2 and hw.source and hw.price_usd in (37561, 46567, 43081)
    assert (hw.engine, hw.task_heap) == ("hadoop", 512 << 20)  # MapReduce with the studies' child heap
    assert hw.intermediate_on_data == (name != "sandisk-hybrid")
    if name == "sandisk-hybrid":
        assert hw.data.drive.name == "hdd-7200-2014" and hw.intermediate == DriveSet(catalog()["sata-ssd-2014"], 1)
