"""tierbench check: the storage studies' OS advice on each node (swappiness, noatime, open files, THP, readahead,
IO scheduler, 4K alignment, CPU governor, NIC speed and MTU). The rules on facts as nodes report them; the facts
script on this machine, on real ext4 mounts of a loop device (noatime vs relatime), and over Debian's sshd."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import tierbench_main
from tierbench.analysis.node_check import check_node, check_nodes
from tierbench.sampling.node_facts import local_facts, parse_facts


def by_name(checks):
    return {c.name: c for c in checks}


GOOD = {"hostname": "n1", "swappiness": "1", "nofile": "65536", "thp_enabled": "always madvise [never]",
        "thp_defrag": "always madvise [never]", "governors": "performance", "nic": "eth0", "nic_speed": "10000",
        "nic_mtu": "9000", "dirs": [{"path": "/data/1", "mount": "/data/1", "fstype": "xfs", "options": "rw,noatime",
                                     "source": "/dev/sdb1", "disk": "sdb", "start_sector": "2048", "rotational": "1",
                                     "scheduler": "none [mq-deadline] bfq", "read_ahead_kb": "4096"}]}


def test_a_node_set_as_the_studies_advise_passes_everything():
    checks = check_node("n1", GOOD, networked=True)
    assert {c.status for c in checks} == {"pass"}
    assert set(by_name(checks)) == {"swappiness", "open-file limit", "transparent huge pages", "free page reporting",
                                    "CPU governor", "NIC speed",
                                    "MTU", "noatime", "IO scheduler", "readahead", "4K partition alignment"}


@pytest.mark.parametrize("change, name, status, in_fix", [
    ({"swappiness": "60"}, "swappiness", "warn", "vm.swappiness=1"),
    ({"nofile": "1024"}, "open-file limit", "warn", "limits.conf"),
    ({"thp_enabled": "[always] madvise never"}, "transparent huge pages", "warn", "never"),
    ({"governors": "powersave"}, "CPU governor", "warn", "performance"),
    ({"nic_speed": "1000"}, "NIC speed", "warn", "10 GbE"),
    ({"nic_mtu": "1500"}, "MTU", "warn", "mtu 9000"),
    ({"nic_speed": "-1"}, "NIC speed", "n/a", ""),
    ({"governors": ""}, "CPU governor", "n/a", ""),
    ({"balloon_reporting": "1", "page_reporting_order": "9", "buddy_max_order": "10"}, "free page reporting", "warn",
     "echo 11 > /sys/module/page_reporting/parameters/page_reporting_order"),
    ({"balloon_reporting": "1", "page_reporting_order": "11", "buddy_max_order": "10"}, "free page reporting", "pass", ""),
    ({"balloon_reporting": "1", "page_reporting_order": ""}, "free page reporting", "n/a", ""),
    ({"balloon_reporting": "0", "page_reporting_order": "9", "buddy_max_order": "10"}, "free page reporting", "pass", ""),
])
def test_each_node_setting_off_the_advice_says_so_with_its_fix(change, name, status, in_fix):
    c = by_name(check_node("n1", {**GOOD, **change}, networked=True))[name]
    assert c.status == status and in_fix in c.fix


@pytest.mark.parametrize("change, name, status, in_fix", [
    ({"options": "rw,relatime"}, "noatime", "warn", "remount,noatime /data/1"),
    ({"options": "rw,strictatime"}, "noatime", "fail", "remount,noatime"),
    ({"start_sector": "63"}, "4K partition alignment", "fail", "parted -a optimal"),
    ({"read_ahead_kb": "128"}, "readahead", "warn", "blockdev --setra 8192 /dev/sdb"),
    ({"scheduler": "[bfq] mq-deadline none"}, "IO scheduler", "warn", "mq-deadline"),
    ({"rotational": "0", "scheduler": "[none] mq-deadline"}, "IO scheduler", "pass", ""),
])
def test_each_data_mount_and_device_setting_off_the_advice_says_so(change, name, status, in_fix):
    facts = {**GOOD, "dirs": [{**GOOD["dirs"][0], **change}]}
    c = by_name(check_node("n1", facts, networked=True))[name]
    assert c.status == status and in_fix in c.fix


def test_one_machine_studies_skip_the_network_and_mounts_are_checked_once():
    two = {**GOOD, "dirs": [GOOD["dirs"][0], {**GOOD["dirs"][0], "path": "/data/1/shuffle"}]}
    checks = check_node("n1", two, networked=False)
    names = [c.name for c in checks]
    assert "NIC speed" not in names and "MTU" not in names
    assert names.count("noatime") == 1 and names.count("readahead") == 1


def test_an_unreachable_node_fails_in_one_line():
    (c,) = check_node("node-x", {"error": "ssh to node-x failed: Connection refused"}, networked=True)
    assert c.name == "reachable" and c.status == "fail" and "Connection refused" in c.found


def test_facts_of_this_machine_are_what_the_kernel_says(tmp_path):
    f = local_facts([str(tmp_path), str(tmp_path / "not" / "made" / "yet")])
    assert f["swappiness"] == Path("/proc/sys/vm/swappiness").read_text().strip()
    assert int(f["nofile"]) > 0
    assert int(f["buddy_max_order"]) == len(Path("/proc/buddyinfo").read_text().splitlines()[0].split()) - 5
    order = Path("/sys/module/page_reporting/parameters/page_reporting_order")
    assert f["page_reporting_order"] == (order.read_text().strip() if order.exists() else "")
    assert f["balloon_reporting"] in ("", "0", "1")
    here, later = f["dirs"]
    from tierbench.sampling.devices import mount_of

    assert here["mount"] == mount_of(str(tmp_path))["mount_point"] == later["mount"]  # not made yet: its parent's
    assert parse_facts("a=1\ndir.0.path=/x\ndir.0.options=rw,noatime\nnoise\n") == \
        {"a": "1", "dirs": [{"path": "/x", "options": "rw,noatime"}]}


@pytest.fixture
def two_ext4_mounts(tmp_path):
    """A loop device of ext4 mounted twice: noatime and relatime (the option that went through silently before)."""
    if not shutil.which("mkfs.ext4"):
        pytest.fail("mkfs.ext4 not installed: run ./setup.sh --test (installs e2fsprogs)")
    if os.geteuid() != 0:
        pytest.skip("not root: this test mounts a loop device, which only root may do (CI runs as root)")
    img = tmp_path / "disk.img"
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(img)], check=True)
    mounts = {}
    try:
        for opt in ("noatime", "relatime"):
            m = tmp_path / opt
            m.mkdir()
            subprocess.run(["mount", "-o", f"loop,{opt}", str(img), str(m)], check=True)
            mounts[opt] = m
        yield mounts
    finally:
        for m in mounts.values():
            subprocess.run(["umount", str(m)], check=False)


def test_a_relatime_data_mount_is_caught_and_noatime_passes(two_ext4_mounts):
    result = check_nodes([str(two_ext4_mounts["noatime"]), str(two_ext4_mounts["relatime"])])
    atime = {c["where"].split(" ")[0]: c for c in result["checks"] if c["name"] == "noatime"}
    assert atime[str(two_ext4_mounts["noatime"])]["status"] == "pass"
    rel = atime[str(two_ext4_mounts["relatime"])]
    assert rel["status"] == "warn" and rel["found"] == "relatime" and f"remount,noatime {two_ext4_mounts['relatime']}" in rel["fix"]
    loop = next(c for c in result["checks"] if c["name"] == "4K partition alignment")
    assert loop["where"].startswith("/dev/loop") and loop["status"] == "pass"


def test_cluster_nodes_are_checked_over_ssh(ssh_config, tmp_path):
    result = check_nodes([str(tmp_path)], ["node-a", "node-closed"], ssh_config, is_networked=True)
    nodes = {c["node"] for c in result["checks"]}
    assert nodes == {f"{local_facts([])['hostname']} (this machine)", "node-a", "node-closed"}
    a = {c["name"]: c for c in result["checks"] if c["node"] == "node-a"}
    assert a["swappiness"]["found"] == Path("/proc/sys/vm/swappiness").read_text().strip()  # node-a is this machine
    assert "noatime" in a and "NIC speed" in a
    closed = [c for c in result["checks"] if c["node"] == "node-closed"]
    assert [c["name"] for c in closed] == ["reachable"] and closed[0]["status"] == "fail"
    assert result["summary"]["fail"] >= 1


def test_cli_prints_each_check_and_json(tmp_path):
    out = tierbench_main("check", "--dir", tmp_path, "--json")
    assert out.returncode in (0, 1), out.stderr
    result = json.loads(out.stdout)
    assert (out.returncode == 1) == (result["summary"]["fail"] > 0)
    assert any(c["name"] == "swappiness" for c in result["checks"])
    text = tierbench_main("check", "--dir", tmp_path).stdout
    assert "swappiness" in text and " pass, " in text and "fail" in text
    bad = tierbench_main("check", tmp_path / "missing.toml")
    assert bad.returncode == 2 and "missing.toml" in bad.stderr and "Traceback" not in bad.stderr
    both = tierbench_main("check", tmp_path / "s.toml", "--dir", tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr


def test_a_study_stores_its_node_check_and_the_report_shows_it(tmp_path):
    from test_lifecycle import JOB_RESULTS, run_study
    from tierbench.engines.fake import FakeEngine
    from tierbench.report.build import StudyResults
    from tierbench.store import ResultsDir, StoredStudy

    run_study(tmp_path, FakeEngine(JOB_RESULTS), workloads='[[workloads]]\nname = "teragen"\nsize = "1MB"\n')
    study = ResultsDir(tmp_path / "results").study()
    nc = study["node_check"]
    atime = [c["where"].split(" ")[0] for c in nc["checks"] if c["name"] == "noatime"]
    assert atime == [f"{tmp_path}/data"]  # the study's three dirs share one mount: checked once, named by the first
    assert sum(nc["summary"].values()) == len(nc["checks"]) > 5
    # what the report makes of it (a stored check with a relatime data mount and a misaligned partition)
    study["node_check"] = {"checks": [c.to_dict() for c in check_node("n1", {**GOOD, "dirs": [{**GOOD["dirs"][0],
                           "options": "rw,relatime", "start_sector": "63"}]}, True)], "summary": {"pass": 8, "warn": 1, "fail": 1, "n/a": 0}}
    doc = StudyResults(StoredStudy.from_dicts(tmp_path / "results", study, ResultsDir(tmp_path / "results").records())).document
    findings = next(s for s in doc.sections if s.title == "Findings")
    line = next(b.text for b in findings.blocks if getattr(b, "text", "").startswith("node check"))
    assert "1 fail, 1 warn" in line and "noatime (warn)" in line and "4K partition alignment (fail)" in line
    sec = next(s for s in doc.all_sections() if s.title == "Node check")
    table = next(b for b in sec.blocks if hasattr(b, "rows"))
    assert table.rows[0][2] == "fail" and "parted" in table.rows[0][5]  # failures first


def test_the_same_finding_on_many_devices_is_one_line():
    from tierbench.analysis.node_check import folded

    dirs = [{**GOOD["dirs"][0], "path": f"/d{i}", "mount": f"/d{i}", "disk": f"sd{c}", "read_ahead_kb": "128"}
            for i, c in enumerate("bcdef")]
    checks = [c.to_dict() for c in check_node("n1", {**GOOD, "dirs": dirs}, networked=False)]
    ra = [c for c in folded(checks) if c["name"] == "readahead"]
    assert len(ra) == 1 and ra[0]["where"] == "/dev/sdb, /dev/sdc, /dev/sdd and 2 more" and "each of the 5" in ra[0]["fix"]
    loop = check_node("n1", {**GOOD, "dirs": [{**GOOD["dirs"][0], "disk": "loop3", "scheduler": "[none]"}]}, False)
    assert by_name(loop)["IO scheduler"].status == "n/a"
