package tierbench.io;

import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * A seekable stream over a file of known length whose bytes come from elsewhere than the file system's own
 * stream (HeldFiles' memory, DirectReads' O_DIRECT channel): the position, seeks within the length, and the file
 * system's statistics counting each byte read, as Hadoop's FILE_BYTES_READ does for its own streams.
 */
abstract class PositionedStream extends FSInputStream {
  protected final long length;
  private final FileSystem.Statistics stats;  // the file system's (null: not counted)
  private final String what;  // for errors: the file's name or kind
  protected long pos;

  PositionedStream(long length, FileSystem.Statistics stats, String what) {
    this.length = length;
    this.stats = stats;
    this.what = what;
  }

  /** `n` bytes read from pos on: moves pos and counts them. */
  protected final void advance(int n) {
    pos += n;
    if (stats != null) {
      stats.incrementBytesRead(n);
    }
  }

  @Override
  public void seek(long p) throws IOException {
    if (p < 0 || p > length) {
      throw new EOFException("seek to " + p + " in " + what + " of " + length + " bytes");
    }
    pos = p;
  }

  @Override
  public long getPos() {
    return pos;
  }

  @Override
  public boolean seekToNewSource(long target) {
    return false;
  }

  @Override
  public int available() {
    return (int) Math.min(Integer.MAX_VALUE, length - pos);
  }
}
