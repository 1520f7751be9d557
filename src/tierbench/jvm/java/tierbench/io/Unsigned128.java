package tierbench.io;

import java.io.Serializable;

/**
 * A 128-bit unsigned integer with wrap-around arithmetic, as Hadoop's
 * Unsigned16 (TeraGen's random numbers, row ids and checksums). Written anew
 * on Math.multiplyHigh rather than Hadoop's 31-bit limbs; the results are the
 * same numbers, and toString prints them the way TeraValidate does.
 */
public final class Unsigned128 implements Serializable {
  long hi;
  long lo;

  public Unsigned128() {}

  public Unsigned128(long hi, long lo) {
    this.hi = hi;
    this.lo = lo;
  }

  /** The upper 64 bits. */
  public long hi() {
    return hi;
  }

  /** The lower 64 bits. */
  public long lo() {
    return lo;
  }

  public static Unsigned128 ofHex(String s) {
    Unsigned128 r = new Unsigned128();
    for (int i = 0; i < s.length(); i++) {
      int d = Character.digit(s.charAt(i), 16);
      if (d < 0 || (r.hi >>> 60) != 0) {
        throw new NumberFormatException("not a 128-bit hex number: " + s);
      }
      r.hi = (r.hi << 4) | (r.lo >>> 60);
      r.lo = (r.lo << 4) | d;
    }
    return r;
  }

  public Unsigned128 copy() {
    return new Unsigned128(hi, lo);
  }

  public void add(long bHi, long bLo) {
    long sum = lo + bLo;
    long carry = Long.compareUnsigned(sum, lo) < 0 ? 1 : 0;
    lo = sum;
    hi = hi + bHi + carry;
  }

  public void add(Unsigned128 b) {
    add(b.hi, b.lo);
  }

  /** this = this * b mod 2^128. */
  public void multiply(Unsigned128 b) {
    long newHi = unsignedMultiplyHigh(lo, b.lo) + hi * b.lo + lo * b.hi;
    lo = lo * b.lo;
    hi = newHi;
  }

  // Math.unsignedMultiplyHigh arrived in Java 18; this is its formula.
  static long unsignedMultiplyHigh(long x, long y) {
    long r = Math.multiplyHigh(x, y);
    r += (y & (x >> 63));
    r += (x & (y >> 63));
    return r;
  }

  /** Byte b (0 = most significant) of the big-endian 16-byte form. */
  public int getByte(int b) {
    return b < 8 ? (int) (hi >>> (56 - 8 * b)) & 0xff : (int) (lo >>> (120 - 8 * b)) & 0xff;
  }

  /** Upper-case hex digit p (0 = most significant) of the 32-digit form. */
  public byte hexDigit(int p) {
    int v = getByte(p / 2);
    int d = (p % 2 == 0) ? (v >>> 4) : (v & 0xf);
    return (byte) (d < 10 ? '0' + d : 'A' + d - 10);
  }

  /** Hadoop's Unsigned16.toString: lower-case hex, no leading zeros. */
  @Override
  public String toString() {
    if (hi == 0) {
      return Long.toHexString(lo);
    }
    String low = Long.toHexString(lo);
    return Long.toHexString(hi) + "0".repeat(16 - low.length()) + low;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Unsigned128 && ((Unsigned128) o).hi == hi && ((Unsigned128) o).lo == lo;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(hi * 31 + lo);
  }
}
