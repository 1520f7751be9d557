package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.TextIO;

/**
 * Text for WordCount and Grep: words drawn from a Zipf distribution over a
 * fixed vocabulary of pseudo-words (word w is made of letters from a random
 * generator seeded with w, 1-14 letters, so the vocabulary is the same in
 * every task and every run), lines of 1-24 words. Like natural text it
 * compresses to roughly a third, not to nothing. A `plant` string, when
 * given, replaces one word in every `plant_every`-th line, so Grep has a
 * known number of matches; the plant is counted as a word.
 */
final class TextGen {
  private TextGen() {}

  static byte[][] vocabulary(int size, long seed) {
    byte[][] words = new byte[size][];
    for (int w = 0; w < size; w++) {
      SplittableRandom r = new SplittableRandom(seed * 1_000_003L + w);
      // lengths 1..14, most 3..8, as in English running text
      int len = 1 + (int) Math.min(13, Math.abs(r.nextGaussian() * 2.5 + 4.5));
      byte[] b = new byte[len];
      for (int i = 0; i < len; i++) {
        b[i] = (byte) ('a' + r.nextInt(26));
      }
      words[w] = b;
    }
    return words;
  }

  /** Cumulative Zipf(s) probabilities over ranks 1..n. */
  static double[] zipfCdf(int n, double s) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int k = 0; k < n; k++) {
      sum += 1.0 / Math.pow(k + 1, s);
      cdf[k] = sum;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= sum;
    }
    return cdf;
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final long bytes = p.get("bytes").asLong();
    final int tasks = p.get("tasks").asInt();
    final int vocab = p.path("vocabulary").asInt(50_000);
    final double zipf = p.path("zipf").asDouble(1.0);
    final long seed = p.path("seed").asLong(1);
    final byte[] plant = p.path("plant").asText("").getBytes(StandardCharsets.UTF_8);
    final long plantEvery = p.path("plant_every").asLong(0);
    final String codec = p.path("codec").asText("none");
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    TextIO.codec(conf.value(), codec); // an unknown codec fails here, before any task starts
    out.prepareEmpty(conf.value());

    jsc.setJobDescription("textgen: " + bytes + " bytes of text in " + tasks + " files");
    List<long[]> perTask = jsc.parallelize(Jobs.taskIds(tasks), tasks).map(t -> {
      long share = TeraGen.firstRow(bytes, tasks, t + 1) - TeraGen.firstRow(bytes, tasks, t);
      byte[][] words = vocabulary(vocab, seed);
      double[] cdf = zipfCdf(vocab, zipf);
      SplittableRandom rnd = new SplittableRandom(seed * 7919L + t);
      long written = 0, nWords = 0, lines = 0, planted = 0;
      long t0 = System.currentTimeMillis();
      byte[] line = new byte[1 << 12];
      try (OutputStream os = TextIO.create(conf.value(), out, t, codec)) {
        while (written < share) {
          int nw = 1 + rnd.nextInt(24);
          int plantAt = plant.length > 0 && plantEvery > 0 && lines % plantEvery == plantEvery - 1 ? rnd.nextInt(nw) : -1;
          int len = 0;
          for (int i = 0; i < nw; i++) {
            byte[] w;
            if (i == plantAt) {
              w = plant;
              planted++;
            } else {
              int k = Arrays.binarySearch(cdf, rnd.nextDouble());
              w = words[Math.min(vocab - 1, k >= 0 ? k : -k - 1)];
            }
            if (len + w.length + 1 > line.length) {
              line = Arrays.copyOf(line, 2 * (len + w.length + 1));
            }
            if (i > 0) {
              line[len++] = ' ';
            }
            System.arraycopy(w, 0, line, len, w.length);
            len += w.length;
          }
          line[len++] = '\n';
          os.write(line, 0, len);
          written += len;
          nWords += nw;
          lines++;
        }
      }
      return new long[] {written, nWords, lines, planted, System.currentTimeMillis() - t0};
    }).collect();
    out.markComplete(conf.value());

    ObjectNode r = Jobs.JSON.createObjectNode();
    long written = 0, nWords = 0, lines = 0, planted = 0;
    var taskMs = r.putArray("task_ms");
    for (long[] t : perTask) {
      written += t[0];
      nWords += t[1];
      lines += t[2];
      planted += t[3];
      taskMs.add(t[4]);
    }
    r.put("bytes_generated", written);
    r.put("bytes_written", TextIO.storedBytes(conf.value(), out));
    r.put("words", nWords);
    r.put("lines", lines);
    r.put("planted", planted);
    r.put("plant", new String(plant, StandardCharsets.UTF_8));
    r.put("generator", "tierbench");
    r.put("tasks", tasks);
    return r;
  }
}
