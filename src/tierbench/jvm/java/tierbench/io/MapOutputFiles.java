package tierbench.io;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapreduce.TaskID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's local files in the hadoop engine's local mode (mapreduce.task.local.output.class): placed as Hadoop's
 * MROutputFiles places them -- each spill, merged map output and reduce-side file in the local dir that
 * LocalDirAllocator picks among mapreduce.cluster.local.dir (the dirs with room, in turn), so that a drive listed
 * as N dirs takes N shares -- but for one thing: a merged map output's index goes beside that output.
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

  /** Logs where a file went, with the size MapReduce asked room for (its estimate of the file's bytes). */
  private Path placed(String what, Path path, long size) {
    String attempt = getConf() == null ? null : getConf().get("mapreduce.task.attempt.id");
    LOG.info("{} of {} in {}{}", what, attempt == null ? "a task" : attempt, path,
        size >= 0 ? " (" + size + " bytes asked)" : "");
    return path;
  }
}
