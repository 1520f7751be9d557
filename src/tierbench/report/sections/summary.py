"""Summary per configuration and workload: runtime, its interval, throughput and the ratio to the baseline."""

from ...analysis.stats import BOOTSTRAP_FROM, Analysis
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import interval

SUMMARY_HEAD = ["workload", "config", "runs", "median s", "interval of the median s", "mean s", "std dev s",
                "throughput MB/s (median)", "MB/s per core (median)", "runtime / baseline (interval)"]


def sections(ctx: ReportContext) -> list[Section]:
    return [Section("Summary per configuration and workload", 2, [
        Table(SUMMARY_HEAD, summary_rows(ctx.analysis)),
        Paragraph("Runtime is the job's wall time measured around the engine call. The interval of the median is the "
                  f"runs' own range (fastest – slowest) below {BOOTSTRAP_FROM} repeats, and a bootstrap 95% interval of the "
                  f"median (marked 95%) from {BOOTSTRAP_FROM} on: with 2-4 runs a t interval is many times their spread. The "
                  "ratio's interval is, likewise, slowest/fastest and fastest/slowest of the two configurations' runs, or a "
                  "bootstrap of both. 'significant' means Welch's t-test p < 0.05 against the baseline. DFSIO throughput "
                  "is the aggregate (total MB / wall s); TestDFSIO's own per-task 'Throughput mb/sec' is in every run's metrics.",
                  muted=True)])]


def summary_rows(an: Analysis) -> list[list[str]]:
    comparisons = {(c.config, c.workload): c for c in an.comparisons}
    rows = []
    for wl in an.workloads:
        for config in an.configs:
            s = an.runtime.get((config, wl))
            if s is None:
                continue
            t = an.throughput.get((config, wl))
            pc = an.per_core.get((config, wl))
            rows.append([wl, config, str(s.n), f"{s.median:.2f}", interval(s), f"{s.mean:.2f}", f"{s.std:.2f}",
                         f"{t.median:.1f}" if t else "–", f"{pc.median:.1f}" if pc else "–",
                         _ratio(an, config, wl, comparisons.get((config, wl)))])
    return rows


def _ratio(an: Analysis, config: str, wl: str, c) -> str:
    """The runtime / the baseline's (the comparison's ratio: analyse compares every pair the baseline also ran),
    with its interval."""
    if config == an.baseline_of(config):
        return "1.00 (baseline)"
    b = an.runtime.get((an.baseline_of(config), wl))
    if not (b and b.median and c):
        return "–"
    iv = c.ratio_interval
    return f"{c.ratio:.2f}" + (f" ({iv[0]:.2f} – {iv[1]:.2f}{'' if c.ratio_interval_kind == 'range' else ', 95%'})" if iv else "")
