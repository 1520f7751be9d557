"""Charts as inline SVG (matplotlib), so the HTML report is one file that opens offline."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..analysis.stats import Analysis  # noqa: E402

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]


def per_workload_bars(an: Analysis, which: str, runs_by_key: dict, title: str, ylabel: str) -> str | None:
    """One panel per workload: median per configuration, 95% CI whiskers, every run as a dot."""
    table = an.runtime if which == "runtime" else an.throughput
    workloads = [w for w in an.workloads if any((c, w) in table for c in an.configs)]
    if not workloads:
        return None
    cols = min(len(workloads), 3)
    rows = (len(workloads) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for i, wl in enumerate(workloads):
        ax = axes[i // cols][i % cols]
        for j, config in enumerate(an.configs):
            s = table.get((config, wl))
            if s is None:
                continue
            color = PALETTE[j % len(PALETTE)]
            ax.bar(j, s.median, color=color, alpha=0.85, label=config)
            if s.ci95:
                lo, hi = s.ci95
                ax.errorbar(j, s.mean, yerr=[[max(s.mean - max(lo, 0), 0)], [max(hi - s.mean, 0)]], fmt="none", ecolor="black", capsize=4, lw=1)
            ax.scatter([j] * len(runs_by_key[(which, config, wl)]), runs_by_key[(which, config, wl)], color="black", s=10, zorder=3)
        ax.set_title(wl, fontsize=10)
        ax.set_xticks(range(len(an.configs)))
        ax.set_xticklabels(an.configs, rotation=20, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    for k in range(len(workloads), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _svg(fig)


def normalised_runtime(an: Analysis) -> str | None:
    """Median runtime of each configuration divided by the baseline's, per workload (below 1 = faster)."""
    workloads = [w for w in an.workloads if (an.baseline, w) in an.runtime]
    if not workloads or len(an.configs) < 2:
        return None
    fig, ax = plt.subplots(figsize=(max(5, 1.4 * len(workloads) * len(an.configs) / 2 + 2), 3.4))
    width = 0.8 / len(an.configs)
    for j, config in enumerate(an.configs):
        xs, ys = [], []
        for i, wl in enumerate(workloads):
            s, b = an.runtime.get((config, wl)), an.runtime[(an.baseline, wl)]
            if s is not None and b.median > 0:
                xs.append(i + (j - (len(an.configs) - 1) / 2) * width)
                ys.append(s.median / b.median)
        bars = ax.bar(xs, ys, width=width, color=PALETTE[j % len(PALETTE)], label=config)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, fontsize=9)
    ax.set_ylabel(f"runtime / {an.baseline} (x)")
    ax.set_title(f"Normalised runtime (median, baseline {an.baseline} = 1.00; lower is faster)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


def cost_per_job(costs) -> str | None:
    """$/job (hardware + power + drive replacements) per workload, one bar per configuration."""
    if not costs:
        return None
    workloads = list(dict.fromkeys(c.workload for c in costs))
    configs = list(dict.fromkeys(c.config for c in costs))
    by = {(c.config, c.workload): c for c in costs}
    fig, ax = plt.subplots(figsize=(max(5, 1.4 * len(workloads) * len(configs) / 2 + 2), 3.4))
    width = 0.8 / len(configs)
    for j, config in enumerate(configs):
        xs, ys = [], []
        for i, wl in enumerate(workloads):
            if (config, wl) in by:
                xs.append(i + (j - (len(configs) - 1) / 2) * width)
                ys.append(by[(config, wl)].usd_per_job_total)
        bars = ax.bar(xs, ys, width=width, color=PALETTE[j % len(PALETTE)], label=config)
        ax.bar_label(bars, fmt="%.2g", fontsize=7)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, fontsize=9)
    ax.set_ylabel("USD per job")
    years = costs[0].base.years
    ax.set_title(f"Cost per job over {years:g} years (hardware + power + drive replacements; lower is better)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)
