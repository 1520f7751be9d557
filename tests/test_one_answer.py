"""Issue 56: the same question (results, hardware, size) gets the same seconds through every route that answers it:
`predict --hardware`, `predict --published`, and the report's cost at the scale model's target -- all through
model/answer.py and model/transfer.py. On the recorded scale-model study (a real quickstart's runs)."""

import shutil
from pathlib import Path

import pytest

from tierbench.model.answer import RESOURCE, SCALE, answer
from tierbench.model.hardware import load_hardware
from tierbench.model.published import HARDWARE, compare
from tierbench.model.whatif import predict, study_model, validate
from tierbench.report.at_size import costs_at_size
from tierbench.report.context import build_context
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures"

TERA = 10**12  # the scale model's target size ([scale] size = "1TB")
CONFIG_OF = {"all_hdd": "hdd", "hdd_plus_ssd_intermediate": "hybrid", "all_ssd": "ssd"}  # the study's names


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("one-answer") / "scale-model-results"
    shutil.copytree(FIXTURES / "scale-model-results", out)
    return out


@pytest.fixture(scope="module")
def routes(results):
    hardware = [load_hardware(h) for h in HARDWARE.values()]
    out = predict(results, hardware, TERA, published=True)
    ctx = build_context(ResultsDir(results).load(analysed=True))
    return out, costs_at_size(ctx)


def test_predict_hardware_and_published_give_the_same_seconds(routes):
    out, _ = routes
    by_hw = {(r["job"], r["hardware"]): r for r in out["predictions"]}
    rows = [r for r in out["published"]["runtimes"] if r["workload"] != "total"]
    assert len(rows) == 6
    for r in rows:
        p = by_hw[(r["workload"], r["hardware"])]
        assert p["seconds"] == pytest.approx(r["predicted_s"], rel=0.01), r
        assert p["method"] == r["method"] == SCALE


def test_the_reports_cost_at_the_target_uses_the_same_runtimes(routes):
    out, at = routes
    assert at is not None and at.how == "scale model" and at.size_bytes == TERA
    by_hw = {(r["job"], r["hardware"]): r for r in out["predictions"]}
    checked = 0
    for config, name in CONFIG_OF.items():
        for row in (c for c in at.rows if c.config == name):
            p = by_hw[(row.workload, HARDWARE[config])]
            assert row.runtime_s == pytest.approx(p["seconds"], rel=0.01), (config, row)
            checked += 1
    assert checked == 6


def test_pooled_teragen_is_one_answer_for_hdd_and_hybrid(routes):
    """TeraGen writes no intermediate data: on all-HDD and on the hybrid it is one job on one kind of drive, so
    both routes give both configurations the same (pooled) runtime -- a structural tie, not a prediction."""
    out, at = routes
    teragen = {r["hardware"]: r["seconds"] for r in out["predictions"] if r["job"] == "teragen"}
    assert teragen["sandisk-all-hdd"] == pytest.approx(teragen["sandisk-hybrid"])
    rows = {c.config: c.runtime_s for c in at.rows if c.workload == "teragen"}
    assert rows["hdd"] == pytest.approx(rows["hybrid"])


def test_another_size_is_the_resource_models_answer_everywhere(results):
    """Off the scale target's size the scale model does not answer (its data / page-cache ratio is the target's
    only): predict and the answer both fall to the resource model, with its error interval."""
    model, _, _ = study_model(results)
    error = validate(model)["hardware_median_abs_error"]
    hw = load_hardware("sandisk-all-hdd")
    stored = [ResultsDir(results).load(analysed=True)]
    a = answer(model, stored, "terasort", hw, 2 * TERA, error)
    assert a.method == RESOURCE and a.interval is not None and a.interval[0] < a.seconds < a.interval[1]
    out = predict(results, [hw], 2 * TERA)
    p = next(r for r in out["predictions"] if r["job"] == "terasort")
    assert p["seconds"] == pytest.approx(a.seconds) and p["method"] == RESOURCE


def test_advise_compares_the_tiers_with_the_same_answers(results, routes):
    """advise's tiers on the SanDisk cluster are its three published layouts (its own drive kinds), answered as
    predict answers them: the all-SSD and all-HDD seconds in its numbers are predict's."""
    from tierbench.model.advise import advise, tiers

    out, _ = routes
    by_hw = {(r["job"], r["hardware"]): r["seconds"] for r in out["predictions"]}
    model, _, _ = study_model(results)
    stored = [ResultsDir(results).load(analysed=True)]
    hybrid = load_hardware("sandisk-hybrid")
    assert {h.data.drive.name for h in tiers(hybrid).values()} == {"hdd-7200-2014", "sata-ssd-2014"}
    items = advise(model, hybrid, TERA, stored, validate(model)["hardware_median_abs_error"])
    numbers = next(a for a in items if a.topic == "data tier").numbers
    line = next(n for n in numbers if n.startswith("terasort"))
    ssd, hdd = by_hw[("terasort", "sandisk-all-ssd")], by_hw[("terasort", "sandisk-all-hdd")]
    assert f"({ssd:,.0f} s vs {hdd:,.0f} s)" in line, line


def test_advise_sizes_the_intermediate_ssd_by_the_share_the_report_shows(results):
    """The SSD advise sizes for intermediate data is the share of the data set the report's Intermediate data
    section shows (Spark's shuffle and spill metrics, here the workload's count), at the advised size -- not the bytes the phases wrote to the
    devices, which count a spill's merge passes again (the issue measured 317% against the report's 100%)."""
    import statistics

    from tierbench.analysis.composites import intermediate_per_node
    from tierbench.model.advise import HEADROOM, advise
    from tierbench.units import format_size

    stored = ResultsDir(results).load(analysed=True)
    ctx = build_context(stored)
    rows = [r for r in intermediate_per_node(ctx.analysis, ctx.runs) if r.workload == "terasort"]
    assert rows
    share = statistics.median(r.share_of_data_set for r in rows)
    model, _, _ = study_model(results)
    hw = load_hardware("sandisk-hybrid")
    items = advise(model, hw, TERA, [stored], validate(model)["hardware_median_abs_error"])
    size = next(a for a in items if a.topic == "intermediate SSD size")
    assert f"terasort: {format_size(share * TERA)} of intermediate data at {format_size(TERA)} ({share:.0%} of the data)" \
        in size.numbers, size.numbers
    if size.advice.split("(")[1].startswith("terasort"):
        assert size.advice.startswith(f"at least {format_size(share * TERA / hw.nodes * HEADROOM)} per node"), size.advice
