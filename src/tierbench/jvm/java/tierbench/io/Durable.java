package tierbench.io;

import java.io.File;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * Durable writes: with the study's `durability = "durable"` (Hadoop setting
 * tierbench.durable), a file a job writes is on the device before the task
 * that wrote it ends, so the time to durability is inside the job's time and
 * a write is not measured at the speed of the page cache.
 *
 * How, per file system: local and shared (NFS) paths: every 8 MB a background
 * fdatasync of what is written so far (so the device works while the task
 * produces), and after close an fsync (FileChannel.force) of the file and of
 * its checksum file (Hadoop's LocalFileSystem keeps a .crc beside each file;
 * its hsync only flushes);
 * HDFS: hsync before close (the DataNodes started by `tierbench services`
 * also sync every finished block: dfs.datanode.synconclose); S3A: nothing,
 * an upload is durable when close() returns.
 */
public final class Durable {
  private Durable() {}

  static final String KEY = "tierbench.durable";

  static boolean on(Configuration conf) {
    return conf.getBoolean(KEY, false);
  }

  public static OutputStream create(Configuration conf, Path path) throws IOException {
    return create(conf, path, conf.getInt("io.file.buffer.size", 4096));
  }

  /** fs.create(path, overwrite), whose close() returns once the bytes are durable when the study asks for it. */
  public static OutputStream create(Configuration conf, Path path, int buffer) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    FSDataOutputStream stream = fs.create(path, true, buffer);
    if (!on(conf)) {
      return stream;
    }
    final boolean local = isLocal(fs);
    final FileChannel channel = local ? FileChannel.open(localFile(fs, path).toPath(), StandardOpenOption.WRITE) : null;
    return new FilterOutputStream(stream) {
      private long unsynced = 0;
      private Future<?> syncing = null;

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        stream.write(b, off, len);  // FilterOutputStream would write byte by byte
        unsynced += len;
        if (channel != null && unsynced >= SYNC_EVERY && (syncing == null || syncing.isDone())) {
          // what is written so far goes to the device while the task goes on producing: the device works
          // beside the CPU, as the kernel's writeback does when a job's data outgrows memory
          finish(syncing);
          stream.flush();
          unsynced = 0;
          syncing = SYNCER.submit(() -> {
            channel.force(false);
            return null;
          });
        }
      }

      @Override
      public void close() throws IOException {
        try {
          if (!local && stream.hasCapability(StreamCapabilities.HSYNC)) {
            stream.hsync();  // HDFS: to the DataNodes' disks (S3A cannot, and need not: the upload is in close)
          }
          finish(syncing);
          stream.close();
          if (local) {
            force(fs, path);
          }
        } finally {
          if (channel != null) {
            channel.close();
          }
        }
      }
    };
  }

  /** Bytes written between background syncs of a local file. */
  static final long SYNC_EVERY = 8L << 20;

  static final ExecutorService SYNCER = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "tierbench-durable-sync");
    t.setDaemon(true);
    return t;
  });

  /** A background sync's end, its error if it failed (SyncingLocalFileSystem's streams wait on theirs too). */
  static void finish(Future<?> f) throws IOException {
    if (f == null) {
      return;
    }
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while syncing", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
    }
  }

  static boolean isLocal(FileSystem fs) {
    return "file".equals(fs.getUri().getScheme());
  }

  static File localFile(FileSystem fs, Path path) {
    return new File(fs.makeQualified(path).toUri().getPath());
  }

  /** fsync a local file and its checksum file. */
  static void force(FileSystem fs, Path path) throws IOException {
    File f = localFile(fs, path);
    forceFile(f);
    File crc = new File(f.getParentFile(), "." + f.getName() + ".crc");
    if (crc.exists()) {
      forceFile(crc);
    }
  }

  private static void forceFile(File f) throws IOException {
    try (FileChannel ch = FileChannel.open(f.toPath(), StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /**
   * The directories of a data set (their new entries) and, for output written by
   * writers that cannot sync (Spark's Parquet writer), every file under them:
   * on the driver, after the job, so still inside the run's time.
   */
  public static void syncTree(Configuration conf, String[] bases, boolean files) throws IOException {
    if (!on(conf)) {
      return;
    }
    for (String b : bases) {
      Path base = new Path(b);
      FileSystem fs = base.getFileSystem(conf);
      if (!isLocal(fs) || !fs.exists(base)) {
        continue;  // HDFS: hsync'ed by the writers, or synced on close by the DataNodes; S3A: durable on close
      }
      syncDir(localFile(fs, base), files);
    }
  }

  private static void syncDir(File dir, boolean files) throws IOException {
    File[] entries = dir.listFiles();
    if (entries != null && files) {
      for (File e : entries) {
        if (e.isDirectory()) {
          syncDir(e, true);
        } else if (e.isFile()) {
          forceFile(e);
        }
      }
    }
    try (FileChannel ch = FileChannel.open(dir.toPath(), StandardOpenOption.READ)) {
      ch.force(true);  // the directory's entries: a file that is synced but not named is lost in a crash
    }
  }
}
