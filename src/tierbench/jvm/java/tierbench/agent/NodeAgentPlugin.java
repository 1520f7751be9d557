package tierbench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * tierbench's node agent inside Spark (spark.plugins): on each executor host, one agent samples
 * /proc/diskstats, /proc/stat, /proc/net/dev, /proc/meminfo and its executor's /proc/self/io,
 * reports the host's facts (cores, RAM, the devices and mounts of the study's dirs and of the block
 * manager's dirs: where shuffle really goes), drops the page cache on request (root), and ships it
 * all to the driver, where tierbench drains it (sampling/nodes.py documents the messages).
 *
 * Executors cannot be sent to, only asked from: each agent asks the driver every 200 ms with what it
 * has gathered, and the driver's answer carries the commands it has not seen yet. Several executors
 * on one host (or several "hosts" on one machine, bound to their own loopback addresses) elect one
 * agent per host name with a file lock.
 */
public final class NodeAgentPlugin implements SparkPlugin {
  static final ObjectMapper JSON = new ObjectMapper();

  // -- the driver side: an inbox tierbench drains through py4j, and the commands for the agents --------
  private static final ConcurrentLinkedQueue<String> INBOX = new ConcurrentLinkedQueue<>();
  private static final List<String> COMMANDS = Collections.synchronizedList(new ArrayList<>());

  /** Every message the agents sent since the last call, as a JSON array. */
  public static String drain() {
    StringBuilder out = new StringBuilder("[");
    String m;
    boolean first = true;
    while ((m = INBOX.poll()) != null) {
      if (!first) out.append(',');
      out.append(m);
      first = false;
    }
    return out.append(']').toString();
  }

  /** A command for every agent (each sees it once, on its next ask). */
  public static void command(String json) {
    COMMANDS.add(json);
  }

  /** The hosts of the application's executors (the driver's own block manager left out), as a JSON array. */
  public static String executorHosts(SparkContext sc) throws IOException {
    org.apache.spark.storage.BlockManagerId driver = SparkEnv.get().blockManager().blockManagerId();
    java.util.TreeSet<String> hosts = new java.util.TreeSet<>();
    for (org.apache.spark.SparkExecutorInfo e : sc.statusTracker().getExecutorInfos()) {
      if (!(e.host().equals(driver.host()) && e.port() == driver.port())) hosts.add(e.host());
    }
    return JSON.writeValueAsString(hosts);
  }

  @Override
  public DriverPlugin driverPlugin() {
    return new DriverPlugin() {
      @Override
      public Map<String, String> init(SparkContext sc, PluginContext ctx) {
        return Collections.emptyMap();
      }

      @Override
      public Object receive(Object message) throws Exception {
        JsonNode ask = JSON.readTree((String) message);
        for (JsonNode m : ask.get("msgs")) INBOX.add(JSON.writeValueAsString(m));
        int seen = ask.get("seen").asInt();
        ArrayNode reply = JSON.createArrayNode();
        synchronized (COMMANDS) {
          for (int i = seen; i < COMMANDS.size(); i++) reply.add(JSON.readTree(COMMANDS.get(i)));
        }
        return JSON.writeValueAsString(reply);
      }
    };
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new Agent();
  }

  // -- the executor side ---------------------------------------------------------------------------------
  static final class Agent implements ExecutorPlugin {
    private static final Set<String> HOSTS_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    private Thread thread;
    private FileLock lock;
    private RandomAccessFile lockFile;

    @Override
    public void init(PluginContext ctx, Map<String, String> extraConf) {
      try {
        String host = host();
        String app = ctx.conf().getAppId();
        if (!HOSTS_IN_THIS_JVM.add(host) || !lockHost(app, host)) {
          return; // another executor samples this host
        }
        double interval = Double.parseDouble(ctx.conf().get("spark.tierbench.agent.interval", "1"));
        String dirs = ctx.conf().get("spark.tierbench.agent.dirs", "");
        thread = new Thread(() -> loop(ctx, host, dirs, interval), "tierbench-node-agent");
        thread.setDaemon(true);
        thread.start();
      } catch (RuntimeException e) {
        // never let observation kill an executor: the node goes unobserved, and the report says so
        System.err.println("tierbench node agent not started: " + e);
      }
    }

