"""SQL queries: each query's median time per variant, checked against DuckDB, and a sql run's time apart."""

from ...analysis.tables import QueryTimes, query_times, sql_time_split
from .. import charts
from ..context import ReportContext
from ..document import Figure, Paragraph, Section, Table

QUERY_HEAD = ["variant", "sql workload", "query", "median s", "rows", "checked against DuckDB"]
SQL_TIME_HEAD = ["variant", "sql workload", "queries s (the runtime compared)", "registering the tables s", "wall s"]


def sections(ctx: ReportContext) -> list[Section]:
    queries = [_query_row(q) for q in query_times(ctx.runs)]
    if not queries:
        return []
    sec = Section("SQL queries", 2, [
        Paragraph("Each query timed from submission to its last row collected (median over repeats). "
                  "'checked' says whether DuckDB, reading the same Parquet files, gave the same answer.", muted=True)])
    for label in dict.fromkeys(q[1] for q in queries):
        svg = charts.query_times({(q[0], q[2]): float(q[3]) for q in queries if q[1] == label}, label, ctx.colors)
        if svg:
            sec.add(Figure(svg, f"chart-sql-{label}", f"median seconds per query of {label}, a bar per configuration "
                                                      "(the numbers are in the table below)"))
    sec.add(Table(QUERY_HEAD, queries))
    apart = [[t.variant, t.label, f"{t.queries_s:.2f}", f"{t.register_s:.2f}", f"{t.wall_s:.2f}"] for t in sql_time_split(ctx.runs)]
    if apart:
        sec.add(Paragraph("A sql run's runtime, as the charts and the summary compare it, is its queries' time: reading "
                          "the tables' schemas and file lists and registering them comes before the first query "
                          "(on an object store, mostly listing) and is shown here apart, with the run's wall time.",
                          muted=True), Table(SQL_TIME_HEAD, apart))
    return [sec]


def _query_row(q: QueryTimes) -> list[str]:
    checked = "same answer" if all(c is None for c in q.checks) else "; ".join(sorted({str(c) for c in q.checks if c}))
    shown = q.name
    if q.retried:
        shown = f"{q.name} (retried {q.first_retry if q.retried == q.runs else f'in {q.retried} of {q.runs} runs'})"
    return [q.variant, q.label, shown, f"{q.median_s:.3g}", str(q.rows), checked]
