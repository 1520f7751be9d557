"""The size `tierbench advise` and `tierbench predict` use when --size is not given: the scale model's target size
when the results' studies are scale models of one full-size job ([scale] target and size, recorded in study.json
as `spec.scale`), else the largest size measured. A scale model's largest measured size is the model's own
(128 MB for the quickstart), where nothing spills: advice at that size is advice for the model, not the job.
The target's hardware is read from the results too (`stored_target`: a user's file as study.json keeps it), and
where its core_speed was an estimate, its range (`estimate_note`)."""

from dataclasses import dataclass, field

from ..store import ResultsDir
from ..units import format_size

FROM_OPTION, FROM_SCALE, FROM_LARGEST = "--size", "scale target", "largest measured"  # SizeChoice.size_from


@dataclass(frozen=True)
class SizeChoice:
    size_bytes: int | None  # None: each job at the largest size measured (the model's own default)
    size_from: str          # FROM_OPTION, FROM_SCALE or FROM_LARGEST
    note: str | None        # one line for the human output; None when no study is a scale model
    target: str | None      # the scale model's target hardware, when the studies agree on one target
    scale: dict | None = field(default=None, compare=False)  # that target's scale model (spec.scale), as recorded

    def to_dict(self) -> dict:
        estimate = (self.scale or {}).get("core_speed_estimate")
        return {"size_bytes": self.size_bytes, "size_from": self.size_from, "note": self.note,
                "scale_target": self.target, **({"core_speed_estimate": estimate} if estimate else {})}

    def hardware(self):
        """The target's hardware as the results keep it (a user's file: its description; a shipped one: by name)."""
        from ..model.hardware import stored_target

        return stored_target(self.scale) if self.scale else None

    def estimate_note(self) -> str | None:
        """One line where core_speed was estimated: the range the target's predicted times carry."""
        e = (self.scale or {}).get("core_speed_estimate")
        if not e:
            return None
        return (f"core_speed {e['core_speed']:.3g} is an ESTIMATE ({e['source']}): k {self.scale['rate_factor']:.3g} "
                f"within {e['k_low']:.3g}-{e['k_high']:.3g}, so the target's predicted times within "
                f"x{e['core_speed'] / e['high']:.2g}-x{e['core_speed'] / e['low']:.2g} of those given")


def scale_target(results_dir) -> tuple[str, int] | None:
    """(target hardware, target size in bytes) of a results folder's study, or None when it is no scale model."""
    scale = scale_of(results_dir)
    return (scale["target"], scale["target_size"]) if scale else None


def scale_of(results_dir) -> dict | None:
    """A results folder's scale model as study.json records it (spec.scale), or None."""
    return ResultsDir(results_dir).study().get("spec", {}).get("scale")


def choose_size(results: list, given: int | None) -> SizeChoice:
    """The size to predict or advise at: --size when given; else the scale target's size when every results folder
    is a scale model of the same target (hardware and size); else the largest measured, with a line saying why
    when some folders are scale models and they differ."""
    targets = [scale_target(r) for r in results]
    agreed = targets[0] if targets[0] and all(t == targets[0] for t in targets) else None
    scale = scale_of(results[0]) if agreed else None
    if given is not None:
        note = (f"size: {format_size(given)}, from --size (the scale model's target size is {format_size(agreed[1])})"
                if agreed else None)
        return SizeChoice(given, FROM_OPTION, note, agreed[0] if agreed else None, scale)
    if agreed:
        return SizeChoice(agreed[1], FROM_SCALE, f"size: {format_size(agreed[1])}, the scale model's target size ([scale] "
                          "size in the spec); --size to change", agreed[0], scale)
    if any(targets):
        each = "; ".join(f"{r}: {f'{t[0]} at {format_size(t[1])}' if t else 'no [scale]'}" for r, t in zip(results, targets))
        return SizeChoice(None, FROM_LARGEST, f"size: the largest measured, not a scale target: the results' scale "
                          f"targets differ ({each}); --size to choose", None)
    return SizeChoice(None, FROM_LARGEST, None, None)
