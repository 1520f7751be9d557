package tierbench.io;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A data set spread over several base directories, as a JBOD: part i lives in
 * base i mod n. By default tasks write their part straight to its final name
 * (no commit, so the same layout works on local dirs, HDFS and S3A, and a
 * retried task simply overwrites its own part); with a committer
 * (OutputCommit) under their attempt's work path, committed into the same layout.
 */
public final class DataSet implements Serializable {
  // ours are part-00007, Hadoop's part-m-00007 / part-r-00007, S3A's staging committers may add -<job uuid>
  private static final java.util.regex.Pattern PART = java.util.regex.Pattern.compile("^part-(?:[mr]-)?(\\d+)");
  private final String[] bases;

  public DataSet(String[] bases) {
    if (bases.length == 0) {
      throw new IllegalArgumentException("a data set needs at least one directory");
    }
    this.bases = bases.clone();
  }

  public Path partPath(int i) {
    return new Path(bases[i % bases.length], String.format("part-%05d", i));
  }

  public String[] bases() {
    return bases.clone();
  }

  /** Removes earlier output so that a re-run starts from nothing. */
  public void prepareEmpty(Configuration conf) throws IOException {
    for (String b : bases) {
      Path p = new Path(b);
      FileSystem fs = p.getFileSystem(conf);
      fs.delete(p, true);
      fs.mkdirs(p);
    }
  }

  public void markComplete(Configuration conf) throws IOException {
    for (String b : bases) {
      Path p = new Path(b, "_SUCCESS");
      p.getFileSystem(conf).create(p, true).close();
    }
    Durable.syncTree(conf, bases, false);  // the parts' names (each part synced itself)
  }

  /** A part file and its size, in part order (the data set's global order). */
  public static final class Part implements Serializable {
    public final String path;
    public final String name;
    public final int index;
    public final long size;

    Part(String path, String name, int index, long size) {
      this.path = path;
      this.name = name;
      this.index = index;
      this.size = size;
    }
  }

  public List<Part> parts(Configuration conf) throws IOException {
    List<Part> parts = new ArrayList<>();
    for (String b : bases) {
      Path base = new Path(b);
      FileSystem fs = base.getFileSystem(conf);
      if (!fs.exists(base)) {
        throw new IOException("input directory does not exist: " + b);
      }
      for (FileStatus st : fs.listStatus(base)) {
        String name = st.getPath().getName();
        java.util.regex.Matcher m = PART.matcher(name);
        if (st.isFile() && m.find()) {
          int idx = Integer.parseInt(m.group(1));
          parts.add(new Part(st.getPath().toString(), name, idx, st.getLen()));
        }
      }
    }
    parts.sort((x, y) -> Integer.compare(x.index, y.index));
    return parts;
  }
}
