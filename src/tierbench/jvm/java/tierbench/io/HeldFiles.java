package tierbench.io;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scale model's stand-in for the target's page cache where the model's own is too small to stand in for it
 * (tierbench.local.hold, set by the scale model): a map's spills and its merged output, written to the device as
 * always (synced), are also kept in this JVM's memory until deleted, and read back from there.
 *
 * Why: the model's page cache budget keeps the target's ratio of a node's data to its page cache, so the
 * shuffle, read once all maps are done, comes from the device as at 1 TB. But a spill is read back by its own map
 * a few seconds after it is written, and with reducers fetching as maps end (MapReduce's slowstart: 5% of maps
 * done) a map's output is read soon after it is written too: at the target a node's page cache of gigabytes holds
 * a wave of maps' output, where the model's budget of a few MB does not hold the model's wave. Which files are held
 * is MapOutputFiles' call (expect); everything else reads from the device.
 *
 * The bytes lie outside the heap, in chunks of direct buffers reused as files are deleted: on the heap, the
 * collector copied each held array between its spaces until it was promoted (the quickstart's all-SSD TeraSort
 * spent 0.35-1.0 s of its 6 s in GC, varying from run to run; off the heap 0.03-0.2 s), where the target's page
 * cache costs its tasks no GC. The chunks are all reserved as the job is submitted (reserve: before its tasks
 * run; the kernel gives the pages as they are written) and reused. Allocated as the held bytes grew, in slabs of
 * SLAB bytes during the map phase, the JVM's own small mappings met the page cache budget's limit more often while
 * the spills' dirty pages kept the kernel from reclaiming ("Native memory allocation (mmap) failed ... committing
 * reserved memory"; the study's runner retries such a run; docs/scale-model.md counts them).
 */
final class HeldFiles {
  private static final Logger LOG = LoggerFactory.getLogger(HeldFiles.class);
  /** "true": hold spills and map outputs (the hadoop engine sets it from the scale model). */
  static final String HOLD = "tierbench.local.hold";
  /** Bytes held at most (all maps); a file that would pass it is read from the device. */
  static final String HOLD_MAX = "tierbench.local.hold.max.bytes";
  static final long DEFAULT_MAX = 256L << 20;
  /** Never more than this share of the JVM's heap, whatever HOLD_MAX says: the tasks' buffers need the rest. */
  static final double HEAP_SHARE = 0.4;
  /** A held file's bytes are kept in chunks of this size (a file wastes less than one). */
  static final int CHUNK = 256 << 10;
  /** Where the JVM's untouched memory is out of reach, chunks are cut from zeroed direct buffers of this size. */
  static final int SLAB = 16 << 20;
  /** The reserve holds the cap this many times over: the files being written are not counted in it until closed. */
  static final double RESERVE_FACTOR = 1.25;
  private static final ArrayDeque<ByteBuffer> FREE = new ArrayDeque<>();
  private static boolean reserved;

  private static final Set<String> EXPECTED = ConcurrentHashMap.newKeySet();
  private static final Map<String, Held> HELD = new ConcurrentHashMap<>();
  private static final AtomicLong BYTES = new AtomicLong();
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private HeldFiles() {}

  static boolean enabled(Configuration conf) {
    return conf != null && conf.getBoolean(HOLD, false);
  }

  /** Bytes held at most: the conf's cap, never over HEAP_SHARE of the heap. */
  static long cap(Configuration conf) {
    return Math.min(conf == null ? DEFAULT_MAX : conf.getLong(HOLD_MAX, DEFAULT_MAX),
        (long) (Runtime.getRuntime().maxMemory() * HEAP_SHARE));
  }

  /** Allocates the slabs, once per JVM, where the job's conf holds files: called as the job is submitted, before
   * its tasks run (ParallelLocalProtocolProvider), for a job with reducers (a map-only job has no map outputs). */
  static synchronized void reserve(Configuration conf) {
    if (reserved || !enabled(conf)) {
      return;
    }
    reserved = true;
    long slabs = (long) Math.ceil(cap(conf) * RESERVE_FACTOR / SLAB);
    List<ByteBuffer> chunks = NativeMemory.carve(slabs * (SLAB / CHUNK), CHUNK, 1);
    if (chunks != null) {
      FREE.addAll(chunks);
    } else {
      for (long i = 0; i < slabs; i++) {
        ByteBuffer slab = ByteBuffer.allocateDirect(SLAB);
        for (int at = 0; at < SLAB; at += CHUNK) {
          FREE.add(slab.slice(at, CHUNK));
        }
      }
    }
    LOG.info("reserved {} bytes outside the heap for held files{}", slabs * SLAB,
        chunks != null ? "" : " (zeroed: the JVM's untouched memory was not reachable)");
  }

  /** The next file written at this path is held (a spill or a map output MapOutputFiles placed). */
  static void expect(Configuration conf, Path path) {
    if (enabled(conf)) {
      EXPECTED.add(key(new File(path.toUri().getPath())));
    }
  }

  /** The stream to write `file` through: `primary`, and a copy kept in memory when the file is expected. */
  static OutputStream tee(Configuration conf, File file, OutputStream primary) {
    String k = key(file);
    if (!EXPECTED.remove(k)) {
      return primary;
    }
    release(HELD.remove(k));  // a file written again: its old bytes are gone
    return new Tee(primary, k, cap(conf));
  }

  /** The bytes held for `file`, or null: read it from the device. */
  static Held get(File file) {
    return HELD.isEmpty() ? null : HELD.get(key(file));
  }

