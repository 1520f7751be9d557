"""Benchmark: what a study spends around its jobs -- per run, and per switch of configuration -- both ways.

Not a test: it prints seconds and ratios. It runs the same 20-run study (the local quickstart's shape: two
configurations x DFSIO write/read (4 x 64 MB) + TeraGen/TeraSort/TeraValidate (200 MB) x 2 repeats, repeats
interleaved) twice
with `tierbench run`, alternating the order across --rounds:
  - "kept":   keep_alive_memory at its default (each configuration's Spark application idles between turns)
  - "one":    keep_alive_memory = 0 (one application at a time: each switch starts a JVM, then warms it up)
and reads the times from the runs' records:
  - fixed overhead per run: between one run's job ending and the next run's job starting in the same
    application (clean-up, record, planning, dropping the page cache, sampling start and stop with its sync),
    plus the engine hand-off (the run step's time beyond the job's own wall);
  - switch: the same gap where the configuration changes (for "one": a JVM start and its warm-up);
  - the measured job times of both ways, per workload (they should not differ: every application is warmed up).

  .venv/bin/python bench/bench_overhead.py --rounds 2
"""

import argparse
import datetime as dt
import json
import shutil
import statistics
import subprocess
import sys
import time
import tomllib
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import run_main  # noqa: E402

WAYS = {"kept": None, "one": 0}  # keep_alive_memory: None = the default


def spec_text(root: Path, name: str, keep_alive) -> str:
    """The local quickstart's spec with its directories under `root` and the way's keep_alive_memory."""
    text = resources.files("tierbench.spec").joinpath("quickstart.toml").read_text()
    text = text.replace('name = "quickstart"', f'name = "{name}"').replace('"storage/', f'"{root}/storage/')
    text = text.replace("probe = {", "# probe = {")  # fio's probe is no part of this
    # jobs of a second or more: at the quickstart's sizes (0.2-0.8 s) their own noise hides any difference
    text = text.replace('file_size = "16MB"', 'file_size = "64MB"').replace("rows = 300_000", "rows = 2_000_000")
    if keep_alive is not None:
        text = text.replace('driver_memory = "1g"', f'driver_memory = "1g"\nkeep_alive_memory = {keep_alive}')
    tomllib.loads(text)
    return text


def run_study(root: Path, way: str, round_: int) -> tuple[float, list[dict]]:
    d = root / f"{way}-{round_}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    spec = d / "study.toml"
    spec.write_text(spec_text(d, f"bench-overhead-{way}", WAYS[way]))
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(d / "results")],
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"the {way} study failed: {out.stderr[-2000:]}")
    records = [json.loads(line) for line in (d / "results" / "runs.jsonl").read_text().splitlines()]
    shutil.rmtree(d)
    return wall, records


def gaps(records: list[dict]) -> tuple[list[float], list[float], list[float]]:
    """(per-run overhead within an application, switch gaps, engine hand-off per run), seconds."""
    ts = lambda s: dt.datetime.fromisoformat(s).timestamp()
    same, switch, handoff = [], [], []
    for prev, r in zip(records, records[1:]):
        gap = ts(r["started_at"]) - ts(prev["ended_at"])
        step = ts(r["ended_at"]) - ts(r["started_at"]) - r["wall_s"]
        handoff.append(max(0.0, step))
        (switch if r["variant"] != prev["variant"] else same).append(gap + max(0.0, step))
    return same, switch, handoff


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2, help="studies per way (alternating)")
    ap.add_argument("--dir", default="/tmp/tierbench-bench-overhead", help="scratch directory (deleted at the end)")
    args = ap.parse_args()
    root = Path(args.dir)
    results = {w: {"wall": [], "same": [], "switch": [], "handoff": [], "jobs": {}} for w in WAYS}
    for rnd in range(args.rounds):
        for way in (WAYS if rnd % 2 == 0 else reversed(WAYS)):
            wall, records = run_study(root, way, rnd)
            same, switch, handoff = gaps(records)
            r = results[way]
            r["wall"].append(wall)
            r["same"] += same
            r["switch"] += switch
            r["handoff"] += handoff
            for rec in records:
                r["jobs"].setdefault(rec["workload"], []).append(rec["wall_s"])
            print(f"  round {rnd + 1} {way:4s}: study {wall:5.1f} s, {len(records)} runs, jobs {sum(x['wall_s'] for x in records):.1f} s, "
                  f"switches {', '.join(f'{s:.2f}' for s in switch)} s", flush=True)
    shutil.rmtree(root, ignore_errors=True)
    med = statistics.median
    k, o = results["kept"], results["one"]
    print()
    print(f"fixed overhead per run (same application), median: kept {med(k['same']):.3f} s, one {med(o['same']):.3f} s "
          f"(goal <= 0.5 s); of which engine hand-off {med(k['handoff'] + o['handoff']) * 1000:.0f} ms")
    print(f"switch of configuration, median: kept {med(k['switch']):.2f} s, one at a time {med(o['switch']):.2f} s "
          f"(goal <= 2 s; ratio one/kept {med(o['switch']) / med(k['switch']):.1f}x)")
    print(f"study wall, median: kept {med(k['wall']):.1f} s, one at a time {med(o['wall']):.1f} s")
    print("measured job times, median s (kept vs one at a time):")
    for wl in k["jobs"]:
        a, b = med(k["jobs"][wl]), med(o["jobs"][wl])
        print(f"  {wl:14s} {a:6.2f}  {b:6.2f}   kept/one {a / b:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
