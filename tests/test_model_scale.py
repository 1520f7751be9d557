"""Validation 3 of the what-if model: a 4 GB TeraGen and TeraSort predicted from 0.5 GB and 1 GB runs, against
measured ones, within the issue's 15%.

Three studies of one machine (an emulated NVMe SSD: devices of known speed, so the model calibrates): two runs
at 0.5 and 1 GB, one at 4 GB. Takes about 3 minutes (the first e2e test of a session also takes the VM's free
memory once: conftest).

On a VM that reports free pages to its host (this one), the e2e layer runs with reporting off, as `tierbench
check` advises: with it on, every page a JVM or the page cache takes anew is a host fault, a 4 GB TeraSort cost
4.5 to 5.4 times a 1 GB one (kernel CPU 4.7-8.8 s at 1 GB, 30-40 s at 4 GB) and single runs varied by up to 30%
between sessions: five sessions measured TeraGen +8% to +28%, TeraSort +3% to -32%. With it off: TeraGen +3%, +0%,
+3%, TeraSort +7%, +5%, +2% (docs/model.md).
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
    assert abs(gen["error"]) <= 0.15, gen  # measured: +3%, +0%, +3%
    assert abs(sort["error"]) <= 0.15, sort  # measured: +7%, +5%, +2%


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
