"""The size `tierbench advise` and `tierbench predict` use when --size is not given: the scale model's target size
when the results' studies are scale models of one full-size job ([scale] target and size, recorded in study.json
as `spec.scale`), else the largest size measured. A scale model's largest measured size is the model's own
(128 MB for the quickstart), where nothing spills: advice at that size is advice for the model, not the job."""

from dataclasses import dataclass

from ..store import ResultsDir
from ..units import format_size

FROM_OPTION, FROM_SCALE, FROM_LARGEST = "--size", "scale target", "largest measured"  # SizeChoice.size_from


@dataclass(frozen=True)
class SizeChoice:
    size_bytes: int | None  # None: each job at the largest size measured (the model's own default)
    size_from: str          # FROM_OPTION, FROM_SCALE or FROM_LARGEST
    note: str | None        # one line for the human output; None when no study is a scale model
    target: str | None      # the scale model's target hardware, when the studies agree on one target

    def to_dict(self) -> dict:
        return {"size_bytes": self.size_bytes, "size_from": self.size_from, "note": self.note,
                "scale_target": self.target}


def scale_target(results_dir) -> tuple[str, int] | None:
    """(target hardware, target size in bytes) of a results folder's study, or None when it is no scale model."""
    scale = ResultsDir(results_dir).study().get("spec", {}).get("scale")
    return (scale["target"], scale["target_size"]) if scale else None


def choose_size(results: list, given: int | None) -> SizeChoice:
    """The size to predict or advise at: --size when given; else the scale target's size when every results folder
    is a scale model of the same target (hardware and size); else the largest measured, with a line saying why
    when some folders are scale models and they differ."""
    targets = [scale_target(r) for r in results]
    agreed = targets[0] if targets[0] and all(t == targets[0] for t in targets) else None
    if given is not None:
        note = (f"size: {format_size(given)}, from --size (the scale model's target size is {format_size(agreed[1])})"
                if agreed else None)
        return SizeChoice(given, FROM_OPTION, note, agreed[0] if agreed else None)
    if agreed:
        return SizeChoice(agreed[1], FROM_SCALE, f"size: {format_size(agreed[1])}, the scale model's target size ([scale] "
                          "size in the spec); --size to change", agreed[0])
    if any(targets):
        each = "; ".join(f"{r}: {f'{t[0]} at {format_size(t[1])}' if t else 'no [scale]'}" for r, t in zip(results, targets))
        return SizeChoice(None, FROM_LARGEST, f"size: the largest measured, not a scale target: the results' scale "
                          f"targets differ ({each}); --size to choose", None)
    return SizeChoice(None, FROM_LARGEST, None, None)
