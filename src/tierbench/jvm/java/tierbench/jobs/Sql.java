package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SerializableWritable;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import tierbench.io.Durable;

/**
 * SQL over Parquet tables: each table is a directory of Parquet files on the
 * storage under test, registered as a view; the queries run one after the
 * other, each timed from submission to the last row collected. The rows come
 * back (up to `max_rows` per query) so that tierbench can check them against
 * a second engine. Split size and shuffle partitions are session settings,
 * set per job, so a sweep needs no new application.
 */
final class Sql {
  private Sql() {}

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    SparkSession spark = SparkSession.builder().sparkContext(jsc.sc()).getOrCreate();
    if (p.path("split_bytes").asLong(0) > 0) {
      spark.conf().set("spark.sql.files.maxPartitionBytes", p.get("split_bytes").asLong());
    }
    if (p.path("partitions").asInt(0) > 0) {
      spark.conf().set("spark.sql.shuffle.partitions", p.get("partitions").asInt());
    }
    int maxRows = p.path("max_rows").asInt(10_000);
    long tableBytes = 0;
    long registerStart = System.nanoTime();  // apart from the queries: on S3 it is mostly listing and footers
    // through a table format (table-sql: Iceberg tables through their catalog, Delta tables by their directories),
    // else the Parquet directories
    boolean delta = Tables.delta(p);
    String catalog = p.has("warehouse") ? (delta ? "delta" : Tables.catalog(spark, p.get("warehouse").asText())) : null;
    List<String> dirs = new ArrayList<>();
    List<String> registered = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = p.get("tables").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> t = it.next();
      Path dir = new Path(t.getValue().asText());
      FileSystem fs = dir.getFileSystem(jsc.hadoopConfiguration());
      if (catalog != null && !fs.exists(dir)) {
        // a table table-load did not load (its `tables`): a query that reads it fails, naming it (no view of that
        // name left by an earlier job of this application answers in its place)
        spark.catalog().dropTempView(t.getKey());
        continue;
      }
      registered.add(t.getKey());
      dirs.add(t.getValue().asText());
      tableBytes += fs.getContentSummary(dir).getLength();
      (catalog == null ? spark.read().parquet(t.getValue().asText())
          : delta ? spark.read().format("delta").load(t.getValue().asText())
          : spark.table(catalog + "." + Tables.NAMESPACE + "." + t.getKey())).createOrReplaceTempView(t.getKey());
    }
    ObjectNode r = Jobs.JSON.createObjectNode();
    r.put("register_ms", (System.nanoTime() - registerStart) / 1_000_000);
    r.put("bytes_read", tableBytes);
    ArrayNode queries = r.putArray("queries");
    long totalMs = 0;
    // The query sets were written for SQL that gives NULL on a division by zero (TPC-DS q12 divides by a window
    // sum that can be 0), as DuckDB does and Spark did before ANSI mode became its default in 4.0: off for
    // the queries, put back after (the application is shared with the study's other workloads).
    String ansi = spark.conf().get("spark.sql.ansi.enabled", "true");
    spark.conf().set("spark.sql.ansi.enabled", "false");
    r.put("ansi", false);
    try {
      for (JsonNode q : p.get("queries")) {
        String name = q.get("name").asText();
        jsc.setJobDescription("sql: " + name);
        long t0 = System.nanoTime();
        List<Row> rows;
        String retried = null;
        long firstMs = 0;
        try {
          rows = spark.sql(q.get("sql").asText()).collectAsList();
        } catch (Exception e) {
          // the planner broadcasts a table whose Parquet is small but whose rows are not (TPC-DS's
          // customer_demographics: 1.9 M rows at every scale); with a small driver that fails: run the query
          // again without broadcast joins, and say so
          if (!causedBy(e, "Not enough memory to build and broadcast")) {
            throw e;
          }
          firstMs = (System.nanoTime() - t0) / 1_000_000;
          retried = "without broadcast joins (the driver had too little memory to broadcast a table)";
          String threshold = spark.conf().get("spark.sql.autoBroadcastJoinThreshold");
          spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
          try {
            rows = spark.sql(q.get("sql").asText()).collectAsList();
          } finally {
            spark.conf().set("spark.sql.autoBroadcastJoinThreshold", threshold);
          }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;  // from the first submission: what the batch waited
        totalMs += ms;
        ObjectNode qr = queries.addObject().put("name", name).put("ms", ms).put("rows", rows.size());
        if (retried != null) {
          qr.put("retried", retried).put("first_attempt_ms", firstMs);
        }
        ArrayNode data = qr.putArray("data");
        for (int i = 0; i < Math.min(maxRows, rows.size()); i++) {
          ArrayNode row = data.addArray();
          Row x = rows.get(i);
          for (int c = 0; c < x.length(); c++) {
            Object v = x.get(c);
            if (v == null) {
              row.addNull();
            } else if (v instanceof BigDecimal) {
              row.add(((BigDecimal) v).doubleValue());
            } else if (v instanceof Number) {
              row.add(((Number) v).doubleValue());
            } else {
              row.add(v.toString());
            }
          }
        }
      }
    } finally {
      spark.conf().set("spark.sql.ansi.enabled", ansi);
    }
    r.put("queries_ms", totalMs);
    if (catalog != null) {  // what the queries read through: live data and delete files, snapshots
      r.set("table_state", delta ? DeltaTables.state(spark, dirs) : Tables.state(spark, catalog, registered));
    }
    return r;
  }

  private static boolean causedBy(Throwable e, String words) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains(words)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Generates the tables on the executors: task k runs tpcgen-cli for part k of `parts` (dsdgen's and dbgen's
   * -child k: the rows of that part only; tables too small to split are all in part 1) into a directory of its
   * own, then copies what it wrote straight to the table's directory on the storage under test and deletes it.
   * No host holds more than its parts, so the scale is not bounded by the driver's disk.
   */
  static ObjectNode generate(JavaSparkContext jsc, JsonNode p) throws Exception {
    final String[] command = {p.get("generator").asText(), p.get("benchmark").asText(), "parquet", "-s",
        p.get("scale").asText(), "--compression", p.get("compression").asText(), "-n", "1"};
    final int parts = p.get("parts").asInt();
    final String scratch = p.get("scratch").asText();
    final HashMap<String, String> targets = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = p.get("targets").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> t = it.next();
      targets.put(t.getKey(), t.getValue().asText());
    }
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    for (String uri : targets.values()) {  // left by an interrupted attempt
      Path dst = new Path(uri);
      dst.getFileSystem(conf.value()).delete(dst, true);
    }
    jsc.setJobDescription("sqlgen: " + parts + " parts generated on the executors");
    List<long[]> perTask = jsc.parallelize(Jobs.taskIds(parts), parts).map(i -> {
      String host = java.net.InetAddress.getLocalHost().getHostName();
      File local = new File(scratch, "part-" + (i + 1) + "-attempt-" + TaskContext.get().attemptNumber());
      deleteTree(local);
      if (!local.mkdirs()) {
        throw new IOException("sqlgen: cannot create " + local + " on " + host);
      }
      List<String> cmd = new ArrayList<>(Arrays.asList(command));
      cmd.addAll(Arrays.asList("--parts", String.valueOf(parts), "--part", String.valueOf(i + 1),
          "--output-dir", local.getPath()));
      long t0 = System.nanoTime();
      Process proc;
      try {
        proc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new IOException("sqlgen: cannot run " + command[0] + " on " + host + " (tierbench's setup installs "
            + "tpcgen-cli beside it; on a cluster it must be at the same path on every node): " + e.getMessage());
      }
      String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = proc.waitFor();
      if (code != 0) {
        throw new IOException("sqlgen: tpcgen-cli part " + (i + 1) + " on " + host + " exited " + code + ": "
            + out.substring(Math.max(0, out.length() - 400)).trim());
      }
      long genMs = (System.nanoTime() - t0) / 1_000_000;
      long t1 = System.nanoTime();
      long bytes = 0;
      long files = 0;
      FileSystem localFs = FileSystem.getLocal(conf.value());
      File[] tables = local.listFiles();
      for (File table : tables == null ? new File[0] : tables) {
        File[] written = table.isDirectory() ? table.listFiles() : new File[] {table};
        String name = table.isDirectory() ? table.getName() : table.getName().replaceFirst("\\..*$", "");
        if (!targets.containsKey(name)) {
          continue;  // dsdgen's dbgen_version: which generator made the data, not a table the queries read
        }
        for (File f : written == null ? new File[0] : written) {
          Path dst = new Path(targets.get(name), f.getName());
          FileUtil.copy(localFs, new Path(f.toURI()), dst.getFileSystem(conf.value()), dst, false, true, conf.value());
          bytes += f.length();
          files++;
        }
      }
      long uploadMs = (System.nanoTime() - t1) / 1_000_000;
      deleteTree(local);
      return new long[] {bytes, genMs, uploadMs, files};
    }).collect();
    ObjectNode r = Jobs.JSON.createObjectNode();
    long bytes = 0;
    long genMs = 0;
    long uploadMs = 0;
    long files = 0;
    for (long[] t : perTask) {
      bytes += t[0];
      genMs += t[1];
      uploadMs += t[2];
      files += t[3];
    }
    String[] dirs = targets.values().toArray(new String[0]);
    Durable.syncTree(jsc.hadoopConfiguration(), dirs, true);  // FileUtil.copy does not sync
    r.put("bytes_written", bytes).put("gen_task_ms", genMs).put("upload_task_ms", uploadMs).put("files", files)
        .put("tasks", parts);
    return r;
  }

  private static void deleteTree(File f) {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteTree(c);
      }
    }
    f.delete();
  }
}
