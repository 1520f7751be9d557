package tierbench.io;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct buffers over native memory the kernel has mapped but not yet given pages: Unsafe's allocateMemory,
 * which does not zero it, cut into pieces, each a DirectByteBuffer through the constructor JNI uses. Its pages are
 * charged to the JVM as they are first written. Why: a buffer from allocateDirect is zeroed as it is made, and
 * under the scale model's page cache budget a job's start then waited 0.5-0.9 s for 320 MB of pages (the budget's
 * limit grows by its room once a poll). Needs java.nio opened to this class (the hadoop engine opens it).
 */
final class NativeMemory {
  private NativeMemory() {}

  /**
   * `count` buffers of `piece` bytes each, every one starting at a multiple of `align` (a power of two), or null
   * where the JVM does not let this class reach Unsafe or DirectByteBuffer's constructor. Never freed: the JVM
   * runs one job.
   */
  static List<ByteBuffer> carve(long count, int piece, int align) {
    try {
      Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
      f.setAccessible(true);
      Object unsafe = f.get(null);
      Class<?> direct = Class.forName("java.nio.DirectByteBuffer");
      Constructor<?> at;
      boolean longCap;
      try {
        at = direct.getDeclaredConstructor(long.class, int.class);  // Java 17-20
        longCap = false;
      } catch (NoSuchMethodException e) {
        at = direct.getDeclaredConstructor(long.class, long.class);  // Java 21+
        longCap = true;
      }
      at.setAccessible(true);
      long bytes = count * piece + align;
      long base = (long) unsafe.getClass().getMethod("allocateMemory", long.class).invoke(unsafe, bytes);
      long first = (base + align - 1) & -((long) align);
      List<ByteBuffer> out = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        long addr = first + i * piece;
        out.add((ByteBuffer) (longCap ? at.newInstance(addr, (long) piece) : at.newInstance(addr, piece)));
      }
      return out;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
