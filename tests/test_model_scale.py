"""Validation 3 of the what-if model, end to end: a job's largest size predicted from its smaller ones, over the
results of several studies of one machine (an emulated NVMe SSD: devices of known speed, so the model calibrates).

The test checks that the prediction is made from the right runs and is of the right magnitude (within 2x: a size
or unit mistake is off by far more). How close it comes is a benchmark's, not a test's: bench/bench_size_model.py
runs the issue's 4 GB from 0.5 and 1 GB and prints the error against its 15% (docs/model.md has its tables).
"""

import json
import os

import pytest

from conftest import can_emulate_or_skip, tierbench, write_spec

SPEC = """
name = "{name}"
repeats = 1
drop_caches = "always"
[engine]
master = "local[2]"
driver_memory = "1g"
[storage.nvme]
data = {{ emulate = "nvme", size = "3GB" }}
[[workloads]]
name = "teragen"
size = "{size}"
[[workloads]]
name = "terasort"
"""
SIZES = ("128MB", "256MB", "512MB")  # (at 64 MB a TeraGen takes under a second: mostly noise)


@pytest.mark.e2e
def test_the_largest_size_is_predicted_from_the_smaller_studies(tmp_path):
    can_emulate_or_skip("no configuration would have devices of known speed")
    dirs = []
    for size in SIZES:
        spec = write_spec(tmp_path / f"{size}.toml", SPEC.format(name=f"scale-{size}-{os.getpid()}", size=size))
        out = tierbench("run", spec, "--out", tmp_path / size, timeout=900)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        dirs.append(tmp_path / size)
    out = tierbench("predict", *dirs, "--hardware", "sandisk-all-ssd", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["job"]: r for r in json.loads(out.stdout)["validation"]["size"]}
    assert set(rows) == {"teragen", "terasort"}
    for job, r in rows.items():
        print(f"{job}: {r['size_bytes'] / 2**20:.0f} MB predicted {r['predicted_s']:.1f} s from sizes "
              f"{[round(x / 2**20) for x in r['from_sizes']]} MB, measured {r['measured_s']:.1f} s ({r['error']:+.0%})")
        assert r["size_bytes"] == pytest.approx(512 * 10**6, rel=0.01), r
        assert [round(x / 10**6) for x in r["from_sizes"]] == [128, 256], r  # ("128MB": 10^6 bytes a MB)
        assert 0.5 <= r["predicted_s"] / r["measured_s"] <= 2.0, r
        assert r["error"] == pytest.approx(r["predicted_s"] / r["measured_s"] - 1)
