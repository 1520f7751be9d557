package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Lakehouse tables (Iceberg, through its Hadoop catalog: the warehouse is a directory on the storage under test,
 * no metastore) loaded from sqlgen's Parquet, maintained (DELETE, INSERT, MERGE INTO) and compacted, each phase
 * timed and measured as the storage sees it: the files and bytes each phase added and removed under the tables'
 * directories, listed before and after. The listings use a file system instance of their own, outside Hadoop's
 * cache, so their requests are not counted among the run's S3A requests (S3AStatistics reads the cache).
 *
 * The maintenance keeps the tables' content as it was loaded (rows deleted are inserted again from the source,
 * MERGE INTO updates rows to the source's values), so that the queries' answers after it can still be checked
 * against DuckDB on the source Parquet, while the storage sees what such batches write: new data files,
 * rewritten ones (copy-on-write) or delete files (merge-on-read), and a snapshot per statement.
 */
final class Tables {
  private Tables() {}

  static final String NAMESPACE = "db";

  /** A catalog per warehouse (Spark caches a catalog by name, with the warehouse it was first given). */
  static String catalog(SparkSession spark, String warehouse) {
    String name = "tierbench_" + Integer.toHexString(warehouse.hashCode());
    spark.conf().set("spark.sql.catalog." + name, "org.apache.iceberg.spark.SparkCatalog");
    spark.conf().set("spark.sql.catalog." + name + ".type", "hadoop");
    spark.conf().set("spark.sql.catalog." + name + ".warehouse", warehouse);
    return name;
  }

  static String tableDir(String warehouse, String table) {
    return warehouse.replaceAll("/+$", "") + "/" + NAMESPACE + "/" + table;
  }

  /** Whether the job's tables are Delta Lake's (path-based: delta.`dir`) rather than Iceberg's (tables.py's format). */
  static boolean delta(JsonNode p) {
    return "delta".equals(p.path("format").asText("iceberg"));
  }

  /** One phase on some tables of the warehouse: its session and catalog, the tables' files listed before it. */
  static final class Phase {
    final JavaSparkContext jsc;
    final SparkSession spark;
    final boolean delta;
    final String cat;  // Iceberg's catalog (null for Delta: its tables are named by their directories)
    final Map<String, String> dirs = new HashMap<>();
    final Map<String, Long> before;
    final ObjectNode r = Jobs.JSON.createObjectNode();
    final long small;  // bytes: a data file under it is small
    long t0;

    Phase(JavaSparkContext jsc, JsonNode p, Iterable<String> tables) throws Exception {
      this.jsc = jsc;
      spark = SparkSession.builder().sparkContext(jsc.sc()).getOrCreate();
      delta = delta(p);
      cat = delta ? null : catalog(spark, p.get("warehouse").asText());
      for (String t : tables) {
        dirs.put(t, tableDir(p.get("warehouse").asText(), t));
      }
      before = listing(jsc.hadoopConfiguration(), dirs.values());
      small = p.get("small_file_size").asLong();
      t0 = System.nanoTime();
    }

    String name(String table) {
      return delta ? DeltaTables.name(dirs.get(table)) : cat + "." + NAMESPACE + "." + table;
    }

    /** The phase's time starts here (after what only prepares it: a property set, a row count). */
    void start() {
      t0 = System.nanoTime();
    }

    /** The phase's result: its time (from the first statement), then what the listings and the snapshots say. */
    ObjectNode done() throws Exception {
      r.put("phase_ms", (System.nanoTime() - t0) / 1_000_000);
      measure(this);
      return r;
    }
  }

  static ObjectNode load(JavaSparkContext jsc, JsonNode p) throws Exception {
    List<String> tables = new java.util.ArrayList<>();
    p.get("sources").fieldNames().forEachRemaining(tables::add);
    Phase ph = new Phase(jsc, p, tables);
    long target = p.get("target_file_size").asLong();
    // Delta has no table property for the written files' size (Spark's plan decides them): kept for its OPTIMIZE
    String props = delta(p) ? "'" + DeltaTables.TARGET + "'='" + target + "'"
        : "'format-version'='2', 'write.target-file-size-bytes'='" + target + "'";
    ObjectNode perTable = ph.r.putObject("tables");
    for (Iterator<Map.Entry<String, JsonNode>> it = p.get("sources").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> s = it.next();
      jsc.setJobDescription("table-load: " + s.getKey());
      long t1 = System.nanoTime();
      ph.spark.sql("CREATE TABLE " + ph.name(s.getKey()) + " USING " + (delta(p) ? "delta" : "iceberg") + " TBLPROPERTIES (" + props
          + ") AS SELECT * FROM parquet.`" + s.getValue().asText() + "`");
      perTable.put(s.getKey(), (System.nanoTime() - t1) / 1_000_000);
    }
    return ph.done();
  }

