package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.Partitioner;
import org.apache.spark.SerializableWritable;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.CollectionAccumulator;
import scala.Tuple2;
import tierbench.io.BlockReader;
import tierbench.io.DataSet;
import tierbench.io.Durable;
import tierbench.io.OutputCommit;
import tierbench.io.RowReader;
import tierbench.io.TeraRows;

/**
 * TeraSort: sample keys, range-partition, sort, write. Map tasks route rows
 * to key ranges and ship them as 256 KB chunks of raw rows (a few records per
 * task instead of one object per row); each reduce task orders its range's
 * rows by key where they arrived, in their chunks (PackedKeySort), and writes
 * them in that order.
 *
 * Public, and so are its splits, chunk size and identity partitioner: the benchmarks' peers
 * (bench/java, tierbench.bench.PeerSorts) run TeraSort's own reads and shuffle without its sort.
 */
public final class TeraSort {
  private TeraSort() {}

  /** A byte range of one input file, whole rows only. */
  public static final class Split implements java.io.Serializable {
    public final String path;
    public final long offset;
    public final long length;

    Split(String path, long offset, long length) {
      this.path = path;
      this.offset = offset;
      this.length = length;
    }
  }

  public static List<Split> splits(List<DataSet.Part> parts, long splitBytes) throws IOException {
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
      return partitionOf((Long) key);
    }

    // the first partition whose range may hold a key, by its top 16 bits: a per-row binary search over the
    // bounds was 9% of TeraSort's CPU; with this a row's partition is one lookup and rarely a step or two
    private transient int[] byTopBits;

    int partitionOf(long key) {
      if (byTopBits == null) {
        byTopBits = firstPartitionByTopBits(bounds);
      }
      int i = byTopBits[(int) ((key >> 48) + 32768)];
      while (i < bounds.length && key >= bounds[i]) {
        i++;
      }
      return i;
    }

    private static int[] firstPartitionByTopBits(long[] bounds) {
      int[] first = new int[1 << 16];
      int i = 0;
      for (int top = 0; top < first.length; top++) {
        long lowest = ((long) (top - 32768)) << 48; // the smallest key with these top bits
        while (i < bounds.length && lowest >= bounds[i]) {
          i++;
        }
        first[top] = i;
      }
      return first;
    }
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    // the tasks' copy, broadcast: shipped in each task's closure, every task parsed the whole Hadoop
    // configuration again (10% of TeraSort's CPU); a broadcast is deserialized once per executor
    final Broadcast<SerializableWritable<Configuration>> taskConf = jsc.broadcast(conf);
    long splitBytes = p.path("split_bytes").asLong(128L << 20);
    List<Split> splits = splits(in.parts(conf.value()), splitBytes);
    int partitions = p.path("partitions").asInt(0);
    if (partitions <= 0) {
      partitions = Math.max(1, splits.size());
    }
    long[] bounds = sampleBounds(conf.value(), splits, partitions, p.path("sample_rows").asInt(100_000));
    out.prepareEmpty(conf.value());
    final OutputCommit commit = OutputCommit.begin(conf.value(), out);

    jsc.setJobDescription("terasort: sort " + splits.size() + " splits into " + partitions + " partitions");
    final PrefixRangePartitioner ranges = new PrefixRangePartitioner(bounds);
    // per-task phase intervals (epoch ms): 0 = map, 1 = shuffle fetch, 2 = sort + output write
    final CollectionAccumulator<long[]> phases = jsc.sc().collectionAccumulator("terasort phases");
    final int chunkBytes = CHUNK_ROWS * TeraRows.ROW;
    // map: route each row to its range; ship rows in chunks of raw bytes, not one object per row
    JavaPairRDD<Integer, byte[]> chunks = jsc.parallelize(splits, Math.max(1, splits.size()))
        .flatMapToPair(s -> new RoutedChunks(taskConf.value().value(), s, ranges, chunkBytes, phases));
    // reduce: order a range's rows by key prefix in their chunks (radix sort), write them in that order
    List<long[]> written = chunks.partitionBy(new IdentityPartitioner(ranges.numPartitions()))
        .mapPartitionsWithIndex((part, it) -> {
          long fetchStart = System.currentTimeMillis();
          List<byte[]> got = new ArrayList<>();
          while (it.hasNext()) {
            got.add(it.next()._2);
          }
          byte[][] arrived = got.toArray(new byte[0][]);
          got.clear();
          long fetchEnd = System.currentTimeMillis();
          int[] order = PackedKeySort.order(arrived, CHUNK_ROWS);
          int n = order.length;
          long t0 = System.nanoTime();
          OutputCommit.Task task = commit.task(taskConf.value().value(), part, TaskContext.get().attemptNumber());
          // the rows in key order, copied from their chunks into one buffer written whole: a write per row
          // through a BufferedOutputStream (synchronized) cost more than the copy
          byte[] buf = new byte[OUTPUT_ROWS * TeraRows.ROW];
          try (OutputStream os = Durable.create(taskConf.value().value(), task.path, 1 << 20)) {
            int fill = 0;
            for (int k = 0; k < n; k++) {
              int slot = order[k];
              System.arraycopy(arrived[slot / CHUNK_ROWS], (slot % CHUNK_ROWS) * TeraRows.ROW, buf, fill, TeraRows.ROW);
              fill += TeraRows.ROW;
              if (fill == buf.length) {
                os.write(buf, 0, fill);
                fill = 0;
              }
            }
            if (fill > 0) {
              os.write(buf, 0, fill);
            }
          }
          long commitMs = task.commit();
          long ms = (System.nanoTime() - t0) / 1_000_000;
          phases.add(new long[] {1, fetchStart, fetchEnd});
          phases.add(new long[] {2, fetchEnd, System.currentTimeMillis()});
          return List.of(new long[] {part, n, ms, commitMs}).iterator();
        }, true).collect();

