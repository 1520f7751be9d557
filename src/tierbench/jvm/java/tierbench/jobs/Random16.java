package tierbench.jobs;

import tierbench.io.Unsigned128;

/**
 * TeraGen's 128-bit linear congruential generator, f(x) = a*x + c mod 2^128,
 * with the constants of Hadoop's Random16. Hadoop keeps a table of the 128
 * powers f^(2^i); we derive it at start-up (squaring f gives a' = a*a,
 * c' = c*a + c), which the tests check against Hadoop's published entries.
 */
public final class Random16 {
  static final Unsigned128[] A = new Unsigned128[128];
  static final Unsigned128[] C = new Unsigned128[128];

  static {
    A[0] = Unsigned128.ofHex("2360ed051fc65da44385df649fccf645");
    C[0] = Unsigned128.ofHex("4a696d47726179524950202020202001");
    for (int i = 1; i < 128; i++) {
      Unsigned128 a = A[i - 1].copy();
      a.multiply(A[i - 1]);
      Unsigned128 c = C[i - 1].copy();
      c.multiply(A[i - 1]);
      c.add(C[i - 1]);
      A[i] = a;
      C[i] = c;
    }
  }

  private Random16() {}

  /** "a c" of f^(2^i), in hex: lets the tests compare our derived table with Hadoop's. */
  public static String constant(int i) {
    return A[i] + " " + C[i];
  }

  /** f^n(0): the generator's state after n steps from zero. */
  public static Unsigned128 skipAhead(long n) {
    Unsigned128 r = new Unsigned128();
    for (int i = 0; i < 64; i++) {
      if ((n & (1L << i)) != 0) {
        r.multiply(A[i]);
        r.add(C[i]);
      }
    }
    return r;
  }

  public static void nextRand(Unsigned128 r) {
    r.multiply(A[0]);
    r.add(C[0]);
  }
}
