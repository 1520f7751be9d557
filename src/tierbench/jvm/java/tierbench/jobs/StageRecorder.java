package tierbench.jobs;

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
final class StageRecorder extends SparkListener {
  private final Map<Integer, long[]> bytes = new ConcurrentHashMap<>();
  private final List<StageInfo> completed = new ArrayList<>();

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    TaskMetrics m = end.taskMetrics();
    if (m == null) {
      return;
    }
    long[] b = bytes.computeIfAbsent(end.stageId(), k -> new long[6]);
    synchronized (b) {
      b[0] += m.inputMetrics().bytesRead();
      b[1] += m.outputMetrics().bytesWritten();
      b[2] += m.shuffleReadMetrics().totalBytesRead();
      b[3] += m.shuffleWriteMetrics().bytesWritten();
      b[4] += m.diskBytesSpilled();
      b[5] += m.memoryBytesSpilled();
    }
  }

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted done) {
    completed.add(done.stageInfo());
  }

  synchronized void writeTo(ArrayNode out) {
    for (StageInfo s : completed) {
      ObjectNode n = out.addObject();
      n.put("stage_id", s.stageId());
      n.put("name", s.name());
      n.put("tasks", s.numTasks());
      n.put("submitted_ms", s.submissionTime().isDefined() ? (Long) s.submissionTime().get() : 0L);
      n.put("completed_ms", s.completionTime().isDefined() ? (Long) s.completionTime().get() : 0L);
      long[] b = bytes.getOrDefault(s.stageId(), new long[6]);
      n.put("input_bytes", b[0]);
      n.put("output_bytes", b[1]);
      n.put("shuffle_read_bytes", b[2]);
      n.put("shuffle_write_bytes", b[3]);
      n.put("disk_spill_bytes", b[4]);
      n.put("memory_spill_bytes", b[5]);
    }
  }
}
