package tierbench.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * S3A's own request statistics in this JVM: the IOStatistics counters of every S3A file system that Hadoop's
 * FileSystem cache holds, added up. They only grow, so a run's requests are the difference of a snapshot taken
 * before it and one after (the spark engine in local mode, where the tasks share the driver's JVM and its cached
 * S3AFileSystem; tierbench/engines/s3a_requests.py maps the counters to HTTP request kinds).
 *
 * The cache is read by reflection (FileSystem.CACHE.map, Hadoop 3.x): asking FileSystem.get for each bucket
 * would create a file system that was not there, and would miss the buckets the run was not known to touch.
 * A file system closed (so dropped from the cache) between two snapshots takes its counts with it.
 */
public final class S3AStatistics {
  private S3AStatistics() {}

  /** {"filesystems": N, "counters": {name: value}} of this JVM's cached S3A file systems, or {"error": why}. */
  public static String snapshot() {
    ObjectNode out = NodeAgentPlugin.JSON.createObjectNode();
    try {
      Map<String, Long> sum = new TreeMap<>();
      int filesystems = 0;
      for (FileSystem fs : cachedFileSystems()) {
        if (!"s3a".equals(fs.getScheme()) || !(fs instanceof IOStatisticsSource)) continue;
        IOStatistics stats = ((IOStatisticsSource) fs).getIOStatistics();
        if (stats == null) continue;
        filesystems++;
        for (Map.Entry<String, Long> e : stats.counters().entrySet()) {
          if (e.getValue() != null) sum.merge(e.getKey(), e.getValue(), Long::sum);
        }
      }
      out.put("filesystems", filesystems);
      ObjectNode counters = out.putObject("counters");
      sum.forEach(counters::put);
    } catch (ReflectiveOperationException | RuntimeException e) {
      out.put("error", "could not read Hadoop's FileSystem cache: " + e);
    }
    return out.toString();
  }

  @SuppressWarnings("unchecked")
  private static List<FileSystem> cachedFileSystems() throws ReflectiveOperationException {
    Field cacheField = FileSystem.class.getDeclaredField("CACHE");
    cacheField.setAccessible(true);
    Object cache = cacheField.get(null);
    Field mapField = cache.getClass().getDeclaredField("map");
    mapField.setAccessible(true);
    synchronized (cache) { // the cache's own methods hold its lock while they change the map
      return new ArrayList<>(((Map<Object, FileSystem>) mapField.get(cache)).values());
    }
  }
}
