"""The report's first screen answers the user's question: which configuration is fastest and by how much (as "Nx as
fast", with Welch's p; a difference that is not significant said as such), $/job at the size the study stands for
with the price source, what a scale model is and what was fitted; then the charts. And, in headless Chromium at
1280 px: nothing on that screen on top of anything else, no text under 12 px, no horizontal scroll.
On committed results: the emulated scale model (tests/fixtures/scale-model-results) and the plain quickstart."""

import json
import re
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tierbench.model.hardware import load_hardware
from tierbench.model.transfer import transfer
from tierbench.report.at_size import costs_at_size
from tierbench.report.build import build_report
from tierbench.report.context import build_context
from tierbench.report.document import Bullets, Figure, Paragraph, Section
from tierbench.report.formats import speed_words
from tierbench.report.screenshot import chromium_binary, layout_of, overlapping, report_html
from tierbench.report.sections.runs import CEILING_HEAD, RUN_HEAD
from tierbench.spec import parse_spec
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures"
SCALE = FIXTURES / "scale-model-results"
# what a measured calibration records (scale/model.py Calibration): its job's rate on two SATA SSDs, the all-SSD
# configuration's own drives, so that configuration's TeraSort is the fitted one
CALIBRATION = {"status": "measured", "job": "terasort", "target_mb_s_per_thread": 4.26, "core_speed": 0.52,
               "source": "SanDisk 2014 TeraSort, all-SSD: 3,262.5 s", "runs_s": [14.0, 14.2, 14.1], "data_bytes": 134217728,
               "cores": 2, "fit_s": [19.0, 19.4, 19.2], "fit_drive": "sata-ssd-2014", "fit_count": 2,
               "here_mb_s_per_core": 3.5}


def _copy(src: Path, tmp_path: Path, calibration: dict | None = None) -> Path:
    d = tmp_path / src.name
    shutil.copytree(src, d)
    if calibration:
        study = json.loads((d / "study.json").read_text())
        study["spec"]["scale"]["calibration"] = calibration
        (d / "study.json").write_text(json.dumps(study))
    return d


def _doc(d: Path):
    stored = ResultsDir(d).load(analysed=True)
    return stored, build_report(stored)


def _answer(doc) -> Section:
    assert doc.sections[0].title == "Answer"  # the first thing under the title
    return doc.sections[0]


def _text(section: Section) -> str:
    return "\n".join(b.plain if isinstance(b, Paragraph) else "\n".join(b.items) for b in section.blocks
                     if isinstance(b, (Paragraph, Bullets)))


@pytest.fixture(scope="module")
def scale_model(tmp_path_factory):
    return _doc(_copy(SCALE, tmp_path_factory.mktemp("s")))


def test_the_fastest_is_said_as_times_as_fast_with_its_runtime_ratio_and_p(scale_model):
    stored, doc = scale_model
    text = _text(_answer(doc))
    an = build_context(stored).analysis
    ssd = next(c for c in an.comparisons if (c.config, c.workload) == ("ssd", "teragen"))
    # 1 / ratio as fast, the ratio itself beside it: never "69% faster" for a runtime cut to 0.31
    assert f"teragen: ssd is fastest, {1 / ssd.ratio:.1f}x as fast as hdd (runtime {ssd.ratio:.2f} of hdd's); significant, " \
           "Welch p<0.001" in text
    assert "Fastest: ssd, on every workload (2); on terasort hybrid is within noise of it." in text
    assert "% faster" not in text and "% faster" not in " ".join(_answer(doc).blocks[1].items)
    # ssd is fastest on TeraSort, but not significantly faster than the hybrid: said so, not claimed
    line = next(i for i in _answer(doc).blocks[1].items if i.startswith("terasort"))
    assert re.search(r"Against the next, hybrid: not significantly different from hybrid \(Welch p=0\.\d+: runtime 0\.\d\d "
                     r"of hybrid's may be noise\)", line), line


def test_speed_words():
    assert speed_words(0.28, "hdd") == "3.6x as fast as hdd (runtime 0.28 of hdd's)"
    assert speed_words(0.96, "hdd") == "1.04x as fast as hdd (runtime 0.96 of hdd's)"
    assert speed_words(1.4, "hdd") == "takes 1.4x as long as hdd (runtime 1.40 of hdd's)"


