package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;
import tierbench.io.DataSet;
import tierbench.io.TextIO;

/**
 * WordCount as Hadoop's example does it: split lines on white space, count in
 * a map-side combiner (one hash map per map task), shuffle the partial counts
 * by word, sum them, and write "word TAB count" lines. Words are kept as
 * ISO-8859-1 strings, a lossless byte-for-character mapping, so any bytes
 * round-trip unchanged without decoding cost.
 */
final class WordCount {
  private WordCount() {}

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final String codec = p.path("codec").asText("none");
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    TextIO.codec(conf.value(), codec);
    JavaPairRDD<LongWritable, Text> lines = TextIO.lines(jsc, in, p.path("split_bytes").asLong(0));
    int maps = lines.getNumPartitions();
    int reducers = p.path("partitions").asInt(0) > 0 ? p.get("partitions").asInt() : Math.max(1, maps);
    out.prepareEmpty(conf.value());
    jsc.setJobDescription("wordcount: " + maps + " splits into " + reducers + " partitions");

    JavaPairRDD<String, Long> partial = lines.mapPartitionsToPair(it -> {
      Map<String, long[]> counts = new HashMap<>();
      while (it.hasNext()) {
        Text t = it.next()._2;
        byte[] b = t.getBytes();
        int n = t.getLength();
        int i = 0;
        while (i < n) {
          while (i < n && isSpace(b[i])) {
            i++;
          }
          int start = i;
          while (i < n && !isSpace(b[i])) {
            i++;
          }
          if (i > start) {
            counts.computeIfAbsent(new String(b, start, i - start, StandardCharsets.ISO_8859_1), k -> new long[1])[0]++;
          }
        }
      }
      List<Tuple2<String, Long>> outList = new ArrayList<>(counts.size());
      for (Map.Entry<String, long[]> e : counts.entrySet()) {
        outList.add(new Tuple2<>(e.getKey(), e.getValue()[0]));
      }
      return outList.iterator();
    });
    // the combining happened above: no second map-side combine
    JavaPairRDD<String, Long> totals = partial.combineByKey(v -> v, Long::sum, Long::sum,
        new HashPartitioner(reducers), false, null);
    List<long[]> written = totals.mapPartitionsWithIndex((part, it) -> {
      long words = 0, distinct = 0;
      try (OutputStream os = TextIO.create(conf.value(), out, part, codec)) {
        while (it.hasNext()) {
          Tuple2<String, Long> wc = it.next();
          os.write((wc._1 + "\t" + wc._2 + "\n").getBytes(StandardCharsets.ISO_8859_1));
          words += wc._2;
          distinct++;
        }
      }
      return List.of(new long[] {words, distinct}).iterator();
    }, true).collect();
    out.markComplete(conf.value());

    ObjectNode r = Jobs.JSON.createObjectNode();
    long words = 0, distinct = 0;
    for (long[] w : written) {
      words += w[0];
      distinct += w[1];
    }
    r.put("words", words);
    r.put("distinct_words", distinct);
    r.put("bytes_read", TextIO.storedBytes(conf.value(), in));
    r.put("bytes_written", TextIO.storedBytes(conf.value(), out));
    r.put("map_tasks", maps);
    r.put("reduce_tasks", reducers);
    return r;
  }

  static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }
}
