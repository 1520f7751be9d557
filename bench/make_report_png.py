"""The report's first screen as a PNG: what docs/report.png shows, regenerated from a results folder.

Renders the report of RESULTS_DIR (in memory: the folder's own report.html is left as it is), opens it in headless
Chromium at 1280 px wide and takes the first screen (1280 x 900 px unless --height says). Before writing, it checks
that screen as the first-screen test does (tests/test_report_first_screen.py): no two texts or charts on top of each
other, no text under 12 px, no horizontal scroll; a page that fails is refused (exit 1, what failed said), unless
--force.

  .venv/bin/python bench/make_report_png.py ~/tierbench-quickstart-emulated            # -> docs/report.png
  .venv/bin/python bench/make_report_png.py RESULTS_DIR --out /tmp/report.png --height 1200
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # (run from a checkout without installing)

from tierbench.report.screenshot import HEIGHT, WIDTH, first_screen_png, layout_of, report_html  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "report.png"


def problems(results: Path, width: int, height: int) -> list[str]:
    """What is wrong with the first screen as Chromium lays it out, one line each; [] when nothing is."""
    layout = layout_of(report_html(results), width, height)
    out = [f"overlap: {a!r} and {b!r} ({w} x {h} px)" for a, b, w, h in layout.overlaps]
    out += [f"text under 12 px: {text!r} at {px:.1f} px" for text, px in layout.small_fonts]
    if layout.horizontal_scroll:
        out.append(f"horizontal scroll: the page is {layout.scroll_width} px wide at a {width} px window")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="a results folder (study.json, runs.jsonl)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the PNG to write (default {DEFAULT_OUT})")
    ap.add_argument("--width", type=int, default=WIDTH, help=f"px (default {WIDTH})")
    ap.add_argument("--height", type=int, default=HEIGHT, help=f"px of the first screen (default {HEIGHT})")
    ap.add_argument("--force", action="store_true", help="write the PNG even when the layout check fails")
    args = ap.parse_args(argv)
    if not (args.results / "study.json").is_file():
        print(f"{args.results}: not a results folder (no study.json)", file=sys.stderr)
        return 2
    found = problems(args.results, args.width, args.height)
    for line in found:
        print(line, file=sys.stderr)
    if found and not args.force:
        print("not written: the first screen fails the layout check (--force writes it anyway)", file=sys.stderr)
        return 1
    out = first_screen_png(args.results, args.out, args.width, args.height)
    print(f"{out}: the first {args.width} x {args.height} px of {args.results}'s report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
