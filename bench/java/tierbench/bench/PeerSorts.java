package tierbench.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.lib.input.FixedLengthInputFormat;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;
import tierbench.io.BlockReader;
import tierbench.io.DataSet;
import tierbench.io.Durable;
import tierbench.io.TeraRows;
import tierbench.jobs.Jobs;
import tierbench.jobs.TeraSort;

/**
 * Peers for the benchmarks (bench/), not workloads, measured against tierbench's TeraSort on the same data in
 * the same run: rddSortByKey, TeraSort in the shape HiBench's Spark TeraSort runs it -- one (10-byte key, 90-byte
 * value) object pair per row from a Hadoop input format, Spark's own sortByKey (sampled range partitioner,
 * sort-based shuffle), each partition written as one file; and passThrough, the floor under any TeraSort on
 * this stack. Built into the benchmarks' own jar (bench/common.py), not tierbench's: run through
 * tierbench.jobs.Jobs by their full name, e.g. "tierbench.bench.PeerSorts.passThrough".
 */
final class PeerSorts {
  private PeerSorts() {}

  /** Unsigned lexicographic order of keys, as TeraSort's. */
  static final class KeyOrder implements Comparator<byte[]>, Serializable {
    @Override
    public int compare(byte[] a, byte[] b) {
      return TeraRows.compareKeys(a, 0, b, 0);
    }
  }

  static ObjectNode rddSortByKey(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    Configuration readConf = new Configuration(jsc.hadoopConfiguration());
    FixedLengthInputFormat.setRecordLength(readConf, TeraRows.ROW);
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    out.prepareEmpty(conf.value());
    String input = String.join(",", Jobs.strings(p.get("input")));
    JavaPairRDD<LongWritable, BytesWritable> raw =
        jsc.newAPIHadoopFile(input, FixedLengthInputFormat.class, LongWritable.class, BytesWritable.class, readConf);
    int partitions = p.path("partitions").asInt(0);
    if (partitions <= 0) {
      partitions = raw.getNumPartitions();
    }
    JavaPairRDD<byte[], byte[]> rows = raw.mapToPair(t -> {
      byte[] b = t._2.getBytes();
      return new Tuple2<>(java.util.Arrays.copyOfRange(b, 0, TeraRows.KEY), java.util.Arrays.copyOfRange(b, TeraRows.KEY, TeraRows.ROW));
    });
    List<long[]> written = rows.sortByKey(new KeyOrder(), true, partitions).mapPartitionsWithIndex((part, it) -> {
      long n = 0;
      try (OutputStream os = new BufferedOutputStream(Durable.create(conf.value(), out.partPath(part)), 1 << 20)) {
        while (it.hasNext()) {
          Tuple2<byte[], byte[]> kv = it.next();
          os.write(kv._1);
          os.write(kv._2);
          n++;
        }
      }
      return List.of(new long[] {part, n}).iterator();
    }, true).collect();
    return finish(conf.value(), out, written, partitions);
  }

  /**
   * TeraSort's bytes through TeraSort's stack with no sort: each map task reads its split in 256 KB chunks (as
   * TeraSort ships them) and hands them to Spark's shuffle round-robin over the reduce partitions, untouched;
   * each reduce task writes the chunks it fetched, in arrival order, to its part file (durable as TeraSort's).
   * Same input reads, same shuffle (serializer, codec, checksums, sync), same output writes: what is left of
   * TeraSort's time here is the stack's, so no TeraSort on it can be faster. The output is not sorted.
   */
  static ObjectNode passThrough(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    final org.apache.spark.broadcast.Broadcast<SerializableWritable<Configuration>> taskConf = jsc.broadcast(conf);
    List<TeraSort.Split> splits = TeraSort.splits(in.parts(conf.value()), p.path("split_bytes").asLong(128L << 20));
    final int partitions = Math.max(1, splits.size());
    out.prepareEmpty(conf.value());
    final int chunkBytes = TeraSort.CHUNK_ROWS * TeraRows.ROW;
    // each chunk handed on as it is read, as TeraSort's map does (a split's chunks held in a list would keep
    // 128 MB per task alive through young collections, and make the floor slower than the stack is)
    JavaPairRDD<Integer, byte[]> chunks = jsc.parallelize(splits, partitions).flatMapToPair(s -> new java.util.Iterator<Tuple2<Integer, byte[]>>() {
      private final BlockReader reader = new BlockReader(taskConf.value().value(), s.path, s.offset, s.length);
      private Tuple2<Integer, byte[]> next;
      private int k;
      private boolean done;

      @Override
      public boolean hasNext() {
        if (next == null && !done) {
          try {
            byte[] chunk = new byte[chunkBytes];
            int n = reader.read(chunk);
            if (n == 0) {
              reader.close();
              done = true;
              return false;
            }
            next = new Tuple2<>(k++ % partitions, n == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, n));
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
        return next != null;
      }

      @Override
      public Tuple2<Integer, byte[]> next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        Tuple2<Integer, byte[]> out = next;
        next = null;
        return out;
      }
    });
    List<long[]> written = chunks.partitionBy(new TeraSort.IdentityPartitioner(partitions)).mapPartitionsWithIndex((part, it) -> {
      long n = 0;
      try (OutputStream os = Durable.create(taskConf.value().value(), out.partPath(part), 1 << 20)) {
        while (it.hasNext()) {
          byte[] chunk = it.next()._2;
          os.write(chunk, 0, chunk.length);
          n += chunk.length / TeraRows.ROW;
        }
      }
      return List.of(new long[] {part, n}).iterator();
    }, true).collect();
    return finish(conf.value(), out, written, partitions);
  }

  /** Marks the output complete; the rows written ({part, rows} per reduce task) and the reduce task count. */
  private static ObjectNode finish(Configuration conf, DataSet out, List<long[]> written, int partitions) throws java.io.IOException {
    out.markComplete(conf);
    long n = 0;
    for (long[] w : written) {
      n += w[1];
    }
    ObjectNode r = Jobs.JSON.createObjectNode();
    r.put("rows", n);
    r.put("reduce_tasks", partitions);
    return r;
  }
}
