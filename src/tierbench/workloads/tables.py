"""Lakehouse tables on the storage under test: sqlgen's TPC-H / TPC-DS Parquet loaded as Iceberg tables (its Hadoop
catalog: the warehouse is a directory of the storage, no metastore) or Delta Lake tables (path-based), maintained in
batches (DELETE, INSERT, MERGE INTO, copy-on-write or merge-on-read: Delta's deletion vectors), compacted with the
files of their old snapshots deleted (Iceberg's expiry, Delta's VACUUM), and queried through the tables between the
phases (sql.py's queries, answers checked against DuckDB on the source Parquet). Each format's tables are a data set
of their own, so that a study can run both side by side: the other workloads read the table-load of their format.

The maintenance keeps the tables' content as loaded (the rows a batch deletes it inserts again from the source;
MERGE INTO updates rows to the source's values): the files, snapshots and delete files pile up as they would, and
the queries' answers after it are still DuckDB's on the source Parquet. Each phase records what the storage saw:
files and bytes written and deleted under the tables' directories, data files and small ones, metadata files; S3A's
requests come with every run on S3 (engines/s3a_requests.py)."""

from ..toolchain import delta_runtime_jars, table_runtime_jars
from ..units import MB
from .base import IORoles, Measurement, Metric, Param, SparkRuntime, Workload, define_metrics
from .sql import TABLES, Sql, table_uris

ORDER = 70

FORMATS = ("iceberg", "delta")
UPDATE_MODES = ("copy-on-write", "merge-on-read")
# tables a maintenance can change, with the columns that identify a row (MERGE INTO's match)
KEYS = {"lineitem": ("l_orderkey", "l_linenumber"), "orders": ("o_orderkey",), "customer": ("c_custkey",),
        "store_sales": ("ss_item_sk", "ss_ticket_number"), "catalog_sales": ("cs_item_sk", "cs_order_number"),
        "web_sales": ("ws_item_sk", "ws_order_number")}
BUCKETS = 10_000  # a row's share of the key space: pmod(hash(key), BUCKETS); a share is a window of buckets
NAMESPACE = "db"  # Tables.java's: <warehouse>/db/<table>
# Iceberg 1.12's runtime for Spark 4.1 (the project's 4.3.0 fails with it: IncompatibleClassChangeError)
ICEBERG = SparkRuntime("Iceberg 1.12's Spark runtime", ("4.1.4",), lambda: table_runtime_jars("4.1"))
# Delta Lake 4.3's for Spark 4.1; its extension and catalog are static settings: the application starts with them
DELTA = SparkRuntime("Delta Lake 4.3's Spark runtime", ("4.1.4",), lambda: delta_runtime_jars("4.1"), conf=(
    ("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension"),
    ("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")))
RUNTIMES = {"iceberg": ICEBERG, "delta": DELTA}
SQL_TABLES, LAKE_TABLES = "sql-tables", "lake-tables"
DATASETS = {"iceberg": LAKE_TABLES, "delta": "delta-tables"}  # a format's warehouse: its own data set


def sibling(uri: str, dataset: str) -> str:
    """Another data set of the same repeat: a repeat's data sets are siblings (storage/layout.py's
    <root>/<variant>/r<repeat>/<data set>), so the tables find sqlgen's Parquet beside them and back."""
    return uri.rstrip("/").rsplit("/", 1)[0] + "/" + dataset


def table_dir(warehouse: str, table: str) -> str:
    return f"{warehouse.rstrip('/')}/{NAMESPACE}/{table}"


def window(start: int, width: int) -> str:
    """The rows whose key falls in buckets [start, start + width) (wrapping), as a SQL predicate on their table."""
    return f"pmod(pmod(hash(%s), {BUCKETS}) - {start}, {BUCKETS}) < {width}"


define_metrics(
    table_s=Metric("s", "tables: the phase's statements (load, maintenance batches, compaction and expiry), without "
                        "the listings and checks around them", False),
    files_written=Metric("files", "tables: files the phase added under the tables' directories (data, delete and "
                                  "metadata files; listed before and after)", False),
    written_mb=Metric("MB", "tables: bytes of those files", False),
    files_deleted=Metric("files", "tables: files the phase removed under the tables' directories", False),
    deleted_mb=Metric("MB", "tables: bytes of those files", False),
    data_files=Metric("files", "tables: data files in the tables' directories after the phase (Iceberg's under data/, "
                               "Delta's beside _delta_log/; live or not yet expired; delete files and deletion vector "
                               "files too)", False),
    small_files=Metric("files", "tables: of those, the files under small_file_size", False),
    metadata_files=Metric("files", "tables: metadata files after the phase (Iceberg's metadata/: metadata JSON, "
                                   "manifest lists, manifests; Delta's _delta_log/: commits, checkpoints, checksums)",
                          False),
    live_delete_files=Metric("files", "tables: delete files the current snapshots reference (merge-on-read; Delta: "
                                      "deletion vector files)", False),
    snapshots=Metric("snapshots", "tables: snapshots the tables keep after the phase (Delta: the versions its log "
                                  "keeps)", False),
)