  /** A file (or, recursive, a directory's files) deleted: its bytes are no longer held. */
  static void drop(File file, boolean recursive) {
    String k = key(file);
    release(HELD.remove(k));
    if (recursive) {
      String prefix = k.endsWith(File.separator) ? k : k + File.separator;
      HELD.entrySet().removeIf(e -> e.getKey().startsWith(prefix) && release(e.getValue()));
      EXPECTED.removeIf(p -> p.startsWith(prefix));
    }
  }

  /** A held file renamed (a lone spill becomes the map's output): held under its new name. */
  static void move(File src, File dst) {
    Held b = HELD.remove(key(src));
    if (b != null) {
      release(HELD.put(key(dst), b));
    }
  }

  private static boolean release(Held b) {
    if (b != null) {
      BYTES.addAndGet(-b.length);
      b.drop();
    }
    return true;
  }

  /** A free chunk, or null when the slabs are all in use (the file is then read from the device). */
  private static synchronized ByteBuffer takeChunk() {
    return FREE.poll();
  }

  private static synchronized void giveBack(List<ByteBuffer> chunks) {
    FREE.addAll(chunks);
  }

  /** A held file's bytes: full chunks of CHUNK bytes, the last one partly used. Its chunks go back to the pool
   * once the file is deleted (or written again) and no stream reads it any more. */
  static final class Held {
    final List<ByteBuffer> chunks;
    final long length;
    private int readers;
    private boolean dropped;

    Held(List<ByteBuffer> chunks, long length) {
      this.chunks = chunks;
      this.length = length;
    }

    /** A reader starts; false when the file was deleted meanwhile (its chunks may be another file's now). */
    synchronized boolean open() {
      if (dropped) {
        return false;
      }
      readers++;
      return true;
    }

    synchronized void close() {
      readers--;
      recycle();
    }

    synchronized void drop() {
      dropped = true;
      recycle();
    }

    private void recycle() {
      if (dropped && readers == 0 && !chunks.isEmpty()) {
        giveBack(chunks);
        chunks.clear();
      }
    }
  }

  private static String key(File f) {
    return f.getAbsolutePath();
  }

  /** Writes through to the file; keeps a copy, published when the file is closed if it fits under the cap. */
  static final class Tee extends OutputStream implements Syncable, StreamCapabilities {
    private final OutputStream primary;
    private final String key;
    private final long max;
    private List<ByteBuffer> chunks = new ArrayList<>();
    private long len;
    private boolean over;  // past the cap: no longer copied

    Tee(OutputStream primary, String key, long max) {
      this.primary = primary;
      this.key = key;
      this.max = max;
    }

    @Override
    public void write(int b) throws IOException {
      primary.write(b);
      copy(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int n) throws IOException {
      primary.write(b, off, n);
      copy(b, off, n);
    }

    private void copy(byte[] b, int off, int n) {
      if (over) {
        return;
      }
      if (len + n + BYTES.get() > max) {
        stop("held map output past " + max + " bytes");
        return;
      }
      while (n > 0) {
        int at = (int) (len % CHUNK);
        if (at == 0) {
          ByteBuffer chunk = takeChunk();
          if (chunk == null) {
            stop("the reserved memory in use");
            return;
          }
          chunks.add(chunk);
        }
        int r = Math.min(n, CHUNK - at);
        chunks.get(chunks.size() - 1).put(at, b, off, r);
        off += r;
        n -= r;
        len += r;
      }
    }

    /** No longer copied: the file is read from the device. */
    private void stop(String why) {
      over = true;
      giveBack(chunks);
      chunks = null;
      if (!WARNED.getAndSet(true)) {
        LOG.warn("{}: {} and files after it are read from the device", why, key);
      }
    }

    @Override
    public void flush() throws IOException {
      primary.flush();
    }

    @Override
    public void close() throws IOException {
      primary.close();  // on the device first: a held file is a file written, as at the target
      if (!over && chunks != null) {
        Held b = new Held(chunks, len);
        chunks = null;
        BYTES.addAndGet(b.length);
        release(HELD.put(key, b));
        LOG.info("held {} in memory ({} bytes)", key, b.length);  // the hadoop engine sums these (held_mb)
        over = true;  // a second close publishes nothing
      }
    }

    @Override
    public void hflush() throws IOException {
      passOn(false);
    }

    @Override
    public void hsync() throws IOException {
      passOn(true);
    }

    /** hflush or hsync of the primary stream (what the file's writers ask of it), a flush where it has neither. */
    private void passOn(boolean sync) throws IOException {
      if (!(primary instanceof Syncable)) {
        primary.flush();
      } else if (sync) {
        ((Syncable) primary).hsync();
      } else {
        ((Syncable) primary).hflush();
      }
    }

    @Override
    public boolean hasCapability(String capability) {
      return primary instanceof StreamCapabilities && ((StreamCapabilities) primary).hasCapability(capability);
    }
  }

  /** A held file read back: seekable, as MapReduce's readers of spills and map outputs need. */
  static final class HeldInputStream extends PositionedStream {
    private final Held held;
    private boolean closed;

    /** Reads `held`, which the caller opened (Held.open). */
    HeldInputStream(Held held, FileSystem.Statistics stats) {
      super(held.length, stats, "a held file");
      this.held = held;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        held.close();
      }
    }

    @Override
    public int read() {
      if (pos >= length) {
        return -1;
      }
      int b = held.chunks.get((int) (pos / CHUNK)).get((int) (pos % CHUNK)) & 0xff;
      advance(1);
      return b;
    }

    @Override
    public int read(byte[] b, int off, int n) {
      if (n == 0) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      int at = (int) (pos % CHUNK);
      int r = (int) Math.min(Math.min(n, CHUNK - at), length - pos);  // within one chunk: callers loop
      held.chunks.get((int) (pos / CHUNK)).get(at, b, off, r);
      advance(r);
      return r;
    }
  }
}
