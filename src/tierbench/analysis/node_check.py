"""The studies' operating-system advice for Hadoop/Spark nodes, checked against what a node is set to
(sampling/node_facts.py): each check pass / warn / fail with the value found and the fix, or n/a when the node does
not report it (a virtual machine has no CPU governor; a virtual NIC no speed).

Sources of the advice: Cloudera's and Hortonworks' cluster tuning guides behind the SSD studies (swappiness 1,
transparent huge pages off, noatime, 32K+ open files, deadline scheduler for disks, large readahead, aligned
partitions, the performance governor, 10 GbE and jumbo frames between nodes)."""

import re
from dataclasses import asdict, dataclass

STATUSES = ("pass", "warn", "fail", "n/a")
SWAPPINESS_MAX = 10
NOFILE_MIN = 32768
READAHEAD_MIN_KB = 1024
NIC_MIN_MBIT = 10000
JUMBO_MTU = 9000


@dataclass(frozen=True)
class Check:
    node: str
    name: str
    status: str  # one of STATUSES
    found: str  # the value as read
    fix: str = ""  # what to do when not pass (a command where there is one)
    where: str = ""  # the directory, device or interface the check is about ("" for the node)

    def to_dict(self) -> dict:
        return asdict(self)


def _selected(text: str) -> str:
    """The bracketed choice of a sysfs list: "always [madvise] never" -> "madvise"."""
    m = re.search(r"\[([^\]]+)\]", text or "")
    return m.group(1) if m else (text or "").strip()


def _int(text) -> int | None:
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


def _free_page_reporting(node: str, facts: dict) -> Check:
    """A virtual machine whose balloon reports free pages to its host gives back every page it frees (the page cache
    dropped before each step, a finished JVM's heap); taking one anew is then a fault on the host too. Measured on a
    2-core VM of this kind: fresh memory first touched at 0.4 GB/s once the host took it back, 7.8 GB/s otherwise, and a
    durable 4 GB TeraSort spending most of its kernel CPU there -- a cost of the VM that grows faster than the data
    and that no storage device shows. Reporting stops when its order exceeds the largest free block's."""
    name = "free page reporting"
    if facts.get("balloon_reporting") != "1":
        return Check(node, name, "pass", "not in use (no virtio balloon reporting free pages)")
    order, max_order = _int(facts.get("page_reporting_order")), _int(facts.get("buddy_max_order"))
    if order is None or max_order is None:
        return Check(node, name, "n/a", "the balloon reports free pages; its order is not readable")
    if order > max_order:
        return Check(node, name, "pass", f"off (page_reporting_order {order} > the largest free block's order {max_order})")
    return Check(node, name, "warn", f"on (page_reporting_order {order}): each page this VM frees goes back to its host",
                 f"every page the page cache or a JVM takes anew is then a fault on the host as well (0.4 GB/s instead "
                 f"of 7.8 GB/s measured on such a VM), a cost that grows faster than the data: echo {max_order + 1} > "
                 f"/sys/module/page_reporting/parameters/page_reporting_order (as root; the host then cannot reclaim what "
                 f"this VM frees until it is set back to {order}); or free_page_reporting = \"off\" in the spec: off while the "
                 f"study runs, then set back")