def test_no_difference_that_is_not_significant_is_called_fastest(tmp_path):
    d = _copy(FIXTURES / "quickstart-results", tmp_path)
    study = json.loads((d / "study.json").read_text())  # priced with the quickstart's example prices
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    study["spec"]["cost"] = parse_spec(raw, "quickstart", base_dir=tmp_path).to_dict()["cost"]
    (d / "study.json").write_text(json.dumps(study))
    _, doc = _doc(d)
    answer = _answer(doc)
    text = _text(answer)
    assert text.startswith("No configuration is significantly faster than single (Welch p >= 0.05 on every workload)")
    lines = answer.blocks[1].items
    assert len(lines) == 5 and all("not significantly different from single (Welch p=" in i for i in lines)
    assert "is fastest" not in text
    # no scale model, no cost.target_size: the cost is at the size run, and the hint to set one is given
    assert "$/job for the jobs as run" in text and "set cost.target_size" in text


def test_cost_is_at_the_size_the_scale_model_stands_for_with_its_price_source(scale_model, tmp_path):
    stored, doc = scale_model
    text = _text(_answer(doc))
    assert "$/job at 1 TB, the size this scale model stands for (predicted)" in text
    assert "EXAMPLE PRICES" in text and "not quotes" in text
    assert "cost.target_size" not in text
    at = costs_at_size(build_context(stored))
    assert at.how == "scale model" and at.nodes == 6
    runtime = {(r.config, r.workload): r.runtime_s for r in at.rows}
    # carried as `tierbench predict` carries a scale model's runs (model/transfer.py), on the all-SSD cluster
    carried = transfer(stored, "terasort", load_hardware("sandisk-all-ssd"))
    assert runtime[("ssd", "terasort")] == pytest.approx(carried.seconds, rel=1e-6)
    assert re.search(r"terasort: hdd \$[\d.]+ \(runtime [\d.]+ h\), hybrid \$[\d.]+ \(runtime [\d.]+ h\), ssd \$[\d.]+", text)
    # the 128 MB jobs' $/job is thousands of times smaller: the first screen does not show it
    as_run = {(c.config, c.workload): c.usd_per_job_total for c in build_context(stored).costs}
    usd = {(r.config, r.workload): r.usd_per_job for r in at.rows}
    assert all(usd[k] > 100 * as_run[k] for k in usd)
    cost_section = next(s for s in doc.sections if s.title == "Cost per job")
    assert "cost.target_size" not in str(cost_section) and "the Answer, at the top" in str(cost_section)


def test_the_scale_model_is_said_in_three_sentences_with_what_was_fitted(scale_model, tmp_path):
    _, doc = scale_model
    para = next(b.plain for b in _answer(doc).blocks if isinstance(b, Paragraph) and b.plain.startswith("What ran"))
    sentences = re.split(r"(?<=\.) (?=[A-Z])", para)  # (not at "k = 0.167")
    assert [x.split(":")[0] for x in sentences] == ["What ran", "Measured", "Nothing was fitted"], sentences
    assert "1 TB job on sandisk-hybrid (6 nodes)" in sentences[0] and "k = 0.167" in sentences[0]
    assert "predicted: the runtimes and $/job at 1 TB" in sentences[1] and "standing for 207 s there" in sentences[1]
    _, fitted = _doc(_copy(SCALE, tmp_path, CALIBRATION))
    answer = _answer(fitted)
    text = _text(answer)
    assert "Fitted: this machine's CPU speed (core_speed 0.52) was calibrated so that ssd's terasort matches the " \
           "published run" in text and "fitted, not a finding" in text
    assert "terasort: ssd is fastest [fitted: the calibration run]" in text
    assert re.search(r"ssd \$[\d.]+ \(runtime [\d.]+ h, fitted\)", text)  # its runtime at 1 TB: the fit's, not found
    assert "hdd $" in text and "(runtime 2.6 h)" in text  # hdd's is predicted, not marked fitted


