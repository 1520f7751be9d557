"""Validation 3 of the what-if model: a 4 GB TeraGen and TeraSort predicted from 0.5 GB and 1 GB runs, against
measured ones.

Three studies of one machine (an emulated NVMe SSD: devices of known speed, so the model calibrates): two runs
at 0.5 and 1 GB (one run each varied by up to 30% between sessions), one at 4 GB. The first run of a job in a
fresh JVM is slower (measured here: 6.1 s vs 4.0 s at 0.5 GB, 48.2 s vs 40.0 s at 4 GB), so the single 4 GB
run is predicted a few percent short. Takes about 3.5 minutes.

The issue asks for 15%; on this machine the model does not hold it. TeraSort's 4 GB run costs 4.5 to 5.4
times its 1 GB run (kernel CPU 4.7-8.8 s at 1 GB, 30-40 s at 4 GB, on an emulated device and on a plain
directory alike), which no line through 0.5 and 1 GB foresees; and single small runs vary enough that even
TeraGen, which scales linearly, was off by up to 28%. Measured in five sessions: TeraGen +8% to +28%,
TeraSort +3% to -32% (docs/model.md). So the bounds here guard against regressions (a factor-of-two error),
and the 15% goal stays open.
"""

import json
import os

import pytest

from conftest import can_emulate_or_skip, tierbench, write_spec

SPEC = """
name = "{name}"
repeats = {repeats}
drop_caches = "always"
[engine]
master = "local[2]"
driver_memory = "2g"
[storage.nvme]
data = {{ emulate = "nvme", size = "14GB" }}
[[workloads]]
name = "teragen"
size = "{size}"
[[workloads]]
name = "terasort"
"""


@pytest.mark.e2e
def test_4gb_teragen_and_terasort_predicted_from_half_and_one_gb_runs(tmp_path):
    can_emulate_or_skip("no configuration would have devices of known speed")
    dirs = _studies(tmp_path)  # on a VM, with free page reporting off (conftest: as `tierbench check` advises)
    out = tierbench("predict", *dirs, "--hardware", "sandisk-all-ssd", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["job"]: r for r in json.loads(out.stdout)["validation"]["size"]}
    for job, r in rows.items():
        print(f"{job}: {r['size_bytes'] / 2**30:.0f} GB predicted {r['predicted_s']:.1f} s from sizes "
              f"{[round(x / 2**20) for x in r['from_sizes']]} MB, measured {r['measured_s']:.1f} s ({r['error']:+.0%})")
    gen, sort = rows["teragen"], rows["terasort"]
    assert sort["size_bytes"] == pytest.approx(4 << 30, rel=0.01) and len(sort["from_sizes"]) == 2
    assert abs(gen["error"]) <= 0.35, gen  # measured: +8% to +28%
    assert abs(sort["error"]) <= 0.45, sort  # measured: +3% to -32%: not the 15% (see above)


def _studies(tmp_path) -> list:
    """The three studies (0.5 and 1 GB twice, 4 GB once); their results dirs."""
    dirs = []
    for size in ("512MB", "1GB", "4GB"):
        spec = write_spec(tmp_path / f"{size}.toml", SPEC.format(name=f"scale-{size}-{os.getpid()}", size=size,
                                                                  repeats=1 if size == "4GB" else 2))
        out = tierbench("run", spec, "--out", tmp_path / size, timeout=900)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        dirs.append(tmp_path / size)
    return dirs
