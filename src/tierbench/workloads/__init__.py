"""Workloads: one module per family (tera, dfsio, text, shuffle, data, sql), each owning every fact of its
workloads (parameters, engines and how they run it, metrics, checks, phases, IO roles). See base.py."""

from .base import METRICS, IORoles, Measurement, Metric, Param, Workload, generator_tasks
from .registry import WORKLOADS, measure, producer_of, producers_of

__all__ = ["WORKLOADS", "METRICS", "IORoles", "Measurement", "Metric", "Param", "Workload", "generator_tasks",
           "measure", "producer_of", "producers_of"]