  /**
   * `batches` times: DELETE the rows of a share of the key space, INSERT them again from the source, and MERGE INTO
   * the table the source's rows of another share (matched: UPDATE SET *), each statement its own commit.
   */
  static ObjectNode maintain(JavaSparkContext jsc, JsonNode p) throws Exception {
    String table = p.get("table").asText();
    Phase ph = new Phase(jsc, p, List.of(table));
    String name = ph.name(table);
    String mode = p.get("update_mode").asText();
    if (delta(p)) {
      DeltaTables.setUpdateMode(ph, name, mode);
    } else {
      // the write modes are the table's properties, read at each write: set here, so each maintenance says its own
      ph.spark.sql("ALTER TABLE " + name + " SET TBLPROPERTIES ('write.delete.mode'='" + mode + "', 'write.update.mode'='"
          + mode + "', 'write.merge.mode'='" + mode + "')");
    }
    String source = "parquet.`" + p.get("source").asText() + "`";
    String on = String.join(" AND ", keyMatch(p.get("keys")));
    long rowsBefore = count(ph.spark, name);
    ArrayNode batches = ph.r.putArray("batches");
    ph.start();
    for (JsonNode b : p.get("batches")) {
      String del = b.get("delete_where").asText();  // (tables.py: a window of the key space's hash buckets)
      String upd = b.get("update_where").asText();
      ObjectNode br = batches.addObject();
      jsc.setJobDescription("table-maintain: batch " + batches.size());
      long t1 = System.nanoTime();
      ph.spark.sql("DELETE FROM " + name + " WHERE " + del);
      br.put("delete_ms", (System.nanoTime() - t1) / 1_000_000);
      long t2 = System.nanoTime();
      ph.spark.sql("INSERT INTO " + name + " SELECT * FROM " + source + " WHERE " + del);
      br.put("insert_ms", (System.nanoTime() - t2) / 1_000_000);
      long t3 = System.nanoTime();
      ph.spark.sql("MERGE INTO " + name + " t USING (SELECT * FROM " + source + " WHERE " + upd + ") s ON " + on
          + " WHEN MATCHED THEN UPDATE SET *");
      br.put("merge_ms", (System.nanoTime() - t3) / 1_000_000);
    }
    return ph.done().put("rows_before", rowsBefore).put("rows_after", count(ph.spark, name));
  }

  /** Compaction (rewrite_data_files, deletes applied) and snapshot expiry (all but the current one). */
  static ObjectNode optimize(JavaSparkContext jsc, JsonNode p) throws Exception {
    if (delta(p)) {
      return DeltaTables.optimize(jsc, p);
    }
    String table = p.get("table").asText();
    Phase ph = new Phase(jsc, p, List.of(table));
    long rowsBefore = count(ph.spark, ph.name(table));
    String ident = NAMESPACE + "." + table;
    ph.start();
    jsc.setJobDescription("table-optimize: rewrite_data_files");
    // to the table's write.target-file-size-bytes; min-input-files 2: a table of a few files is compacted too
    // (Iceberg's default waits for 5); delete-file-threshold 1: a data file with any delete is rewritten, applied;
    // remove-dangling-deletes: the delete files no data file needs any more leave the snapshot (else they stay)
    Row rw = ph.spark.sql("CALL " + ph.cat + ".system.rewrite_data_files(table => '" + ident + "', options => map("
        + "'min-input-files', '2', 'delete-file-threshold', '1', 'remove-dangling-deletes', 'true'))").first();
    ph.r.put("rewrite_ms", (System.nanoTime() - ph.t0) / 1_000_000);
    ph.r.put("rewritten_data_files", number(rw, "rewritten_data_files_count"))
        .put("added_data_files", number(rw, "added_data_files_count"))
        .put("rewritten_bytes", number(rw, "rewritten_bytes_count"))
        .put("removed_delete_files", number(rw, "removed_delete_files_count"));
    long t1 = System.nanoTime();
    expireSnapshots(ph.spark, ph.name(table));
    ph.r.put("expire_ms", (System.nanoTime() - t1) / 1_000_000);
    return ph.done().put("rows_before", rowsBefore).put("rows_after", count(ph.spark, ph.name(table)));
  }

