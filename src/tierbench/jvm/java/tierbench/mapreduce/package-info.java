/**
 * tierbench's own MapReduce jobs, for workloads that Hadoop's examples lack (Shuffle), run by the hadoop engine
 * as Hadoop's own jobs are: a main class taking generic -D options, its counters the result.
 */
package tierbench.mapreduce;
