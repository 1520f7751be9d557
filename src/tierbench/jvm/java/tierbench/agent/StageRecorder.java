package tierbench.agent;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;

/**
 * Records each stage of a job as the engine saw it: when it was submitted and
 * completed (epoch ms), its tasks, and the bytes its tasks read, wrote,
 * shuffled and spilled. tierbench splits a run's IO samples into phases with it.
 */
public final class StageRecorder extends SparkListener {
  private final Map<Integer, long[]> bytes = new ConcurrentHashMap<>();
  // the same per executor host: per-node shuffle bytes and skew on a cluster
  private final Map<Integer, Map<String, long[]>> byHost = new ConcurrentHashMap<>();
  private final List<StageInfo> completed = new ArrayList<>();

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    TaskMetrics m = end.taskMetrics();
    if (m == null) {
      return;
    }
    add(bytes.computeIfAbsent(end.stageId(), k -> new long[7]), m);
    String host = end.taskInfo() == null ? "?" : end.taskInfo().host();
    add(byHost.computeIfAbsent(end.stageId(), k -> new ConcurrentHashMap<>()).computeIfAbsent(host, k -> new long[7]), m);
  }

  private static void add(long[] b, TaskMetrics m) {
    synchronized (b) {
      b[0] += m.inputMetrics().bytesRead();
      b[1] += m.outputMetrics().bytesWritten();
      b[2] += m.shuffleReadMetrics().totalBytesRead();
      b[3] += m.shuffleWriteMetrics().bytesWritten();
      b[4] += m.diskBytesSpilled();
      b[5] += m.memoryBytesSpilled();
      b[6] += 1; // tasks
    }
  }

  private static void put(ObjectNode n, long[] b) {
    n.put("input_bytes", b[0]);
    n.put("output_bytes", b[1]);
    n.put("shuffle_read_bytes", b[2]);
    n.put("shuffle_write_bytes", b[3]);
    n.put("disk_spill_bytes", b[4]);
    n.put("memory_spill_bytes", b[5]);
  }

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted done) {
    completed.add(done.stageInfo());
  }

  public synchronized void writeTo(ArrayNode out) {
    for (StageInfo s : completed) {
      ObjectNode n = out.addObject();
      n.put("stage_id", s.stageId());
      n.put("name", s.name());
      n.put("tasks", s.numTasks());
      n.put("submitted_ms", s.submissionTime().isDefined() ? (Long) s.submissionTime().get() : 0L);
      n.put("completed_ms", s.completionTime().isDefined() ? (Long) s.completionTime().get() : 0L);
      put(n, bytes.getOrDefault(s.stageId(), new long[7]));
      ObjectNode hosts = n.putObject("hosts");
      for (Map.Entry<String, long[]> h : byHost.getOrDefault(s.stageId(), Map.of()).entrySet()) {
        ObjectNode hn = hosts.putObject(h.getKey());
        put(hn, h.getValue());
        hn.put("tasks", h.getValue()[6]);
      }
    }
  }
}
