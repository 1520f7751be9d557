package tierbench.jobs;

/**
 * Sorts row indexes by a signed 64-bit key (LSD radix, 16-bit digits, 4 passes).
 * TeraSort's reducers sort their rows this way instead of by comparing
 * objects: no boxing, no per-row allocation, and linear time.
 */
final class RadixSort {
  private RadixSort() {}

  /** Indexes 0..n-1 ordered by keys[i] (signed order), stable. */
  static int[] order(long[] keys, int n) {
    int[] idx = new int[n];
    int[] tmp = new int[n];
    for (int i = 0; i < n; i++) {
      idx[i] = i;
    }
    int[] count = new int[1 << 16];
    for (int pass = 0; pass < 4; pass++) {
      int shift = pass * 16;
      java.util.Arrays.fill(count, 0);
      for (int i = 0; i < n; i++) {
        count[digit(keys[i], shift, pass)]++;
      }
      int sum = 0;
      for (int d = 0; d < count.length; d++) {
        int c = count[d];
        count[d] = sum;
        sum += c;
      }
      for (int i = 0; i < n; i++) {
        int j = idx[i];
        tmp[count[digit(keys[j], shift, pass)]++] = j;
      }
      int[] t = idx;
      idx = tmp;
      tmp = t;
    }
    return idx;
  }

  private static int digit(long key, int shift, int pass) {
    int d = (int) (key >>> shift) & 0xffff;
    return pass == 3 ? d ^ 0x8000 : d; // the top digit carries the sign: flip it for signed order
  }
}
