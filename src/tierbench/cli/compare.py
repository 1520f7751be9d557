"""tierbench compare A B [C...]: studies of one spec (two clusters, two Spark or kernel versions, ...) compared per
job with the report's statistics; a table on the terminal, a document in --out, and a CI gate (--fail-if-slower)."""

import argparse
import json
import math
import re
from pathlib import Path

from ..errors import UserError

DEFAULT_OUT = "tierbench-compare"

DESCRIPTION = """\
Compare studies of one spec: the same study run on the old and the new cluster, Spark, kernel or
SSD firmware. The first folder is the baseline (A). Per job (configuration and workload) every
study ran: the median runtimes and their ratio, Welch's t-test of the means, and its 95% interval
of their ratio; p < 0.05 (an interval without 1.00) is "faster" or "slower", else "not
significant". Phases and SQL queries are compared too, where recorded. Machine and version
differences are listed; studies of different specs are refused, naming the fields (--allow).
Writes report.html, report.md and report.json to --out and prints a summary."""

EPILOG = f"""\
examples:
  tierbench compare base rerun slow --out /tmp/cmp         # B and C each against A
  tierbench compare old new --allow engines.spark.master   # a differing spec field, accepted
  tierbench compare nightly pr-run --fail-if-slower 5%     # CI: exit 1 if a job is >5% slower

--out defaults to ./{DEFAULT_OUT}/<A>-vs-<B>, named after the results folders.

exit status: 0 compared (no job failed the gate); 1 --fail-if-slower: a job significantly
slower by more than the threshold (listed); 2 an error (not a results folder, fewer than two,
different specs, nothing matched)."""


