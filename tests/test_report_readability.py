"""A report that reads well at ten configurations (issue 19): honest intervals at small n, one colour per
configuration, stable phase colours, folded warnings, labels that do not collide, log axes where one bar would
flatten the rest. Fast: the analysis and the charts are pure functions of stored records."""

import re
import shutil
from pathlib import Path

import pytest

from tierbench.analysis.stats import BOOTSTRAP_FROM, compare, summarize
from tierbench.report import charts
from tierbench.report.build import StudyResults
from tierbench.report.sections.summary import SUMMARY_HEAD

FIXTURES = Path(__file__).parent / "fixtures"


def test_small_n_interval_is_the_runs_range_never_below_zero():
    s = summarize([0.2, 9.0], "c", "w", "wall_s")
    assert s.ci95[0] < 0  # Student's t interval of two runs goes below zero: the reason it is not drawn
    assert s.interval == (0.2, 9.0) and s.interval_kind == "range"
    s = summarize([3.0, 3.5, 4.0], "c", "w", "wall_s")
    assert s.interval == (3.0, 4.0)


def test_from_five_repeats_the_interval_is_a_bootstrap_of_the_median():
    values = [10.0, 10.4, 9.7, 10.1, 13.0, 10.2]
    assert len(values) >= BOOTSTRAP_FROM
    s = summarize(values, "c", "w", "wall_s")
    assert s.interval_kind == "bootstrap 95%"
    assert min(values) <= s.interval[0] <= s.median <= s.interval[1] <= max(values)
    assert s.interval[1] < 13.0  # the outlier does not stretch the median's interval to the max
    assert summarize(values, "c", "w", "wall_s").interval == s.interval  # the same runs, the same interval


def test_a_ratio_to_the_baseline_has_an_interval():
    c = compare([10.0, 12.0], [5.0, 6.0], "fast", "w", "base")
    assert c.ratio == pytest.approx(5.5 / 11.0)
    assert c.ratio_interval == pytest.approx((5.0 / 12.0, 6.0 / 10.0)) and c.ratio_interval_kind == "range"
    c = compare([10.0, 10.5, 9.8, 10.2, 10.1], [5.0, 5.2, 4.9, 5.1, 5.0], "fast", "w", "base")
    lo, hi = c.ratio_interval
    assert c.ratio_interval_kind == "bootstrap 95%" and lo <= c.ratio <= hi and 0.45 < lo and hi < 0.55
    assert compare([10.0], [5.0], "fast", "w", "base").ratio_interval is None


def _summary_table(doc):
    return next(t for t in doc.tables() if t.head == SUMMARY_HEAD)


def test_summary_table_shows_the_median_interval_and_the_ratio_interval(tmp_path):
    d = tmp_path / "r"
    shutil.copytree(FIXTURES / "quickstart-results", d)
    doc = StudyResults.load(d).document
    rows = _summary_table(doc).rows
    i_iv, i_ratio = SUMMARY_HEAD.index("interval of the median s"), SUMMARY_HEAD.index("runtime / baseline (interval)")
    for row in rows:
        lo, hi = (float(x) for x in re.findall(r"[\d.]+", row[i_iv])[:2])
        assert 0 <= lo <= float(row[SUMMARY_HEAD.index("median s")]) <= hi
        if row[1] == "single":
            assert row[i_ratio] == "1.00 (baseline)"
        else:
            ratio, rlo, rhi = (float(x) for x in re.findall(r"[\d.]+", row[i_ratio])[:3])
            assert rlo <= ratio <= rhi


def test_one_colour_per_configuration_whichever_subset_a_chart_shows():
    colors = charts.series_colors(["a", "b", "c"])
    assert len(set(colors.values())) == 3
    only_c = charts._bars_by_series({("c", "w"): 1.0}, ["w"], ["c"], "%.1f", colors)[1]
    assert matplotlib_hex(only_c.patches[0].get_facecolor()) == colors["c"].lower()
    many = charts.series_colors([f"v{i}" for i in range(10)])
    assert len(set(many.values())) == 10


def matplotlib_hex(rgba) -> str:
    import matplotlib.colors

    return matplotlib.colors.to_hex(rgba)


def test_phase_colours_are_the_same_in_every_timeline():
    pc = charts.phase_colors(["map", "reduce", "map", "write"])
    assert list(pc) == ["map", "reduce", "write"] and len(set(pc.values())) == 3


@pytest.mark.parametrize("label", ["wordcount.split_size-8MB", "terasort.shuffle_compress-false@hadoop", "short"])
def test_long_labels_are_wrapped_at_their_separators(label):
    wrapped = charts.wrap_label(label, 14)
    assert wrapped.replace("\n", "") == label
    assert all(len(line) <= max(14, max(len(p) for p in re.split(r"[.\-_/@]", label)) + 1) for line in wrapped.split("\n"))


