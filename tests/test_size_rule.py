"""Issue 56: one size rule. "1TB" is 10^12 bytes in every option, spec field and hardware file (KB/MB/GB/TB: powers
of 1000; KiB/MiB/GiB/TiB and Java's bare k/m/g: powers of 1024), and tierbench prints sizes the same way -- so the
scale model's target ([scale] size = "1TB"), `predict --size 1TB` and a hardware file's "1TB" are one size."""

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from tierbench.model.hardware import load_hardware
from tierbench.scale.derive import parse
from tierbench.spec import parse_spec
from tierbench.units import format_size, parse_size

from conftest import tierbench_main

FIXTURES = Path(__file__).parent / "fixtures"
TERA = 10**12

QUICKSTART = Path(__file__).parent.parent / "src" / "tierbench" / "spec"


@pytest.mark.parametrize("text, n", [("1TB", 10**12), ("1 tb", 10**12), ("931GB", 931 * 10**9), ("64MB", 64 * 10**6),
                                     ("1TiB", 1 << 40), ("16GiB", 16 << 30), ("512KiB", 512 << 10),
                                     ("2g", 2 << 30), ("512m", 512 << 20), ("4096", 4096)])
def test_the_rule(text, n):
    assert parse_size(text) == n


@given(st.integers(min_value=1, max_value=999), st.sampled_from(["KB", "MB", "GB", "TB"]))
def test_what_is_printed_reads_back_as_itself(number, unit):
    assert parse_size(format_size(parse_size(f"{number}{unit}"))) == parse_size(f"{number}{unit}")


def test_scale_size_cost_target_and_a_hardware_file_read_1tb_alike(tmp_path):
    raw = tomllib.loads((QUICKSTART / "quickstart-emulated.toml").read_text())
    raw.setdefault("cost", {})["target_size"] = "1TB"
    spec = parse(raw, "quickstart-emulated.toml", tmp_path)
    assert spec.scale.target_size == 10**12 == spec.to_dict()["cost"]["target_bytes"]
    hw = tmp_path / "lab.toml"
    hw.write_text('name = "lab"\nnodes = 2\ncores = 8\nmemory = "1TB"\nnetwork_gbps = 10\n'
                  '[data]\ndrive = "hdd-7200"\ncount = 2\n')
    assert load_hardware(hw).memory_bytes == 10**12


def test_predict_size_1tb_is_the_scale_targets_size_and_its_answer(tmp_path):
    """The issue's case: `predict --size 1TB` gave another answer than the scale model's target of "1TB" (2^40 bytes
    against 10^12); now it is the same size, and so the same (scale model's) answer."""
    out = tmp_path / "r"
    shutil.copytree(FIXTURES / "scale-model-results", out)

    def predict(*extra):
        return json.loads(tierbench_main("predict", out, "--hardware", "sandisk-all-hdd", "--json", *extra,
                                         check=True).stdout)

    given_size, default = predict("--size", "1TB"), predict()
    assert given_size["size"]["size_bytes"] == default["size"]["size_bytes"] == TERA
    assert [r["seconds"] for r in given_size["predictions"]] == [r["seconds"] for r in default["predictions"]]
    assert {r["method"] for r in given_size["predictions"]} == {"scale model"}
