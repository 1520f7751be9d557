/**
 * The benchmarks' peers of tierbench's jobs (bench/), in a jar of their own built on the jobs jar
 * (bench/common.py): never part of what tierbench runs.
 */
package tierbench.bench;