    /** The executor's host as the cluster knows it (its block manager's; PluginContext.hostname() needs an RPC
     * server address that executors of Spark 4 do not have). */
    private static String host() {
      try {
        return SparkEnv.get().blockManager().blockManagerId().host();
      } catch (RuntimeException e) {
        String bind = System.getenv("SPARK_LOCAL_IP");
        if (bind != null && !bind.isEmpty()) return bind;
        try {
          return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException io) {
          return "unknown";
        }
      }
    }

    private boolean lockHost(String app, String host) {
      try {
        File f = new File(System.getProperty("java.io.tmpdir"), "tierbench-agent-" + app + "-" + host.replaceAll("[^A-Za-z0-9._-]", "_") + ".lock");
        lockFile = new RandomAccessFile(f, "rw");
        lock = lockFile.getChannel().tryLock();
        f.deleteOnExit();
        return lock != null;
      } catch (IOException | RuntimeException e) {
        return true; // no lock file possible: sample anyway (at worst a host is sampled twice)
      }
    }

    @Override
    public void shutdown() {
      running = false;
      try {
        if (thread != null) thread.join(2000);
        if (lock != null) lock.release();
        if (lockFile != null) lockFile.close();
      } catch (IOException | InterruptedException e) {
        // the executor is going away
      }
    }

    private void loop(PluginContext ctx, String host, String dirs, double intervalS) {
      List<ObjectNode> outbox = new ArrayList<>();
      int seen = 0;
      long nextSample = 0;
      outbox.add(facts(host, dirs));
      while (running) {
        long now = System.currentTimeMillis();
        if (now >= nextSample) {
          outbox.add(sample(host, false));
          nextSample = now + (long) (intervalS * 1000);
        }
        try {
          ObjectNode ask = JSON.createObjectNode();
          ask.put("seen", seen);
          ArrayNode msgs = ask.putArray("msgs");
          outbox.forEach(msgs::add);
          JsonNode commands = JSON.readTree((String) ctx.ask(JSON.writeValueAsString(ask)));
          outbox.clear();
          for (JsonNode c : commands) {
            seen++;
            if ("sync".equals(c.path("cmd").asText())) outbox.add(sample(host, false)); // the job's end, as this node sees it
            outbox.add(obey(host, c));
          }
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // the driver did not answer (busy or going away): keep the messages, try again
          try {
            Thread.sleep(500);
          } catch (InterruptedException ie) {
            return;
          }
        }
      }
    }

    private ObjectNode obey(String host, JsonNode c) {
      String cmd = c.path("cmd").asText();
      if ("sync".equals(cmd)) {
        sync();
        return sample(host, true);
      }
      ObjectNode d = JSON.createObjectNode();
      d.put("kind", "dropped");
      d.put("host", host);
      d.put("token", c.path("token").asInt());
      if (!"drop".equals(cmd)) {
        d.put("ok", false);
        d.put("error", "unknown command " + cmd);
        return d;
      }
      try {
        sync();
        Files.writeString(Paths.get("/proc/sys/vm/drop_caches"), "3\n");
        d.put("ok", true);
        d.putNull("error");
      } catch (IOException | RuntimeException e) {
        d.put("ok", false);
        d.put("error", "cannot drop the page cache on " + host + ": " + e.getMessage() + " (the executor must run as root)");
      }
      return d;
    }

    private static void sync() {
      try {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
      } catch (IOException | InterruptedException e) {
        // nothing to sync with: the sample says what reached the devices
      }
    }

    private static String read(String path) {
      try {
        return Files.readString(Paths.get(path));
      } catch (IOException e) {
        return "";
      }
    }

