"""One Spark application, in a process of its own, serving job requests from tierbench.

Spark's local dirs are fixed when its JVM starts, so each storage
configuration gets its own application; a separate process makes that a
fresh JVM, isolates crashes, and dies with its parent. The protocol is JSON
lines on a private pipe (Spark's JVM inherits stdout, which we point at the
log instead):

  parent -> worker (stdin):  {"job": NAME, "params": {...}}   |  {"stop": true}  |  {"idle": true}
                             {"agents": "drain"} | {"agents": "hosts"} | {"agents": "command", "cmd": {...}}
                             {"s3a": "snapshot"} (S3A's counters in this JVM: S3AStatistics.java)
                             (the node agents of sampling/nodes.py, when spark.plugins has NodeAgentPlugin)
  worker -> parent:          {"event": "ready", "spark_version": ..., "conf": {...}}
                             {"event": "progress", "stage": N, "stages": M, "done": D, "total": T}
                             {"event": "result", "ok": true, "result": {...}, "wall_s": S}
                             {"event": "result", "ok": false, "error": "..."}
                             {"event": "agents", "messages": [...]} | {"event": "agents", "hosts": [...]}
                             {"event": "s3a", "filesystems": N, "counters": {...}} | {"event": "s3a", "error": "..."}
                             {"event": "idle"} (after a garbage collection, so that Spark's cleaner removes
                             what finished jobs left before another configuration's runs are measured)
"""

import json
import os
import sys
import threading
import time
import traceback

_write_lock = threading.Lock()


def _send(out, obj) -> None:
    with _write_lock:
        out.write(json.dumps(obj) + "\n")
        out.flush()


def _watch_progress(sc, out, stop: threading.Event) -> None:
    tracker = sc.statusTracker()
    last = None
    seen_stages: set[int] = set()
    while not stop.wait(0.5):
        try:
            active = sorted(tracker.getActiveStageIds())
            if not active:
                continue
            info = tracker.getStageInfo(active[-1])
            if info is None:
                continue
            seen_stages.update(active)
            state = (len(seen_stages), info.numCompletedTasks, info.numTasks)
            if state != last:
                last = state
                _send(out, {"event": "progress", "stage": len(seen_stages), "name": info.name,
                            "done": info.numCompletedTasks, "total": info.numTasks})
        except Exception:  # progress is a nicety; never let it break a run
            pass


def main() -> None:
    # keep our protocol channel, then send everything else (incl. the JVM's stdout) to stderr = the log
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    setup = json.loads(sys.stdin.readline())
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    conf = SparkConf().setAll(list(setup["conf"].items()))
    spark = SparkSession.builder.config(conf=conf).getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    jobs = sc._jvm.tierbench.jobs.Jobs
    _send(proto, {"event": "ready", "spark_version": spark.version, "conf": dict(sc.getConf().getAll())})

    for line in sys.stdin:
        req = json.loads(line)
        if req.get("stop"):
            break
        if req.get("idle"):  # parked until its configuration's next turn: Spark's cleaner does its work now
            sc._jvm.java.lang.System.gc()
            time.sleep(0.3)
            _send(proto, {"event": "idle"})
            continue
        if "s3a" in req:  # between jobs: S3A's counters in this JVM (the spark engine takes a run's difference)
            _send(proto, _s3a_counters(sc))
            continue
        if "agents" in req:  # between jobs: the node agents' messages, executor hosts, or a command for the agents
            _send(proto, _agents(sc, req))
            continue
        stop = threading.Event()
        watcher = threading.Thread(target=_watch_progress, args=(sc, proto, stop), daemon=True)
        watcher.start()
        t0 = time.perf_counter()
        try:
            result = json.loads(jobs.run(sc._jsc, req["job"], json.dumps(req["params"])))
            wall = time.perf_counter() - t0
            stop.set()
            _send(proto, {"event": "result", "ok": True, "result": result, "wall_s": wall})
        except Exception as e:  # the job failed: report it, keep serving
            stop.set()
            msg = str(e)
            java_msg = getattr(e, "java_exception", None)
            if java_msg is not None:
                msg = _java_cause(java_msg)
            traceback.print_exc()
            dead = _jvm_death(sc)
            if dead:  # nothing more can run here: say so, and exit so that tierbench starts a fresh application
                _send(proto, {"event": "result", "ok": False, "error": f"{dead} ({msg})", "wall_s": time.perf_counter() - t0,
                              "engine_dead": True})
                watcher.join(timeout=2)
                os._exit(3)
            _send(proto, {"event": "result", "ok": False, "error": msg, "wall_s": time.perf_counter() - t0})
        watcher.join(timeout=2)
    spark.stop()


def _agents(sc, req: dict) -> dict:
    plugin = sc._jvm.tierbench.agent.NodeAgentPlugin
    if req["agents"] == "drain":
        return {"event": "agents", "messages": json.loads(plugin.drain())}
    if req["agents"] == "hosts":
        return {"event": "agents", "hosts": json.loads(plugin.executorHosts(sc._jsc.sc()))}
    plugin.command(json.dumps(req["cmd"]))
    return {"event": "agents", "messages": []}


def _s3a_counters(sc) -> dict:
    try:
        return {"event": "s3a", **json.loads(sc._jvm.tierbench.agent.S3AStatistics.snapshot())}
    except Exception as e:  # (py4j's errors) the counts are not seen, so none are claimed
        return {"event": "s3a", "error": str(e).splitlines()[0] if str(e) else type(e).__name__}


def _jvm_death(sc) -> str | None:
    """Why Spark's JVM is gone (None while it answers)."""
    import signal as _signal

    proc = getattr(sc._gateway, "proc", None)
    code = proc.poll() if proc is not None else None
    if code is None:
        try:
            sc._jvm.java.lang.System.currentTimeMillis()
            return None
        except Exception:
            return "the Spark JVM stopped answering"
    if code < 0:
        return f"the Spark JVM was killed by {_signal.Signals(-code).name}"
    return f"the Spark JVM exited with status {code}" + (" (out of memory?)" if code in (52, 137) else "")


def _java_cause(jexc) -> str:
    """The innermost Java exception's message: what actually went wrong, in one line."""
    cause = jexc
    try:
        while cause.getCause() is not None:
            cause = cause.getCause()
        return f"{cause.getClass().getSimpleName()}: {cause.getMessage()}"
    except Exception:
        return str(jexc).splitlines()[0]


if __name__ == "__main__":
    main()