FORMAT = Param("format", "choice", "iceberg", "table format: Iceberg (format v2, its Hadoop catalog) or Delta Lake "
               "(path-based tables); the table workloads read the table-load of their format", choices=FORMATS)
SMALL = Param("small_file_size", "size", 8 * MB, "a file under this size counts as small (small_files)", 1)
TABLE = Param("table", "choice", "lineitem", "the table maintained (and compacted)", choices=tuple(KEYS))
PHASE_METRICS = ("table_s", "files_written", "written_mb", "files_deleted", "deleted_mb", "data_files", "small_files",
                 "metadata_files", "stored_mb", "live_delete_files", "snapshots")


def phase_measure(job: dict) -> Measurement:
    """A table phase's metrics from Tables.java's result (the listings before and after, the snapshots' summary)."""
    state = job["state"]
    m = {"table_s": job["phase_ms"] / 1000, "files_written": job["files_written"], "written_mb": job["bytes_written"] / MB,
         "files_deleted": job["files_deleted"], "deleted_mb": job["bytes_deleted"] / MB, "data_files": job["data_files"],
         "small_files": job["small_files"], "metadata_files": job["metadata_files"], "stored_mb": job["stored_bytes"] / MB,
         "live_delete_files": state["live_delete_files"], "snapshots": state["snapshots"]}
    failure = None
    if "rows_before" in job and job["rows_before"] != job["rows_after"]:
        failure = f"tables: the table held {job['rows_before']} rows before and {job['rows_after']} after (the " \
                  "maintenance and compaction keep its content)"
    return Measurement(m, {"state": state}, failure)


def reads_format(params: dict, producer_params: dict) -> bool:
    """A table workload reads the tables of its own format (the producer's format, or any other producer's)."""
    return producer_params.get("format", params["format"]) == params["format"]


class TableWorkload(Workload):
    """What the table phases share: their format's runtime on Spark 4.1.4, the table-load of their format as input;
    the maintenance and compaction are not warmed up (the load and the queries warm the application up)."""
    phases = ()  # a Spark job per statement and table: the profile shows them as stage N
    metrics = PHASE_METRICS
    headline = "table_s"
    io = IORoles(input=None, intermediate=None, output="written_mb")
    warm_up_overrides = None
    kept: tuple[str, ...] = ()  # the job result's own facts kept in the run's details

    def spark_runtime(self, params):
        return RUNTIMES[params["format"]]

    def reads_from(self, params, producer_params):
        return reads_format(params, producer_params)

    def reads_what(self, params):
        return f'of format = "{params["format"]}"'

    def input_dataset(self, params):
        return DATASETS[params["format"]] if self.consumes == LAKE_TABLES else self.consumes

    def measure(self, job, wall_s, produced):
        m = phase_measure(job)
        m.details.update({k: job[k] for k in self.kept if k in job})
        return m


class TableLoad(TableWorkload):
    name, title = "table-load", "lakehouse table load"
    doc = ("Loads every table of sqlgen's Parquet into Iceberg tables (CREATE TABLE ... AS SELECT, format v2) or "
           "Delta tables (CREATE TABLE ... USING delta AS SELECT) in a warehouse on the storage under test.")
    params = (FORMAT, Param("tables", "names", None, "the tables loaded (default: all of the benchmark's; a query "
                            "through a table not loaded fails)"),
              Param("target_file_size", "size", 128 * MB, "the tables' write.target-file-size-bytes (Delta: the "
                    "size table-optimize compacts to; its load writes the files Spark's plan makes)", 1), SMALL)
    consumes, producer, produces = SQL_TABLES, "sqlgen", LAKE_TABLES
    spark_job = "Tables.load"
    warm_up_overrides = {}  # (on the warm-up's small sqlgen tables: the queries' warm-up reads them)
    kept = ("tables",)  # each table's CREATE TABLE AS SELECT, ms

    def output_dataset(self, label, params):
        return DATASETS[params["format"]]

    def check_with_producer(self, params, producer_params):
        known = TABLES[producer_params["benchmark"]]
        bad = [t for t in params["tables"] or () if t not in known]
        if bad:
            return "tables", f"no {producer_params['benchmark']} table {', '.join(bad)}; accepted: {', '.join(known)}"
        return None

    def spark_params(self, req):
        bench, chosen = req.producer.params["benchmark"], req.params["tables"]
        sources = {t: uri for t, uri in table_uris(bench, req.inputs).items() if not chosen or t in chosen}
        return {"format": req.params["format"], "sources": sources, "warehouse": req.outputs[0],
                "target_file_size": req.params["target_file_size"], "small_file_size": req.params["small_file_size"]}



