package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SerializableWritable;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.Durable;
import tierbench.io.OutputCommit;

/**
 * DFSIO in the manner of Hadoop's TestDFSIO: one task per file, 100%
 * sequential, each task timing its own create-write-close (or open-read-close)
 * in milliseconds. The per-task bytes and milliseconds go back to Python,
 * which computes TestDFSIO's figures from them. Unlike TestDFSIO's repeating
 * '0'..'a' buffer, the data is random so that no layer can compress it.
 */
final class Dfsio {
  private Dfsio() {}

  static ObjectNode write(JavaSparkContext jsc, JsonNode p) throws Exception {
    return run(jsc, p, true);
  }

  static ObjectNode read(JavaSparkContext jsc, JsonNode p) throws Exception {
    return run(jsc, p, false);
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p, boolean write) throws Exception {
    final DataSet files = new DataSet(Jobs.strings(p.get("dirs")));
    final int n = p.get("files").asInt();
    final long fileBytes = p.get("file_bytes").asLong();
    final int bufferBytes = p.path("buffer_bytes").asInt(1_000_000);
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    if (write) {
      files.prepareEmpty(conf.value());
    }
    final OutputCommit commit = write ? OutputCommit.begin(conf.value(), files) : null;
    jsc.setJobDescription("dfsio-" + (write ? "write" : "read") + ": " + n + " files");
    List<long[]> perTask = jsc.parallelize(Jobs.taskIds(n), n).map(i -> {
      OutputCommit.Task task = write ? commit.task(conf.value(), i, TaskContext.get().attemptNumber()) : null;
      Path path = write ? task.path : files.partPath(i);
      FileSystem fs = path.getFileSystem(conf.value());
      byte[] buffer = new byte[bufferBytes];
      long done = 0;
      long t0 = System.currentTimeMillis();
      if (write) {
        new Random(i).nextBytes(buffer);
        try (OutputStream os = Durable.create(conf.value(), path, bufferBytes)) {
          while (done < fileBytes) {
            int len = (int) Math.min(bufferBytes, fileBytes - done);
            os.write(buffer, 0, len);
            done += len;
          }
        }
      } else {
        try (InputStream is = fs.open(path, bufferBytes)) {
          int got;
          while ((got = is.read(buffer, 0, bufferBytes)) > 0) {
            done += got;
          }
        }
      }
      long ms = System.currentTimeMillis() - t0;  // TestDFSIO's task time: create-write-close, not the commit
      return new long[] {done, ms, write ? task.commit() : 0};
    }).collect();
    ObjectNode r = Jobs.JSON.createObjectNode();
    ArrayNode bytes = r.putArray("task_bytes");
    ArrayNode ms = r.putArray("task_ms");
    long total = 0;
    List<Long> commitMs = new java.util.ArrayList<>();
    for (long[] t : perTask) {
      bytes.add(t[0]);
      ms.add(t[1]);
      total += t[0];
      commitMs.add(t[2]);
    }
    if (write) {
      commit.finish(conf.value(), r, commitMs);
    }
    r.put(write ? "bytes_written" : "bytes_read", total);
    r.put("files", n);
    return r;
  }
}