    long rows = 0;
    ObjectNode r = Jobs.JSON.createObjectNode();
    var partRows = r.putArray("partition_rows");
    List<Long> commitMs = new ArrayList<>();
    for (long[] w : written) {
      rows += w[1];
      partRows.add(w[1]);
      commitMs.add(w[3]);
    }
    commit.finish(conf.value(), r, commitMs);
    r.put("rows", rows);
    r.put("bytes_read", rows * TeraRows.ROW);
    r.put("bytes_written", rows * TeraRows.ROW);
    r.put("map_tasks", splits.size());
    r.put("reduce_tasks", partitions);
    String[] names = {"map", "shuffle", "reduce/output"};
    var tp = r.putArray("task_phases");
    for (long[] ph : phases.value()) {
      tp.addObject().put("phase", names[(int) ph[0]]).put("start_ms", ph[1]).put("end_ms", ph[2]);
    }
    return r;
  }

  static final int BLOCK_ROWS = 10_000;
  // rows per write of a reduce task's output (1 MB)
  static final int OUTPUT_ROWS = 10_486;
  // 256 KB of rows per shuffled record: below half a G1 heap region (1 MB regions at the default 2 GB driver),
  // so a chunk is an ordinary young object; 4 MB chunks were "humongous", allocated in the old generation,
  // and set off concurrent marking cycles (15% of the CPU in libjvm)
  public static final int CHUNK_ROWS = 2_560;

  /**
   * A map task's output, made as Spark's shuffle writer takes it: the split is read a block at a time and each
   * row routed to its range's chunk; a full chunk is handed on at once. (Collecting a whole split's chunks
   * first kept 128 MB per task alive through young collections, copied and promoted by the GC.)
   */
  static final class RoutedChunks implements java.util.Iterator<Tuple2<Integer, byte[]>> {
    private final BlockReader reader;
    private final PrefixRangePartitioner ranges;
    private final int chunkBytes;
    private final CollectionAccumulator<long[]> phases;
    private final long start = System.currentTimeMillis();
    private final byte[] block = new byte[BLOCK_ROWS * TeraRows.ROW];
    private final byte[][] bufs;
    private final int[] fill;
    private final java.util.ArrayDeque<Tuple2<Integer, byte[]>> ready = new java.util.ArrayDeque<>();
    private boolean done;

    RoutedChunks(Configuration conf, Split s, PrefixRangePartitioner ranges, int chunkBytes,
                 CollectionAccumulator<long[]> phases) throws IOException {
      this.reader = new BlockReader(conf, s.path, s.offset, s.length);
      this.ranges = ranges;
      this.chunkBytes = chunkBytes;
      this.phases = phases;
      this.bufs = new byte[ranges.numPartitions()][];
      this.fill = new int[ranges.numPartitions()];
    }

    @Override
    public boolean hasNext() {
      try {
        while (ready.isEmpty() && !done) {
          route();
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return !ready.isEmpty();
    }

    @Override
    public Tuple2<Integer, byte[]> next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      return ready.poll();
    }

    private void route() throws IOException {
      int got = reader.read(block);
      if (got == 0) {
        reader.close();
        for (int r = 0; r < bufs.length; r++) {
          if (fill[r] > 0) {
            ready.add(new Tuple2<>(r, Arrays.copyOf(bufs[r], fill[r])));
          }
        }
        done = true;
        phases.add(new long[] {0, start, System.currentTimeMillis()});
        return;
      }
      for (int off = 0; off < got; off += TeraRows.ROW) {
        int r = ranges.partitionOf(TeraRows.sortPrefix(block, off));
        if (bufs[r] == null) {
          bufs[r] = new byte[chunkBytes];
        }
        System.arraycopy(block, off, bufs[r], fill[r], TeraRows.ROW);
        fill[r] += TeraRows.ROW;
        if (fill[r] == chunkBytes) {
          ready.add(new Tuple2<>(r, bufs[r]));
          bufs[r] = null;
          fill[r] = 0;
        }
      }
    }
  }

  /** Shuffle records are keyed by their reduce partition already. */
  public static final class IdentityPartitioner extends Partitioner {
    private final int n;

    public IdentityPartitioner(int n) {
      this.n = n;
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }
  }
}
