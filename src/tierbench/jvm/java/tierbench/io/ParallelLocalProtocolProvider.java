package tierbench.io;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.LocalJobRunner;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.protocol.ClientProtocol;
import org.apache.hadoop.mapreduce.protocol.ClientProtocolProvider;
import org.apache.hadoop.security.Credentials;

/**
 * Hadoop's local job runner for `mapreduce.framework.name = tierbench-local`, as Hadoop's own local provider but
 * for one thing: that one sets `mapreduce.job.maps` to 1 on the job's configuration, so a job that takes its
 * number of maps from there (TeraGen) runs one writer where a cluster node runs its task slots. Here the job's
 * maps are what it asked for, run `mapreduce.local.map.tasks.maximum` at a time (the scale model sets both).
 * And a job with reducers whose map outputs the scale model holds (HeldFiles) has their memory reserved as it is
 * submitted, before its tasks run.
 * Found through java.util.ServiceLoader (META-INF/services in the jobs jar); asked for nothing else, it
 * answers nothing and Hadoop's own providers run the job.
 */
public class ParallelLocalProtocolProvider extends ClientProtocolProvider {
  public static final String FRAMEWORK = "tierbench-local";

  @Override
  public ClientProtocol create(Configuration conf) throws IOException {
    if (!FRAMEWORK.equals(conf.get(MRConfig.FRAMEWORK_NAME))) {
      return null;
    }
    return new Runner(conf);
  }

  /** Hadoop's local runner, reserving the held files' memory for a job with reducers before it runs. */
  static final class Runner extends LocalJobRunner {
    Runner(Configuration conf) throws IOException {
      super(conf);
    }

    @Override
    public JobStatus submitJob(JobID id, String jobSubmitDir, Credentials credentials) throws IOException {
      JobConf job = new JobConf(new Path(jobSubmitDir, "job.xml"));
      if (job.getNumReduceTasks() > 0) {
        HeldFiles.reserve(job);
        DirectReads.reserve(job);
      }
      return super.submitJob(id, jobSubmitDir, credentials);
    }
  }

  @Override
  public ClientProtocol create(InetSocketAddress addr, Configuration conf) {
    return null;  // as Hadoop's local provider: the local runner has no address
  }

  @Override
  public void close(ClientProtocol clientProtocol) {
    // nothing held
  }
}
