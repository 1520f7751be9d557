package tierbench.io;

/**
 * The 100-byte TeraSort row, laid out exactly as Hadoop's GenSort writes it:
 * 10-byte random key, 00 11, the row id as 32 hex digits, 88 99 AA BB,
 * 48 bytes of filler (12 hex digits of the random number, each 4 times),
 * CC DD EE FF.
 */
public final class TeraRows {
  public static final int ROW = 100;
  public static final int KEY = 10;

  private TeraRows() {}

  /**
   * Hadoop's filler is 12 hex digits of the random number, each written 4 times:
   * rows compress to about a third (gzip -1: 31%, lz4: 38%, measured on 1e5 rows).
   * With randomFiller the 48 filler bytes are instead 6 longs of a per-row
   * SplitMix64 stream: the rows no longer match Hadoop's, and no codec can
   * shrink the shuffle or the output.
   */
  public static void generate(byte[] row, Unsigned128 rand, long rowId, boolean randomFiller) {
    generate(row, rand, rowId);
    if (randomFiller) {
      long z = rowId * 0x9E3779B97F4A7C15L + rand.lo;
      for (int i = 0; i < 6; i++) {
        z += 0x9E3779B97F4A7C15L;
        long x = z;
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        x = x ^ (x >>> 31);
        for (int b = 0; b < 8; b++) {
          row[48 + i * 8 + b] = (byte) (x >>> (56 - 8 * b));
        }
      }
    }
  }

  public static void generate(byte[] row, Unsigned128 rand, long rowId) {
    for (int i = 0; i < KEY; i++) {
      row[i] = (byte) rand.getByte(i);
    }
    row[10] = 0x00;
    row[11] = 0x11;
    // the row id is a 128-bit number in Hadoop; ours fit in 64 bits, so the
    // first 16 hex digits are '0'
    for (int i = 0; i < 16; i++) {
      row[12 + i] = '0';
    }
    for (int i = 0; i < 16; i++) {
      int d = (int) (rowId >>> (60 - 4 * i)) & 0xf;
      row[28 + i] = (byte) (d < 10 ? '0' + d : 'A' + d - 10);
    }
    row[44] = (byte) 0x88;
    row[45] = (byte) 0x99;
    row[46] = (byte) 0xAA;
    row[47] = (byte) 0xBB;
    for (int i = 0; i < 12; i++) {
      byte h = rand.hexDigit(20 + i);
      row[48 + i * 4] = h;
      row[49 + i * 4] = h;
      row[50 + i * 4] = h;
      row[51 + i * 4] = h;
    }
    row[96] = (byte) 0xCC;
    row[97] = (byte) 0xDD;
    row[98] = (byte) 0xEE;
    row[99] = (byte) 0xFF;
  }

  /** Unsigned lexicographic order of the 10-byte keys (Hadoop's Text order). */
  public static int compareKeys(byte[] a, byte[] b) {
    for (int i = 0; i < KEY; i++) {
      int x = a[i] & 0xff;
      int y = b[i] & 0xff;
      if (x != y) {
        return x - y;
      }
    }
    return 0;
  }

  /** The first 8 key bytes as a long whose signed order is the keys' unsigned order. */
  public static long sortPrefix(byte[] row) {
    return sortPrefix(row, 0);
  }

  // one big-endian 8-byte load: C2 (JDK 17) does not merge a loop of byte loads, and TeraSort reads a prefix per
  // row in its map (the range lookup) and its reduce (the sort): half the time of the loop in a microbenchmark
  private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONG =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

  /** The key's first 8 bytes as a long whose signed order is the bytes' unsigned order. */
  public static long sortPrefix(byte[] buf, int off) {
    return ((long) BIG_ENDIAN_LONG.get(buf, off)) ^ Long.MIN_VALUE;
  }

  public static int compareKeys(byte[] a, int aOff, byte[] b, int bOff) {
    for (int i = 0; i < KEY; i++) {
      int x = a[aOff + i] & 0xff;
      int y = b[bOff + i] & 0xff;
      if (x != y) {
        return x - y;
      }
    }
    return 0;
  }

  /** Hadoop's BytesWritable.toString of the key: hex bytes separated by spaces. */
  public static String keyText(byte[] row) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < KEY; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(String.format("%02x", row[i] & 0xff));
    }
    return sb.toString();
  }
}
