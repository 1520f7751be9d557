package tierbench.io;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/** Reads whole 100-byte rows from a byte range of one file, a fresh array per row. */
public final class RowReader implements Iterator<byte[]>, AutoCloseable {
  private final DataInputStream in;
  private long remainingRows;

  public RowReader(Configuration conf, String file, long offset, long length) throws IOException {
    Path p = new Path(file);
    FSDataInputStream raw = p.getFileSystem(conf).open(p, 1 << 20);
    raw.seek(offset);
    this.in = new DataInputStream(new BufferedInputStream(raw, 1 << 20));
    this.remainingRows = length / TeraRows.ROW;
  }

  @Override
  public boolean hasNext() {
    if (remainingRows > 0) {
      return true;
    }
    close();
    return false;
  }

  @Override
  public byte[] next() {
    if (remainingRows <= 0) {
      throw new NoSuchElementException();
    }
    byte[] row = new byte[TeraRows.ROW];
    try {
      in.readFully(row);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    remainingRows--;
    return row;
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
