/**
 * Spark's local-disk shuffle with each map output synced before its task ends: the shuffle IO plugin
 * (spark.shuffle.sort.io.plugin.class) of durable studies.
 */
package tierbench.shuffle;
