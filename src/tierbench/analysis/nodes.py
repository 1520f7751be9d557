"""What a cluster's nodes did in a run: IO, CPU and network per node and phase, the cluster's total, the
slowest node, and which nodes were observed at all (from the node agents' series in a record's `nodes`)."""

from ..sampling.phases import io_profile, label_samples
from ..store import StoredRun

MB = 2**20


def node_rows(record: StoredRun) -> list[dict]:
    """Per (node, phase): MB read and written on the node's data, intermediate and shuffle devices, IOs and
    average IO size, the busiest device's utilisation, CPU busy %, network MB in and out; and the bytes the
    engine says the node's tasks shuffled (stage metrics by host)."""
    rows = []
    phases = record.details.get("phases", [])
    shuffle_by_host = _shuffle_by_host(record)
    for host, node in sorted((record.nodes or {}).items()):
        s = node.get("samples")
        if not s or not s.get("t_ms"):
            continue
        labels = label_samples(s, phases)
        roles: dict[str, list[str]] = {}
        for role, devs in (node.get("devices") or {}).items():
            for d in devs:
                roles.setdefault(d, []).append(role)
        profile = io_profile(s, labels, roles)
        for phase in dict.fromkeys(labels):
            idx = [i for i, l in enumerate(labels) if l == phase]
            devs = [r for r in profile if r["phase"] == phase]
            rd, wr = sum(r["read_mb"] for r in devs), sum(r["write_mb"] for r in devs)
            rios, wios = sum(r["read_ios"] for r in devs), sum(r["write_ios"] for r in devs)
            rows.append({
                "node": host, "phase": phase, "seconds": devs[0]["seconds"] if devs else 0.0,
                "devices": ", ".join(f"{r['device']} ({'+'.join(r['roles']) or 'other'})" for r in devs),
                "read_mb": rd, "write_mb": wr, "read_ios": rios, "write_ios": wios,
                "avg_read_kb": rd * 1024 / rios if rios else 0.0, "avg_write_kb": wr * 1024 / wios if wios else 0.0,
                "util_pct": max((r["util_pct"] for r in devs), default=0.0),
                "busy_s": sum(r["util_pct"] / 100 * r["seconds"] for r in devs),
                "cpu_busy_pct": devs[0]["cpu_busy_pct"] if devs else _cpu_busy(s, idx),
                "net_rx_mb": sum(s["net"]["rx_bytes"][i] for i in idx) / MB,
                "net_tx_mb": sum(s["net"]["tx_bytes"][i] for i in idx) / MB,
                "shuffle_write_mb": shuffle_by_host.get(host, 0) / MB if phase == labels[0] else None,
            })
    return rows


def _cpu_busy(s: dict, idx: list[int]) -> float:
    c = s["cpu"]
    return sum(c["user"][i] + c["system"][i] + c["other"][i] for i in idx) / len(idx) if idx else 0.0


def _shuffle_by_host(record: StoredRun) -> dict[str, int]:
    out: dict[str, int] = {}
    for st in record.details.get("stages", []):
        for host, b in (st.get("hosts") or {}).items():
            out[host] = out.get(host, 0) + b.get("shuffle_write_bytes", 0)
    return out


def cluster_total(rows: list[dict]) -> list[dict]:
    """The cluster per phase: MB, IOs and network summed over nodes; utilisation and CPU of the busiest node."""
    out = []
    for phase in dict.fromkeys(r["phase"] for r in rows):
        rs = [r for r in rows if r["phase"] == phase]
        t = {"node": f"all {len(rs)} nodes", "phase": phase, "seconds": max(r["seconds"] for r in rs), "devices": ""}
        for k in ("read_mb", "write_mb", "read_ios", "write_ios", "net_rx_mb", "net_tx_mb", "busy_s"):
            t[k] = sum(r[k] for r in rs)
        t["avg_read_kb"] = t["read_mb"] * 1024 / t["read_ios"] if t["read_ios"] else 0.0
        t["avg_write_kb"] = t["write_mb"] * 1024 / t["write_ios"] if t["write_ios"] else 0.0
        t["util_pct"] = max(r["util_pct"] for r in rs)
        t["cpu_busy_pct"] = max(r["cpu_busy_pct"] for r in rs)
        shuffled = [r["shuffle_write_mb"] for r in rs if r["shuffle_write_mb"] is not None]
        t["shuffle_write_mb"] = sum(shuffled) if shuffled else None
        out.append(t)
    return out


def slowest_node(rows: list[dict]) -> tuple[str, float] | None:
    """The node whose devices were busy longest over the run (device-busy seconds): the one the job waited for."""
    busy: dict[str, float] = {}
    for r in rows:
        busy[r["node"]] = busy.get(r["node"], 0.0) + r["busy_s"]
    if len(busy) < 2:
        return None
    host = max(busy, key=busy.get)
    return host, busy[host]


def observed_nodes(runs: list[StoredRun]) -> dict[str, dict]:
    """Every node any run observed: its agent, cores, RAM, where its data, intermediate and shuffle dirs are,
    in how many runs it was observed (a run whose node agent ended mid-way is not, and says why in `lost`) and
    whether its page cache was dropped every time."""
    out: dict[str, dict] = {}
    for r in runs:
        dropped = r.details.get("nodes_page_cache_dropped", {})
        for host, n in (r.nodes or {}).items():
            o = out.setdefault(host, {"agent": n.get("agent"), "cores": n.get("cores"), "mem_bytes": n.get("mem_bytes"),
                                      "devices": {}, "runs": 0, "dropped": 0, "drop_errors": set(), "lost": set()})
            if n.get("lost"):
                o["lost"].add(n["lost"])
            else:
                o["runs"] += 1
            for role, devs in (n.get("devices") or {}).items():
                o["devices"].setdefault(role, set()).update(devs)
            if dropped.get(host, {}).get("ok"):
                o["dropped"] += 1
            elif dropped.get(host, {}).get("error"):
                o["drop_errors"].add(dropped[host]["error"])
    return out


def unobserved_nodes(runs: list[StoredRun]) -> set[str]:
    return {h for r in runs for h in r.details.get("nodes_unobserved", [])}
