"""`tierbench probe` and a study's `probe = true`: the devices behind a study's local directories measured with fio
(sampling/probe.py), in scratch dirs under the study's own roots, the result kept with its results."""

import json
from pathlib import Path

from ..safefiles import write_text
from ..sampling.probe import check_room, probe_dirs
from ..storage import StudyLayout, emulation
from ..storage.layout import study_root
from ..store import ResultsDir
from ..store.derived import PROBE_FILE


def scratch_dirs(spec) -> dict[str, Path]:
    """{each local directory of a study spec: fio's scratch dir under its namespaced root}, for probe_dirs."""
    dirs = {}
    for c in spec.storage:
        for d in (*c.local_data, *c.intermediate):
            dirs.setdefault(d, study_root(d, spec.root_name) / "_probe")
    return dirs


def probe_study(spec, out_dir: Path, size: int, on_phase=print) -> tuple[dict, Path]:
    """Probe the devices behind every local directory of a study (`tierbench probe`); returns (result, where it is stored).

    fio works in a scratch dir under each directory's namespaced root, claimed
    first; roots this created are released afterwards (an interrupted study's
    data in a root that already existed is kept). The result goes into the
    study's results in out_dir if there are any, else into out_dir/probe.json,
    which the study's run takes over later.
    """
    if emulation.devices_under(scratch_dirs(spec)):  # fio must meet the throttle the study's engine will meet
        emulation.check_can_emulate()
        emulation.enter_group()
    for spec_dir, work in scratch_dirs(spec).items():  # before anything is made
        check_room(work, spec_dir, size)
    layout = StudyLayout(spec)
    layout.check_outside(out_dir, "--out")
    existed = {r for r in layout.roots if r.exists()}
    layout.claim()
    try:
        result = probe_dirs(scratch_dirs(spec), size, spec.probe_runtime_s, on_phase=on_phase)
    finally:  # fio missing or failing: the roots made for it go too
        layout.release(only=[r for r in layout.roots if r not in existed])
    rd = ResultsDir(out_dir)
    if rd.exists():
        rd.save_derived("probe", result)
        return result, rd.path / PROBE_FILE
    rd.check_writable_as_new()
    out_dir.mkdir(parents=True, exist_ok=True)
    where = out_dir / "probe.json"
    write_text(where, json.dumps(result, indent=2), "its probe result")  # (never through a link: safefiles.py)
    return result, where
