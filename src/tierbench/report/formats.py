"""How the report writes numbers and the analysis' terms: one way each, for every section."""

import math

from ..analysis.stats import Analysis, Summary


def fmt(x, digits=3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


def usd(x: float) -> str:
    """Dollars without scientific notation: $4.60, $0.69, $0.0000849."""
    if x == 0 or abs(x) >= 0.01:
        return f"${x:,.2f}"
    return f"${x:.{2 - math.floor(math.log10(abs(x)))}f}"


def interval(s: Summary) -> str:
    if s.n < 2:
        return "–"
    return f"{s.interval[0]:.2f} – {s.interval[1]:.2f}" + ("" if s.interval_kind == "range" else " (95%)")


def net(mb: float, seconds: float) -> str:
    """Network bytes of a phase and their rate: what an object store or remote HDFS moved over the wire (a one-box
    study's services talk over loopback, which is counted too)."""
    return f"{mb:.1f} ({mb / seconds:.1f})" if seconds > 0 else f"{mb:.1f}"


def share(x: float | None) -> str:
    return "–" if x is None else ("<1%" if x < 0.01 else f"{x:.0%}")


def baseline_words(an: Analysis) -> str:
    """The baseline as a reader should take it: one variant, or the baseline configuration at each swept value."""
    if not an.per_value:
        return an.baseline
    return f"{an.baseline.split('@')[0]} at the same swept engine value ({', '.join(sorted(set(an.baselines.values())))})"


def whiskers(an: Analysis) -> str:
    kinds = {s.interval_kind for s in an.runtime.values() if s.n > 1}
    return " or ".join(sorted({"range": "the runs' range", "bootstrap 95%": "bootstrap 95% of the median"}[k] for k in kinds)) or "none (one run)"
