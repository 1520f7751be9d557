"""Environment: the machine, the engines and their applications, tierbench's version, the command; the node
check under it when the study ran one."""

from ...analysis.tables import warm_up_median
from ...units import format_size
from ..context import ReportContext
from ..document import Notice, Paragraph, Section, Table

NODE_CHECK_HEAD = ["node", "check", "status", "found", "where", "fix"]
DROP_CACHES = {"auto": "dropped before each run when root", "always": "dropped before each run", "never": "not dropped"}


def sections(ctx: ReportContext) -> list[Section]:
    env = Section("Environment", 2, [Table(["", ""], _environment(ctx))])
    if ctx.facts.node_check:
        env.add(_node_check_section(ctx.facts.node_check))
    return [env]


def _environment(ctx: ReportContext) -> list[list[str]]:
    facts, spec, m = ctx.facts, ctx.spec, ctx.machine
    rows = [["machine", f"{m.get('cpu_model')}, {m.get('cpu_cores')} cores, {format_size(m.get('memory_bytes') or 0)} RAM, Linux {m.get('kernel')}"]]
    for e in spec.get("engines") or [spec["engine"]]:
        rows += _engine_rows(ctx, e)
    return rows + [
        ["tierbench", f"{facts.tool_version} (commit {facts.git_commit or 'unknown'})"],
        ["command", " ".join(facts.command_line)],
        ["repeats", str(spec["repeats"])],
        ["page cache", DROP_CACHES[spec["drop_caches"]]],
    ]


def _engine_rows(ctx: ReportContext, e: dict) -> list[list[str]]:
    """An engine's version and where it ran; its applications when it kept them alive between runs."""
    ran = next((r for r in ctx.runs if r.engine_version and (r.engine or e.get("kind")) in (e.get("name"), e.get("kind"))), None)
    where = f"master {e.get('master')}" if e.get("kind", "spark") == "spark" else f"{e.get('mode', 'local')} mode"
    rows = [[f"engine {e.get('name', e.get('kind'))}", f"{ran.engine_version if ran else '–'}, {where}"]]
    name = e.get("name") or e.get("kind")
    lived = ctx.facts.engine_applications.get(name)
    if lived:
        warm = warm_up_median(ctx.runs, name)
        budget = format_size(lived["keep_alive_memory"]) if lived["keep_alive_memory"] else "0: one at a time"
        rows.append([f"engine {name} applications",
                     f"{lived['started']} started" + (f" (each warmed up before its first measured run: median "
                                                      f"{warm:.1f} s)" if warm is not None else "")
                     + f", {lived['resumed']} resumed after idling between their configuration's turns "
                       f"(keep_alive_memory {budget})"])
    return rows


def _node_check_section(nc: dict) -> Section:
    from ...analysis.node_check import folded

    sec = Section("Node check", 3, aside="tierbench check, when the study started")
    if nc.get("error"):
        return sec.add(Notice("warn", f"the node check could not run: {nc['error']}"))
    order = {"fail": 0, "warn": 1, "pass": 2, "n/a": 3}
    s = nc["summary"]
    sec.add(Paragraph(f"The storage studies' OS advice on each node the study used: {s.get('pass', 0)} pass, {s.get('warn', 0)} warn, "
                      f"{s.get('fail', 0)} fail, {s.get('n/a', 0)} not reported by the node.", muted=True),
            Table(NODE_CHECK_HEAD, [[c["node"], c["name"], c["status"], c["found"], c["where"] or "–", c["fix"] or "–"]
                                    for c in sorted(folded(nc["checks"]), key=lambda c: order.get(c["status"], 9))]))
    return sec
