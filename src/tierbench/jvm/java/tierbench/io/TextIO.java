package tierbench.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Text data sets as Hadoop writes and reads them: output through a Hadoop
 * compression codec chosen by name (the file gets the codec's extension, so
 * readers pick the codec from the name), input through TextInputFormat with
 * the split size pinned (min = max = split size), as
 * mapreduce.input.fileinputformat.split.minsize does for Hadoop jobs.
 */
public final class TextIO {
  private TextIO() {}

  /** Codec names a spec may use; "none" writes plain text. */
  public static CompressionCodec codec(Configuration conf, String name) {
    if (name == null || name.isEmpty() || "none".equals(name)) {
      return null;
    }
    CompressionCodec c = new CompressionCodecFactory(conf).getCodecByName(name);
    if (c == null) {
      throw new IllegalArgumentException("unknown output codec: " + name);
    }
    return c;
  }

  /** A part file of a data set, compressed with `codec` (may be null); the caller closes it. */
  public static OutputStream create(Configuration conf, DataSet out, int part, String codecName) throws IOException {
    CompressionCodec codec = codec(conf, codecName);
    Path path = out.partPath(part);
    if (codec != null) {
      path = path.suffix(codec.getDefaultExtension());
    }
    OutputStream raw = Durable.create(conf, path);
    if (codec != null) {
      return new BufferedOutputStream(codec.createOutputStream(raw), 1 << 20);
    }
    return new BufferedOutputStream(raw, 1 << 20);
  }

  /** The lines of every file in the data set's directories, in splits of `splitBytes` (0: the file system's block size). */
  public static JavaPairRDD<LongWritable, Text> lines(JavaSparkContext jsc, DataSet in, long splitBytes) {
    Configuration conf = new Configuration(jsc.hadoopConfiguration());
    if (splitBytes > 0) {
      conf.setLong(FileInputFormat.SPLIT_MINSIZE, splitBytes);
      conf.setLong(FileInputFormat.SPLIT_MAXSIZE, splitBytes);
    }
    return jsc.newAPIHadoopFile(String.join(",", in.bases()), TextInputFormat.class, LongWritable.class, Text.class, conf);
  }

  /** Bytes of the data set's part files as stored (compressed, when they are). */
  public static long storedBytes(Configuration conf, DataSet in) throws IOException {
    long total = 0;
    for (DataSet.Part p : in.parts(conf)) {
      total += p.size;
    }
    return total;
  }

  /** Index of `needle` in text[0, len) from `from`, or -1 (a plain scan: the needle is short). */
  public static int indexOf(byte[] text, int len, byte[] needle, int from) {
    int last = len - needle.length;
    outer:
    for (int i = from; i <= last; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (text[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
