"""How the report writes numbers and the analysis' terms: one way each, for every section."""

import math

from ..analysis.stats import ALPHA, Analysis, Summary


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


def p_words(p: float | None) -> str:
    """Welch's p as the report writes it: never "p=0.000"."""
    if p is None:
        return "too few repeats for a Welch test"
    return "Welch p<0.001" if p < 0.001 else f"Welch p={p:.3f}" if p < 0.01 else f"Welch p={p:.2f}"


def speed_words(ratio: float, baseline: str) -> str:
    """A runtime ratio said as a reader takes it: "3.6x as fast (runtime 0.28 of hdd's)", or "takes 1.4x as long".
    (A ratio of 0.28 is not "72% faster": a runtime cut to 0.28 is 3.6 times the speed.)"""
    if ratio != ratio or ratio <= 0:  # NaN (a baseline median of 0) or no runtime: no ratio to say
        return f"no runtime ratio to {baseline}'s"
    if ratio < 1:
        return f"{1 / ratio:.{_digits(1 / ratio)}f}x as fast as {baseline} (runtime {ratio:.2f} of {baseline}'s)"
    if ratio > 1:
        return f"takes {ratio:.{_digits(ratio)}f}x as long as {baseline} (runtime {ratio:.2f} of {baseline}'s)"
    return f"as fast as {baseline} (runtime 1.00 of {baseline}'s)"


def _digits(x: float) -> int:
    """Two significant figures, three where the ratio is near 1 (1.04x, not 1.0x)."""
    return 2 if x < 1.1 else 1


def significant(c) -> bool:
    """Welch p below ALPHA (a comparison with too few repeats for the test is not)."""
    return c.p_value is not None and c.p_value < ALPHA


def comparison_words(c, baseline: str | None = None) -> str:
    """A comparison with its significance: a difference that is not significant is said as such, never as a claim."""
    base = baseline or c.baseline
    if c.p_value is None:
        return f"{speed_words(c.ratio, base)}; {c.verdict}"
    if c.p_value < ALPHA:
        return f"{speed_words(c.ratio, base)}; significant, {p_words(c.p_value)}"
    return f"not significantly different from {base} ({p_words(c.p_value)}: runtime {c.ratio:.2f} of {base}'s may be noise)"
