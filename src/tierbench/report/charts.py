"""Charts as inline SVG (matplotlib), so the HTML report is one file that opens offline."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from ..analysis.stats import Analysis  # noqa: E402
from ..store import StoredRun  # noqa: E402

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
MAX_WIDTH_IN = 13  # a figure never grows wider than the page
MANY = 5  # past this many bars per group: colours from a legend, not labels under each bar


def color(j: int, n: int) -> str:
    """Distinct colours for up to 20 series (the palette for 8, matplotlib's tab20 beyond)."""
    if n <= len(PALETTE):
        return PALETTE[j % len(PALETTE)]
    return matplotlib.colors.to_hex(matplotlib.colormaps["tab20"](j % 20))


def series_colors(names: list[str]) -> dict[str, str]:
    """One colour per configuration for the whole report: every chart takes its colours from this map, so a
    configuration keeps its colour whichever subset of configurations a chart shows. A variant's storage
    configuration alone (hdd-6 of hdd-6@spark.x-true, a line in an engine sweep) takes its first variant's colour."""
    colors = {name: color(j, len(names)) for j, name in enumerate(names)}
    for name in names:
        colors.setdefault(name.split("@")[0], colors[name])
    return colors


def _color_of(name: str, colors: dict[str, str] | None, j: int, n: int) -> str:
    """A series' colour: the report's when it names a configuration, else by its place in this chart."""
    return (colors or {}).get(name) or color(j, n)


# Phase bands: one pale colour per phase name for the whole report (a phase keeps its colour in every timeline)
PHASE_COLORS = [matplotlib.colors.to_hex(c) for c in
                list(matplotlib.colormaps["Pastel1"].colors) + list(matplotlib.colormaps["Pastel2"].colors)]


def phase_colors(phases: list[str]) -> dict[str, str]:
    return {p: PHASE_COLORS[i % len(PHASE_COLORS)] for i, p in enumerate(dict.fromkeys(phases))}


def wrap_label(text: str, width: int = 14) -> str:
    """A tick label broken over lines at its own separators (wordcount.split_size-8MB -> wordcount. / split_size-8MB),
    so that neighbouring labels do not run into each other."""
    if len(text) <= width:
        return text
    import re

    lines, line = [], ""
    for part in re.findall(r"[^.\-_/@ ]+[.\-_/@ ]?", text):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join(lines + [line])


def log_if_wide(ax, values, axis: str = "y") -> bool:
    """A log axis when the values span more than 10x (one tall bar would flatten the rest), its ticks written as
    plain numbers (0.2, 0.5, 1, 2) rather than powers of ten."""
    v = [x for x in values if x is not None and x > 0]
    if not v or max(v) / min(v) <= 10:
        return False
    import matplotlib.ticker as ticker

    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    which = ax.yaxis if axis == "y" else ax.xaxis
    which.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    which.set_minor_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}" if f"{x:.0e}"[0] in "25" else ""))
    return True


