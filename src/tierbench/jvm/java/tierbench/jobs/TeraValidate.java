package tierbench.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaSparkContext;
import tierbench.io.DataSet;
import tierbench.io.RowReader;
import tierbench.io.TeraRows;
import tierbench.io.Unsigned128;

/**
 * TeraValidate as Hadoop does it: one task per part file checks that the file
 * is in key order and sums the rows' CRC-32s; the driver then checks that each
 * file's first key is not below the previous file's last key. Errors use
 * Hadoop's wording ("misorder in ...", "bad key partitioning").
 */
final class TeraValidate {
  private TeraValidate() {}

  static final int MAX_ERRORS = 20;

  /** What one task learns about one file. */
  static final class FileCheck implements java.io.Serializable {
    String name;
    long rows;
    long sumHi;
    long sumLo;
    byte[] first;
    byte[] last;
    long misorders;
    String firstError;
  }

  static ObjectNode run(JavaSparkContext jsc, JsonNode p) throws Exception {
    final DataSet in = new DataSet(Jobs.strings(p.get("input")));
    final SerializableWritable<Configuration> conf = new SerializableWritable<>(jsc.hadoopConfiguration());
    List<DataSet.Part> parts = in.parts(conf.value());

    jsc.setJobDescription("teravalidate: check " + parts.size() + " files");
    List<FileCheck> checks = jsc.parallelize(parts, Math.max(1, parts.size())).map(part -> {
      FileCheck c = new FileCheck();
      c.name = part.name;
      if (part.size % TeraRows.ROW != 0) {
        c.firstError = "truncated file " + part.name + ": " + part.size
            + " bytes is not a whole number of 100-byte rows";
        c.misorders = 0;
      }
      Unsigned128 sum = new Unsigned128();
      CRC32 crc = new CRC32();
      try (RowReader rows = new RowReader(conf.value(), part.path, 0, part.size)) {
        while (rows.hasNext()) {
          byte[] row = rows.next();
          if (c.first == null) {
            c.first = row;
          } else if (TeraRows.compareKeys(row, c.last) < 0) {
            if (c.misorders == 0 && c.firstError == null) {
              c.firstError = "misorder in " + part.name + " between " + TeraRows.keyText(c.last)
                  + " and " + TeraRows.keyText(row);
            }
            c.misorders++;
          }
          c.last = row;
          crc.reset();
          crc.update(row, 0, TeraRows.ROW);
          sum.add(0, crc.getValue());
          c.rows++;
        }
      }
      c.sumHi = sum.hi();
      c.sumLo = sum.lo();
      return c;
    }).collect();

    ObjectNode r = Jobs.JSON.createObjectNode();
    ArrayNode errors = r.putArray("errors");
    long errorCount = 0;
    long rows = 0;
    Unsigned128 checksum = new Unsigned128();
    FileCheck previous = null;
    for (FileCheck c : checks) {
      rows += c.rows;
      checksum.add(c.sumHi, c.sumLo);
      if (c.firstError != null) {
        errorCount += Math.max(1, c.misorders);
        if (errors.size() < MAX_ERRORS) {
          errors.add(c.firstError + (c.misorders > 1 ? " (and " + (c.misorders - 1) + " more in this file)" : ""));
        }
      }
      if (c.first == null) {
        continue;
      }
      if (previous != null && TeraRows.compareKeys(c.first, previous.last) < 0) {
        errorCount++;
        if (errors.size() < MAX_ERRORS) {
          errors.add("bad key partitioning: file " + previous.name + " ends with key "
              + TeraRows.keyText(previous.last) + ", file " + c.name + " begins with key "
              + TeraRows.keyText(c.first));
        }
      }
      previous = c;
    }
    r.put("rows", rows);
    r.put("bytes_read", rows * TeraRows.ROW);
    r.put("checksum", checksum.toString());
    r.put("error_count", errorCount);
    r.put("files", checks.size());
    return r;
  }
}
