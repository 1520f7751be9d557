"""Nodes: which nodes were observed, where each one's dirs and shuffle really were, and per profiled run a table
per node and phase with the cluster's total and the slowest node."""

from ...analysis import nodes as an_nodes
from ..context import ReportContext
from ..document import Notice, Paragraph, Section, Table
from ..formats import net

NODES_HEAD = ["node", "observed by", "cores", "RAM", "data on", "intermediate on", "shuffle went to", "runs observed",
              "page cache dropped"]
NODE_PHASE_HEAD = ["node", "phase", "s", "devices (hold)", "read MB", "write MB", "avg read KB", "avg write KB", "util %",
                   "CPU busy %", "net in MB (MB/s)", "net out MB (MB/s)", "shuffle written MB (engine)"]


def sections(ctx: ReportContext) -> list[Section]:
    observed = an_nodes.observed_nodes(ctx.runs)
    unobserved = an_nodes.unobserved_nodes(ctx.runs) - set(observed)
    if not observed and not unobserved:
        return []
    sec = Section("Nodes", 2, [Paragraph(
        f"{len(observed)} node(s) observed by tierbench's agents (the Spark plugin in each executor host, or over ssh for "
        "the spec's [cluster] nodes): each node's own /proc/diskstats, CPU and network, sampled as this machine's are, "
        "and its page cache dropped before each run. The IO profile above is the launcher host's; the tables here are "
        "the nodes'. Device names are as each node sees them.", muted=True)])
    if unobserved:
        sec.add(Notice("warn", f"not observed: {', '.join(sorted(unobserved))} (executor hosts whose agent did not report; "
                               "their IO is missing from the totals)"))
    sec.add(Table(NODES_HEAD, [_observed_row(host, o) for host, o in sorted(observed.items())]))
    for r in ctx.profiled:
        per_node = an_nodes.node_rows(r)
        if not per_node:
            continue
        sub = Section(f"{r.run_key}: per node", 3)
        slow = an_nodes.slowest_node(per_node)
        if slow:
            sub.add(Paragraph(f"slowest node: {slow[0]} (its devices busy {slow[1]:.1f} s in all, the most of any node)"))
        sub.add(Table(NODE_PHASE_HEAD, [_node_row(x) for x in [*per_node, *an_nodes.cluster_total(per_node)]]))
        sec.add(sub)
    return [sec]


def _observed_row(host: str, o: dict) -> list[str]:
    devs = lambda role: ", ".join(sorted(o["devices"].get(role, []))) or "-"
    dropped = f"{o['dropped']} of {o['runs']}" + (f" ({'; '.join(sorted(o['drop_errors']))[:160]})" if o["drop_errors"] else "")
    return [host, o["agent"] or "?", str(o["cores"] or "?"),
            f"{o['mem_bytes'] / 2**30:.1f} GiB" if o["mem_bytes"] else "?", devs("data"), devs("intermediate"),
            devs("shuffle"), str(o["runs"]) + (f" (agent lost: {'; '.join(sorted(o['lost']))[:160]})" if o["lost"] else ""),
            dropped]


def _node_row(x: dict) -> list[str]:
    return [x["node"], x["phase"], f"{x['seconds']:.1f}", x["devices"] or "-", f"{x['read_mb']:.1f}", f"{x['write_mb']:.1f}",
            f"{x['avg_read_kb']:.0f}", f"{x['avg_write_kb']:.0f}", f"{x['util_pct']:.0f}", f"{x['cpu_busy_pct']:.0f}",
            net(x["net_rx_mb"], x["seconds"]), net(x["net_tx_mb"], x["seconds"]),
            "" if x["shuffle_write_mb"] is None else f"{x['shuffle_write_mb']:.1f}"]
