package tierbench.shuffle;

import java.io.File;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.shuffle.IndexShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleManager;
import org.apache.spark.shuffle.api.ShuffleDataIO;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;
import org.apache.spark.shuffle.api.ShufflePartitionWriter;
import org.apache.spark.shuffle.api.SingleSpillShuffleMapOutputWriter;
import org.apache.spark.shuffle.api.metadata.MapOutputCommitMessage;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO;

/**
 * Spark's local-disk shuffle, with each map task's output file and index
 * synced before the task ends (durable studies: spark.shuffle.sort.io.plugin.class).
 *
 * Why: spark.shuffle.sync syncs the files Spark's DiskBlockObjectWriter writes
 * (spills, the per-reducer files of the bypass-merge writer) but not the map
 * output file they are merged into, so without this a TeraSort's shuffle is
 * partly written back after the job (measured: 70 of 128 MB).
 */
public final class DurableShuffleDataIO implements ShuffleDataIO {
  private final LocalDiskShuffleDataIO local;

  public DurableShuffleDataIO(SparkConf conf) {
    this.local = new LocalDiskShuffleDataIO(conf);
  }

  @Override
  public ShuffleDriverComponents driver() {
    return local.driver();
  }

  @Override
  public ShuffleExecutorComponents executor() {
    ShuffleExecutorComponents inner = local.executor();
    return new ShuffleExecutorComponents() {
      @Override
      public void initializeExecutor(String appId, String execId, Map<String, String> extraConfigs) {
        inner.initializeExecutor(appId, execId, extraConfigs);
      }

      @Override
      public ShuffleMapOutputWriter createMapOutputWriter(int shuffleId, long mapTaskId, int numPartitions)
          throws IOException {
        ShuffleMapOutputWriter w = inner.createMapOutputWriter(shuffleId, mapTaskId, numPartitions);
        return new ShuffleMapOutputWriter() {
          @Override
          public ShufflePartitionWriter getPartitionWriter(int reducePartitionId) throws IOException {
            return w.getPartitionWriter(reducePartitionId);
          }

          @Override
          public MapOutputCommitMessage commitAllPartitions(long[] checksums) throws IOException {
            MapOutputCommitMessage m = w.commitAllPartitions(checksums);
            syncOutput(shuffleId, mapTaskId);
            return m;
          }

          @Override
          public void abort(Throwable error) throws IOException {
            w.abort(error);
          }
        };
      }

      @Override
      public Optional<SingleSpillShuffleMapOutputWriter> createSingleFileMapOutputWriter(int shuffleId, long mapId)
          throws IOException {
        return inner.createSingleFileMapOutputWriter(shuffleId, mapId).map(w -> (spill, lengths, checksums) -> {
          w.transferMapSpillFile(spill, lengths, checksums);
          syncOutput(shuffleId, mapId);
        });
      }
    };
  }

  /** The map task's data and index files (and their directory entries), on the device. */
  static void syncOutput(int shuffleId, long mapId) throws IOException {
    ShuffleBlockResolver r = blockResolver(SparkEnv.get());
    if (!(r instanceof IndexShuffleBlockResolver)) {
      return;
    }
    IndexShuffleBlockResolver index = (IndexShuffleBlockResolver) r;
    for (File f : new File[] {index.getDataFile(shuffleId, mapId), index.getIndexFile(shuffleId, mapId, scala.Option.empty())}) {
      if (f.exists()) {
        try (FileChannel ch = FileChannel.open(f.toPath(), StandardOpenOption.WRITE)) {
          ch.force(true);
        }
      }
    }
  }

  /**
   * The executor's shuffle block resolver, or null. Spark 4.3 has it as SparkEnv.shuffleBlockResolver() (an
   * Option), Spark 4.1 as SparkEnv.shuffleManager().shuffleBlockResolver(); each is looked up by name, so that
   * this one source compiles and runs on either release (the engine's `spark` knob). Through method handles, which
   * resolve the one method: Class.getMethod reads every public method's signature, and one of SparkEnv's names a
   * protobuf class that is not on an executor's classpath (ClassNotFoundException in a durable TeraSort on 4.3).
   */
  static ShuffleBlockResolver blockResolver(SparkEnv env) throws IOException {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    try {
      Object found;
      try {
        found = lookup.findVirtual(SparkEnv.class, "shuffleBlockResolver", MethodType.methodType(scala.Option.class))
            .invoke(env);
      } catch (NoSuchMethodException olderSpark) {
        found = lookup.findVirtual(ShuffleManager.class, "shuffleBlockResolver",
            MethodType.methodType(ShuffleBlockResolver.class)).invoke(env.shuffleManager());
      }
      if (found instanceof scala.Option) {
        scala.Option<?> option = (scala.Option<?>) found;
        found = option.isDefined() ? option.get() : null;
      }
      return found instanceof ShuffleBlockResolver ? (ShuffleBlockResolver) found : null;
    } catch (Throwable e) {
      throw new IOException("no shuffle block resolver found in this Spark release", e);
    }
  }
}
