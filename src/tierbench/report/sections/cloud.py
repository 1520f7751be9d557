"""Cloud what-if: what `tierbench predict --cloud` stored (predictions.json's `cloud`): per job, the cheapest option
within 10% of the fastest runtime, the fastest and the cheapest, then each job's ten cheapest options."""

from ...units import format_size
from ..context import ReportContext
from ..document import Paragraph, Section, Table
from ..formats import fmt, usd

SUMMARY_HEAD = ["job", "size", "which", "cloud", "instance", "storage", "nodes", "predicted s", "$/job", "bottleneck (phase: resource)"]
OPTIONS_HEAD = ["", "cloud", "instance", "storage", "nodes", "predicted s", "place by runtime", "$/job",
                "bottleneck (phase: resource)"]
TOP = 10


def sections(ctx: ReportContext) -> list[Section]:
    p = ctx.facts.predictions or {}
    cloud = p.get("cloud")
    if not cloud or not cloud.get("rows"):
        return []
    where = "; ".join(f"{c['name']} in {c['region']} (prices read {c['read']})" for c in cloud["clouds"])
    margin = f"Intervals: {cloud['margin_from']}."
    estimated = [j for j, how in cloud["requests_from"].items() if how == "estimated"]
    requests = (f" Object-store requests of {', '.join(estimated)}: estimated from the bytes moved and S3A's default "
                "split and part sizes (the runs recorded no S3A statistics)." if estimated else "")
    sec = Section("Cloud: instance x storage x nodes, by $/job", 2, [
        Paragraph(f"From `tierbench predict --cloud`: {where}; node counts {', '.join(map(str, cloud['nodes']))}. "
                  f"Every instance type x storage option (local NVMe, network volumes, the object store) x node count "
                  f"was predicted by the what-if model and priced: the instances' hours, the storage pro-rated to the "
                  f"runtime, the requests. {margin}{requests} The catalog's figures, their sources and what is "
                  "assumed: docs/cloud.md.", muted=True),
        Table(SUMMARY_HEAD, _summary(cloud["rows"]))])
    for job in dict.fromkeys(r["job"] for r in cloud["rows"]):
        rows = [r for r in cloud["rows"] if r["job"] == job]
        sec.add(Section(f"{job}: the {min(TOP, len(rows))} cheapest of {len(rows)} options", 3,
                        [Table(OPTIONS_HEAD, [_option(r) for r in rows[:TOP]])]))
    return [sec]


def _seconds(r: dict) -> str:
    rng = r.get("seconds_range")
    return f"{fmt(r['seconds'])} ({fmt(rng[0])}-{fmt(rng[1])})" if rng else fmt(r["seconds"])


def _usd(r: dict) -> str:
    rng = r.get("usd_range")
    return f"{usd(r['usd_per_job'])} ({usd(rng[0])}-{usd(rng[1])})" if rng else usd(r["usd_per_job"])


def _option(r: dict) -> list[str]:
    which = "cheapest within 10% of the fastest" if r["best"] else ("fastest" if r["fastest"] else "")
    return [which, r["cloud"], r["instance"], r["storage"], str(r["nodes"]), _seconds(r), f"#{r['rank_seconds']}", _usd(r),
            r["bottleneck"]]


def _summary(rows: list[dict]) -> list[list[str]]:
    out = []
    for job in dict.fromkeys(r["job"] for r in rows):
        mine = [r for r in rows if r["job"] == job]
        picks = {"cheapest within 10% of the fastest": next(r for r in mine if r["best"]),
                 "fastest": next(r for r in mine if r["fastest"]), "cheapest": min(mine, key=lambda r: r["usd_per_job"])}
        for which, r in picks.items():
            out.append([job, format_size(r["size_bytes"]), which, r["cloud"], r["instance"], r["storage"], str(r["nodes"]),
                        _seconds(r), _usd(r), r["bottleneck"]])
    return out