def add_parser(subparsers):
    c = subparsers.add_parser("compare", help="the same spec on two clusters: faster, slower or no change", description=DESCRIPTION,
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("dirs", nargs="+", metavar="DIR", help="results folders of the same spec; the first is the baseline")
    c.add_argument("--out", help="folder for report.html, report.md and report.json (default: below)")
    c.add_argument("--allow", action="append", default=[], metavar="FIELD[,FIELD]",
                   help="accept these differing spec fields (as the refusal names them, e.g. engines.spark.master, or "
                        "a table holding them, e.g. engines)")
    c.add_argument("--allow-mixed", action="store_true", help="pool a study's runs recorded on different machines or "
                   "versions (as tierbench report --allow-mixed; refused otherwise)")
    c.add_argument("--fail-if-slower", metavar="THRESHOLD", help="a CI gate: exit 1 when any job is significantly "
                   "slower than the baseline by more than THRESHOLD (5%% or 0.05), naming them")
    c.add_argument("--json", action="store_true", help="print the comparison as JSON instead of the table")
    return c


def parse_threshold(text: str) -> float:
    """"5%" or "0.05" -> 0.05; anything else a one-line error naming the option and what it accepts."""
    problem = (f"--fail-if-slower: {text!r} is not a threshold; give a percentage (5%) or a fraction below 1 (0.05), "
               "0 or more")
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(%?)\s*", text)
    if not m:
        raise UserError(problem)
    value = float(m.group(1)) / (100 if m.group(2) else 1)
    if not math.isfinite(value) or (not m.group(2) and value >= 1):
        raise UserError(problem)
    return value


def default_out(dirs: list[str]) -> Path:
    names = [Path(d).resolve().name or "results" for d in dirs]
    return Path(DEFAULT_OUT) / "-vs-".join(names)


def run(args) -> int:
    threshold = parse_threshold(args.fail_if_slower) if args.fail_if_slower is not None else None
    if len(args.dirs) < 2:
        raise UserError(f"compare needs two results folders or more (the first is the baseline); given {len(args.dirs)}")
    from ..store import ResultsDir

    studies = [ResultsDir(d).load(analysed=True) for d in args.dirs]  # (a folder that is none: one line, exit 2)
    from ..analysis.compare import compare_studies, study_labels
    from ..report.comparison import write_comparison

    labels = study_labels(studies)  # (by Spark release too, when the studies ran different ones)
    allowed = {f.strip() for given in args.allow for f in given.split(",") if f.strip()}
    cmp = compare_studies(studies, labels, allowed, args.allow_mixed)
    failing = cmp.slower_than(threshold) if threshold is not None else []
    gate = {"gate": {"fail_if_slower": threshold, "failed": [d.to_dict() for d in failing]}} if threshold is not None else {}
    paths = write_comparison(cmp, Path(args.out) if args.out else default_out(args.dirs), gate)
    if args.json:
        print(json.dumps(cmp.to_dict() | gate | {"files": [str(p) for p in paths]}, indent=2, default=str))
    else:
        print_summary(cmp, paths)
    if threshold is not None:
        print_gate(threshold, failing, json_out=args.json)
    return 1 if failing else 0


def print_summary(cmp, paths: list[Path]) -> None:
    from ..report.comparison import interval_text, p_text, ratio_words

    for lab, s in zip(cmp.labels, cmp.studies):
        print(f"{lab} = {s.path} ({s.study.name}, {len(s.runs)} runs{', the baseline' if lab == cmp.labels[0] else ''})")
    # (with one study compared its median is named after it; with several, each row's study is in its own column)
    theirs = f"{cmp.labels[1]} median" if len(cmp.labels) == 2 else "study's median"
    head = ["job", "study", f"{cmp.labels[0]} median", theirs, "median ratio", "mean ratio 95% CI", "Welch p", "verdict"]
    rows = [[d.job, d.study, f"{d.base_median:.3g} s", f"{d.median:.3g} s", f"{d.ratio:.2f}x", interval_text(d),
             p_text(d.comparison.p_value), ratio_words(d)] for d in cmp.jobs]
    print()
    print_table(head, rows)
    print(f"\n{INTERVAL_LEGEND}")
    parts = [d for d in (*cmp.phases, *cmp.queries) if d.verdict in ("faster", "slower")]
    hidden = len(cmp.phases) + len(cmp.queries) - len(parts)
    if parts:
        print("\nphases and queries that changed (significant):")
        print_table(["job", "phase or query", "study", "median ratio", "mean ratio 95% CI", "Welch p", "verdict"],
                    [[d.job, d.part, d.study, f"{d.ratio:.2f}x", interval_text(d), p_text(d.comparison.p_value),
                      ratio_words(d)] for d in parts])
    if hidden:
        print(f"\n{hidden} phase or query comparison(s) not significant (or too few runs): in the document")
    print()
    for d in cmp.environment:
        print(f"differs: {d.field}: " + "; ".join(f"{lab} {v}" for lab, v in zip(cmp.labels, d.values)))
    if not cmp.environment:
        print("the same machine, engine and tierbench versions recorded in every study")
    for d in cmp.accepted_differences:
        print(f"spec differs (--allow): {d.field}: " + "; ".join(f"{lab} {v}" for lab, v in zip(cmp.labels, d.values)))
    for line in (*cmp.unmatched, *cmp.notes):
        print(f"not compared: {line}")
    print(f"\ncomparison: {paths[0].resolve()}\n            {paths[1].resolve()}\n            {paths[2].resolve()}")


# under the table: what its interval is, so that it is never read as the median ratio's (see report/comparison.py)
INTERVAL_LEGEND = ("median ratio: the study's median runtime / the baseline's. mean ratio 95% CI: Welch's interval of\n"
                   "the ratio of mean runtimes, from the test that gives p and the verdict: it excludes 1.00 exactly\n"
                   "when p < 0.05.")


def print_table(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for row in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())


def pct(threshold: float) -> str:
    return f"{threshold * 100:g}%"


def print_gate(threshold: float, failing: list, json_out: bool) -> None:
    """The gate's outcome; on stderr under --json, so that stdout stays JSON."""
    import sys

    stream = sys.stderr if json_out else sys.stdout
    if not failing:
        print(f"\n--fail-if-slower {pct(threshold)}: passed (no job significantly slower by more than {pct(threshold)})",
              file=stream)
        return
    print(f"\n--fail-if-slower {pct(threshold)}: FAILED, {len(failing)} job(s) significantly slower by more than "
          f"{pct(threshold)}:", file=stream)
    for d in failing:
        print(f"  {d.job} in {d.study}: {d.ratio:.2f}x the baseline's runtime ({d.ratio - 1:+.0%}, "
              f"{d.median:.3g} s vs {d.base_median:.3g} s, Welch p{'<0.001' if d.comparison.p_value < 0.001 else '=%.3f' % d.comparison.p_value})",
              file=stream)
