"""IO profile per phase: the launcher host's devices, CPU and network per phase of each profiled run."""

from ..context import ReportContext
from ..document import Figure, Paragraph, Section, Table
from .. import charts
from ..formats import net

PROFILE_HEAD = ["phase", "device (holds)", "s", "read MB", "write MB", "read IOs", "write IOs", "merges r/w",
                "avg read KB", "avg write KB", "read MB/s", "write MB/s", "util %", "CPU busy %", "iowait %",
                "net in MB (MB/s)", "net out MB (MB/s)"]
LIMIT_HEAD = "of the emulated limit"  # an emulated device's util % stays low: the throttle holds its requests back


def sections(ctx: ReportContext) -> list[Section]:
    if not ctx.profiled:
        return []
    sec = Section("IO profile per phase", 2, [Paragraph(
        "Sampled from /proc/diskstats and /proc/stat every "
        f"{ctx.profiled[0].samples['interval_s']:g} s during the first run of each configuration and workload; phases from the "
        "engine (Spark stages; TeraSort's map, shuffle-fetch and sort-and-write task intervals; Hadoop's task log). "
        "'writeback after the job' is what the job left in the page cache, flushed by a sync() after it. "
        "The machine may be shared: device counters include other processes' IO.", muted=True)])
    for r in ctx.profiled:
        o = ctx.observations.get(r.run_key)
        sub = Section(r.run_key, 3, aside=o.character if o else "")
        svg = charts.timeline(r, o.labels, o.roles, ctx.phase_colors) if o else None
        if svg:
            sub.add(Figure(svg, None, "device read and write MB/s and CPU % over the run, phases as bands", kind="timeline"))
        if o:
            sub.add(Table(PROFILE_HEAD + ([LIMIT_HEAD] if o.limit_loads else []), profile_rows(o)))
        sec.add(sub)
    return [sec]


def profile_rows(o) -> list[list[str]]:
    rows = []
    for r in o.profile:
        if r["read_mb"] < 0.05 and r["write_mb"] < 0.05 and r["util_pct"] < 1 and \
                r.get("net_rx_mb", 0) < 0.05 and r.get("net_tx_mb", 0) < 0.05:  # (an S3 phase moves only network bytes)
            continue
        rows.append([r["phase"], f"{r['device']} ({'+'.join(r['roles']) or 'other'})", f"{r['seconds']:.1f}",
                     f"{r['read_mb']:.1f}", f"{r['write_mb']:.1f}", str(r["read_ios"]), str(r["write_ios"]),
                     f"{r['read_merges']}/{r['write_merges']}", f"{r['avg_read_kb']:.0f}", f"{r['avg_write_kb']:.0f}",
                     f"{r['read_mb_s']:.1f}", f"{r['write_mb_s']:.1f}", f"{r['util_pct']:.0f}", f"{r['cpu_busy_pct']:.0f}",
                     f"{r['cpu_iowait_pct']:.0f}", net(r.get("net_rx_mb", 0), r["seconds"]), net(r.get("net_tx_mb", 0), r["seconds"])]
                    + ([_limit_load(o, r)] if o.limit_loads else []))
    return rows


def _limit_load(o, row) -> str:
    """An emulated device's load in the phase as a share of its throttle's limits ("94% of 29 MB/s write")."""
    load = o.limit_loads.get((row["phase"], row["device"]))
    return load.text() if load else "–"
