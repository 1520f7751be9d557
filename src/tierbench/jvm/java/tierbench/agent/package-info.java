/**
 * What tierbench observes inside Spark: the node agent plugin (spark.plugins), one sampling agent per
 * executor host, and the listener that records each stage of a job (its times and bytes).
 */
package tierbench.agent;
