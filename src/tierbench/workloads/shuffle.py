"""A shuffle and nothing else: only the intermediate (shuffle/spill) storage is exercised."""

import math

from ..units import MB
from .base import IORoles, Measurement, Metric, Param, Workload, define_metrics, generator_tasks, rate

ORDER = 40

define_metrics(block_kb=Metric("KiB", "shuffle: bytes each reducer fetches from each map (size / (maps x reducers))"))


class Shuffle(Workload):
    name, title = "shuffle", "Shuffle"
    doc = ("A shuffle and nothing else: map tasks generate random bytes for every reducer, reducers fetch and "
           "count them; nothing is read before or written after, so only the intermediate storage is exercised.")
    params = (Param("size", "size", 256 * MB, "bytes shuffled (map output)"),
              Param("map_tasks", "count", 0, "map tasks (0: one per 64 MB, at least 2)"),
              Param("partitions", "count", 0, "reducers (0: as many as map tasks, or from fetch_size)"),
              Param("fetch_size", "size", None, "bytes each reducer fetches from each map, e.g. 512KB; "
                    "sets the reducers (size / (map_tasks x fetch_size)) unless partitions is given"))
    metrics = ("data_mb", "throughput_mb_s", "block_kb", "map_tasks", "reduce_tasks")
    phases = ("map (generate)", "reduce (fetch)")
    io = IORoles(input=None, intermediate="data_mb", output=None)
    verifies = True
    spark_job = "Shuffle.run"
    hadoop_main = "tierbench.mapreduce.Shuffle"  # tierbench's own MapReduce job (Hadoop's examples have none)
    warm_up_overrides = {"size": 16 * MB, "map_tasks": 2, "partitions": 0, "fetch_size": None}

    def planned_io(self, params, input_bytes):
        return {"input": 0, "intermediate": params["size"], "output": 0}

    def spark_params(self, req):
        p = req.params
        maps = generator_tasks(p["size"], p["map_tasks"])
        reducers = p["partitions"] or (max(1, math.ceil(p["size"] / (maps * p["fetch_size"]))) if p.get("fetch_size") else maps)
        return {"bytes": p["size"], "maps": maps, "reducers": reducers,
                "record_bytes": max(1, min(1 << 20, p["size"] // (maps * reducers) or 1))}

    def hadoop_command(self, req, mode):
        p = self.spark_params(req)  # the same maps, reducers and records as the spark job's
        return {}, [str(p[k]) for k in ("bytes", "maps", "reducers", "record_bytes")]

    def hadoop_result(self, log, req):
        c, p = log.counters, self.spark_params(req)
        return {"bytes_shuffled": c.get("RECEIVED", 0), "bytes_expected": p["bytes"],
                "map_tasks": c.get("Launched map tasks", p["maps"]), "reduce_tasks": c.get("Launched reduce tasks", p["reducers"]),
                "block_bytes": p["bytes"] // (p["maps"] * p["reducers"])}, log.job_seconds()

    def scale_params(self, model) -> dict:
        # the node's data, by the target's map inputs, to a node's share of its reducers: each fetch the target's size
        return {"size": model.data_bytes, "map_tasks": model.maps, "partitions": model.reducers}

    def measure(self, job, wall_s, produced):
        m = {**rate(job["bytes_shuffled"] / MB, wall_s), "block_kb": job["block_bytes"] / 1024,
             "map_tasks": job["map_tasks"], "reduce_tasks": job["reduce_tasks"]}
        failure = None
        if job["bytes_shuffled"] != job["bytes_expected"]:
            failure = f"Shuffle: reducers received {job['bytes_shuffled']} bytes of the {job['bytes_expected']} the maps sent"
        # (the spark job counts each reducer's bytes; MapReduce's counters hold only the total)
        return Measurement(m, {"reducer_bytes": job["reducer_bytes"]} if "reducer_bytes" in job else {}, failure)


WORKLOADS = (Shuffle(),)
