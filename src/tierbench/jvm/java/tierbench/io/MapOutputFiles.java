package tierbench.io;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.TaskID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's local files in the hadoop engine's local mode (mapreduce.task.local.output.class): named as Hadoop's
 * MROutputFiles names them, each spill, merged map output and reduce-side file in one of
 * mapreduce.cluster.local.dir, so that a drive listed as N dirs takes N shares -- but for two things: each goes to
 * the next dir in turn (with room for it), and a merged map output's index goes beside that output.
 *
 * Why in turn: LocalDirAllocator steps a random 1..n-1 dirs on from the last for each file, which over a target
 * node's thousands of spills and outputs gives each drive its share; a scale model's job makes a few dozen, and its
 * shares were a lottery (examples/cloudera.toml's split hybrid, an SSD listed as 10 of 16 dirs, 2026-11-29: the SSD
 * took 42-72% of a TeraSort's writes). The turn is the JVM's (the local runner's tasks share it) over the dirs as
 * listed, which tierbench interleaves by drive (storage/emulated_spec.py interleave_drives), so that any run of
 * turns gives each drive its share as nearly as it can. Readers find a file wherever it is (getLocalPathToRead
 * looks in every dir).
 *
 * Why: a map that spills more than once (or never) asks for its output and its index separately
 * (MapTask.MapOutputBuffer.mergeParts: getOutputFileForWrite, then getOutputIndexFileForWrite), and
 * LocalDirAllocator never gives two calls in a row the same dir (it steps 1..n-1 dirs on): with several local dirs
 * the index lands in another dir. On YARN the ShuffleHandler finds each by itself; the local runner's reduce side
 * does not: LocalFetcher.copyMapOutput reads the index at getOutputFile().suffix(".index") -- beside the output
 * -- and fails (FileNotFoundException: .../output/file.out.index). A map with one spill renames it and writes the
 * index beside it (the ...InVolume calls), so only maps that spill more than once failed. Each file placed is
 * logged ("spill 3 of attempt_... in /dir/... (N bytes asked)"), for where the intermediate bytes went.
 */
public class MapOutputFiles extends MROutputFiles {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputFiles.class);
  private static final AtomicLong TURNS = new AtomicLong();  // the JVM's: every task's files take their turns in it
  private Path output;  // this task's merged output, once asked for: its index goes in the same dir

  @Override
  public Path getOutputFileForWrite(long size) throws IOException {
    output = placed("map output", super.getOutputFileForWrite(size), size);
    HeldFiles.expect(getConf(), output);
    return output;
  }

  @Override
  public Path getOutputFileForWriteInVolume(Path existing) {
    return placed("map output", super.getOutputFileForWriteInVolume(existing), -1);  // a lone spill, renamed
  }

  @Override
  public Path getOutputIndexFileForWrite(long size) throws IOException {
    return output == null ? super.getOutputIndexFileForWrite(size) : getOutputIndexFileForWriteInVolume(output);
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    Path spill = placed("spill " + spillNumber, super.getSpillFileForWrite(spillNumber, size), size);
    HeldFiles.expect(getConf(), spill);
    return spill;
  }

  @Override
  public Path getInputFileForWrite(TaskID mapId, long size) throws IOException {
    Path input = placed("reduce input", super.getInputFileForWrite(mapId, size), size);
    DirectReads.expect(getConf(), input);
    return input;
  }

  /** Logs where a file went, with the size MapReduce asked room for (its estimate of the file's bytes); a file
   * LocalDirAllocator placed (a size asked) is moved to the next dir in turn first. */
  private Path placed(String what, Path path, long size) {
    if (size >= 0) {
      path = inTurn(path, size);
    }
    String attempt = getConf() == null ? null : getConf().get("mapreduce.task.attempt.id");
    LOG.info("{} of {} in {}{}", what, attempt == null ? "a task" : attempt, path,
        size >= 0 ? " (" + size + " bytes asked)" : "");
    return path;
  }

  /** The same file under the next local dir in turn that has room for `size` bytes (as it was: one dir only, or
   * none with room, where LocalDirAllocator's choice stands). */
  private Path inTurn(Path path, long size) {
    String[] dirs = getConf() == null ? new String[0] : getConf().getTrimmedStrings(MRConfig.LOCAL_DIR);
    String placed = path.toUri().getPath();
    for (String dir : dirs.length < 2 ? new String[0] : dirs) {
      String root = new Path(dir).toUri().getPath();
      if (!placed.startsWith(root + "/")) {
        continue;
      }
      String rel = placed.substring(root.length() + 1);
      for (int tried = 0; tried < dirs.length; tried++) {
        String next = dirs[(int) (TURNS.getAndIncrement() % dirs.length)];
        File file = new File(new Path(next).toUri().getPath(), rel);
        if (file.getParentFile().mkdirs() || file.getParentFile().isDirectory()) {
          if (file.getParentFile().getUsableSpace() > size) {
            return new Path(new Path(next), rel);
          }
        }
      }
      return path;
    }
    return path;
  }
}
