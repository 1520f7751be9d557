"""The comparison document of `tierbench compare` (analysis/compare.py): report.html, report.md and report.json in
one folder, the document drawn by the report's own renderers (render.py) and charts (charts.py)."""

import json
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..analysis.compare import Delta, StudyComparison
from ..analysis.stats import summarize
from ..errors import UserError
from . import charts
from .document import Bullets, Figure, Notice, Paragraph, Report, Section, Strong, Table
from .formats import fmt
from .render import HtmlExporter, MarkdownExporter, write_atomic

JOB_HEAD = ["job (configuration / workload)", "study", "baseline median s", "study's median s",
            "median ratio (x baseline)", "mean ratio, Welch 95% interval", "Welch p", "verdict (Welch)"]
# what the interval beside a verdict is, said wherever both are shown: read as the median ratio's, an interval
# could seem to contradict its verdict
INTERVAL_NOTE = ("The interval is Welch's 95% interval of the ratio of the mean runtimes, from the same test as p "
                 "and the verdict: it excludes 1.00 exactly when p < 0.05. The median ratio is the study's median "
                 "runtime over the baseline's.")


def p_text(p: float | None) -> str:
    """A p-value as the report writes it: never "0.000"."""
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def ratio_words(d: Delta) -> str:
    """"slower (+99%)", "faster (-48%)", "not significant (+2%)", "too few runs": the median's change; where the
    medians moved against the means the test judged, both ("slower (means +4%, median -1%)")."""
    if d.verdict == "too few runs":
        return d.verdict
    if d.verdict != "not significant" and (d.ratio - 1) * (d.mean_ratio - 1) <= 0 and d.ratio != d.mean_ratio:
        return f"{d.verdict} (means {d.mean_ratio - 1:+.0%}, median {d.ratio - 1:+.0%})"
    return f"{d.verdict} ({d.ratio - 1:+.0%})"


def interval_text(d: Delta) -> str:
    """Welch's 95% interval of the ratio of means (Delta.interval), or "–" with one run on a side."""
    iv = d.interval
    return f"{iv[0]:.2f} – {iv[1]:.2f}" if iv else "–"


def delta_row(d: Delta, with_part: bool = False) -> list[str]:
    return [d.job, *([d.part] if with_part else []), d.study, fmt(d.base_median), fmt(d.median), f"{d.ratio:.3f}",
            interval_text(d), p_text(d.comparison.p_value), ratio_words(d)]


def build_comparison(cmp: StudyComparison, now: datetime | None = None) -> Report:
    now = now or datetime.now(timezone.utc)
    base = cmp.labels[0]
    legend = [f"{lab}{' (the baseline)' if lab == base else ''}: {s.path} ({s.study.name}, {len(s.runs)} runs)"
              for lab, s in zip(cmp.labels, cmp.studies)]
    subtitle = Paragraph([f"Generated {now:%Y-%m-%d %H:%M} UTC by tierbench {__version__}. Baseline: ", Strong(base),
                          "; each ratio is a study's median runtime divided by the baseline's (below 1 is faster)."], muted=True)
    sections = [Section("Studies", 2, [Bullets(legend)]), _verdict_section(cmp), _jobs_section(cmp)]
    for title, deltas, what in (("Phases", cmp.phases, "phase"), ("SQL queries", cmp.queries, "query")):
        if deltas:
            sections.append(Section(title, 2, [_parts_note(what), Table(JOB_HEAD[:1] + [what] + JOB_HEAD[1:],
                                                                     [delta_row(d, True) for d in deltas])]))
    sections.append(_differences_section(cmp))
    if cmp.unmatched or cmp.notes:
        sections.append(Section("Not compared", 2, [Notice("warn", line) for line in (*cmp.unmatched, *cmp.notes)]))
    return Report(f"tierbench compare: {cmp.studies[0].study.name}", subtitle, sections)


