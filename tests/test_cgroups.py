"""storage/cgroups.py: the hierarchy detected, and the v2 implementation's file writes, against a FAKE cgroup2 tree
in tmp_path (a folder holding the files the kernel's would: this machine runs cgroup v1, so the real v2 tree is not
here; the guest layer, tests/guest/, checks them on a real v2 kernel). A fake file takes the last write whole where
the kernel's io.max keeps one line per device: the tests read what was written, not what the kernel would merge."""

import os
from pathlib import Path

import pytest

from tierbench.storage import cgroups
from tierbench.storage.cgroups import CgroupV1, CgroupV2, detect


def fake_cgroup2(root: Path, controllers: str = "cpuset cpu io memory hugetlb pids rdma misc") -> Path:
    """A FAKE cgroup2 root: cgroup.controllers, an empty cgroup.subtree_control."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("\n")
    return root


def fake_cgroup1(root: Path) -> Path:
    """A FAKE cgroup v1 tree (a tmpfs of per-controller folders, as these machines mount it)."""
    for path in ("blkio/blkio.throttle.read_bps_device", "memory/memory.limit_in_bytes"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")
    return root


def test_the_hierarchy_is_detected_by_what_is_mounted(tmp_path):
    assert isinstance(detect(fake_cgroup2(tmp_path / "v2")), CgroupV2)
    v1 = detect(fake_cgroup1(tmp_path / "v1"))
    assert type(v1) is CgroupV1 and v1.controllers() == ["blkio", "memory"] and v1.why_no_io() is None
    assert type(detect(Path("/sys/fs/cgroup"))) is type(cgroups.current())  # (this machine's, whichever it is)


def test_a_v2_without_io_says_what_it_lacks_in_one_line(tmp_path):
    h = detect(fake_cgroup2(tmp_path, "cpu memory pids"))
    assert h.why_no_memory() is None
    assert h.why_no_io() == (f"needs the io controller, which this machine's cgroup v2 does not offer "
                             f"({tmp_path}/cgroup.controllers)")
    lines = cgroups.describe(h)
    assert lines[0] == f"cgroups: cgroup v2 at {tmp_path}, controllers: cpu, memory, pids"
    assert lines[1].startswith("device emulation (emulate up, emulated studies): no: needs the io controller")
    assert lines[2] == f"scale model page cache budget: yes (a memory group under {tmp_path / 'tierbench'})"


def test_v2_limits_go_to_a_child_group_never_the_root(tmp_path):
    h = detect(fake_cgroup2(tmp_path))
    h.write_io("7:3", {"read_bps_device": 41943040, "write_bps_device": 20971520, "read_iops_device": 180,
                       "write_iops_device": 0})
    assert not (tmp_path / "io.max").exists()  # (v2 refuses io.max on the root group)
    assert (tmp_path / "tierbench" / "io.max").read_text() == "7:3 rbps=41943040 wbps=20971520 riops=180 wiops=max\n"
    # io and memory enabled on the root (for tierbench's group) and on tierbench's group (for its leaves)
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+io +memory\n"
    assert (tmp_path / "tierbench" / "cgroup.subtree_control").read_text() == "+io +memory\n"
    assert h.io_limited() == {"7:3"}
    h.write_io("7:3", dict.fromkeys(cgroups.LIMIT_KEYS, 0))  # cleared: every one "max", as the kernel lists none
    assert (tmp_path / "tierbench" / "io.max").read_text() == "7:3 rbps=max wbps=max riops=max wiops=max\n"
    assert h.io_limited() == set()


def test_v2_enables_only_what_is_not_enabled_yet(tmp_path):
    root = fake_cgroup2(tmp_path)
    (root / "cgroup.subtree_control").write_text("cpu memory\n")  # (a systemd machine's)
    detect(root).io_procs()
    assert (root / "cgroup.subtree_control").read_text() == "+io\n"


def test_v2_throttled_processes_join_a_leaf_inside_tierbenchs_group(tmp_path):
    """v2 lets only a leaf hold processes once controllers are enabled below a group, and charges writeback to the
    group that dirtied the pages: a process that must meet the limits joins tierbench/throttled."""
    h = detect(fake_cgroup2(tmp_path))
    assert h.io_procs() == tmp_path / "tierbench" / "throttled" / "cgroup.procs"
    assert (tmp_path / "tierbench" / "throttled").is_dir()


def test_v2_memory_budget_is_memory_high_in_a_group_under_tierbenchs(tmp_path):
    h = detect(fake_cgroup2(tmp_path))
    group = h.make_memory_group(f"tierbench-study-{os.getpid()}")
    assert group.parent == tmp_path / "tierbench" == h.memory_parent()
    h.set_memory_limit(group, 300 << 20)
    assert (group / "memory.high").read_text() == f"{300 << 20}\n"  # reclaim and wait above it: never an OOM kill
    assert not (group / "memory.max").exists() and not (group / "memory.oom_control").exists()
    with pytest.raises(FileExistsError):  # a name of ours alone: never adopts a group that exists
        h.make_memory_group(group.name)


def test_v2_memory_stat_is_read_under_v1s_names(tmp_path):
    h = detect(fake_cgroup2(tmp_path))
    group = h.make_memory_group("tierbench-s-1")
    (group / "memory.stat").write_text("anon 1000\nfile 5000\nfile_mapped 700\nfile_dirty 30\nfile_writeback 20\n"
                                       "shmem 0\n")
    st = h.memory_stat(group)
    assert (st["total_rss"], st["total_cache"], st["total_mapped_file"], st["total_dirty"], st["total_writeback"]) \
        == (1000, 5000, 700, 30, 20)
    from tierbench.scale.memory_budget import clean_cache

    assert clean_cache(st) == 5000 - 700 - 30 - 20


def test_v2_tidy_removes_tierbenchs_empty_groups_only_once_no_limit_is_recorded(tmp_path):
    h = detect(fake_cgroup2(tmp_path))
    h.write_io("7:1", {"read_bps_device": 1 << 20})
    h.io_procs()
    live = h.make_memory_group(f"tierbench-live-{os.getpid()}")
    (tmp_path / "tierbench" / "io.max").unlink()  # (a fake's files would keep rmdir from removing it: see below)
    (tmp_path / "tierbench" / "cgroup.subtree_control").unlink()
    assert h.tidy(limits_recorded=True) == [str(tmp_path / "tierbench" / "throttled")]  # a device still limited
    assert live.is_dir() and (tmp_path / "tierbench").is_dir()
    live.rmdir()
    assert h.tidy(limits_recorded=False) == [str(tmp_path / "tierbench")]
    assert not (tmp_path / "tierbench").exists()


def test_the_process_cgroup_line_of_v2_is_read(tmp_path):
    h = CgroupV2(tmp_path)
    line = Path(f"/proc/{os.getpid()}/cgroup").read_text().splitlines()
    unified = next((l.split(":", 2)[2] for l in line if l.startswith("0::")), None)
    assert h.memory_group_of(os.getpid()) == unified  # (v1 machines list a "0::" line too: the unified one)


def test_check_and_emulate_status_name_the_hierarchy_and_what_tierbench_can_do(tmp_path, capsys, monkeypatch):
    import json

    from tierbench.cli.main import main

    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    main(["check", "--dir", str(tmp_path), "--json"])
    said = json.loads(capsys.readouterr().out)["cgroups"]
    h = cgroups.current()
    assert said[0].startswith(f"cgroups: {h.name} at /sys/fs/cgroup, controllers: ")
    assert said[1].startswith("device emulation (emulate up, emulated studies): " + ("yes" if not h.why_no_io() else "no"))
    assert main(["emulate", "status"]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == said[:3]


def test_the_budgets_retry_line_names_the_hierarchy(monkeypatch, tmp_path):
    from tierbench.study import failures

    assert failures.budget_race_line() == (failures.BUDGET_RETRY_V2 if isinstance(cgroups.current(), CgroupV2)
                                           else failures.BUDGET_RACE)
    monkeypatch.setattr(cgroups, "_CURRENT", [detect(fake_cgroup2(tmp_path))])  # (a FAKE v2 machine)
    assert "cgroup v2, whose budget never refuses a charge" in failures.budget_race_line()
    assert "cgroup v1" not in failures.budget_race_line()


def test_v2_a_process_that_joined_the_throttled_group_goes_back_when_it_ends(tmp_path):
    h = detect(fake_cgroup2(tmp_path))
    (tmp_path / "user.slice").mkdir()
    h.enter(os.getpid() + 1 << 22)  # (another process: joins, and nothing of this one's end is arranged)
    assert not getattr(h, "_leaving", False)
    h.enter(os.getpid())
    assert (tmp_path / "tierbench" / "throttled" / "cgroup.procs").read_text() == f"{os.getpid()}\n"
    assert h._leaving  # (atexit runs leave: here called as it would be)
    (tmp_path / "tierbench" / "throttled" / "cgroup.procs").unlink()  # (a FAKE leaf: the kernel's empties itself)
    (tmp_path / "tierbench" / "cgroup.subtree_control").unlink()
    assert h.leave("/user.slice") == [str(tmp_path / "tierbench" / "throttled"), str(tmp_path / "tierbench")]
    assert (tmp_path / "user.slice" / "cgroup.procs").read_text() == f"{os.getpid()}\n"


def test_v2_raises_the_iops_floors_of_a_sequential_stream_eightfold(monkeypatch, tmp_path):
    from tierbench.storage.profiles import PROFILES, throttle_limits

    hdd = PROFILES["hdd"].scaled(0.06)  # (12 MB/s: as the guest layer checks it)
    monkeypatch.setattr(cgroups, "_CURRENT", [CgroupV1(tmp_path / "v1")])  # (a FAKE v1 machine)
    v1 = throttle_limits(hdd)
    monkeypatch.setattr(cgroups, "_CURRENT", [detect(fake_cgroup2(tmp_path / "v2"))])  # (a FAKE v2 machine)
    v2 = throttle_limits(hdd)
    assert (v1["read_iops"], v1["write_iops"]) == (2 * hdd.read_mb_s, 4 * hdd.write_mb_s)
    assert (v2["read_iops"], v2["write_iops"]) == (16 * hdd.read_mb_s, 32 * hdd.write_mb_s)
    assert v2["read_mb_s"] == v1["read_mb_s"] == hdd.read_mb_s
