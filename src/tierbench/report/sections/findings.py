"""Findings: the comparisons that matter, then every warning and failure, alike ones folded into one."""

from ...analysis.caveats import degraded_storage, fold_warnings, summarised_warnings
from ...analysis.stats import Analysis
from ...analysis.validity import durability_lines, same_device_pairs, study_lines
from ...store.pooling import mixed_pools
from ..context import ReportContext
from ..document import Bullets, Notice, Section
from ..formats import baseline_words, comparison_words, significant

MAX_FINDINGS = 12  # past this many comparisons, the ones that are not significant are counted, not listed
MAX_CACHE_LINES = 3  # per kind of page-cache flag; past this many runs, one line counts them


def sections(ctx: ReportContext) -> list[Section]:
    same = same_device_pairs(ctx.spec, ctx.storage_map)
    findings = Section("Findings", 2, [Bullets(headline(ctx.analysis, same, ctx.config_of)
                                               or ["Only one configuration: nothing to compare."])])
    if ctx.facts.emulation_skipped:
        findings.add(Notice("warn", "run with --unemulated: the spec's emulated devices were plain directories on this "
                                    "machine's disk, so the configurations did not differ in their devices"))
    findings.add(*(Notice("warn", line) for line in study_lines(ctx.spec, ctx.machine, ctx.storage_map)
                   + durability_lines(ctx.spec, ctx.runs)))
    findings.add(*(Notice("warn", f"{_where(w)}{w.text}") for w in fold_warnings(summarised_warnings(ctx.analysis))))
    findings.add(*(Notice("fail", f"{r.run_key} failed: {r.error or ''}") for r in ctx.analysis.failed))
    findings.add(*(Notice("warn", line) for line in cache_lines(ctx.observations)))
    findings.add(*(Notice("warn", f"pooled with --allow-mixed: {line}") for line in mixed_pools(ctx.runs)))
    findings.add(*(Notice("warn", line) for line in _storage_health_lines(ctx.runs)))
    findings.add(*(Notice("warn", line) for line in node_check_lines(ctx.facts.node_check)))
    findings.blocks = fold_notices(findings.blocks)
    return [findings]


def headline(an: Analysis, same_device: dict | None = None, config_of: dict | None = None) -> list[str]:
    """Significant differences first; in a large study the rest is one line (the summary table has each).
    A comparison of two configurations on the same device says it is not a device comparison."""
    config_of = config_of or {}

    def line(c) -> str:
        devs = (same_device or {}).get(frozenset((config_of.get(c.config, c.config), config_of.get(c.baseline, c.baseline))))
        note = f" (same device as {c.baseline}, {', '.join(devs)}: not a device comparison)" if devs else ""
        return f"{c.config} on {c.workload}: {comparison_words(c)}{note}"

    sig = [line(c) for c in an.comparisons if significant(c)]
    rest = [line(c) for c in an.comparisons if not significant(c)]
    if len(sig) + len(rest) <= MAX_FINDINGS:
        return sig + rest
    return sig + [f"{len(rest)} {'other ' if sig else ''}differences from {baseline_words(an)} are not significant (Welch "
                  "p >= 0.05): the summary table has each, with its interval"]


def _where(w) -> str:
    return "" if w.config == "all" else f"{w.config} / {w.workload}: "


def cache_lines(obs: dict) -> list[str]:
    """Runs whose reads, writes or shuffle memory served: each listed, or per kind one line when many are."""
    kinds: dict[str, list[str]] = {}
    for key, o in obs.items():
        for note in (o.cache_notes if o else ()):
            kinds.setdefault(note.split(":")[0], []).append(f"{key}: {note}")
    lines = []
    for kind, found in kinds.items():
        if len(found) <= MAX_CACHE_LINES:
            lines += found
        else:
            lines.append(f"{kind} in {len(found)} of {len(obs)} runs; the first, {found[0]}")
    return lines


def _storage_health_lines(runs) -> list[str]:
    """Runs after which the storage was degraded (HDFS: dead DataNodes or under-replicated blocks)."""
    d = degraded_storage(runs)
    if d is None:
        return []
    return [f"HDFS was degraded after {d.runs} run(s), first {d.first_run}: {d.dead_datanodes} dead DataNode(s), "
            f"{d.under_replicated_blocks} of the {d.blocks_written} block(s) it wrote under-replicated: such runs "
            "wrote fewer copies than asked; check the DataNodes (tierbench services status hdfs) and re-run them"]


def node_check_lines(nc: dict | None) -> list[str]:
    """One line in the findings when the node check found something to fix."""
    if not nc:
        return []
    if nc.get("error"):
        return [f"node check could not run: {nc['error']}"]
    bad = [c for c in nc["checks"] if c["status"] in ("fail", "warn")]
    if not bad:
        return []
    names = ", ".join(dict.fromkeys(f"{c['name']} ({c['status']})" for c in bad))
    return [f"node check: {nc['summary'].get('fail', 0)} fail, {nc['summary'].get('warn', 0)} warn of the studies' OS advice: "
            f"{names}; each with its fix under Environment > Node check"]


def fold_notices(blocks: list) -> list:
    """Identical notices (the same warning for many runs) become one, with how many times it was raised."""
    count: dict[tuple[str, str], int] = {}
    for b in blocks:
        if isinstance(b, Notice):
            count[(b.kind, b.text)] = count.get((b.kind, b.text), 0) + 1
    out, seen = [], set()
    for b in blocks:
        if isinstance(b, Notice):
            key = (b.kind, b.text)
            if key in seen:
                continue
            seen.add(key)
            if count[key] > 1:
                b = Notice(b.kind, f"{b.text} (x{count[key]})")
        out.append(b)
    return out
