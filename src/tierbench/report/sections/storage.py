"""Storage configurations: each configuration's data and intermediate dirs, as the spec gave them."""

from ..context import ReportContext
from ..document import Section, Table

STORAGE_HEAD = ["name", "data dirs", "intermediate dirs", "intermediate applied by", "description"]


def sections(ctx: ReportContext) -> list[Section]:
    return [Section("Storage configurations", 2, [Table(STORAGE_HEAD, _storage_rows(ctx.spec, ctx.runs))])]


def _storage_rows(spec, runs) -> list[list[str]]:
    rows = []
    for c in spec["storage"]:
        inter = ", ".join(c["intermediate"]) + (f" (each split into {c['split']} dirs)" if c["split"] > 1 else "")
        # what put the intermediate dirs under the engine (records before it was recorded: not said)
        applied = sorted({r.storage.get("intermediate_applied") for r in runs if r.config == c["name"]} - {None})
        rows.append([c["name"], ", ".join(c["data"]), inter, ", ".join(applied) or "-", c.get("description", "")])
    return rows
