package tierbench.mapreduce;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * The shuffle workload as a MapReduce job (the hadoop engine's; the spark engine runs tierbench.jobs.Shuffle):
 * M maps generate random (incompressible) bytes for R reducers, nothing is read before or written after, reducers
 * count what they fetched. Each map sends each reducer an equal block (bytes / (M x R), in records of at most
 * `record bytes`), as the Spark job does; between them MapReduce's own sort buffer, spills, merges and fetches,
 * the intermediate IO the studies' MapReduce jobs did.
 *
 * Why a job of our own: Hadoop's examples have no shuffle-only job (RandomWriter + Sort reads and writes its data as
 * well), and the Cloudera study's shuffle job, whose SSD-vs-HDD figures tierbench reproduces, was MapReduce.
 *
 * Usage: Shuffle [-D k=v ...] BYTES MAPS REDUCERS RECORD_BYTES. The counters RECEIVED and SENT (bytes) are the
 * result; the job fails (exit 1) when they differ.
 */
public final class Shuffle extends Configured implements Tool {
  static final String BYTES = "tierbench.shuffle.bytes";
  static final String MAPS = "tierbench.shuffle.maps";
  static final String RECORD = "tierbench.shuffle.record.bytes";

  /** Bytes the maps generated and the reducers received. */
  public enum Bytes { SENT, RECEIVED }

  /** The i-th of `parts` near-equal shares of `total` (the first ones get the remainder's bytes). */
  static long share(long total, int parts, int i) {
    return total * (i + 1) / parts - total * i / parts;
  }

  /** A map's split: which map it is; nothing to read, no location. */
  public static final class MapSplit extends InputSplit implements Writable {
    int map;

    public MapSplit() {}

    MapSplit(int map) {
      this.map = map;
    }

    @Override
    public long getLength() {
      return 0;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeInt(map);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      map = in.readInt();
    }
  }

  /** One split per map, each read as one record: the map's number. */
  public static final class Maps extends InputFormat<IntWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext context) {
      List<InputSplit> splits = new ArrayList<>();
      for (int m = 0; m < context.getConfiguration().getInt(MAPS, 1); m++) {
        splits.add(new MapSplit(m));
      }
      return splits;
    }

    @Override
    public RecordReader<IntWritable, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
      return new RecordReader<IntWritable, NullWritable>() {
        boolean read;

        @Override
        public void initialize(InputSplit s, TaskAttemptContext c) {}

        @Override
        public boolean nextKeyValue() {
          boolean first = !read;
          read = true;
          return first;
        }

        @Override
        public IntWritable getCurrentKey() {
          return new IntWritable(((MapSplit) split).map);
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return read ? 1 : 0;
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Map m: its share of the bytes, to each reducer its share of that (the key: the reducer; HashPartitioner on
   * an IntWritable is its value modulo the reducers). */
  public static final class Generate extends Mapper<IntWritable, NullWritable, IntWritable, BytesWritable> {
    @Override
    protected void map(IntWritable map, NullWritable none, Context context) throws IOException, InterruptedException {
      Configuration conf = context.getConfiguration();
      int reducers = context.getNumReduceTasks();
      long mine = share(conf.getLong(BYTES, 0), conf.getInt(MAPS, 1), map.get());
      byte[] buffer = new byte[(int) Math.min(conf.getInt(RECORD, 1 << 20), Math.max(1, mine))];
      SplittableRandom rnd = new SplittableRandom(map.get());
      IntWritable reducer = new IntWritable();
      BytesWritable record = new BytesWritable();
      for (int r = 0; r < reducers; r++) {
        reducer.set(r);
        for (long left = share(mine, reducers, r); left > 0; ) {
          int n = (int) Math.min(buffer.length, left);
          rnd.nextBytes(buffer);
          record.set(buffer, 0, n);
          context.write(reducer, record);
          context.getCounter(Bytes.SENT).increment(n);
          left -= n;
        }
      }
    }
  }

  /** Counts what a reducer fetched; writes nothing. */
  public static final class Count extends Reducer<IntWritable, BytesWritable, NullWritable, NullWritable> {
    @Override
    protected void reduce(IntWritable reducer, Iterable<BytesWritable> records, Context context) {
      long n = 0;
      for (BytesWritable record : records) {
        n += record.getLength();
      }
      context.getCounter(Bytes.RECEIVED).increment(n);
    }
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: Shuffle [-D k=v ...] BYTES MAPS REDUCERS RECORD_BYTES");
      return 2;
    }
    Configuration conf = getConf();
    conf.setLong(BYTES, Long.parseLong(args[0]));
    conf.setInt(MAPS, Integer.parseInt(args[1]));
    conf.setInt(RECORD, Integer.parseInt(args[3]));
    Job job = Job.getInstance(conf, "shuffle: " + args[0] + " bytes from " + args[1] + " maps to " + args[2] + " reducers");
    job.setJarByClass(Shuffle.class);
    job.setInputFormatClass(Maps.class);
    job.setMapperClass(Generate.class);
    job.setReducerClass(Count.class);
    job.setNumReduceTasks(Integer.parseInt(args[2]));
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(BytesWritable.class);
    job.setOutputFormatClass(NullOutputFormat.class);
    if (!job.waitForCompletion(true)) {
      return 1;
    }
    long sent = job.getCounters().findCounter(Bytes.SENT).getValue();
    long received = job.getCounters().findCounter(Bytes.RECEIVED).getValue();
    if (sent != received || sent != conf.getLong(BYTES, 0)) {
      System.err.println("Shuffle: reducers received " + received + " bytes of the " + sent + " the maps sent");
      return 1;
    }
    return 0;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new Shuffle(), args));
  }
}
