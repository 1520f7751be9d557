package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * A shuffle and nothing else: M map tasks generate random (incompressible)
 * bytes for R reducers, nothing is read before or written after; reducers
 * count what they fetched. Each map sends each reducer an equal block
 * (size / (M * R) bytes, in records of at most `record_bytes`), so the block
 * size a reducer fetches per map, the shuffle IO size the studies discuss,
 * is set by the size and the task counts.
 */
final class Shuffle {
  private Shuffle() {}

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final long bytes = p.get("bytes").asLong();
    final int maps = p.get("maps").asInt();
    final int reducers = p.get("reducers").asInt();
    final int recordBytes = p.path("record_bytes").asInt(1 << 20);
    jsc.setJobDescription("shuffle: " + bytes + " bytes from " + maps + " maps to " + reducers + " reducers");
    List<long[]> got = jsc.parallelize(Jobs.taskIds(maps), maps).flatMapToPair(m -> {
      long mine = TeraGen.firstRow(bytes, maps, m + 1) - TeraGen.firstRow(bytes, maps, m);
      SplittableRandom rnd = new SplittableRandom(m);
      // records generated lazily: a map's output never sits in memory whole
      return new Iterator<Tuple2<Integer, byte[]>>() {
        int r = 0;
        long left = TeraGen.firstRow(mine, reducers, 1);

        public boolean hasNext() {
          while (left == 0 && r < reducers - 1) {
            r++;
            left = TeraGen.firstRow(mine, reducers, r + 1) - TeraGen.firstRow(mine, reducers, r);
          }
          return left > 0;
        }

        public Tuple2<Integer, byte[]> next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          byte[] rec = new byte[(int) Math.min(recordBytes, left)];
          rnd.nextBytes(rec);
          left -= rec.length;
          return new Tuple2<>(r, rec);
        }
      };
    }).partitionBy(new TeraSort.IdentityPartitioner(reducers)).mapPartitionsWithIndex((part, it) -> {
      long n = 0, records = 0;
      while (it.hasNext()) {
        n += it.next()._2.length;
        records++;
      }
      return List.of(new long[] {part, n, records}).iterator();
    }, true).collect();

    ObjectNode r = Jobs.JSON.createObjectNode();
    long total = 0;
    var perReducer = r.putArray("reducer_bytes");
    for (long[] g : got) {
      total += g[1];
      perReducer.add(g[1]);
    }
    r.put("bytes_shuffled", total);
    r.put("bytes_expected", bytes);
    r.put("map_tasks", maps);
    r.put("reduce_tasks", reducers);
    r.put("block_bytes", bytes / ((long) maps * reducers));
    return r;
  }
}
