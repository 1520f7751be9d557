"""Engine-neutral workload definitions: parameters, data flow, metrics."""

from .registry import WORKLOADS, METRICS, Workload, Param, generator_tasks, get_workload

__all__ = ["WORKLOADS", "METRICS", "Workload", "Param", "generator_tasks", "get_workload"]
