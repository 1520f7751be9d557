package tierbench.jobs;

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

/**
 * A peer for bench/bench_bound.py, not a workload: TeraSort in the shape HiBench's Spark TeraSort runs it --
 * one (10-byte key, 90-byte value) object pair per row from a Hadoop input format, Spark's own sortByKey
 * (sampled range partitioner, sort-based shuffle), each partition written as one file. tierbench's TeraSort is
 * measured against it on the same data in the same run.
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
    out.markComplete(conf.value());
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
