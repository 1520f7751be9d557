"""How far to trust a prediction for hardware the user does not own: the error of such predictions on the
validation corpus (model/corpus: published runtimes of clusters tierbench has no runs of), not the spread of the
user's repeats nor the model's error reproducing the user's own configurations, which say how well it knows the
measured machine, not the target.

`errors.toml` beside the corpus holds the half-width measured by `bench/bench_validate.py --write-errors`: the
weighted 80th percentile of |log(published / predicted)| over the corpus's predicted runtimes, each paper one vote.
A prediction to other hardware (a cluster, another node, a size far from the measured) gets at least that interval;
one on the measured machine near the measured size keeps the model's own error (model/whatif.validate).
"""

import math
import tomllib
from dataclasses import dataclass
from importlib import resources

NEAR_SIZE = 2.0  # a size within this factor of the largest measured, on one node: the measured machine's question


@dataclass(frozen=True)
class CorpusError:
    half_width_log: float  # the interval: prediction x exp(+/- this)
    coverage: float        # the share of the corpus's runtimes it was chosen to hold (0.8)
    papers: tuple[str, ...]
    figures: int
    measured: str          # how and when (bench/bench_validate.py --write-errors)

    @property
    def factor(self) -> float:
        return math.exp(self.half_width_log)

    def words(self) -> str:
        return (f"x{self.factor:.2g} either way: the validation corpus's {self.coverage:.0%} error for predictions to "
                f"other hardware ({self.figures} published runtimes of {len(self.papers)} papers; docs/model.md)")


def corpus_error() -> CorpusError | None:
    """The corpus's measured error, or None when no bench has written it."""
    path = resources.files("tierbench.model.corpus").joinpath("errors.toml")
    if not path.is_file():
        return None
    d = tomllib.loads(path.read_text())["far"]
    return CorpusError(d["half_width_log"], d["coverage"], tuple(d["papers"]), d["figures"], d["measured"])


def is_near(nodes: int, size_bytes: float | None, measured_sizes: list[float]) -> bool:
    """Whether the question is the measured machine's own: one node, a size within NEAR_SIZE of the largest run."""
    if nodes != 1:
        return False
    if size_bytes is None or not measured_sizes:
        return True
    return 1 / NEAR_SIZE <= size_bytes / max(measured_sizes) <= NEAR_SIZE


def widened(seconds: float, interval: list[float] | None) -> list[float] | None:
    """`interval` widened to at least the corpus's error around `seconds` (unchanged when no error is recorded)."""
    err = corpus_error()
    if err is None:
        return interval
    low, high = seconds / err.factor, seconds * err.factor
    return [min(low, interval[0]), max(high, interval[1])] if interval else [low, high]
