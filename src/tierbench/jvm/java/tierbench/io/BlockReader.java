package tierbench.io;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/** Reads a byte range of whole 100-byte rows in large blocks (for jobs that touch rows in bulk). */
public final class BlockReader implements AutoCloseable {
  private final FSDataInputStream in;
  private long remaining;

  public BlockReader(Configuration conf, String file, long offset, long length) throws IOException {
    Path p = new Path(file);
    in = p.getFileSystem(conf).open(p, 1 << 20);
    in.seek(offset);
    remaining = length - length % TeraRows.ROW;
  }

  /** Fills `block` with up to block.length bytes of whole rows; returns the bytes read, 0 at the end. */
  public int read(byte[] block) throws IOException {
    int want = (int) Math.min(remaining, block.length - block.length % TeraRows.ROW);
    if (want == 0) {
      return 0;
    }
    in.readFully(block, 0, want);
    remaining -= want;
    return want;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