class TableMaintain(TableWorkload):
    name, title = "table-maintain", "lakehouse table maintenance"
    doc = ("Batches of DELETE (a share of the table's rows), INSERT (those rows again, from the source Parquet) and "
           "MERGE INTO (another share updated to the source's values) on one table, copy-on-write or merge-on-read: "
           "the table's content stays as loaded, its files and snapshots pile up. Fails when its row count changed.")
    params = (FORMAT, TABLE, Param("update_mode", "choice", "merge-on-read", "how the batches write (Iceberg's "
                                   "write.delete, update and merge modes; Delta: merge-on-read is its deletion vectors, "
                                   "copy-on-write its default)", choices=UPDATE_MODES),
              Param("batches", "count", 3, "batches, each a DELETE, an INSERT and a MERGE INTO", 1, maximum=1000),
              Param("share", "number", 0.01, "share of the table's rows each statement changes (0.01: 1%)"), SMALL)
    consumes, producer = LAKE_TABLES, "table-load"
    verifies = True
    spark_job = "Tables.maintain"
    kept = ("batches",)  # each batch's statements, ms

    def check_params(self, params, engine_kinds, config_names):
        if params["share"] * params["batches"] * 2 > 1:
            return "share", (f"{params['share']:g} of the rows per statement, twice per batch, over {params['batches']} "
                             "batches is more than the table: at most 1 / (2 x batches)")
        return None

    def spark_params(self, req):
        p, table = req.params, req.params["table"]
        width = max(1, round(p["share"] * BUCKETS))
        keys = ", ".join(KEYS[table])
        batches = [{"delete_where": window(2 * k * width, width) % keys, "update_where": window((2 * k + 1) * width, width) % keys}
                   for k in range(p["batches"])]
        sources = table_uris(_benchmark(table), [sibling(u, SQL_TABLES) for u in req.inputs])
        return {"format": p["format"], "warehouse": req.inputs[0], "table": table, "keys": list(KEYS[table]),
                "update_mode": p["update_mode"],
                "source": sources[table], "batches": batches, "small_file_size": p["small_file_size"]}


class TableOptimize(TableWorkload):
    name, title = "table-optimize", "lakehouse table compaction"
    doc = ("Compacts one table (Iceberg's rewrite_data_files, Delta's OPTIMIZE, to the load's target file size, "
           "deletes applied) and expires every snapshot but the current one (Delta: VACUUM with no retention), "
           "deleting the files only they held. Fails when its row count changed.")
    params = (FORMAT, TABLE, SMALL)
    consumes, producer = LAKE_TABLES, "table-load"
    verifies = True
    spark_job = "Tables.optimize"
    kept = ("rewrite_ms", "expire_ms", "rewritten_data_files", "added_data_files", "removed_delete_files")

    def spark_params(self, req):
        return {"format": req.params["format"], "warehouse": req.inputs[0], "table": req.params["table"],
                "small_file_size": req.params["small_file_size"]}


def _benchmark(table: str) -> str:
    return next(b for b, tables in TABLES.items() if table in tables)


class TableSql(Sql):
    name, title = "table-sql", "SQL queries through lakehouse tables"
    doc = ("sql's queries on Spark SQL through table-load's tables of its format (list it after table-load, and again "
           "after table-maintain and table-optimize to see the queries degrade and recover). With verify = true "
           "the answers are checked against DuckDB on sqlgen's Parquet, the tables' source: the maintenance keeps "
           "their content.")
    params = (*Sql.params, FORMAT)
    metrics = (*Sql.metrics, "live_delete_files", "snapshots")

    def spark_runtime(self, params):
        return RUNTIMES[params["format"]]

    def spark_params(self, req):
        # (its format's table-load's output, beside sqlgen's: its first data dir)
        warehouse = sibling(req.inputs[0], DATASETS[req.params["format"]])
        params = super().spark_params(req)
        return {**params, "format": req.params["format"], "warehouse": warehouse,
                "tables": {t: table_dir(warehouse, t) for t in params["tables"]}}

    def measure(self, job, wall_s, produced):
        m = super().measure(job, wall_s, produced)
        if "table_state" in job:
            m.details["table_state"] = job["table_state"]
            m.metrics.update(live_delete_files=job["table_state"]["live_delete_files"],
                             snapshots=job["table_state"]["snapshots"])
        return m


WORKLOADS = (TableLoad(), TableMaintain(), TableOptimize(), TableSql())
