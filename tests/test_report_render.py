"""The HTML report, rendered by a real browser (headless Chromium), from committed real results."""

import shutil
import subprocess

import numpy as np
import pytest
from matplotlib import image

from tierbench.analysis.stats import analyse, compare, summarize
from tierbench.report import render_report

FIXTURE = __import__("pathlib").Path(__file__).parent / "fixtures" / "quickstart-results"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def results(tmp_path):
    d = tmp_path / "results"
    shutil.copytree(FIXTURE, d)
    return d


def test_report_renders_in_headless_chromium(results, tmp_path):
    assert CHROMIUM, "chromium is not installed: ./setup.sh --test installs it (Debian package chromium)"
    html_path, _ = render_report(results)
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000",
                    f"--screenshot={shot}", html_path.as_uri()], capture_output=True, timeout=120)
    assert shot.is_file()
    px = image.imread(shot)[..., :3]
    assert px.shape[0] >= 1000 and px.shape[1] == 1280
    assert px.std() > 0.05  # not a blank page
    # the charts' bar colours are on screen, not just in the source
    blue = np.all(np.abs(px - np.array([0x4C, 0x72, 0xB0]) / 255) < 0.08, axis=-1).sum()
    orange = np.all(np.abs(px - np.array([0xDD, 0x84, 0x52]) / 255) < 0.08, axis=-1).sum()
    assert blue > 2000 and orange > 2000
    html = html_path.read_text()
    assert html.count("<svg") == 4 and "chart-pipeline-teragen+terasort+teravalidate" in html and "chart-runtime" in html and "chart-throughput" in html and "chart-normalised" in html


def test_stats_on_real_results(results):
    import json

    runs = [json.loads(l) for l in (results / "runs.jsonl").read_text().splitlines()]
    an = analyse(runs, "single", ["single", "split"], ["dfsio-write", "dfsio-read", "teragen", "terasort", "teravalidate"])
    s = an.runtime[("single", "terasort")]
    walls = [r["wall_s"] for r in runs if r["config"] == "single" and r["label"] == "terasort"]
    assert s.n == 2 and s.median == pytest.approx(np.median(walls)) and s.min == min(walls)
    assert s.ci95[0] < s.mean < s.ci95[1]
    assert len(an.comparisons) == 5
    assert any("too few" in w.text for w in an.warnings)


def test_significance_is_said_plainly():
    same = compare([10.0, 10.5, 9.8, 10.2], [10.1, 10.4, 9.9, 10.3], "b", "w", "a")
    assert same.verdict.startswith("not significant")
    faster = compare([10.0, 10.5, 9.8, 10.2], [5.0, 5.2, 4.9, 5.1], "b", "w", "a")
    assert "significant" in faster.verdict and not faster.verdict.startswith("not") and "50% faster" in faster.verdict
    assert faster.ratio == pytest.approx(0.5, rel=0.02)
    one = compare([10.0], [5.0], "b", "w", "a")
    assert one.p_value is None and "too few repeats" in one.verdict
    s = summarize([1.0, 2.0, 3.0], "c", "w", "wall_s")
    assert s.ci95 == pytest.approx((2.0 - 2.4841, 2.0 + 2.4841), rel=1e-3)  # mean -+ t(0.975, 2) * 1/sqrt(3)