def _grouped_bars(n_groups: int, n_series: int):
    """A figure for grouped bars whose width stays within the page, and the bar width."""
    fig, ax = plt.subplots(figsize=(min(MAX_WIDTH_IN, max(5, 1.4 * n_groups * n_series / 2 + 2)), 3.4 + 0.25 * (n_series > MANY) * ((n_series + 2) // 3)))
    return fig, ax, 0.8 / n_series


def _legend(fig, ax, n: int) -> None:
    if n > MANY:  # right of the plot, so that it covers no bar and meets no tick label
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    else:
        ax.legend(fontsize=8)


def _svg(fig, tight: bool = True) -> str:
    """The figure as SVG text; tight=False for a figure laid out by hand (the tight box costs a second draw)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight" if tight else None, metadata={"Date": None})
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]


def per_workload_bars(an: Analysis, which: str, runs_by_key: dict, title: str, ylabel: str,
                      colors: dict[str, str] | None = None) -> str | None:
    """One panel per workload: median per configuration, 95% CI whiskers, every run as a dot. With many
    configurations the bars are named by one legend for the figure instead of under every panel."""
    table = an.runtime if which == "runtime" else an.throughput
    workloads = [w for w in an.workloads if any((c, w) in table for c in an.configs)]
    if not workloads:
        return None
    n = len(an.configs)
    cols = min(len(workloads), 3)
    rows = (len(workloads) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows + (0.3 * ((n + 2) // 3) if n > MANY else 0)), squeeze=False)
    for i, wl in enumerate(workloads):
        ax = axes[i // cols][i % cols]
        for j, config in enumerate(an.configs):
            s = table.get((config, wl))
            if s is None:
                continue
            ax.bar(j, s.median, color=_color_of(config, colors, j, n), alpha=0.85, label=config)
            if s.n > 1:  # the median's interval (stats.median_interval): within the measured values, never below zero
                lo, hi = s.interval
                ax.errorbar(j, s.median, yerr=[[max(s.median - lo, 0)], [max(hi - s.median, 0)]], fmt="none", ecolor="black", capsize=4, lw=1)
            ax.scatter([j] * len(runs_by_key[(which, config, wl)]), runs_by_key[(which, config, wl)], color="black", s=10, zorder=3)
        ax.set_title(wrap_label(wl, 40), fontsize=10)
        ax.set_xticks(range(n))
        ax.set_xticklabels([wrap_label(c, 10) for c in an.configs] if n <= MANY else [str(j + 1) for j in range(n)], fontsize=8)
        log_if_wide(ax, [v for c in an.configs for v in runs_by_key.get((which, c, wl), []) or []])
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for k in range(len(workloads), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(title, fontsize=11)
    if n > MANY:
        handles = [matplotlib.patches.Patch(color=_color_of(c, colors, j, n), label=f"{j + 1}: {c}") for j, c in enumerate(an.configs)]
        fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, 0.3 * ((n + 2) // 3) / (3.2 * rows + 0.3 * ((n + 2) // 3)), 1, 1))
    else:
        fig.tight_layout()
    return _svg(fig)


def normalised_runtime(an: Analysis, colors: dict[str, str] | None = None) -> str | None:
    """Median runtime of each configuration divided by the baseline's, per workload (below 1 = faster), with the
    ratio's interval (stats.ratio_interval) as whiskers."""
    workloads = [w for w in an.workloads if any((an.baseline_of(c), w) in an.runtime for c in an.configs)]
    if not workloads or len(an.configs) < 2:
        return None
    fig, ax, width = _grouped_bars(len(workloads), len(an.configs))
    intervals = {(c.config, c.workload): c.ratio_interval for c in an.comparisons}
    all_ys = []
    for j, config in enumerate(an.configs):
        xs, ys, lo, hi = [], [], [], []
        for i, wl in enumerate(workloads):
            s, b = an.runtime.get((config, wl)), an.runtime.get((an.baseline_of(config), wl))
            if s is not None and b is not None and b.median > 0:
                xs.append(i + (j - (len(an.configs) - 1) / 2) * width)
                ys.append(s.median / b.median)
                iv = intervals.get((config, wl)) or (ys[-1], ys[-1])
                lo.append(max(ys[-1] - iv[0], 0))
                hi.append(max(iv[1] - ys[-1], 0))
        bars = ax.bar(xs, ys, width=width, color=_color_of(config, colors, j, len(an.configs)), label=config)
        if any(lo) or any(hi):
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor="black", capsize=2, lw=0.7)
        if len(an.configs) <= MANY:
            ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
        all_ys += ys
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    log_if_wide(ax, all_ys)
    _category_ticks(ax, workloads)
    base = an.baseline.split("@")[0] + (" at each swept value" if an.per_value else "")
    ax.set_ylabel(f"runtime / {base} (x)")
    ax.set_title(f"Normalised runtime (median, baseline {base} = 1.00; lower is faster)", fontsize=10)
    _legend(fig, ax, len(an.configs))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


CHAR_IN = 0.075  # width of one character of a 9-point tick label, inches (DejaVu Sans, a little over its mean)


def _category_ticks(ax, groups: list[str]) -> None:
    """Group names under the x axis, wrapped at their separators; slanted when, even wrapped, the longest line is
    wider than the space one group has, so that no two overlap."""
    ax.set_xticks(range(len(groups)))
    labels = [wrap_label(g, 12) for g in groups]
    widest = max(len(line) for lab in labels for line in lab.split("\n")) * CHAR_IN
    per_group = ax.figure.get_figwidth() * ax.get_position().width / max(1, len(groups))
    slant = widest > per_group * 0.9
    ax.set_xticklabels(labels, fontsize=8 if slant else 9, rotation=30 if slant else 0, ha="right" if slant else "center",
                       rotation_mode="anchor")


def _bars_by_series(values: dict[tuple[str, str], float], groups: list[str], series: list[str], fmt: str,
                    colors: dict[str, str] | None = None):
    """One bar per series in each group, labelled with its value: {(series, group): value} -> (fig, ax).
    A log axis when the values span more than 10x."""
    fig, ax, width = _grouped_bars(len(groups), len(series))
    for j, name in enumerate(series):
        xs, ys = [], []
        for i, group in enumerate(groups):
            if (name, group) in values:
                xs.append(i + (j - (len(series) - 1) / 2) * width)
                ys.append(values[(name, group)])
        bars = ax.bar(xs, ys, width=width, color=_color_of(name, colors, j, len(series)), label=name)
        if len(series) <= MANY:
            ax.bar_label(bars, fmt=fmt, fontsize=7, padding=2)
    log_if_wide(ax, list(values.values()))
    _category_ticks(ax, groups)
    return fig, ax


def _finish(fig, ax, n_series: int) -> str:
    _legend(fig, ax, n_series)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


def pipeline_totals(pipes, colors: dict[str, str] | None = None) -> str | None:
    """One horizontal bar per configuration (names on the left, never crowded): the pipeline's members' median
    runtimes stacked, hatched per member, the total at the end."""
    if not pipes:
        return None
    members = pipes[0].members
    fig, ax = plt.subplots(figsize=(8.0, 1.2 + 0.32 * len(pipes)))
    lefts = [0.0] * len(pipes)
    hatches = ["", "//", "..", "xx", "--"]
    ys = list(range(len(pipes)))[::-1]  # the first configuration on top
    for k, m in enumerate(members):
        widths = [p.member_medians.get(m, 0.0) for p in pipes]
        ax.barh(ys, widths, left=lefts, color=[_color_of(p.config, colors, j, len(pipes)) for j, p in enumerate(pipes)],
                edgecolor="white", hatch=hatches[k % len(hatches)], height=0.7)
        lefts = [a + w for a, w in zip(lefts, widths)]
    for y, p, end in zip(ys, pipes, lefts):
        ax.annotate(f"{p.runtime.median:.1f} s", (end, y), va="center", fontsize=7, xytext=(3, 0), textcoords="offset points")
    ax.set_yticks(ys)
    ax.set_yticklabels([p.config for p in pipes], fontsize=8)
    ax.set_xlim(0, max(lefts) * 1.15)
    handles = [matplotlib.patches.Patch(facecolor="#bbbbbb", edgecolor="white", hatch=hatches[k % len(hatches)], label=m)
               for k, m in enumerate(members)]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_xlabel("median wall time (s)", fontsize=8)
    ax.set_title(f"{pipes[0].pipeline}: runtime per configuration (stacked by member)", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


def query_times(values: dict[tuple[str, str], float], label: str, colors: dict[str, str] | None = None) -> str | None:
    """{(variant, query): median s}: the queries along x, a bar per configuration."""
    if not values:
        return None
    queries = list(dict.fromkeys(q for _, q in values))
    variants = list(dict.fromkeys(v for v, _ in values))
    fig, ax = _bars_by_series(values, queries, variants, "%.2g", colors)
    ax.set_ylabel("median s per query")
    ax.set_title(f"{label}: time per query (lower is faster)", fontsize=10)
    return _finish(fig, ax, len(variants))


def cost_per_job(costs, colors: dict[str, str] | None = None) -> str | None:
    """$/job (hardware + power + drive replacements) per workload, one bar per configuration."""
    if not costs:
        return None
    workloads = list(dict.fromkeys(c.workload for c in costs))
    configs = list(dict.fromkeys(c.config for c in costs))
    fig, ax = _bars_by_series({(c.config, c.workload): c.usd_per_job_total for c in costs}, workloads, configs, "%.2g", colors)
    ax.set_ylabel("USD per job")
    years = costs[0].base.years
    ax.set_title(f"Cost per job over {years:g} years (hardware + power + drive replacements; lower is better)", fontsize=10)
    return _finish(fig, ax, len(configs))


def timeline(record: StoredRun, labels: list[str], roles: dict, colors: dict[str, str] | None = None) -> str | None:
    """Device MB/s (read and write, per device) and CPU % over the run, with the phases as bands (colours: the
    report's phase_colors, so a phase looks the same in every timeline)."""
    s = record.samples
    if not s or not s.get("t_ms"):
        return None
    t0 = (s.get("start_ms") or s["t_ms"][0]) / 1000
    xs = [t / 1000 - t0 for t in s["t_ms"]]
    widths = [max((xs[i] - (xs[i - 1] if i else 0)), 1e-3) for i in range(len(xs))]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9.0, 3.6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    phases = list(dict.fromkeys(labels))
    colors = {**phase_colors(phases), **(colors or {})}
    spans = []  # one band per run of samples in the same phase (a band per sample made long runs slow to draw)
    for i, lab in enumerate(labels):
        if spans and spans[-1][2] == lab:
            spans[-1][1] = xs[i]
        else:
            spans.append([xs[i] - widths[i], xs[i], lab])
    for ax in (ax1, ax2):
        for start, end, lab in spans:
            ax.axvspan(start, end, color=colors[lab], lw=0)
    for j, (dev, cols) in enumerate(s["devices"].items()):
        role = "+".join(roles.get(dev, [])) or "other"
        c = PALETTE[j % len(PALETTE)]
        ax1.step(xs, [b / 2**20 / w for b, w in zip(cols["wr_bytes"], widths)], where="pre", color=c, label=f"{dev} ({role})")
        ax1.step(xs, [b / 2**20 / w for b, w in zip(cols["rd_bytes"], widths)], where="pre", color=c, ls="--")
    ax1.set_ylabel("MB/s\n(— write, -- read)", fontsize=7)
    # legends right of the panels: a study of many devices has a legend taller than its panel
    ax1.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    busy = [u + y + o for u, y, o in zip(s["cpu"]["user"], s["cpu"]["system"], s["cpu"]["other"])]
    ax2.step(xs, busy, where="pre", color="black", label="CPU busy %")
    ax2.step(xs, s["cpu"]["iowait"], where="pre", color="#C44E52", label="iowait %")
    ax2.set_ylim(0, 105)
    ax2.set_ylabel("CPU %", fontsize=8)
    ax2.set_xlabel("seconds since the run started (bands: phases)", fontsize=8)
    ax2.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    handles = [matplotlib.patches.Patch(color=colors[p], label=p) for p in phases]
    fig.legend(handles=handles, fontsize=6, loc="upper right", ncol=min(4, len(handles)))
    fig.suptitle(f"{record.run_key}", fontsize=9, x=0.02, ha="left")
    fig.subplots_adjust(left=0.09, right=0.78, top=0.88, bottom=0.13, hspace=0.1)  # fixed: tight_layout cost ~0.3 s a chart
    return _svg(fig, tight=False)  # the right margin holds the legends


def sweep_lines(sweep: dict, series: dict[str, dict[str, list]], colors: dict[str, str] | None = None) -> str | None:
    """A swept knob as line charts: the swept values along x, median runtime up (analysis.tables.sweep_medians)."""
    if not series:
        return None
    values = [str(m["value"]).lower() if isinstance(m["value"], bool) else str(m["value"]) for m in sweep["members"]]
    panels = list(series)
    cols = min(len(panels), 3)
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for k, panel in enumerate(panels):
        ax = axes[k // cols][k % cols]
        for j, (line, ys) in enumerate(series[panel].items()):
            pts = [(i, y) for i, y in enumerate(ys) if y is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=_color_of(line, colors, j, len(series[panel])), label=line)
        ax.set_title(wrap_label(panel, 40), fontsize=10)
        _category_ticks(ax, values)
        ax.set_xlabel(sweep["knob"], fontsize=8)
        ax.set_ylabel("median wall time (s)", fontsize=8)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(f"Sweep of {sweep['knob']} ({sweep['level']} {sweep['base']})", fontsize=11)
    fig.tight_layout()
    return _svg(fig)


def predicted_runtime(predictions: list[dict]) -> str | None:
    """`tierbench predict`'s runtime per job, one bar per hardware description (log scale when they span 10x)."""
    if not predictions:
        return None
    jobs = list(dict.fromkeys(r["job"] for r in predictions))
    hws = list(dict.fromkeys(r["hardware"] for r in predictions))
    fig, ax = _bars_by_series({(r["hardware"], r["job"]): r["seconds"] for r in predictions}, jobs, hws, "%.0f")
    ax.set_ylabel("predicted runtime (s)")
    ax.set_title("Predicted runtime per job and hardware (tierbench predict)", fontsize=10)
    return _finish(fig, ax, len(hws))
