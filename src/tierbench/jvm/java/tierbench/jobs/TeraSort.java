package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.Partitioner;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * TeraSort: sample keys, range-partition, sort, write. Rows are shuffled as
 * (64-bit key prefix, row) so that Spark sorts longs rather than byte arrays;
 * rows whose 8-byte prefixes tie are put in full 10-byte key order as they are
 * written (ties are rare: about n^2 / 2^65 pairs).
 */
final class TeraSort {
  private TeraSort() {}

  /** A byte range of one input file, whole rows only. */
  static final class Split implements java.io.Serializable {
    final String path;
    final long offset;
    final long length;

    Split(String path, long offset, long length) {
      this.path = path;
      this.offset = offset;
      this.length = length;
    }
  }

  static List<Split> splits(List<DataSet.Part> parts, long splitBytes) throws IOException {
    long step = Math.max(TeraRows.ROW, splitBytes - splitBytes % TeraRows.ROW);
    List<Split> out = new ArrayList<>();
    for (DataSet.Part part : parts) {
      if (part.size % TeraRows.ROW != 0) {
        throw new IOException(part.path + " is " + part.size
            + " bytes, not a whole number of 100-byte rows: the input is truncated or not TeraGen data");
      }
      for (long off = 0; off < part.size; off += step) {
        out.add(new Split(part.path, off, Math.min(step, part.size - off)));
      }
    }
    return out;
  }

  /** Split points on the key prefix, from the first rows of up to 10 evenly spaced splits. */
  static long[] sampleBounds(Configuration conf, List<Split> splits, int partitions, int sampleRows) throws IOException {
    if (partitions <= 1 || splits.isEmpty()) {
      return new long[0];
    }
    int sampled = Math.min(10, splits.size());
    int perSplit = Math.max(1, sampleRows / sampled);
    long[] keys = new long[sampled * perSplit];
    int n = 0;
    for (int i = 0; i < sampled; i++) {
      Split s = splits.get((int) ((long) i * splits.size() / sampled));
      try (RowReader rows = new RowReader(conf, s.path, s.offset, Math.min(s.length, (long) perSplit * TeraRows.ROW))) {
        while (rows.hasNext()) {
          keys[n++] = TeraRows.sortPrefix(rows.next());
        }
      }
    }
    long[] sorted = Arrays.copyOf(keys, n);
    Arrays.sort(sorted);
    long[] bounds = new long[partitions - 1];
    for (int j = 0; j < bounds.length; j++) {
      bounds[j] = sorted[(int) ((long) (j + 1) * n / partitions)];
    }
    return bounds;
  }

  static final class PrefixRangePartitioner extends Partitioner {
    private final long[] bounds;

    PrefixRangePartitioner(long[] bounds) {
      this.bounds = bounds;
    }

    @Override
    public int numPartitions() {
      return bounds.length + 1;
    }

    @Override
    public int getPartition(Object key) {
      int i = Arrays.binarySearch(bounds, (Long) key);
      return i >= 0 ? i + 1 : -(i + 1);
    }
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    long splitBytes = p.path("split_bytes").asLong(128L << 20);
    List<Split> splits = splits(in.parts(conf.value()), splitBytes);
    int partitions = p.path("partitions").asInt(0);
    if (partitions <= 0) {
      partitions = Math.max(1, splits.size());
    }
    long[] bounds = sampleBounds(conf.value(), splits, partitions, p.path("sample_rows").asInt(100_000));
    out.prepareEmpty(conf.value());

    jsc.setJobDescription("terasort: sort " + splits.size() + " splits into " + partitions + " partitions");
    JavaPairRDD<Long, byte[]> keyed = jsc.parallelize(splits, Math.max(1, splits.size())).flatMapToPair(s -> {
      RowReader rows = new RowReader(conf.value(), s.path, s.offset, s.length);
      return new Iterator<Tuple2<Long, byte[]>>() {
        public boolean hasNext() {
          return rows.hasNext();
        }

        public Tuple2<Long, byte[]> next() {
          byte[] row = rows.next();
          return new Tuple2<>(TeraRows.sortPrefix(row), row);
        }
      };
    });
    List<long[]> written = keyed.repartitionAndSortWithinPartitions(new PrefixRangePartitioner(bounds))
        .mapPartitionsWithIndex((part, it) -> {
          long t0 = System.nanoTime();
          long count = 0;
          Path path = out.partPath(part);
          try (OutputStream os = new BufferedOutputStream(path.getFileSystem(conf.value()).create(path, true), 1 << 20)) {
            List<byte[]> tied = new ArrayList<>();
            long tiedPrefix = 0;
            while (it.hasNext()) {
              Tuple2<Long, byte[]> kv = it.next();
              if (!tied.isEmpty() && kv._1 != tiedPrefix) {
                writeTied(os, tied);
              }
              tiedPrefix = kv._1;
              tied.add(kv._2);
              count++;
            }
            writeTied(os, tied);
          }
          long ms = (System.nanoTime() - t0) / 1_000_000;
          return List.of(new long[] {part, count, ms}).iterator();
        }, true).collect();
    out.markComplete(conf.value());

    long rows = 0;
    ObjectNode r = Jobs.JSON.createObjectNode();
    var partRows = r.putArray("partition_rows");
    for (long[] w : written) {
      rows += w[1];
      partRows.add(w[1]);
    }
    r.put("rows", rows);
    r.put("bytes_read", rows * TeraRows.ROW);
    r.put("bytes_written", rows * TeraRows.ROW);
    r.put("map_tasks", splits.size());
    r.put("reduce_tasks", partitions);
    return r;
  }

  private static void writeTied(OutputStream os, List<byte[]> tied) throws IOException {
    if (tied.size() > 1) {
      tied.sort(TeraRows::compareKeys);
    }
    for (byte[] row : tied) {
      os.write(row);
    }
    tied.clear();
  }
}
