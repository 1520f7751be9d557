package tierbench.io;

import java.io.IOException;
import java.io.Serializable;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitterFactory;
import org.apache.hadoop.mapreduce.task.JobContextImpl;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;

/**
 * A data set's output committed through Hadoop's committer protocol, as MapReduce and Spark's file writers do it:
 * the driver sets the job up, each task writes under its attempt's work path and commits, the driver commits the
 * job. What a commit costs is the committer's: FileOutputCommitter v1 renames each task's files at task commit
 * and again at job commit, v2 once at task commit; S3A's directory committer uploads from local disk at task
 * commit, the magic committer writes straight to S3 as pending multipart uploads; both complete them at job
 * commit, so that on an object store no file is copied by a rename (Hadoop's committer architecture docs).
 *
 * Setting tierbench.committer: "" (tasks write their part's final name, no commit: the jobs' default), "file-v1",
 * "file-v2", "directory", "magic". One committer per base directory of the data set (a JBOD of local dirs is one
 * output directory per disk). The times of task and job commits go back with the job's result.
 */
public final class OutputCommit implements Serializable {
  static final String KEY = "tierbench.committer";
  private static final AtomicInteger JOBS = new AtomicInteger();

  private final DataSet out;
  private final String kind;
  private final String jobTracker;
  private final int jobNumber;

  private OutputCommit(DataSet out, String kind) {
    this.out = out;
    this.kind = kind;
    this.jobTracker = new SimpleDateFormat("yyyyMMddHHmmss").format(new Date());
    this.jobNumber = JOBS.incrementAndGet();
  }

  boolean direct() {
    return kind.isEmpty();
  }

  String kind() {
    return direct() ? "none" : kind;
  }

  /** Driver, before the tasks: each base's job set up (for a committer); the time it took in ms. */
  public static OutputCommit begin(Configuration conf, DataSet out) throws IOException {
    OutputCommit c = new OutputCommit(out, conf.get(KEY, "").trim());
    if (!c.direct()) {
      for (String base : out.bases()) {
        Configuration jc = c.configure(conf);
        JobContext job = c.jobContext(jc);
        c.committer(new Path(base), jc, c.taskContext(jc, 0, 0)).setupJob(job);
      }
    }
    return c;
  }

  /** Task side: where part `part` is written, and its commit when the file is closed. */
  public Task task(Configuration conf, int part, int attempt) throws IOException {
    Path fin = out.partPath(part);
    if (direct()) {
      return new Task(fin, null, null);
    }
    Configuration tc = configure(conf);
    TaskAttemptContext ctx = taskContext(tc, part, attempt);
    PathOutputCommitter committer = committer(fin.getParent(), tc, ctx);
    committer.setupTask(ctx);
    return new Task(new Path(committer.getWorkPath(), fin.getName()), committer, ctx);
  }

  /** Driver, after the tasks: each base's job committed (renames, or the pending uploads completed); ms. */
  long end(Configuration conf) throws IOException {
    if (direct()) {
      return 0;
    }
    long t0 = System.nanoTime();
    for (String base : out.bases()) {
      Configuration jc = configure(conf);
      committer(new Path(base), jc, taskContext(jc, 0, 0)).commitJob(jobContext(jc));
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /**
   * Driver, after the tasks: the job committed (or, written directly, marked complete) and the names synced;
   * what the commits cost goes into the job's result as "commit".
   */
  public void finish(Configuration conf, com.fasterxml.jackson.databind.node.ObjectNode result, java.util.List<Long> taskCommitMs)
      throws IOException {
    long jobMs = 0;
    if (direct()) {
      out.markComplete(conf);
    } else {
      jobMs = end(conf);
      Durable.syncTree(conf, out.bases(), false);  // the committed names (each part synced itself)
    }
    var c = result.putObject("commit");
    c.put("committer", kind());
    c.put("job_commit_ms", jobMs);
    var tasks = c.putArray("task_commit_ms");
    taskCommitMs.forEach(tasks::add);
  }

  /** A task's output file and its commit. */
  public static final class Task {
    public final Path path;
    private final PathOutputCommitter committer;
    private final TaskAttemptContext ctx;

    Task(Path path, PathOutputCommitter committer, TaskAttemptContext ctx) {
      this.path = path;
      this.committer = committer;
      this.ctx = ctx;
    }

    /** Commits the task's output (after its file is closed); the time it took in ms. */
    public long commit() throws IOException {
      if (committer == null) {
        return 0;
      }
      long t0 = System.nanoTime();
      if (committer.needsTaskCommit(ctx)) {
        committer.commitTask(ctx);
      }
      return (System.nanoTime() - t0) / 1_000_000;
    }
  }

  private Configuration configure(Configuration conf) {
    Configuration c = new Configuration(conf);
    switch (kind) {
      case "file-v1":
      case "file-v2":
        c.setInt("mapreduce.fileoutputcommitter.algorithm.version", kind.equals("file-v1") ? 1 : 2);
        // the classic committer for every scheme, s3a included (its renames are copies there)
        c.set("mapreduce.outputcommitter.factory.scheme.s3a", PathOutputCommitterFactory.class.getName());
        break;
      case "directory":
      case "magic":
        c.set("fs.s3a.committer.name", kind);
        c.set("mapreduce.outputcommitter.factory.scheme.s3a", "org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory");
        c.setBoolean("fs.s3a.committer.magic.enabled", true);
        // the staging committers' conflict mode: the data set was emptied before the job, so replace is safe
        c.set("fs.s3a.committer.staging.conflict-mode", "replace");
        // part-00007, not part-00007-<job uuid>: every committer leaves the layout the readers expect
        c.setBoolean("fs.s3a.committer.staging.unique-filenames", false);
        break;
      default:
        throw new IllegalArgumentException(KEY + " = " + kind + ": expected file-v1, file-v2, directory or magic");
    }
    return c;
  }

  private JobID jobId() {
    return new JobID(jobTracker, jobNumber);  // the task attempts' job: the committers derive paths from it
  }

  private JobContext jobContext(Configuration conf) {
    return new JobContextImpl(conf, jobId());
  }

  private TaskAttemptContext taskContext(Configuration conf, int part, int attempt) {
    return new TaskAttemptContextImpl(conf, new TaskAttemptID(jobTracker, jobNumber, TaskType.MAP, part, attempt));
  }

  private static PathOutputCommitter committer(Path output, Configuration conf, TaskAttemptContext ctx) throws IOException {
    return PathOutputCommitterFactory.getCommitterFactory(output, conf).createOutputCommitter(output, ctx);
  }
}
