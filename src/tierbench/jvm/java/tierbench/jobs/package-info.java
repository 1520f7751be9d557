/**
 * The Spark jobs the workloads name ("Class.method", e.g. TeraGen.run), and Jobs: the one door into
 * them from Python (py4j), which also records each job's stages.
 */
package tierbench.jobs;