def check_node(node: str, facts: dict, networked: bool) -> list[Check]:
    """Every check of one node. `networked`: the study moves data between nodes (a cluster, HDFS or S3 on other
    hosts), so the NIC matters; on one machine it does not."""
    if facts.get("error"):
        return [Check(node, "reachable", "fail", facts["error"], "check that `ssh NODE true` works without a password "
                                                                  "(BatchMode) and that the node is up")]
    out: list[Check] = []
    add = lambda *a, **k: out.append(Check(node, *a, **k))

    sw = _int(facts.get("swappiness"))
    if sw is None:
        add("swappiness", "n/a", "not readable")
    else:
        add("swappiness", "pass" if sw <= SWAPPINESS_MAX else "warn", str(sw),
            "" if sw <= SWAPPINESS_MAX else "the kernel swaps JVM heaps out under page-cache pressure: sysctl -w vm.swappiness=1 "
                                            "(and vm.swappiness = 1 in /etc/sysctl.d/)")
    nofile = facts.get("nofile", "")
    n = None if nofile == "unlimited" else _int(nofile)
    if nofile == "unlimited" or (n is not None and n >= NOFILE_MIN):
        add("open-file limit", "pass", nofile)
    elif n is None:
        add("open-file limit", "n/a", nofile or "not readable")
    else:
        add("open-file limit", "warn", str(n), f"shuffles and DataNodes hold many files open: raise it to {NOFILE_MIN} or more "
                                                "(nofile in /etc/security/limits.conf, LimitNOFILE for systemd services)")
    thp = _selected(facts.get("thp_enabled", ""))
    if not thp:
        add("transparent huge pages", "n/a", "not present")
    else:
        add("transparent huge pages", "warn" if thp == "always" else "pass", f"enabled={thp}, defrag={_selected(facts.get('thp_defrag', ''))}",
            "" if thp != "always" else "THP compaction stalls JVMs: echo never > /sys/kernel/mm/transparent_hugepage/enabled "
                                       "(and defrag), or transparent_hugepage=never on the kernel command line")
    out.append(_free_page_reporting(node, facts))
    govs = (facts.get("governors") or "").split()
    if not govs:
        add("CPU governor", "n/a", "no cpufreq (a virtual machine, or a fixed frequency)")
    else:
        slow = [g for g in govs if g != "performance"]
        add("CPU governor", "warn" if slow else "pass", ", ".join(govs),
            "" if not slow else "a power-saving governor slows CPU-bound phases and adds noise: cpupower frequency-set -g performance")
    if networked:
        nic = facts.get("nic") or ""
        speed = _int(facts.get("nic_speed"))
        if not nic:
            add("NIC speed", "n/a", "no default route", where="")
        elif speed is None or speed <= 0:
            add("NIC speed", "n/a", "not reported (a virtual NIC)", where=nic)
        else:
            add("NIC speed", "pass" if speed >= NIC_MIN_MBIT else "warn", f"{speed} Mb/s",
                "" if speed >= NIC_MIN_MBIT else "the studies ran 10 GbE between nodes; a shuffle or replication on 1 GbE is "
                                                  "bound by the network, not by storage", where=nic)
        mtu = _int(facts.get("nic_mtu"))
        if nic and mtu:
            add("MTU", "pass" if mtu >= JUMBO_MTU else "warn", str(mtu),
                "" if mtu >= JUMBO_MTU else f"jumbo frames cut per-packet CPU on shuffle and replication: ip link set {nic} mtu 9000 "
                                             "(on every node and the switch)", where=nic)
    seen_mounts, seen_disks = set(), set()
    for d in facts.get("dirs", []):
        out.extend(_dir_checks(node, d, seen_mounts, seen_disks))
    return out


def _dir_checks(node: str, d: dict, seen_mounts: set, seen_disks: set) -> list[Check]:
    out = []
    mount, disk = d.get("mount", ""), d.get("disk", "")
    where = d.get("path", "") if d.get("path") == mount else f"{d.get('path')} (on {mount})"
    if mount and mount not in seen_mounts:
        seen_mounts.add(mount)
        opts = (d.get("options") or "").split(",")
        if d.get("fstype") in ("tmpfs", "proc", "sysfs", "overlay"):
            out.append(Check(node, "noatime", "n/a", f"{d.get('fstype')}: not a data disk", where=where))
        elif "noatime" in opts:
            out.append(Check(node, "noatime", "pass", "noatime", where=where))
        else:
            atime = next((o for o in opts if o.endswith("atime")), "atime (default)")
            out.append(Check(node, "noatime", "warn" if atime == "relatime" else "fail", atime,
                             f"every read {'updates access times once a day' if atime == 'relatime' else 'writes an access time'}: "
                             f"mount -o remount,noatime {mount} (and noatime in /etc/fstab)", where=where))
    if disk and disk not in seen_disks:
        seen_disks.add(disk)
        dev = f"/dev/{disk}"
        rotational = d.get("rotational") == "1"
        sched = _selected(d.get("scheduler", ""))
        if disk.startswith("loop"):  # an image file's IO is scheduled by the device the image lies on
            out.append(Check(node, "IO scheduler", "n/a", f"{sched or 'none'} (a loop device: its image's own device "
                                                          "schedules the IO)", where=dev))
        elif sched:
            good = ("mq-deadline", "deadline") if rotational else ("none", "noop", "mq-deadline", "deadline", "kyber")
            out.append(Check(node, "IO scheduler", "pass" if sched in good else "warn", f"{sched} ({'rotational' if rotational else 'non-rotational'})",
                             "" if sched in good else f"echo {'mq-deadline' if rotational else 'none'} > /sys/block/{disk}/queue/scheduler "
                                                      "(a udev rule to keep it)", where=dev))
        ra = _int(d.get("read_ahead_kb"))
        if ra is not None:
            out.append(Check(node, "readahead", "pass" if ra >= READAHEAD_MIN_KB else "warn", f"{ra} KB",
                             "" if ra >= READAHEAD_MIN_KB else f"sequential scans want a large readahead: blockdev --setra 8192 {dev} "
                                                               "(4 MB)", where=dev))
        start = _int(d.get("start_sector"))
        if start is None:
            out.append(Check(node, "4K partition alignment", "pass", "whole device (no partition)", where=dev))
        else:
            aligned = start * 512 % 4096 == 0
            out.append(Check(node, "4K partition alignment", "pass" if aligned else "fail", f"partition starts at sector {start}",
                             "" if aligned else "a misaligned partition splits 4 KB writes across physical sectors: recreate it "
                                                "starting at a multiple of 2048 sectors (parted -a optimal)", where=dev))
    return out


