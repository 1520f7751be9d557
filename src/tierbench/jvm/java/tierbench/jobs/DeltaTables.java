package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Tables.java's phases on Delta Lake tables: path-based (delta.`dir`, so no metastore), in the same directories as
 * Iceberg's (warehouse/db/table), on any file system the application reaches. The application starts with Delta's
 * session extension and catalog (tables.py's runtime settings: they are static). Copy-on-write is Delta's default
 * (a DELETE, UPDATE or MERGE rewrites the files its rows are in); merge-on-read is its deletion vectors (the rows
 * marked deleted in a small file beside the data file, which readers apply). Compaction is OPTIMIZE; the files the
 * current version no longer needs are deleted by VACUUM, the counterpart of Iceberg's snapshot expiry.
 */
final class DeltaTables {
  private DeltaTables() {}

  /** A table property of tierbench's own: the load's target_file_size, which OPTIMIZE compacts to. */
  static final String TARGET = "tierbench.target-file-size";

  static String name(String dir) {
    return "delta.`" + dir + "`";
  }

  /** Tables.maintain's update mode on a Delta table: deletion vectors on for merge-on-read, off for copy-on-write. */
  static void setUpdateMode(Tables.Phase ph, String name, String mode) {
    String dv = Boolean.toString("merge-on-read".equals(mode));
    // a table property, read at each write; set only when it changes (each ALTER is a version of the table)
    if (!dv.equals(property(ph.spark, name, "delta.enableDeletionVectors", "false"))) {
      ph.spark.sql("ALTER TABLE " + name + " SET TBLPROPERTIES ('delta.enableDeletionVectors'='" + dv + "')");
    }
  }

  /**
   * OPTIMIZE (bin-packing to the load's target_file_size; every file under it and every file with a deletion vector
   * rewritten, as Iceberg's compaction here) then VACUUM with no retention: the files only older versions name are
   * deleted. The session settings are put back after (the application is shared with the study's other runs).
   */
  static ObjectNode optimize(JavaSparkContext jsc, JsonNode p) throws Exception {
    String table = p.get("table").asText();
    Tables.Phase ph = new Tables.Phase(jsc, p, List.of(table));
    String name = ph.name(table);
    long rowsBefore = Tables.count(ph.spark, name);
    String target = property(ph.spark, name, TARGET, Long.toString(128L << 20));
    Map<String, String> saved = new java.util.HashMap<>();
    // min = max: a file under the target is compacted (Delta's default minimum is 1 GB); a file with any deleted
    // row is rewritten with its deletion vector applied (Delta's default waits for 5% of its rows)
    set(ph.spark, saved, "spark.databricks.delta.optimize.maxFileSize", target);
    set(ph.spark, saved, "spark.databricks.delta.optimize.minFileSize", target);
    set(ph.spark, saved, "spark.databricks.delta.optimize.maxDeletedRowsRatio", "0");
    set(ph.spark, saved, "spark.databricks.delta.retentionDurationCheck.enabled", "false");  // (a retention < 7 days)
    try {
      ph.start();
      jsc.setJobDescription("table-optimize: OPTIMIZE");
      Row metrics = ph.spark.sql("OPTIMIZE " + name).first().getStruct(1);
      ph.r.put("rewrite_ms", (System.nanoTime() - ph.t0) / 1_000_000);
      ph.r.put("rewritten_data_files", Tables.number(metrics, "numFilesRemoved"))
          .put("added_data_files", Tables.number(metrics, "numFilesAdded"));
      Row dvs = metrics.getAs("deletionVectorStats");
      ph.r.put("removed_delete_files", dvs == null ? 0 : Tables.number(dvs, "numDeletionVectorsRemoved"));
      // VACUUM lists the table with as many tasks as parallelPartitionDiscovery.parallelism (default 10,000, for one
      // directory) and joins file lists (a row per file) with spark.sql.shuffle.partitions (default 200): on
      // local[2], 100,000 rows, 52 s with Delta's defaults, 19 s with the listing's, 5.7 s with both at the
      // application's parallelism (docs/lakehouse.md). Housekeeping sized to the cluster, as the data's jobs are.
      String parallelism = Integer.toString(jsc.defaultParallelism());
      set(ph.spark, saved, "spark.sql.sources.parallelPartitionDiscovery.parallelism", parallelism);
      set(ph.spark, saved, "spark.sql.shuffle.partitions", parallelism);
      jsc.setJobDescription("table-optimize: VACUUM");
      long t1 = System.nanoTime();
      ph.spark.sql("VACUUM " + name + " RETAIN 0 HOURS");
      ph.r.put("expire_ms", (System.nanoTime() - t1) / 1_000_000);
      ph.done();
    } finally {
      for (Map.Entry<String, String> e : saved.entrySet()) {
        if (e.getValue() == null) {
          ph.spark.conf().unset(e.getKey());
        } else {
          ph.spark.conf().set(e.getKey(), e.getValue());
        }
      }
    }
    return ph.r.put("rows_before", rowsBefore).put("rows_after", Tables.count(ph.spark, name));
  }

  private static void set(SparkSession spark, Map<String, String> saved, String key, String value) {
    saved.put(key, spark.conf().getOption(key).isDefined() ? spark.conf().get(key) : null);
    spark.conf().set(key, value);
  }

  /** A table property's value, or `absent` when the table does not have it. */
  private static String property(SparkSession spark, String name, String key, String absent) {
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + name).collectAsList()) {
      if (key.equals(r.getString(0))) {
        return r.getString(1);
      }
    }
    return absent;
  }

  /**
   * The tables' current versions as their logs say: the live data files, the deletion vector files they reference
   * (merge-on-read's delete files: several vectors can share a file), and the versions each log keeps (the
   * counterpart of Iceberg's snapshots; VACUUM leaves the log, whose old entries Delta removes at checkpoints after
   * its log retention, 30 days). Delta's Scala API by reflection: the jobs jar is compiled against Spark's jars only.
   */
  static ObjectNode state(SparkSession spark, Iterable<String> dirs) throws Exception {
    ClassLoader loader = DeltaTables.class.getClassLoader();
    Class<?> log = Class.forName("org.apache.spark.sql.delta.DeltaLog", true, loader);
    long data = 0;
    long dvFiles = 0;
    long vectors = 0;
    long versions = 0;
    for (String dir : dirs) {
      scala.Tuple2<?, ?> found = (scala.Tuple2<?, ?>) log.getMethod("forTableWithSnapshot", SparkSession.class,
          String.class).invoke(null, spark, dir);
      Object snapshot = found._2();
      Dataset<?> files = (Dataset<?>) snapshot.getClass().getMethod("allFiles").invoke(snapshot);
      Row r = files.toDF().selectExpr("count(*)", "count(deletionVector)",
          "count(DISTINCT CASE WHEN deletionVector.storageType <> 'i' THEN deletionVector.pathOrInlineDv END)").first();
      data += r.getLong(0);
      vectors += r.getLong(1);
      dvFiles += r.getLong(2);
      versions += spark.sql("DESCRIBE HISTORY " + name(dir)).count();
    }
    return Jobs.JSON.createObjectNode().put("live_data_files", data).put("live_delete_files", dvFiles)
        .put("deletion_vectors", vectors).put("snapshots", versions);
  }
}
