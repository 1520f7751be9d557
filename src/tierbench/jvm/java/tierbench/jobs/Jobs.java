package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.agent.StageRecorder;

/**
 * The one door from Python (py4j) into tierbench's Spark jobs: a job name and
 * its parameters as JSON in, the job's measurements as JSON out. Keeping the
 * interface to strings keeps py4j out of the job code.
 */
public final class Jobs {
  public static final ObjectMapper JSON = new ObjectMapper();

  private Jobs() {}

  public static String run(JavaSparkContext jsc, String job, String paramsJson) throws Exception {
    JsonNode p = JSON.readTree(paramsJson);
    ObjectNode result;
    StageRecorder stages = new StageRecorder();
    jsc.sc().addSparkListener(stages);
    try {
      result = dispatch(jsc, job, p);
      // the listener bus is asynchronous: let the last stage's events arrive before reading them
      jsc.sc().listenerBus().waitUntilEmpty(5000);
    } finally {
      jsc.sc().removeSparkListener(stages);
    }
    stages.writeTo(result.putArray("stages"));
    return JSON.writeValueAsString(result);
  }

  /**
   * "Class.method" names a static method {@code ObjectNode method(JavaSparkContext, JsonNode)} of a
   * job class in this package (e.g. "TeraGen.run", "Dfsio.write"): the workload's Python module says
   * which, so adding a workload adds a job class and touches nothing here. A class of another package
   * is named in full ("tierbench.bench.PeerSorts.passThrough": the benchmarks' peers, in their own jar).
   */
  private static ObjectNode dispatch(JavaSparkContext jsc, String job, JsonNode p) throws Exception {
    int dot = job.lastIndexOf('.');
    if (dot < 1 || dot == job.length() - 1) {
      throw new IllegalArgumentException("a job is named Class.method, got: " + job);
    }
    String className = job.substring(0, dot);
    java.lang.reflect.Method m;
    try {
      Class<?> cls = Class.forName(className.contains(".") ? className : Jobs.class.getPackageName() + "." + className);
      m = cls.getDeclaredMethod(job.substring(dot + 1), JavaSparkContext.class, JsonNode.class);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      throw new IllegalArgumentException("unknown job: " + job);
    }
    m.setAccessible(true);
    try {
      return (ObjectNode) m.invoke(null, jsc, p);
    } catch (java.lang.reflect.InvocationTargetException e) {
      // the job's own exception, not reflection's wrapper: its message is what the run's error shows
      Throwable cause = e.getCause();
      if (cause instanceof Exception) {
        throw (Exception) cause;
      }
      throw e;
    }
  }

  /** 0..n-1: the ids of n generating tasks, one Spark partition each. */
  static java.util.List<Integer> taskIds(int n) {
    java.util.List<Integer> ids = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(i);
    }
    return ids;
  }

  public static String[] strings(JsonNode array) {
    String[] out = new String[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asText();
    }
    return out;
  }
}