    private static ObjectNode sample(String host, boolean synced) {
      ObjectNode s = JSON.createObjectNode();
      s.put("kind", "sample");
      s.put("host", host);
      s.put("t", System.currentTimeMillis() / 1000.0);
      s.put("diskstats", read("/proc/diskstats"));
      String stat = read("/proc/stat");
      s.put("stat", stat.contains("\n") ? stat.substring(0, stat.indexOf('\n')) : stat);
      s.put("net_dev", read("/proc/net/dev"));
      s.put("meminfo", read("/proc/meminfo"));
      long[] io = processIo();
      if (io == null) {
        s.putNull("io");
      } else {
        s.putArray("io").add(io[0]).add(io[1]);
      }
      if (synced) s.put("synced", true);
      return s;
    }

    private static long[] processIo() {
      long[] io = new long[] {-1, -1};
      for (String line : read("/proc/self/io").split("\n")) {
        if (line.startsWith("read_bytes: ")) io[0] = Long.parseLong(line.substring(12).trim());
        if (line.startsWith("write_bytes: ")) io[1] = Long.parseLong(line.substring(13).trim());
      }
      return io[0] < 0 || io[1] < 0 ? null : io;
    }

    private static ObjectNode facts(String host, String dirs) {
      ObjectNode m = JSON.createObjectNode();
      m.put("kind", "facts");
      m.put("host", host);
      m.put("agent", "spark-plugin");
      ObjectNode f = m.putObject("facts");
      f.put("cores", Runtime.getRuntime().availableProcessors());
      for (String line : read("/proc/meminfo").split("\n")) {
        if (line.startsWith("MemTotal:")) {
          f.put("mem_bytes", Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024);
        }
      }
      f.put("kernel", read("/proc/sys/kernel/osrelease").trim());
      ObjectNode d = f.putObject("dirs");
      for (String dir : dirs.split(",")) {
        if (!dir.isEmpty()) d.set(dir, where(dir));
      }
      ArrayNode bm = f.putArray("block_manager_dirs");
      try {
        for (File local : SparkEnv.get().blockManager().diskBlockManager().localDirs()) {
          bm.add(local.getAbsolutePath());
          d.set(local.getAbsolutePath(), where(local.getAbsolutePath()));
        }
      } catch (RuntimeException e) {
        // no block manager yet: the study's dirs still say where things are
      }
      return m;
    }

    /** The block device (its /proc/diskstats name) and the mount of a directory, as this host sees it. */
    private static ObjectNode where(String dir) {
      ObjectNode w = JSON.createObjectNode();
      Path p = Paths.get(dir);
      while (p != null && !Files.exists(p)) p = p.getParent();
      if (p == null) p = Paths.get("/");
      String device = null;
      try {
        long dev = ((Number) Files.getAttribute(p, "unix:dev")).longValue();
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        if (major != 0) device = Paths.get("/sys/dev/block/" + major + ":" + minor).toRealPath().getFileName().toString();
      } catch (IOException | RuntimeException e) {
        // tmpfs, overlay or a network file system: no block device
      }
      if (device == null) w.putNull("device"); else w.put("device", device);
      String real;
      try {
        real = p.toRealPath().toString();
      } catch (IOException e) {
        real = p.toString();
      }
      String[] best = null;
      for (String line : read("/proc/mounts").split("\n")) {
        String[] parts = line.split(" ");
        if (parts.length < 4) continue;
        String mp = parts[1].replace("\\040", " ");
        boolean under = real.equals(mp) || real.startsWith(mp.endsWith("/") ? mp : mp + "/");
        if (under && (best == null || mp.length() >= best[1].length())) best = new String[] {parts[0], mp, parts[2], parts[3]};
      }
      if (best != null) {
        w.put("mount_point", best[1]);
        w.put("fs_type", best[2]);
        w.put("options", best[3]);
      }
      return w;
    }
  }
}
