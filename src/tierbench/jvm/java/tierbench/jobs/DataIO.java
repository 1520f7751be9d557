package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.Durable;

/**
 * Data Write (write a data set with no input: random, incompressible bytes,
 * one task per file) and Data Read (TeraRead: read every byte of a data set
 * in splits of a given size). The writer records each file's CRC-32 so that
 * a copy of the data set can be checked against it.
 */
final class DataIO {
  private DataIO() {}

  static final int BUFFER = 1 << 20;

  static ObjectNode write(JavaSparkContext jsc, JsonNode p) throws Exception {
    final long bytes = p.get("bytes").asLong();
    final int files = p.get("files").asInt();
    final DataSet out = new DataSet(Jobs.strings(p.get("output")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    out.prepareEmpty(conf.value());
    jsc.setJobDescription("datawrite: " + bytes + " bytes in " + files + " files");
    List<long[]> perTask = jsc.parallelize(Jobs.taskIds(files), files).map(i -> {
      long size = TeraGen.firstRow(bytes, files, i + 1) - TeraGen.firstRow(bytes, files, i);
      SplittableRandom rnd = new SplittableRandom(i);
      CRC32 crc = new CRC32();
      byte[] buf = new byte[BUFFER];
      long t0 = System.currentTimeMillis();
      Path path = out.partPath(i);
      try (OutputStream os = Durable.create(conf.value(), path, BUFFER)) {
        for (long done = 0; done < size; ) {
          int len = (int) Math.min(BUFFER, size - done);
          rnd.nextBytes(buf);
          os.write(buf, 0, len);
          crc.update(buf, 0, len);
          done += len;
        }
      }
      return new long[] {i, size, crc.getValue(), System.currentTimeMillis() - t0};
    }).collect();
    out.markComplete(conf.value());
    ObjectNode r = Jobs.JSON.createObjectNode();
    ObjectNode crcs = r.putObject("file_crc32");
    ObjectNode sizes = r.putObject("file_bytes");
    var taskMs = r.putArray("task_ms");
    long total = 0;
    for (long[] t : perTask) {
      String name = out.partPath((int) t[0]).getName();
      sizes.put(name, t[1]);
      crcs.put(name, t[2]);
      taskMs.add(t[3]);
      total += t[1];
    }
    r.put("bytes_written", total);
    r.put("files", files);
    r.put("tasks", files);
    return r;
  }

  static ObjectNode read(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final long splitBytes = Math.max(1, p.path("split_bytes").asLong(128L << 20));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    List<TeraSort.Split> ranges = new ArrayList<>();
    long listed = 0;
    for (DataSet.Part part : in.parts(conf.value())) {
      listed += part.size;
      for (long off = 0; off < part.size; off += splitBytes) {
        ranges.add(new TeraSort.Split(part.path, off, Math.min(splitBytes, part.size - off)));
      }
    }
    if (ranges.isEmpty()) {
      throw new java.io.IOException("the data set is empty: " + String.join(", ", in.bases()));
    }
    jsc.setJobDescription("dataread: " + listed + " bytes in " + ranges.size() + " splits");
    List<Long> got = jsc.parallelize(ranges, ranges.size()).map(rg -> {
      Path path = new Path(rg.path);
      byte[] buf = new byte[BUFFER];
      long done = 0;
      try (FSDataInputStream is = path.getFileSystem(conf.value()).open(path, BUFFER)) {
        is.seek(rg.offset);
        int n;
        while (done < rg.length && (n = is.read(buf, 0, (int) Math.min(BUFFER, rg.length - done))) > 0) {
          done += n;
        }
      }
      return done;
    }).collect();
    long total = 0;
    for (long g : got) {
      total += g;
    }
    ObjectNode r = Jobs.JSON.createObjectNode();
    r.put("bytes_read", total);
    r.put("bytes_listed", listed);
    r.put("map_tasks", ranges.size());
    return r;
  }

  /**
   * DistCp-style copy: whole files are the unit of work, dealt to `tasks`
   * copy tasks by size (largest first, to the least loaded task), as DistCp's
   * uniform-size strategy does; each task streams its files and checksums
   * what it wrote. More tasks than files leaves the extra ones idle.
   */
  static ObjectNode copy(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final String[] target = Jobs.strings(p.get("output"));
    final int tasks = p.get("tasks").asInt();
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    List<DataSet.Part> parts = new ArrayList<>(in.parts(conf.value()));
    new DataSet(target).prepareEmpty(conf.value());
    parts.sort((a, b) -> Long.compare(b.size, a.size));
    int used = Math.max(1, Math.min(tasks, parts.size()));
    List<List<String[]>> work = new ArrayList<>();
    long[] load = new long[used];
    for (int t = 0; t < used; t++) {
      work.add(new ArrayList<>());
    }
    for (int k = 0; k < parts.size(); k++) {
      DataSet.Part part = parts.get(k);
      int least = 0;
      for (int t = 1; t < used; t++) {
        if (load[t] < load[least]) {
          least = t;
        }
      }
      load[least] += part.size;
      String dest = new Path(target[part.index % target.length], part.name).toString();
      work.get(least).add(new String[] {part.path, dest, part.name});
    }
    jsc.setJobDescription("copy: " + parts.size() + " files with " + used + " tasks");
    List<String[]> copied = jsc.parallelize(work, used).flatMap(files -> {
      List<String[]> done = new ArrayList<>();
      byte[] buf = new byte[BUFFER];
      for (String[] f : files) {
        Path src = new Path(f[0]);
        Path dst = new Path(f[1]);
        CRC32 crc = new CRC32();
        long n = 0;
        FileSystem dfs = dst.getFileSystem(conf.value());
        try (InputStream is = src.getFileSystem(conf.value()).open(src, BUFFER);
             OutputStream os = Durable.create(conf.value(), dst, BUFFER)) {
          int got;
          while ((got = is.read(buf)) > 0) {
            os.write(buf, 0, got);
            crc.update(buf, 0, got);
            n += got;
          }
        }
        long stored = dfs.getFileStatus(dst).getLen();
        done.add(new String[] {f[2], Long.toString(n), Long.toString(crc.getValue()), Long.toString(stored)});
      }
      return done.iterator();
    }).collect();
    new DataSet(target).markComplete(conf.value());
    ObjectNode r = Jobs.JSON.createObjectNode();
    ObjectNode crcs = r.putObject("file_crc32");
    ObjectNode sizes = r.putObject("file_bytes");
    long total = 0;
    for (String[] c : copied) {
      crcs.put(c[0], Long.parseLong(c[2]));
      sizes.put(c[0], Long.parseLong(c[3]));
      total += Long.parseLong(c[1]);
    }
    r.put("bytes_copied", total);
    r.put("files", parts.size());
    r.put("tasks", used);
    return r;
  }
}