def _verdict_section(cmp: StudyComparison) -> Section:
    lines = [f"{d.study}: {d.job}: {ratio_words(d)}, median ratio {d.ratio:.2f}, mean ratio's 95% interval "
             f"{interval_text(d)}, Welch p {p_text(d.comparison.p_value)}" for d in cmp.jobs]
    slower = [d for d in cmp.jobs if d.verdict == "slower"]
    faster = [d for d in cmp.jobs if d.verdict == "faster"]
    head = (f"{len(cmp.jobs)} job comparison(s): {len(faster)} significantly faster, {len(slower)} significantly "
            f"slower, {len(cmp.jobs) - len(faster) - len(slower)} not significant (Welch's t-test, p < 0.05, as the "
            "report's findings).")
    return Section("Verdict", 2, [Paragraph(head), Bullets(lines), Paragraph(INTERVAL_NOTE, muted=True)])


def _jobs_section(cmp: StudyComparison) -> Section:
    sec = Section("Runtime per job", 2)
    svg = side_by_side(cmp)
    if svg:
        sec.add(Figure(svg, "chart-compare-runtime", "median runtime per job, a bar per study side by side, whiskers the "
                                                     "median's interval, dots the runs (the numbers are in the table below)"))
    svg = ratio_chart(cmp)
    if svg:
        sec.add(Figure(svg, "chart-compare-ratio", "each study's median runtime as a multiple of the baseline's, per job "
                                                   "(the bars); whiskers Welch's 95% interval of the ratio of means, the "
                                                   "test of the verdict, its mark the ratio of means"))
    sec.add(Paragraph("The runtime is the report's (a SQL run's: its queries' time). " + INTERVAL_NOTE, muted=True),
            Table(JOB_HEAD, [delta_row(d) for d in cmp.jobs]))
    return sec


def _parts_note(what: str) -> Paragraph:
    if what == "phase":
        return Paragraph("Each phase of a run (details.phases): the engine's stages its workload names, and the tasks' own "
                         "phases that are no stage (TeraSort's shuffle fetch) from the first task's start to the last "
                         "one's end; compared over the runs as the jobs are.", muted=True)
    return Paragraph("Each query timed from submission to its last row collected (details.queries), compared over the "
                     "runs as the jobs are.", muted=True)


def _differences_section(cmp: StudyComparison) -> Section:
    head = ["what", *cmp.labels]
    sec = Section("What differs between the studies", 2)
    if cmp.environment:
        sec.add(Paragraph("What the runs recorded of their machine and versions, where the studies differ:"),
                Table(head, [[d.field, *(fmt(v) for v in d.values)] for d in cmp.environment]))
    else:
        sec.add(Paragraph("The runs recorded the same machine (host, CPU, cores, RAM, kernel, OS, Python) and the same "
                          "engine and tierbench versions and commit in every study: what differs is outside them "
                          "(load, CPU affinity or quotas, firmware, the storage's state)."))
    if cmp.accepted_differences:
        sec.add(Notice("warn", "the specs differ, accepted with --allow: a difference below may come from the spec"),
                Table(head, [[d.field, *(fmt(v) for v in d.values)] for d in cmp.accepted_differences]))
    else:
        sec.add(Paragraph("Every study ran the same spec (study.json's fingerprint "
                          f"{cmp.studies[0].study.fingerprint or '–'}).", muted=True))
    return sec


def tick(d: Delta) -> str:
    """A job under a chart's axis: config/workload, which the chart wraps at the slash."""
    return f"{d.variant}/{d.workload}"


def side_by_side(cmp: StudyComparison) -> str | None:
    """Median runtime per job, a bar per study side by side, the median's interval as whiskers, every run a dot."""
    first = [d for d in cmp.jobs if d.study == cmp.labels[1]]
    jobs = [d.job for d in first]
    if not jobs:
        return None
    ticks = [tick(d) for d in first]
    per_study = {cmp.labels[0]: [d.base_values for d in first]}
    for lab in cmp.labels[1:]:
        by_job = {d.job: d.values for d in cmp.jobs if d.study == lab}
        per_study[lab] = [by_job.get(j, ()) for j in jobs]
    fig, ax, width = charts._grouped_bars(len(jobs), len(per_study))
    for j, (lab, values) in enumerate(per_study.items()):
        for i, runs in enumerate(values):
            if not runs:
                continue
            x = i + (j - (len(per_study) - 1) / 2) * width
            s = summarize(runs, "", lab, "s")
            ax.bar(x, s.median, width=width, color=charts.color(j, len(per_study)), label=lab if i == 0 else None)
            ax.errorbar(x, s.median, yerr=[[s.median - s.interval[0]], [s.interval[1] - s.median]], fmt="none",
                        ecolor="black", capsize=2, lw=0.7)
            ax.scatter([x] * len(runs), runs, color="black", s=6, zorder=3)
    charts.log_if_wide(ax, [v for values in per_study.values() for runs in values for v in runs])
    charts._category_ticks(ax, ticks)
    ax.set_ylabel("runtime (s)")
    ax.set_title("Runtime per job and study (median; lower is faster)", fontsize=10)
    return charts._finish(fig, ax, len(per_study))


