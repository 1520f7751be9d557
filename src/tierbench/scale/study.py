"""The one entry point of a study (`tierbench run`, the quickstart): its spec parsed once, in its results folder;
where it is a scale model whose core_speed is measured, its calibration first (calibration.json) and its pace
check after; the runs with the scale model's hooks stacked (hooks.py). A study without [scale] runs the same way,
its hooks doing nothing but share its emulated drives' time."""

import sys
from pathlib import Path

from ..store import ResultsDir


def run_study(raw: dict, source: str, base_dir: Path | None, out_dir: Path, command_line: list[str],
              resume: bool = False, allow_mixed: bool = False, unemulated: bool = False) -> ResultsDir:
    """The study of the spec's tables `raw` (read from `source`) run in `out_dir`: its results."""
    from .calibration import calibrated, pace_check
    from .derive import parse_in
    from .hooks import study_runner  # (the engines and the sampler: only for a valid spec)

    spec = parse_in(raw, source, base_dir, out_dir)
    _say_estimate(spec.scale)
    base_dir = base_dir or Path.cwd()
    spec = calibrated(spec, raw, base_dir, out_dir, command_line, resume, allow_mixed, unemulated)
    results = study_runner(spec, out_dir, command_line, resume=resume, allow_mixed=allow_mixed,
                           unemulated=unemulated).run()
    pace_check(spec, raw, base_dir, out_dir, command_line, allow_mixed, unemulated)
    return results


def _say_estimate(model) -> None:
    """Where core_speed is an estimate from the CPUs' scores (no calibration runs), one line saying so and its range."""
    e = model.core_speed_estimate if model else None
    if e:
        print(f"tierbench: scale model: core_speed {e['core_speed']:.3g} is an ESTIMATE, {e['low']:.3g}-{e['high']:.3g} "
              f"({e['source']}): drive speed factor k {model.rate_factor:.3g} ({e['k_low']:.3g}-{e['k_high']:.3g})",
              file=sys.stderr, flush=True)
