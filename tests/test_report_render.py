"""The HTML report, rendered by a real browser (headless Chromium), from committed real results."""

import shutil
import subprocess

import numpy as np
import pytest
from matplotlib import image

from conftest import as_runs
from tierbench.analysis.stats import analyse, compare, summarize
from tierbench.report import render_report

FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "quickstart-results"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def results(tmp_path):
    d = tmp_path / "results"
    shutil.copytree(FIXTURE, d)
    return d


def chromium(tmp_path, *args, timeout=180) -> subprocess.CompletedProcess:
    assert CHROMIUM, "chromium is not installed: ./setup.sh --test installs it (Debian package chromium)"
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_report_renders_in_headless_chromium(results, tmp_path):
    html_path, _ = render_report(results)
    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", html_path.as_uri())
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
    an = analyse(as_runs(runs), "single", ["single", "split"], ["dfsio-write", "dfsio-read", "teragen", "terasort", "teravalidate"])
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


# Run in the page once it has laid out: every text of every chart (matplotlib writes each as a <g id="text_N">
# holding its glyphs and a comment with the string) with the box the browser drew it in.
TEXT_BOXES_JS = """
window.addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('.figure svg').forEach((svg, i) => {
    const boxes = [];
    svg.querySelectorAll('g[id^="text_"]').forEach(g => {
      const r = g.getBoundingClientRect();
      const text = Array.from(g.childNodes).filter(n => n.nodeType === 8).map(n => n.textContent.trim()).join(' ');
      if (r.width > 0 && r.height > 0) boxes.push([text, r.left, r.top, r.right, r.bottom]);
    });
    out.push({figure: svg.closest('.figure').id || ('figure ' + i), boxes});
  });
  const pre = document.createElement('pre');
  pre.id = 'text-boxes';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""


def overlapping_labels(figures: list[dict], tolerance_px: float = 0.5) -> list[tuple]:
    """Pairs of texts in one chart whose boxes intersect by more than the tolerance both ways."""
    bad = []
    for f in figures:
        b = f["boxes"]
        for i in range(len(b)):
            for j in range(i + 1, len(b)):
                w = min(b[i][3], b[j][3]) - max(b[i][1], b[j][1])
                h = min(b[i][4], b[j][4]) - max(b[i][2], b[j][2])
                if w > tolerance_px and h > tolerance_px:
                    bad.append((f["figure"], b[i][0], b[j][0], round(w, 1), round(h, 1)))
    return bad


def test_overlap_check_sees_overlapping_labels():
    figs = [{"figure": "f", "boxes": [["a", 0, 0, 10, 10], ["b", 5, 5, 15, 15], ["c", 10.2, 0, 20, 4]]}]
    assert overlapping_labels(figs) == [("f", "a", "b", 5, 5)]


@pytest.mark.e2e  # no JVM, but a 23 s browser run: the fast layer keeps the 3 s render test above
def test_ten_configurations_render_with_no_overlapping_labels(tmp_path):
    """The Cloudera example as run here (10 variants: 5 storage layouts x intermediate compression on/off, 8
    workloads, 160 runs): every chart as Chromium lays it out, no two texts of a chart on top of each other."""
    import html as html_lib
    import json
    import re

    d = tmp_path / "cloudera"
    shutil.copytree(FIXTURES / "cloudera-results", d)
    html_path, _ = render_report(d)
    page = tmp_path / "probe.html"
    page.write_text(html_path.read_text().replace("</body>", f"<script>{TEXT_BOXES_JS}</script></body>"))
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    m = re.search(r'<pre id="text-boxes">(.*?)</pre>', dom, re.S)
    assert m, "the page's script did not run: " + dom[-500:]
    figures = json.loads(html_lib.unescape(m.group(1)))
    ids = [f["figure"] for f in figures]
    for chart in ("chart-normalised", "chart-runtime", "chart-throughput", "chart-pipeline-teragen+terasort+teravalidate",
                  "chart-sweep-0", "chart-cost"):
        assert chart in ids, chart
    assert len(figures) >= 80  # the timelines too: one per configuration and workload
    texts = {t[0] for f in figures for t in f["boxes"]}
    assert "hybrid-split@spark.shuffle_compress-false" in texts  # the labels were found by their strings
    assert overlapping_labels(figures) == []
    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", html_path.as_uri())
    assert image.imread(shot)[..., :3].std() > 0.05
