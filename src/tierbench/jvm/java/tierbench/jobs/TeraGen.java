package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SerializableWritable;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.Durable;
import tierbench.io.OutputCommit;
import tierbench.io.TeraRows;
import tierbench.io.Unsigned128;

/**
 * TeraGen: rows 0..N-1 split over T tasks exactly as Hadoop splits them
 * (task t starts at ceil(N*t/T)), so part t holds the same rows, byte for
 * byte, as Hadoop's part-m-t. The checksum is the 128-bit sum of each row's
 * CRC-32, the figure TeraValidate prints.
 */
final class TeraGen {
  private TeraGen() {}

  static long firstRow(long rows, int tasks, int t) {
    return t == 0 ? 0 : (long) Math.ceil(rows * (double) t / tasks);
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final long rows = p.get("rows").asLong();
    final int tasks = p.get("tasks").asInt();
    final boolean randomFiller = "random".equals(p.path("filler").asText("hadoop"));
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    out.prepareEmpty(conf.value());
    final OutputCommit commit = OutputCommit.begin(conf.value(), out);

    jsc.setJobDescription("teragen: generate " + rows + " rows");
    List<long[]> perTask = jsc.parallelize(Jobs.taskIds(tasks), tasks).map(t -> {
      long start = firstRow(rows, tasks, t);
      long end = firstRow(rows, tasks, t + 1);
      long t0 = System.nanoTime();
      OutputCommit.Task task = commit.task(conf.value(), t, TaskContext.get().attemptNumber());
      Path path = task.path;
      Unsigned128 rand = Random16.skipAhead(start);
      Unsigned128 sum = new Unsigned128();
      CRC32 crc = new CRC32();
      byte[] row = new byte[TeraRows.ROW];
      try (OutputStream os = new BufferedOutputStream(Durable.create(conf.value(), path), 1 << 20)) {
        for (long r = start; r < end; r++) {
          Random16.nextRand(rand);
          TeraRows.generate(row, rand, r, randomFiller);
          os.write(row);
          crc.reset();
          crc.update(row, 0, TeraRows.ROW);
          sum.add(0, crc.getValue());
        }
      }
      long commitMs = task.commit();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      return new long[] {end - start, (end - start) * TeraRows.ROW, ms, sum.hi(), sum.lo(), commitMs};
    }).collect();

    Unsigned128 checksum = new Unsigned128();
    long total = 0;
    ObjectNode r = Jobs.JSON.createObjectNode();
    var taskMs = r.putArray("task_ms");
    List<Long> commitMs = new java.util.ArrayList<>();
    for (long[] t : perTask) {
      total += t[0];
      taskMs.add(t[2]);
      checksum.add(t[3], t[4]);
      commitMs.add(t[5]);
    }
    commit.finish(conf.value(), r, commitMs);
    r.put("rows", total);
    r.put("bytes_written", total * TeraRows.ROW);
    r.put("checksum", checksum.toString());
    r.put("tasks", tasks);
    return r;
  }
}
