"""The docs define every metric and record field the code produces."""

from pathlib import Path

from tierbench.store import RECORD_FIELDS
from tierbench.workloads import METRICS

DOCS = Path(__file__).parent.parent / "docs"


def test_every_metric_and_record_field_is_documented():
    text = (DOCS / "results.md").read_text()
    for m in METRICS:
        assert f"`{m}`" in text, m
    for f in RECORD_FIELDS:
        assert f"`{f}`" in text, f
