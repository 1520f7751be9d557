package tierbench.jobs;

import java.util.Arrays;

/**
 * Orders the rows of one TeraSort reduce partition by their 10-byte keys. Each row becomes one long: the
 * key's bits that differ within the partition (a range partition: its keys share their top bits) above the
 * row's index, radix-sorted on the key bits -- one array read in sequence, no indirection (an LSD radix sort
 * of row indexes, reading keys[idx[i]] at random in four passes, was 19% of TeraSort's CPU). Rows whose packed
 * key bits tie are put in full 10-byte key order; ties are rare (about n^2 / 2^(64 - index bits) pairs).
 */
final class PackedKeySort {
  private PackedKeySort() {}

  /** Row indexes 0..n-1 of `rows` (n rows of TeraRows.ROW bytes) in key order. */
  static int[] order(byte[] rows, int n) {
    int[] order = new int[n];
    if (n == 0) {
      return order;
    }
    long[] keys = new long[n];
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      long k = TeraRows.sortPrefix(rows, i * TeraRows.ROW); // signed order = the bytes' unsigned order
      keys[i] = k;
      min = Math.min(min, k);
      max = Math.max(max, k);
    }
    int indexBits = 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1));
    long span = max - min; // unsigned: the partition's key range
    int spanBits = 64 - Long.numberOfLeadingZeros(span);
    int shift = Math.max(0, spanBits - (63 - indexBits)); // key bits dropped so that key and index fit 63 bits
    for (int i = 0; i < n; i++) {
      keys[i] = (((keys[i] - min) >>> shift) << indexBits) | i;
    }
    keys = radixSort(keys, indexBits, 63 - indexBits);
    long indexMask = (1L << indexBits) - 1;
    for (int i = 0; i < n; i++) {
      order[i] = (int) (keys[i] & indexMask);
    }
    // rows whose packed key bits tie (the dropped low bits, or the last 2 key bytes) in full key order
    int i = 0;
    while (i < n) {
      int j = i + 1;
      long packed = keys[i] >>> indexBits;
      while (j < n && (keys[j] >>> indexBits) == packed) {
        j++;
      }
      if (j - i > 1) {
        sortTied(rows, order, i, j);
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

  private static void sortTied(byte[] rows, int[] order, int from, int to) {
    Integer[] run = new Integer[to - from];
    for (int k = from; k < to; k++) {
      run[k - from] = order[k];
    }
    Arrays.sort(run, (a, b) -> TeraRows.compareKeys(rows, a * TeraRows.ROW, rows, b * TeraRows.ROW));
    for (int k = from; k < to; k++) {
      order[k] = run[k - from];
    }
  }
}
