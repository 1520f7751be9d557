package tierbench.jobs;

import java.util.Arrays;
import tierbench.io.TeraRows;

/**
 * Orders the rows of one TeraSort reduce partition by their 10-byte keys, where the shuffle left them: in chunks of
 * whole rows (gathering them into one array first copied every byte once more). A row is named by its slot, its
 * chunk's index x chunkRows + its row within the chunk. Each row becomes one long: the key's bits that differ
 * within the partition (a range partition: its keys share their top bits) above the row's slot, radix-sorted on the
 * key bits -- one array read in sequence, no indirection (an LSD radix sort of row indexes, reading keys[idx[i]] at
 * random in four passes, was 19% of TeraSort's CPU). Rows whose packed key bits tie are put in full 10-byte key
 * order; ties are rare (about n^2 / 2^(64 - slot bits) pairs).
 */
final class PackedKeySort {
  private PackedKeySort() {}

  /** The slots of the rows of `chunks` (each at most chunkRows whole rows of TeraRows.ROW bytes) in key order. */
  static int[] order(byte[][] chunks, int chunkRows) {
    long slots = (long) chunks.length * chunkRows;
    if (slots > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(chunks.length + " chunks of " + chunkRows + " rows: more slots than an int "
          + "names; set the terasort `partitions` parameter higher");
    }
    int n = 0;
    for (byte[] c : chunks) {
      if (c.length % TeraRows.ROW != 0 || c.length > chunkRows * TeraRows.ROW) {
        throw new IllegalArgumentException("a chunk of " + c.length + " bytes: not whole rows, or more than "
            + chunkRows + " of them");
      }
      n += c.length / TeraRows.ROW;
    }
    int[] order = new int[n];
    if (n == 0) {
      return order;
    }
    long[] keys = new long[n];
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    int i = 0;
    for (byte[] c : chunks) {
      for (int off = 0; off < c.length; off += TeraRows.ROW) {
        long k = TeraRows.sortPrefix(c, off); // signed order = the bytes' unsigned order
        keys[i++] = k;
        min = Math.min(min, k);
        max = Math.max(max, k);
      }
    }
    int slotBits = 64 - Long.numberOfLeadingZeros(Math.max(1, slots - 1));
    long span = max - min; // unsigned: the partition's key range
    int spanBits = 64 - Long.numberOfLeadingZeros(span);
    int shift = Math.max(0, spanBits - (63 - slotBits)); // key bits dropped so that key and slot fit 63 bits
    i = 0;
    for (int c = 0; c < chunks.length; c++) {
      int rows = chunks[c].length / TeraRows.ROW;
      int base = c * chunkRows;
      for (int r = 0; r < rows; r++, i++) {
        keys[i] = (((keys[i] - min) >>> shift) << slotBits) | (base + r);
      }
    }
    keys = radixSort(keys, slotBits, 63 - slotBits);
    long slotMask = (1L << slotBits) - 1;
    for (i = 0; i < n; i++) {
      order[i] = (int) (keys[i] & slotMask);
    }
    // rows whose packed key bits tie (the dropped low bits, or the last 2 key bytes) in full key order
    i = 0;
    while (i < n) {
      int j = i + 1;
      long packed = keys[i] >>> slotBits;
      while (j < n && (keys[j] >>> slotBits) == packed) {
        j++;
      }
      if (j - i > 1) {
        sortTied(chunks, chunkRows, order, i, j);
      }
      i = j;
    }
    return order;
  }

  /**
   * LSD radix sort of the values by their bits [from, from + bits): sequential passes over one array, with
   * digits of at most 16 bits (3 passes for the 42 key bits of a million-row partition). Arrays.sort of the
   * same longs took twice the CPU of the indirect radix sort it replaced.
   */
  static long[] radixSort(long[] a, int from, int bits) {
    int passes = Math.max(1, (bits + 15) / 16);
    int digitBits = (bits + passes - 1) / passes;
    int mask = (1 << digitBits) - 1;
    int[] count = new int[1 << digitBits];
    long[] tmp = new long[a.length];
    for (int pass = 0; pass < passes; pass++) {
      int shift = from + pass * digitBits;
      Arrays.fill(count, 0);
      for (long v : a) {
        count[(int) (v >>> shift) & mask]++;
      }
      int sum = 0;
      for (int d = 0; d < count.length; d++) {
        int c = count[d];
        count[d] = sum;
        sum += c;
      }
      for (long v : a) {
        tmp[count[(int) (v >>> shift) & mask]++] = v;
      }
      long[] t = a;
      a = tmp;
      tmp = t;
    }
    return a;
  }

  private static void sortTied(byte[][] chunks, int chunkRows, int[] order, int from, int to) {
    Integer[] run = new Integer[to - from];
    for (int k = from; k < to; k++) {
      run[k - from] = order[k];
    }
    Arrays.sort(run, (a, b) -> TeraRows.compareKeys(chunks[a / chunkRows], (a % chunkRows) * TeraRows.ROW,
        chunks[b / chunkRows], (b % chunkRows) * TeraRows.ROW));
    for (int k = from; k < to; k++) {
      order[k] = run[k - from];
    }
  }
}