def ratio_chart(cmp: StudyComparison) -> str | None:
    """Each compared study's ratio to the baseline per job, with the ratio's interval; the baseline is the line at 1."""
    jobs = list(dict.fromkeys(d.job for d in cmp.jobs))
    ticks = list(dict.fromkeys(tick(d) for d in cmp.jobs))
    others = list(cmp.labels[1:])
    if not jobs:
        return None
    fig, ax, width = charts._grouped_bars(len(jobs), len(others))
    for j, lab in enumerate(others):
        mine = {d.job: d for d in cmp.jobs if d.study == lab}
        xs = [i + (j - (len(others) - 1) / 2) * width for i, job in enumerate(jobs) if job in mine]
        ds = [mine[job] for job in jobs if job in mine]
        bars = ax.bar(xs, [d.ratio for d in ds], width=width, color=charts.color(j + 1, len(cmp.labels)), label=lab)
        # (the whiskers are about the means, which Welch's test judges: centred on the ratio of means, not the bar)
        means = [d.mean_ratio for d in ds]
        ivs = [d.interval or (m, m) for d, m in zip(ds, means)]
        ax.errorbar(xs, means, yerr=[[max(m - iv[0], 0) for m, iv in zip(means, ivs)],
                                     [max(iv[1] - m, 0) for m, iv in zip(means, ivs)]],
                    fmt="_", color="black", ecolor="black", capsize=2, lw=0.7)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    charts.log_if_wide(ax, [d.ratio for d in cmp.jobs])
    charts._category_ticks(ax, ticks)
    ax.set_ylabel(f"runtime / {cmp.labels[0]}'s (x)")
    ax.set_title(f"Runtime as a multiple of the baseline {cmp.labels[0]} (below 1.00 is faster)", fontsize=10)
    return charts._finish(fig, ax, len(others))


OUR_FILES = ("report.html", "report.md", "report.json")


def check_out(out: Path) -> None:
    """--out must be a new folder, or one holding an earlier comparison only: never a study's results folder, nor
    a folder of someone else's files that the comparison's would be mixed with."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder for the comparison")
    if (out / "study.json").exists() or (out / "runs.jsonl").exists():
        raise UserError(f"--out {out} is a study's results folder: the comparison goes into a folder of its own")
    if out.is_dir() and any(p.name not in OUR_FILES for p in out.iterdir()):
        raise UserError(f"--out {out} holds other files (not an earlier comparison's {', '.join(OUR_FILES)}); "
                        "choose a new folder")


def write_comparison(cmp: StudyComparison, out: Path, extra: dict | None = None) -> list[Path]:
    """report.html, report.md and report.json in `out` (made if missing): their paths. A folder of a study's
    results, or one that cannot be written, is refused in one line."""
    out = Path(out)
    check_out(out)
    doc = build_comparison(cmp)
    files = {"report.html": HtmlExporter().render_document(doc), "report.md": MarkdownExporter().render_document(doc),
             "report.json": json.dumps(cmp.to_dict() | (extra or {}), indent=2, default=str) + "\n"}
    try:
        out.mkdir(parents=True, exist_ok=True)
        return [write_atomic(out / name, text) for name, text in files.items()]
    except OSError as e:
        raise UserError(f"--out {out}: cannot write the comparison there: {e.strerror}; choose a folder you can "
                        "write to") from None
