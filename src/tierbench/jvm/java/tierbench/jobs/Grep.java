package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.TextIO;

/**
 * Grep: scan every line for a literal string and count its occurrences and
 * the lines that hold it. With a string that never occurs this is a pure
 * read of the data set (the FlashBlade study's Grep); nothing is written.
 */
final class Grep {
  private Grep() {}

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final byte[] needle = p.get("pattern").asText().getBytes(StandardCharsets.UTF_8);
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    JavaPairRDD<LongWritable, Text> lines = TextIO.lines(jsc, in, p.path("split_bytes").asLong(0));
    int maps = lines.getNumPartitions();
    jsc.setJobDescription("grep: scan " + maps + " splits");
    List<long[]> perTask = lines.mapPartitions(it -> {
      long scanned = 0, n = 0, hits = 0, hitLines = 0;
      while (it.hasNext()) {
        Text t = it.next()._2;
        byte[] b = t.getBytes();
        int len = t.getLength();
        scanned += len + 1;
        n++;
        int at = TextIO.indexOf(b, len, needle, 0);
        if (at >= 0) {
          hitLines++;
          while (at >= 0) {
            hits++;
            at = TextIO.indexOf(b, len, needle, at + needle.length);
          }
        }
      }
      return List.of(new long[] {scanned, n, hits, hitLines}).iterator();
    }).collect();
    ObjectNode r = Jobs.JSON.createObjectNode();
    long scanned = 0, n = 0, hits = 0, hitLines = 0;
    for (long[] t : perTask) {
      scanned += t[0];
      n += t[1];
      hits += t[2];
      hitLines += t[3];
    }
    r.put("bytes_scanned", scanned);
    r.put("bytes_read", TextIO.storedBytes(conf.value(), in));
    r.put("lines", n);
    r.put("matches", hits);
    r.put("pattern", new String(needle, StandardCharsets.UTF_8));
    r.put("matching_lines", hitLines);
    r.put("map_tasks", maps);
    return r;
  }
}
