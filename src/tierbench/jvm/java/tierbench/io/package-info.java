/**
 * What the jobs read and write through, shared by them: data sets of part files (DataSet), the
 * 100-byte TeraSort row (TeraRows, Unsigned128) and its readers (RowReader, BlockReader), text with
 * Hadoop's codecs (TextIO), output through Hadoop's committers (OutputCommit), durable writes (Durable).
 */
package tierbench.io;
