"""The report's first screen in headless Chromium: a PNG of it (bench/make_report_png.py, docs/report.png), and a
layout check of it (tests/test_report_first_screen.py): no two texts or charts on top of each other, no text under
12 px (chart labels included), no horizontal scroll, at the width asked.

The check is a script put into a copy of the page: once the page has laid out, it measures every text line and
chart on the first screen and writes what it found into the page, which --dump-dom hands back. Chromium's DevTools
protocol would do as well, but needs a websocket client; this needs only the browser.
"""

import html as html_lib
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .build import StudyResults
from .render import EXPORTERS

WIDTH, HEIGHT = 1280, 900  # a laptop's screen: what a reader sees before scrolling
MIN_FONT_PX = 12.0
TOLERANCE_PX = 1.0  # boxes that touch (a bold run beside its sentence, one line above the next) do not overlap

# Every text line (a Range's client rects: one per line a text wraps to) and every chart on the first screen, the
# font size of each text, and of each chart label (matplotlib draws a label's glyphs in a group scaled to 100 units
# per em, so 100 x the group's scale on screen is its size in px), and the page's scroll width.
LAYOUT_JS = """
window.addEventListener('load', () => {
  const H = __HEIGHT__, boxes = [], fonts = [];  // the screenshot's height: headless Chromium's innerHeight is less
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim(), el = n.parentElement;
    if (!text || el.closest('svg, script, style, #layout-verdict')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width <= 0 || r.height <= 0 || r.top >= H) continue;
      boxes.push([text.slice(0, 60), r.left, r.top, r.right, r.bottom]);
      fonts.push([text.slice(0, 60), parseFloat(getComputedStyle(el).fontSize)]);
    }
  }
  document.querySelectorAll('.figure svg').forEach((svg, i) => {
    const r = svg.getBoundingClientRect();
    if (r.top >= H || r.height <= 0) return;
    const name = 'chart ' + (svg.closest('.figure').id || i);
    boxes.push([name, r.left, r.top, r.right, r.bottom]);
    svg.querySelectorAll('g[id^="text_"]').forEach(g => {
      const glyphs = g.querySelector('g[transform*="scale"]');
      if (!glyphs || g.getBoundingClientRect().top >= H) return;
      const m = glyphs.getScreenCTM();
      const label = Array.from(g.childNodes).filter(x => x.nodeType === 8).map(x => x.textContent.trim()).join(' ');
      fonts.push([name + ': ' + label, 100 * Math.hypot(m.c, m.d)]);
    });
  });
  const pre = document.createElement('pre');
  pre.id = 'layout-verdict';
  pre.textContent = JSON.stringify({width: window.innerWidth, height: H, boxes, fonts,
                                    scroll_width: document.documentElement.scrollWidth});
  document.body.appendChild(pre);
});
"""


@dataclass(frozen=True)
class Layout:
    """What the first screen holds, as Chromium laid it out."""
    width: int
    height: int
    scroll_width: int
    boxes: list  # [text or "chart <id>", left, top, right, bottom] in px
    fonts: list  # [text, font size px]

    @property
    def overlaps(self) -> list[tuple]:
        return overlapping(self.boxes)

    @property
    def small_fonts(self) -> list:
        return [f for f in self.fonts if f[1] < MIN_FONT_PX - 0.01]

    @property
    def horizontal_scroll(self) -> bool:
        return self.scroll_width > self.width

    def texts(self) -> str:
        return " ".join(b[0] for b in self.boxes)


def overlapping(boxes: list, tolerance: float = TOLERANCE_PX) -> list[tuple]:
    """Pairs of boxes that intersect by more than the tolerance both ways: (a, b, width px, height px)."""
    bad = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            w = min(a[3], b[3]) - max(a[1], b[1])
            h = min(a[4], b[4]) - max(a[2], b[2])
            if w > tolerance and h > tolerance:
                bad.append((a[0], b[0], round(w, 1), round(h, 1)))
    return bad


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def chromium(profile: Path, width: int, height: int, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """Headless Chromium at a window of width x height, no scrollbars (they would take the page's width), no network
    of its own; profile: a folder for its user data (a fresh one per call keeps runs apart)."""
    binary = chromium_binary()
    if not binary:
        raise FileNotFoundError("chromium is not installed: ./setup.sh --test installs it (Debian package chromium)")
    return subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={width},{height}", *args],
                          capture_output=True, text=True, timeout=timeout)


def report_html(results_dir) -> str:
    """The report.html a results folder makes, without writing it there."""
    return EXPORTERS["html"].render(StudyResults.load(results_dir))


def layout_of(page_html: str, width: int = WIDTH, height: int = HEIGHT) -> Layout:
    """The first screen of a page as Chromium lays it out at width x height."""
    with tempfile.TemporaryDirectory(prefix="tierbench-layout-") as tmp:
        page = Path(tmp) / "probe.html"
        script = LAYOUT_JS.replace("__HEIGHT__", str(int(height)))
        page.write_text(page_html.replace("</body>", f"<script>{script}</script></body>"), encoding="utf-8")
        dom = chromium(Path(tmp) / "profile", width, height, "--dump-dom", page.as_uri()).stdout
    m = re.search(r'<pre id="layout-verdict">(.*?)</pre>', dom, re.S)
    if not m:
        raise RuntimeError("the layout script did not run in Chromium: " + dom[-500:])
    v = json.loads(html_lib.unescape(m.group(1)))
    return Layout(v["width"], v["height"], v["scroll_width"], v["boxes"], v["fonts"])


def first_screen_png(results_dir, out, width: int = WIDTH, height: int = HEIGHT) -> Path:
    """A PNG of the first width x height pixels of a results folder's report."""
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="tierbench-shot-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(report_html(results_dir), encoding="utf-8")
        shot = Path(tmp) / "shot.png"
        done = chromium(Path(tmp) / "profile", width, height, f"--screenshot={shot}", page.as_uri())
        if not shot.is_file():
            raise RuntimeError(f"chromium wrote no screenshot: {done.stderr[-500:]}")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, out)
    return out