def test_a_log_axis_when_values_span_more_than_ten_times():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert charts.log_if_wide(ax, [1.0, 50.0]) and ax.get_yscale() == "log"
    fig2, ax2 = plt.subplots()
    assert not charts.log_if_wide(ax2, [1.0, 5.0]) and ax2.get_yscale() == "linear"
    plt.close("all")


def test_identical_warnings_are_folded_with_a_count():
    from tierbench.analysis.stats import AnalysisWarning
    from tierbench.analysis.caveats import fold_warnings as _fold_warnings
    from tierbench.report.sections.findings import fold_notices as _fold_notices
    from tierbench.report.document import Notice, Paragraph

    ws = [AnalysisWarning(c, "terasort", "slow start: add a warm-up") for c in ("a", "b", "c", "d")] + [AnalysisWarning("a", "grep", "other")]
    folded = _fold_warnings(ws)
    assert len(folded) == 2
    assert "in 4 configuration/workload pairs: a / terasort, b / terasort, c / terasort, ..." in folded[0].text
    blocks = [Paragraph("p")] + [Notice("warn", "same")] * 18 + [Notice("fail", "same"), Notice("warn", "else")]
    out = _fold_notices(blocks)
    assert [b.text for b in out if isinstance(b, Notice)] == ["same (x18)", "same", "else"]


def test_a_directory_of_data_and_intermediate_data_has_both_roles(tmp_path):
    from tierbench.report.sections.machine import dir_roles
    from tierbench.sampling.devices import storage_map

    d = str(tmp_path)
    assert storage_map({"data": [d], "intermediate": [d]})["dirs"][d]["role"] == "data+intermediate"
    spec = {"storage": [{"data": ["/a"], "intermediate": ["/a", "/ssd"]}, {"data": ["/ssd"], "intermediate": []}]}
    assert dir_roles(spec) == {"/a": "data+intermediate", "/ssd": "intermediate+data"}


def test_cost_comparisons_are_one_table_not_a_sentence_each(priced_quickstart):
    from tierbench.report.document import Bullets

    cost = next(s for s in priced_quickstart.document.all_sections() if s.title == "Cost per job")
    assert not any(isinstance(b, Bullets) for b in cost.blocks)
    table = next(t for t in cost.blocks if getattr(t, "head", [None])[0] == "configuration")
    assert table.head[:2] == ["configuration", "price"] and len(table.rows) == 1 and table.rows[0][0] == "split"
    assert all(cell.endswith("x") for cell in table.rows[0][1:])


def test_each_swept_engine_value_is_compared_with_the_baseline_at_the_same_value(sweep_sql_document):
    """The sweep fixture: configurations one and split x shuffle_compress true/false, baseline one (at true)."""
    from tierbench.analysis.stats import per_value_baselines
    from tierbench.store import ResultsDir

    study = ResultsDir(FIXTURES / "sweep-sql-results").study()
    spec = study["spec"]
    b = per_value_baselines(spec["baseline"], study["variants"], spec["sweeps"])
    assert b["split@spark.shuffle_compress-false"] == "one@spark.shuffle_compress-false"
    assert b["split@spark.shuffle_compress-true"] == "one@spark.shuffle_compress-true"
    assert b["one@spark.shuffle_compress-false"] == "one@spark.shuffle_compress-false"  # a baseline itself
    doc = sweep_sql_document
    rows = _summary_table(doc).rows
    ratio = {(r[0], r[1]): r[-1] for r in rows}
    assert all(v == "1.00 (baseline)" for (wl, c), v in ratio.items() if c.startswith("one@"))
    findings = next(s for s in doc.all_sections() if s.title == "Findings")
    text = " ".join(str(getattr(b, "items", "")) for b in findings.blocks)
    assert "of one@spark.shuffle_compress-false's" in text and "split@spark.shuffle_compress-false" in text


def test_multi_engine_studies_keep_one_baseline():
    from tierbench.analysis.stats import per_value_baselines

    variants = [{"name": f"{c}@{e}", "config": c, "engine": e} for c in ("hdd", "ssd") for e in ("spark", "hadoop")]
    b = per_value_baselines("hdd@spark", variants, [])
    assert set(b.values()) == {"hdd@spark"}


def test_the_sql_section_has_a_chart_per_query(sweep_sql_document):
    from tierbench.report.document import Figure

    sec = next(s for s in sweep_sql_document.all_sections() if s.title == "SQL queries")
    fig = next(b for b in sec.blocks if isinstance(b, Figure))
    assert fig.id == "chart-sql-sql" and "q01" in fig.svg and "q06" in fig.svg
    assert fig.svg.count("<g id=\"patch_") >= 8  # 2 queries x 4 configurations (+ frame)
