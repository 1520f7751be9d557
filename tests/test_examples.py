"""Every example spec is valid as shipped (running them is for users; sizes are laptop-scale, not test-scale)."""

from pathlib import Path

import pytest

from tierbench.scale.derive import load_spec
from tierbench.spec import make_plan

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_spec_is_valid(path):
    spec = load_spec(path)
    assert make_plan(spec) and spec.baseline in [v.name for v in spec.variants()]
