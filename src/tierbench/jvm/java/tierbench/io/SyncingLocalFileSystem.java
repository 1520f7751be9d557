package tierbench.io;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;

/**
 * Hadoop's local file system (file://), with every file it writes on the device
 * before close() returns: the hadoop engine's durable mode (fs.file.impl), so
 * that Hadoop's own jobs in local mode meet a device's pace as tierbench's
 * Spark jobs do (Durable, DurableShuffleDataIO).
 *
 * Why a file system: Hadoop's LocalFileSystem never syncs on close (measured:
 * Hadoop's TeraGen wrote 117 MB/s to a 60 MB/s emulated HDD: page cache), and
 * MapReduce has no setting to sync its map outputs. Everything local goes
 * through this one class: a job's file:// output and its .crc files, and the
 * map outputs, spills and reduce-side merges under mapreduce.cluster.local.dir,
 * which MapTask, ReduceTask and SpillRecord write through
 * FileSystem.getLocal(conf).getRaw() (getLocal is fs.file.impl, cast to
 * LocalFileSystem: hence a subclass of it, whose raw file system is Raw).
 *
 * How, per file, as Durable does it: every 8 MB a background fdatasync of
 * what is written so far (the device works while the task produces), and an
 * fsync before close.
 */
public class SyncingLocalFileSystem extends LocalFileSystem {
  public SyncingLocalFileSystem() {
    super(new Raw());
  }

  /** The raw local file system whose output streams sync (every create, createNonRecursive and append). */
  public static class Raw extends RawLocalFileSystem {
    @Override
    protected OutputStream createOutputStreamWithMode(Path f, boolean append, FsPermission permission)
        throws IOException {
      File file = pathToFile(f);
      File placed = append ? null : Volumes.place(getConf(), file);
      OutputStream primary = placed == null
          ? new Synced(super.createOutputStreamWithMode(f, append, permission), file)
          : Volumes.link(file, placed, new Synced(
              super.createOutputStreamWithMode(new Path(placed.toURI()), false, permission), placed));
      if (!append) {
        primary = HeldFiles.tee(getConf(), file, primary);  // a spill or map output the target's cache would hold
      }
      int copies = getConf() == null ? 1 : getConf().getInt(REPLICAS, 1);
      // the job's output directory, or the one the job writes its data set to itself (TestDFSIO: io_data)
      String out = getConf() == null ? null
          : getConf().get(REPLICAS_UNDER, getConf().get("mapreduce.output.fileoutputformat.outputdir"));
      if (append || copies <= 1 || out == null || file.getName().endsWith(".crc")) {
        return primary;
      }
      File outDir = pathToFile(new Path(out)).getAbsoluteFile();
      String rel = outDir.toPath().relativize(file.getAbsoluteFile().toPath()).toString();
      if (rel.startsWith("..") || rel.startsWith(REPLICA_DIR)) {
        return primary;  // not the job's output (a map output, a spill, a staging file): one copy, as HDFS never sees it
      }
      List<OutputStream> all = new ArrayList<>(List.of(primary));
      for (int i = 1; i < copies; i++) {
        File dir = new File(Volumes.choose(getConf(), outDir, true), REPLICA_DIR);  // each copy on the next volume
        dir.mkdirs();
        File replica = new File(dir, rel.replace(File.separatorChar, '_') + ".r" + i);
        all.add(new Synced(new FileOutputStream(replica), replica));
      }
      return new Copies(all);
    }

    /** A held file (HeldFiles) is read from memory; any other from the device. */
    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
      File file = pathToFile(f);
      HeldFiles.Held held = HeldFiles.get(file);
      if (held != null && held.open()) {
        return new FSDataInputStream(new HeldFiles.HeldInputStream(held, statistics));
      }
      FSInputStream direct = DirectReads.open(file, statistics);  // a reduce input, past the page cache
      return direct != null ? new FSDataInputStream(direct) : super.open(f, bufferSize);
    }

    @Override
    public boolean delete(Path p, boolean recursive) throws IOException {
      boolean deleted = super.delete(p, recursive);
      HeldFiles.drop(pathToFile(p), recursive);
      DirectReads.drop(pathToFile(p), recursive);
      return deleted;
    }

