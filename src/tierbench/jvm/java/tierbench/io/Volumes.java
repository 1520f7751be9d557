package tierbench.io;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * A data set's files spread over a node's data directories, as HDFS's DataNode spreads its blocks over its volumes
 * (round robin, RoundRobinVolumeChoosingPolicy): the hadoop engine's durable local mode with several data
 * directories (tierbench.local.volumes: the data set's location in each, the first the job's own path).
 *
 * Why: a MapReduce job has one output path, so Hadoop's local file system would put a whole data set on one
 * drive, where the target's DataNode puts each block on the next of its volumes -- an SSD listed as 10 of 16
 * directories takes 10 of 16 blocks (the Cloudera 2014 study's hybrid, whose SSD was an HDFS and a MapReduce
 * directory). A file is one block here (the model's files are at most a split). It is written to the volume its
 * turn gives and reached from the job's path through a symbolic link, which the job's reads, renames (the
 * committers') and listings follow; the study deletes the data set's location in every volume.
 */
final class Volumes {
  static final String KEY = "tierbench.local.volumes";
  private static final Map<String, AtomicLong> TURNS = new ConcurrentHashMap<>();

  private Volumes() {}

  /** The data set's locations, or null where the run has one (or the file is not the job's). */
  private static String[] volumes(Configuration conf) {
    String v = conf == null ? null : conf.getTrimmed(KEY);
    return v == null || v.isEmpty() || !v.contains(",") ? null : v.split(",");
  }

  /**
   * The next volume's location, in turn over all of them; `own` where the turn is the first volume's. The files and
   * their copies take turns of their own (`copy`): with one turn for both, a file's copies after it would put every
   * file on the same volumes when the copies are as many as the volumes.
   */
  static File choose(Configuration conf, File own, boolean copy) {
    String[] all = volumes(conf);
    if (all == null) {
      return own;
    }
    AtomicLong turns = TURNS.computeIfAbsent((copy ? "copy:" : "file:") + conf.get(KEY), k -> new AtomicLong());
    int turn = (int) (turns.getAndIncrement() % all.length);
    return turn == 0 ? own : new File(all[turn]);
  }

  /**
   * Where a new file of the data set goes when its turn gives it another volume than the job's path's (null: at
   * its path). Only the data set's own files move: a name starting with '_' or '.' (checksums, the committers'
   * markers, TeraSort's partition list) stays.
   */
  static File place(Configuration conf, File file) {
    String[] all = volumes(conf);
    String name = file.getName();
    if (all == null || name.startsWith("_") || name.startsWith(".")) {
      return null;
    }
    File root = new File(all[0]).getAbsoluteFile();
    String rel = root.toPath().relativize(file.getAbsoluteFile().toPath()).toString();
    if (rel.isEmpty() || rel.startsWith("..")) {
      return null;
    }
    File volume = choose(conf, root, false).getAbsoluteFile();
    if (volume.equals(root)) {
      return null;  // its turn is the job's own volume
    }
    File placed = new File(volume, rel);
    placed.getParentFile().mkdirs();
    return placed;
  }

  /** The job's path made a link to the placed file (once the file is open, so the link never dangles). */
  static OutputStream link(File path, File placed, OutputStream stream) throws IOException {
    try {
      Files.deleteIfExists(path.toPath());  // (a create that overwrites)
      Files.createSymbolicLink(path.toPath(), placed.getAbsoluteFile().toPath());
    } catch (IOException e) {
      stream.close();
      throw e;
    }
    return stream;
  }
}
