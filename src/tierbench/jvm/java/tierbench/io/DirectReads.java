package tierbench.io;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scale model's reduce inputs read past the page cache (O_DIRECT), where the model holds map outputs
 * (HeldFiles' setting): what a reducer fetched and wrote, it merges once all maps are done, and at the target that
 * is long after: from the drive, once, each request of a merge's several streams a drive paying a seek.
 *
 * Why past the page cache: through it, a node's reducers merge 6 x 7 segments at once, each stream with a
 * read-ahead window growing to 2 MiB (read_ahead_kb 1024), more than the page cache budget's room; a reducer's
 * output, synced and turned clean, took the room from the others' windows, and the reduce phase read its segments
 * again in part: the all-HDD TeraSort read 313-344 MB from its drive in most runs, 376-418 MB and a reduce phase
 * half as long again in others, at random (docs/scale-model.md). The target's page cache, gigabytes, holds every
 * window.
 *
 * Why in requests of tierbench.local.direct.read.bytes: an emulated drive is a throttle, which charges each request
 * its IOPS limit or its MB/s, whichever is longer, never a seek; the scale model sets the size at which the IOPS
 * limit charges the seek rule's rate for the target's merges (scale/model.py, direct_read_request). In 1 MiB
 * requests the all-HDD TeraSort ran ~20% faster than the study's.
 */
final class DirectReads {
  private static final Logger LOG = LoggerFactory.getLogger(DirectReads.class);
  /** Each read's size where the job's conf sets none: the emulated devices' read-ahead (storage/backing.py). */
  static final int DEFAULT_REQUEST = 1 << 20;
  static final String REQUEST_KEY = "tierbench.local.direct.read.bytes";
  /** O_DIRECT's alignment of offsets, lengths and memory: ext4's block. */
  static final int ALIGN = 4096;
  private static final Set<String> MARKED = ConcurrentHashMap.newKeySet();
  private static final ArrayDeque<ByteBuffer> FREE = new ArrayDeque<>();
  private static boolean reserved;

  private DirectReads() {}

  /** Buffers for a node's reducers' streams at once (reducers x merge factor), once per JVM, as the job is
   * submitted; none where the JVM's untouched memory is out of reach (the inputs are then read as any file). */
  static synchronized void reserve(Configuration conf) {
    int request = requestBytes(conf);
    if (reserved || !HeldFiles.enabled(conf) || request == 0) {
      return;  // (0: the reduce inputs read through the page cache, as any file)
    }
    reserved = true;
    long streams = (long) conf.getInt("mapreduce.local.reduce.tasks.maximum", 1)
        * conf.getInt("mapreduce.task.io.sort.factor", 10);
    List<ByteBuffer> buffers = NativeMemory.carve(streams, request, ALIGN);
    if (buffers != null) {
      FREE.addAll(buffers);
    }
    LOG.info("reserved {} buffers of {} bytes to read reduce inputs past the page cache", FREE.size(), request);
  }

  /** The request size: the conf's, whole blocks of ALIGN bytes (O_DIRECT's), at least one; 0 where it is 0 or less. */
  static int requestBytes(Configuration conf) {
    long asked = conf.getLong(REQUEST_KEY, DEFAULT_REQUEST);
    return asked <= 0 ? 0 : (int) Math.max(ALIGN, Math.min(1L << 30, asked / ALIGN * ALIGN));
  }

  /** A reduce input MapOutputFiles placed: read past the page cache once written. */
  static void expect(Configuration conf, Path path) {
    if (HeldFiles.enabled(conf)) {
      String k = new File(path.toUri().getPath()).getAbsolutePath();
      MARKED.add(k);
      MARKED.add(k + ".merged");  // an on-disk merge of such inputs (MergeManagerImpl.OnDiskMerger)
    }
  }

  /** A file (or, recursive, a directory's files) deleted. */
  static void drop(File file, boolean recursive) {
    String k = file.getAbsolutePath();
    MARKED.remove(k);
    if (recursive) {
      String prefix = k.endsWith(File.separator) ? k : k + File.separator;
      MARKED.removeIf(p -> p.startsWith(prefix));
    }
  }

  /** `file` read past the page cache, or null: read it as any file (not a reduce input, no buffer free, or the
   * file system refuses O_DIRECT). */
  static PositionedStream open(File file, FileSystem.Statistics stats) {
    if (MARKED.isEmpty() || !MARKED.contains(file.getAbsolutePath())) {
      return null;
    }
    ByteBuffer buf = take();
    if (buf == null) {
      return null;
    }
    try {
      FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
      return new Stream(ch, buf, ch.size(), stats, file);
    } catch (IOException | UnsupportedOperationException e) {
      giveBack(buf);
      return null;
    }
  }

  private static synchronized ByteBuffer take() {
    return FREE.poll();
  }

  private static synchronized void giveBack(ByteBuffer buf) {
    FREE.add(buf);
  }

  /** A seekable stream over an O_DIRECT channel: each refill one aligned read of the buffer's size. */
  static final class Stream extends PositionedStream {
    private final FileChannel ch;
    private final ByteBuffer buf;
    private final File file;
    private long start = -1;  // the file offset buf holds from
    private int filled;
    private long fromDrive;
    private boolean closed;

    Stream(FileChannel ch, ByteBuffer buf, long length, FileSystem.Statistics stats, File file) {
      super(length, stats, file.toString());
      this.ch = ch;
      this.buf = buf;
      this.file = file;
    }

    /** True when buf holds the byte at pos (reading it from the drive if not); false at the end. */
    private boolean ready() throws IOException {
      if (pos >= length) {
        return false;
      }
      if (start >= 0 && pos >= start && pos < start + filled) {
        return true;
      }
      long aligned = pos & -((long) ALIGN);
      buf.clear();
      int total = 0;
      while (buf.hasRemaining() && aligned + total < length) {
        int n = ch.read(buf, aligned + total);
        total += Math.max(n, 0);
        if (n <= 0 || n % ALIGN != 0) {
          break;  // the file's end (a read past it is short, and the next would start unaligned)
        }
      }
      start = aligned;
      filled = total;
      fromDrive += total;
      return pos < start + filled;
    }

    @Override
    public int read() throws IOException {
      if (!ready()) {
        return -1;
      }
      int b = buf.get((int) (pos - start)) & 0xff;
      advance(1);
      return b;
    }

    @Override
    public int read(byte[] b, int off, int n) throws IOException {
      if (n == 0) {
        return 0;
      }
      if (!ready()) {
        return -1;
      }
      int r = (int) Math.min(n, start + filled - pos);
      buf.get((int) (pos - start), b, off, r);
      advance(r);
      return r;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        ch.close();
      } finally {
        giveBack(buf);
        LOG.info("read {} past the page cache ({} bytes from the drive)", file, fromDrive);
      }
    }
  }
}