def folded(checks: list[dict]) -> list[dict]:
    """The same finding on several devices or dirs of a node (twelve emulated drives with the same readahead) as
    one: where lists the first few and how many, fix says it once (for the first)."""
    groups: dict[tuple, list[dict]] = {}
    for c in checks:
        groups.setdefault((c["node"], c["name"], c["status"], c["found"]), []).append(c)
    out = []
    for (node, name, status, found), cs in groups.items():
        if len(cs) == 1 or not cs[0]["where"]:
            out.extend(cs)
            continue
        wheres = [c["where"] for c in cs]
        where = ", ".join(wheres[:3]) + (f" and {len(wheres) - 3} more" if len(wheres) > 3 else "")
        fix = cs[0]["fix"] + (f" (likewise for each of the {len(cs)})" if cs[0]["fix"] else "")
        out.append({**cs[0], "where": where, "fix": fix})
    return out


def summary(checks: list[Check]) -> dict[str, int]:
    return {s: sum(c.status == s for c in checks) for s in STATUSES}


def study_dirs(spec) -> list[str]:
    """The local directories a study's configurations keep data and intermediate data in (each once)."""
    return list(dict.fromkeys(d for c in spec.storage for d in (*c.local_data, *c.intermediate)))


def networked(spec) -> bool:
    """Whether the study moves data between hosts: cluster nodes, a cluster master, or remote storage."""
    masters = [e.master for e in spec.engines if e.kind == "spark"]
    return bool((spec.cluster or {}).get("nodes")) or any(not m.startswith("local") for m in masters) \
        or any(e.kind == "hadoop" and e.mode == "yarn" for e in spec.engines) or any(c.remote for c in spec.storage)


def check_nodes(dirs: list[str], nodes: list[str] = (), ssh_config: str | None = None, is_networked: bool = False,
                not_yet: dict[str, str] | None = None) -> dict:
    """This machine and each cluster node (over ssh) checked: {"checks": [Check dicts], "summary": {status: n}}.
    `not_yet`: directories tierbench makes itself later (emulated devices), with why they are not checked now."""
    from ..sampling.node_facts import local_facts, remote_facts

    not_yet = not_yet or {}
    todo = [d for d in dirs if d not in not_yet]
    facts = {"local": local_facts(todo)}
    for node in nodes:
        facts[node] = remote_facts(node, todo, ssh_config)
    checks = []
    for node, f in facts.items():
        name = f"{f.get('hostname') or node} (this machine)" if node == "local" else node
        checks += check_node(name, f, is_networked)
        if not_yet:  # one line for them all: a study of many emulated drives would list each
            first = next(iter(not_yet))
            checks.append(Check(name, "noatime", "n/a", f"{len(not_yet)} dir(s) {not_yet[first]}",
                                where=first + (f" and {len(not_yet) - 1} more" if len(not_yet) > 1 else "")))
    return {"checks": [c.to_dict() for c in checks], "summary": summary(checks)}


def check_study(spec) -> dict:
    """The node check of a study's spec: its dirs on this machine and on its [cluster] nodes."""
    from ..storage import emulation

    root = str(emulation.root_dir()).rstrip("/") + "/"
    declared = {d: "on an emulated device tierbench makes (ext4, mounted noatime) when the study starts"
                for d in study_dirs(spec) if d.startswith(root) and not emulation.device_of_path(d)}
    cluster = spec.cluster or {}
    return check_nodes(study_dirs(spec), cluster.get("nodes") or [], cluster.get("ssh_config"), networked(spec), declared)
