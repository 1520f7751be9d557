"""Engines that execute workloads: Spark (tierbench's own Java jobs on pyspark)."""
