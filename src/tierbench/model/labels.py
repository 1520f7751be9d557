"""What a prediction of a published figure is -- one rule for `predict --published` (model/published.py) and the
validation bench (bench/bench_validate.py); their summaries count PREDICTED figures only.

- FITTED: the scale model answered, and a constant was set watching this very figure (scale/constants.py marks them
  FITTED), or the target's job rate (core_speed) was calibrated on this run's own drives.
- STRUCTURAL: equal to another figure by construction (a ratio of two pooled runtimes: 1).
- SUMMED: the sum of figures counted on their own (a paper's "total" column).
- PREDICTED: everything else; the resource model fits nothing to published figures (it is calibrated on the
  user's own runs).
"""

from .hardware import Hardware

PREDICTED, FITTED, STRUCTURAL, SUMMED = "predicted", "fitted", "structural", "summed"

# (hardware, workload, constant): a scale model constant set while watching that published runtime
SEEK_FITTED = (("sandisk-all-hdd", "teragen", "model.WRITE_SEEK_KIB"),
               ("sandisk-all-hdd", "dfsio-write", "model.WRITE_SEEK_KIB"),
               ("sandisk-all-hdd", "terasort", "model.READ_SEEK_KIB"))


def scale_label(workload: str, hw: Hardware, studies: list) -> str:
    """A scale model's answer for `workload` on `hw`: FITTED (with why) or PREDICTED."""
    constant = next((c for name, w, c in SEEK_FITTED if (name, w) == (hw.name, workload)), None)
    if constant:
        return f"{FITTED}: {constant} (scale/constants.py) was set watching this figure"
    for stored in studies:
        cal = (stored.study.spec.get("scale") or {}).get("calibration") or {}
        # (fit_s: the calibration ran the job on the rate's own drives, these: the rate is this run's)
        if cal.get("fit_s") and cal.get("job") == workload and (cal.get("fit_drive"), cal.get("fit_count")) == (
                hw.data.drive.name, hw.data.count):
            return f"{FITTED}: the target's {workload} rate per thread (core_speed) comes from this run"
    return PREDICTED


def ratio_label(numerator: str, pooled_with_baseline: bool) -> str:
    """A runtime over its baseline's: STRUCTURAL when both are one pooled figure, else the numerator's label (the
    baseline is the anchor the ratio is taken to: a fitted baseline leaves the numerator's error in the ratio)."""
    if pooled_with_baseline:
        return f"{STRUCTURAL}: pooled with the baseline's runs (the same job on the same drives)"
    return numerator