  /**
   * Every snapshot but the current one expired, and the files only they held deleted, by Iceberg's core API in this
   * thread (Table.expireSnapshots: no Spark job). The expire_snapshots procedure's Spark action hung twice on HDFS
   * after both maintenance modes (its broadcast's job never got a task, 2026-12-07). Reflection: the jobs jar is
   * compiled against Spark's jars only; Iceberg's runtime is on spark.jars beside it.
   */
  private static void expireSnapshots(SparkSession spark, String name) throws Exception {
    ClassLoader loader = Tables.class.getClassLoader();
    Class<?> util = Class.forName("org.apache.iceberg.spark.Spark3Util", true, loader);
    Object table = util.getMethod("loadIcebergTable", SparkSession.class, String.class).invoke(null, spark, name);
    Object expire = Class.forName("org.apache.iceberg.Table", true, loader).getMethod("expireSnapshots").invoke(table);
    Class<?> api = Class.forName("org.apache.iceberg.ExpireSnapshots", true, loader);
    expire = api.getMethod("expireOlderThan", long.class).invoke(expire, System.currentTimeMillis());
    expire = api.getMethod("retainLast", int.class).invoke(expire, 1);
    Class.forName("org.apache.iceberg.PendingUpdate", true, loader).getMethod("commit").invoke(expire);
  }

  /** The tables' state as their current snapshots' summaries say (metadata the catalog already holds). */
  static ObjectNode state(SparkSession spark, String cat, Iterable<String> tables) {
    ObjectNode s = Jobs.JSON.createObjectNode();
    long data = 0;
    long deletes = 0;
    long snapshots = 0;
    for (String t : tables) {
      String name = cat + "." + NAMESPACE + "." + t;
      List<Row> snaps = spark.sql("SELECT summary FROM " + name + ".snapshots ORDER BY committed_at").collectAsList();
      snapshots += snaps.size();
      if (!snaps.isEmpty()) {
        Map<String, String> sum = snaps.get(snaps.size() - 1).getJavaMap(0);
        data += Long.parseLong(sum.getOrDefault("total-data-files", "0"));
        deletes += Long.parseLong(sum.getOrDefault("total-delete-files", "0"));
      }
    }
    return s.put("live_data_files", data).put("live_delete_files", deletes).put("snapshots", snapshots);
  }

  /**
   * What the listings say after the phase against before it, and the tables' state. A file is metadata under
   * Iceberg's metadata/ or Delta's _delta_log/ (its commits, checkpoints and checksums), data under Iceberg's data/ or
   * anywhere else in a Delta table's directory (its Parquet files and deletion vector files).
   */
  private static void measure(Phase ph) throws Exception {
    Map<String, Long> after = listing(ph.jsc.hadoopConfiguration(), ph.dirs.values());
    Map<String, Long> before = ph.before;
    ObjectNode r = ph.r;
    long small = ph.small;
    String metadataDir = ph.delta ? "/_delta_log/" : "/metadata/";
    long[] w = {0, 0};
    long[] d = {0, 0};
    long smallFiles = 0;
    long dataFiles = 0;
    long metadataFiles = 0;
    long storedBytes = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      storedBytes += e.getValue();
      if (!before.containsKey(e.getKey())) {
        w[0]++;
        w[1] += e.getValue();
      }
      if (e.getKey().contains(metadataDir)) {
        metadataFiles++;
      } else if (ph.delta || e.getKey().contains("/data/")) {
        dataFiles++;
        smallFiles += e.getValue() < small ? 1 : 0;
      }
    }
    for (Map.Entry<String, Long> e : before.entrySet()) {
      if (!after.containsKey(e.getKey())) {
        d[0]++;
        d[1] += e.getValue();
      }
    }
    r.put("files_written", w[0]).put("bytes_written", w[1]).put("files_deleted", d[0]).put("bytes_deleted", d[1]);
    r.put("data_files", dataFiles).put("small_files", smallFiles).put("metadata_files", metadataFiles)
        .put("stored_bytes", storedBytes);
    r.set("state", ph.delta ? DeltaTables.state(ph.spark, ph.dirs.values()) : state(ph.spark, ph.cat, ph.dirs.keySet()));
  }

  /** Every file under the directories (path -> bytes), through an uncached file system instance. */
  static Map<String, Long> listing(Configuration conf, Iterable<String> dirs) throws Exception {
    Map<String, Long> out = new HashMap<>();
    for (String dir : dirs) {
      Path path = new Path(dir);
      try (FileSystem fs = FileSystem.newInstance(new URI(dir), conf)) {
        if (!fs.exists(path)) {
          continue;
        }
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(path, true);
        while (it.hasNext()) {
          LocatedFileStatus f = it.next();
          out.put(f.getPath().toUri().getPath(), f.getLen());
        }
      }
    }
    return out;
  }

  static long number(Row row, String column) {
    return ((Number) row.getAs(column)).longValue();
  }

  static long count(SparkSession spark, String name) {
    return spark.sql("SELECT count(*) FROM " + name).first().getLong(0);
  }

  static String[] keyMatch(JsonNode keys) {
    String[] out = new String[keys.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = "t." + keys.get(i).asText() + " = s." + keys.get(i).asText();
    }
    return out;
  }
}