def test_the_answer_comes_before_the_charts_and_the_charts_before_the_findings(scale_model):
    _, doc = scale_model
    titles = [s.title for s in doc.sections]
    assert titles[:5] == ["Answer", "Normalised runtime", "Runtime", "Throughput", "Findings"]
    assert not any(isinstance(b, Figure) for b in doc.sections[0].blocks)
    assert "Read with the 2 warning(s) under Findings, below the charts." in _text(doc.sections[0])


def test_an_emulated_drive_is_not_given_its_loop_devices_rotational_flag(scale_model):
    _, doc = scale_model
    machine = next(t for t in doc.tables() if "rotational" in t.head)
    col = machine.head.index("rotational")
    cells = [row[col] for row in machine.rows]
    assert len(cells) == 4 and all(c.startswith("emulated on a loop device: the loop's flag (1) is not the emulated ")
                                   for c in cells)
    assert not any(c.startswith("1 (kernel: rotational)") for c in cells)


def test_bound_by_and_the_ceiling_column_say_of_what_each_is_a_share(scale_model):
    _, doc = scale_model
    runs = next(s for s in doc.sections if s.title == "Every run")
    note = runs.blocks[0].plain
    assert RUN_HEAD[5] == CEILING_HEAD == "job's data MB/s, of the device's sequential ceiling"
    assert "shares of different things" in note and "the limit it came nearest, often IOPS" in note
    assert "only the job's own data" in note and "whole run's wall time" in note


def test_the_page_cache_budget_is_said_in_words(scale_model):
    _, doc = scale_model
    text = str(next(s for s in doc.sections if s.title == "Scale model"))
    assert "the budget, 8.65 MB, is the page cache a target node has for its data" in text
    assert "plus 33.6 MB of room every JVM needs" in text and "why a median above the budget can still be yes" in text
    assert re.search(r"data / page cache held 134 MB / [\d.]+ MB = [\d.]+, against 16 at the target", text)


def test_the_overlap_check_sees_overlapping_boxes():
    boxes = [["a", 0, 0, 10, 10], ["b", 5, 5, 15, 15], ["c", 10.5, 0, 20, 4], ["d", 0, 10.4, 4, 20]]
    assert overlapping(boxes) == [("a", "b", 5, 5)]  # c and d only touch a


needs_chromium = pytest.mark.skipif(chromium_binary() is None, reason="chromium is not installed (./setup.sh --test)")


@needs_chromium
def test_the_first_screen_at_1280_px_has_no_overlap_and_readable_text():
    """One Chromium run (about 5 s): the scale model's report, its first 1280 x 900 px."""
    layout = layout_of(report_html(SCALE), 1280, 900)
    assert layout.width == 1280 and layout.height == 900
    assert layout.overlaps == []
    assert layout.small_fonts == []
    assert not layout.horizontal_scroll
    texts = layout.texts()
    # what it answers is on that screen, and the first chart starts on it
    for said in ("Answer", "Fastest: ssd", "x as fast as hdd", "$/job at 1 TB", "What ran: a scale model", "Normalised runtime"):
        assert said in texts, said
    chart = next(b for b in layout.boxes if b[0] == "chart chart-normalised")
    assert chart[2] < 900
    chart_fonts = [px for text, px in layout.fonts if text.startswith("chart chart-normalised")]
    assert chart_fonts and min(chart_fonts) >= 12  # its labels measured, not only the page's text


@needs_chromium
@pytest.mark.e2e  # the checker itself, on a page made to fail it: a second Chromium run
def test_the_layout_check_fails_a_page_that_overlaps_is_small_and_scrolls():
    page = ("<!doctype html><html><body style='margin:0'><p style='position:absolute;top:10px;left:10px'>first text</p>"
            "<p style='position:absolute;top:14px;left:20px'>second text</p><p style='font-size:10px;margin-top:100px'>tiny</p>"
            "<div style='width:1500px'>wide</div></body></html>")
    layout = layout_of(page, 1280, 900)
    assert [(a, b) for a, b, *_ in layout.overlaps] == [("first text", "second text")]
    assert [t for t, _ in layout.small_fonts] == ["tiny"]
    assert layout.horizontal_scroll and layout.scroll_width == 1500
