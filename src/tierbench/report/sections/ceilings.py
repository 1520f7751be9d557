"""Device ceilings (fio): what each device did before the study, against which every run's throughput is put."""

from ..context import ReportContext
from ..document import Notice, Paragraph, Section, Table

PROBE_HEAD = ["device", "directories", "seq write MB/s", "seq read MB/s", "rand read 64K MB/s (IOPS)", "rand read p99 ms", "O_DIRECT"]


def sections(ctx: ReportContext) -> list[Section]:
    probe, error = ctx.facts.probe, ctx.facts.probe_error
    if not (probe or error):
        return []
    sec = Section("Device ceilings (fio)", 2)
    if error:
        sec.add(Notice("warn", f"device ceilings skipped: {error}"))
    if probe:
        sec.add(Paragraph("fio before the study: sequential write and read in 1 MiB blocks and random reads in 64 KiB "
                          "blocks, queue depth 8, O_DIRECT. Each run's throughput is compared with its data device's ceiling in "
                          "'Every run'.", muted=True),
                Table(PROBE_HEAD, _probe_rows(probe)))
    return [sec]


def _probe_rows(probe: dict) -> list[list[str]]:
    rows = []
    for dev, p in probe.items():
        t = p.get("tests", {})
        g = lambda k, f: f"{t[k][f]:.0f}" if k in t else "–"
        rr = t.get("rand_read_64k")
        rows.append([dev, ", ".join(p.get("dirs", [])), g("seq_write", "mb_s"), g("seq_read", "mb_s"),
                     f"{rr['mb_s']:.0f} ({rr['iops']:.0f})" if rr else "–", f"{rr['p99_latency_ms']:.2f}" if rr else "–",
                     "yes" if p.get("direct_io") else "no (buffered: includes the page cache)" + (f"; error: {p['error']}" if p.get("error") else "")])
    return rows
