package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

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
    for (Iterator<Map.Entry<String, JsonNode>> it = p.get("tables").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> t = it.next();
      Path dir = new Path(t.getValue().asText());
      tableBytes += dir.getFileSystem(jsc.hadoopConfiguration()).getContentSummary(dir).getLength();
      spark.read().parquet(t.getValue().asText()).createOrReplaceTempView(t.getKey());
    }
    ObjectNode r = Jobs.JSON.createObjectNode();
    r.put("register_ms", (System.nanoTime() - registerStart) / 1_000_000);
    r.put("bytes_read", tableBytes);
    ArrayNode queries = r.putArray("queries");
    long totalMs = 0;
    for (JsonNode q : p.get("queries")) {
      String name = q.get("name").asText();
      jsc.setJobDescription("sql: " + name);
      long t0 = System.nanoTime();
      List<Row> rows = spark.sql(q.get("sql").asText()).collectAsList();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      totalMs += ms;
      ObjectNode qr = queries.addObject().put("name", name).put("ms", ms).put("rows", rows.size());
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
    r.put("queries_ms", totalMs);
    return r;
  }

  /** Copies a local directory tree (the generator's Parquet files) to the storage under test, from the driver. */
  static ObjectNode upload(JavaSparkContext jsc, JsonNode p) throws Exception {
    Configuration conf = jsc.hadoopConfiguration();
    ObjectNode r = Jobs.JSON.createObjectNode();
    long bytes = 0;
    for (JsonNode pair : p.get("copies")) {
      Path src = new Path(pair.get(0).asText());
      Path dst = new Path(pair.get(1).asText());
      dst.getFileSystem(conf).delete(dst, true);
      FileUtil.copy(src.getFileSystem(conf), src, dst.getFileSystem(conf), dst, false, true, conf);
      bytes += dst.getFileSystem(conf).getContentSummary(dst).getLength();
      Durable.syncTree(conf, new String[] {dst.toString()}, true);  // FileUtil.copy does not sync
    }
    r.put("bytes_written", bytes);
    return r;
  }
}
