package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The one door from Python (py4j) into tierbench's Spark jobs: a job name and
 * its parameters as JSON in, the job's measurements as JSON out. Keeping the
 * interface to strings keeps py4j out of the job code.
 */
public final class Jobs {
  static final ObjectMapper JSON = new ObjectMapper();

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

  private static ObjectNode dispatch(JavaSparkContext jsc, String job, JsonNode p) throws Exception {
    ObjectNode result;
    switch (job) {
      case "teragen":
        result = TeraGen.run(jsc, p);
        break;
      case "terasort":
        result = TeraSort.run(jsc, p);
        break;
      case "teravalidate":
        result = TeraValidate.run(jsc, p);
        break;
      case "dfsio-write":
        result = Dfsio.run(jsc, p, true);
        break;
      case "dfsio-read":
        result = Dfsio.run(jsc, p, false);
        break;
      case "textgen":
        result = TextGen.run(jsc, p);
        break;
      case "wordcount":
        result = WordCount.run(jsc, p);
        break;
      case "grep":
        result = Grep.run(jsc, p);
        break;
      case "shuffle":
        result = Shuffle.run(jsc, p);
        break;
      case "datawrite":
        result = DataIO.write(jsc, p);
        break;
      case "dataread":
        result = DataIO.read(jsc, p);
        break;
      case "copy":
        result = DataIO.copy(jsc, p);
        break;
      case "sql":
        result = Sql.run(jsc, p);
        break;
      case "upload":
        result = Sql.upload(jsc, p);
        break;
      default:
        throw new IllegalArgumentException("unknown job: " + job);
    }
    return result;
  }

  /** 0..n-1: the ids of n generating tasks, one Spark partition each. */
  static java.util.List<Integer> taskIds(int n) {
    java.util.List<Integer> ids = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(i);
    }
    return ids;
  }

  static String[] strings(JsonNode array) {
    String[] out = new String[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asText();
    }
    return out;
  }
}