    /** A rename (how committers publish a task's files) is durable too: the new name's directory synced. */
    @Override
    public boolean rename(Path src, Path dst) throws IOException {
      boolean renamed = super.rename(src, dst);
      if (renamed) {
        HeldFiles.move(pathToFile(src), pathToFile(dst));
      }
      File dir = pathToFile(dst).getAbsoluteFile().getParentFile();
      if (renamed && dir != null && dir.isDirectory()) {
        try (FileChannel ch = FileChannel.open(dir.toPath(), StandardOpenOption.READ)) {
          ch.force(true);
        }
      }
      return renamed;
    }
  }

  /**
   * A scale model's stand-in for HDFS replication on one node (tierbench.local.replicas, set by the hadoop engine
   * for a workload that declares `copies`): each file of the job's output is written that many times, the extra
   * copies under the output directory's hidden REPLICA_DIR (input formats skip names starting with '.'), each
   * synced like the file. On the target a node's drives take every copy of its share of the blocks.
   */
  public static final String REPLICAS = "tierbench.local.replicas";
  /** The directory whose files get the copies, for a job that writes its data set outside its output directory. */
  public static final String REPLICAS_UNDER = "tierbench.local.replicas.under";
  static final String REPLICA_DIR = ".tierbench-replicas";

  /** Bytes written between background syncs of a file (Durable's, whose sync threads these streams share). */
  static final long SYNC_EVERY = Durable.SYNC_EVERY;

  /**
   * Hadoop's own stream for a local file (unbuffered: a write is in the page cache when it returns), synced
   * before it closes. Syncable, StreamCapabilities and IOStatisticsSource pass through: hflush, hsync and the
   * stream's statistics work as Hadoop's.
   */
  static final class Synced extends OutputStream implements Syncable, StreamCapabilities, IOStatisticsSource {
    private final OutputStream inner;
    private final File file;
    private FileChannel channel;  // the background syncs', opened when the file first passes SYNC_EVERY
    private Future<?> syncing;
    private long unsynced;
    private boolean closed;

    Synced(OutputStream inner, File file) {
      this.inner = inner;
      this.file = file;
    }

    @Override
    public void write(int b) throws IOException {
      inner.write(b);
      wrote(1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      inner.write(b, off, len);
      wrote(len);
    }

    private void wrote(long bytes) throws IOException {
      unsynced += bytes;
      if (unsynced < SYNC_EVERY || (syncing != null && !syncing.isDone())) {
        return;  // (a sync still running: the next one starts once it is done, with all written since)
      }
      Durable.finish(syncing);  // its error, if it failed
      if (channel == null) {
        channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE);
      }
      unsynced = 0;
      final FileChannel ch = channel;
      syncing = Durable.SYNCER.submit(() -> {
        ch.force(false);
        return null;
      });
    }

    @Override
    public void flush() throws IOException {
      inner.flush();
    }

    @Override
    public void hflush() throws IOException {
      if (inner instanceof Syncable) {
        ((Syncable) inner).hflush();
      } else {
        inner.flush();
      }
    }

    @Override
    public void hsync() throws IOException {
      if (inner instanceof Syncable) {
        ((Syncable) inner).hsync();
      } else {
        inner.flush();
        force(file);
      }
    }

    @Override
    public boolean hasCapability(String capability) {
      return inner instanceof StreamCapabilities && ((StreamCapabilities) inner).hasCapability(capability);
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;  // Hadoop's streams may be closed twice (a wrapper's close, then a finally's)
      }
      closed = true;
      try {
        Durable.finish(syncing);
        if (inner instanceof Syncable) {
          ((Syncable) inner).hsync();  // Hadoop 3.4's local stream: flush, then fsync of its own descriptor
        }
      } finally {
        try {
          inner.close();
        } finally {
          if (channel != null) {
            channel.close();
          }
        }
      }
      if (!(inner instanceof Syncable)) {
        force(file);
      }
    }

    @Override
    public IOStatistics getIOStatistics() {
      return IOStatisticsSupport.retrieveIOStatistics(inner);  // Hadoop's own stream counts its writes
    }
  }

  /** One stream writing every byte to each of its streams (the file and its replicas); its capabilities the file's. */
  static final class Copies extends OutputStream implements Syncable, StreamCapabilities {
    private final List<OutputStream> streams;

    Copies(List<OutputStream> streams) {
      this.streams = streams;
    }

    @Override
    public void write(int b) throws IOException {
      for (OutputStream s : streams) {
        s.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      for (OutputStream s : streams) {
        s.write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      for (OutputStream s : streams) {
        s.flush();
      }
    }

    @Override
    public void hflush() throws IOException {
      for (OutputStream s : streams) {
        ((Syncable) s).hflush();
      }
    }

    @Override
    public void hsync() throws IOException {
      for (OutputStream s : streams) {
        ((Syncable) s).hsync();
      }
    }

    @Override
    public boolean hasCapability(String capability) {
      return ((StreamCapabilities) streams.get(0)).hasCapability(capability);
    }

    @Override
    public void close() throws IOException {
      IOException first = null;
      for (OutputStream s : streams) {
        try {
          s.close();
        } catch (IOException e) {
          first = first == null ? e : first;
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  private static void force(File f) throws IOException {
    try (FileChannel ch = FileChannel.open(f.toPath(), StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }
}
