"""A Spark standalone cluster on 127.0.0.1: one Master and K Workers, from pyspark's own distribution.

The path for users who outgrow local[N]: a study with master = "spark://..."
runs its jobs on executors in other JVMs, as on a real cluster (the jobs jar
is shipped with spark.jars). Note that standalone executors put shuffle and
spill data in their Worker's local dirs (here: this service's directory), not
in the storage configuration's `intermediate` dirs.
"""

import json
import os
import urllib.request
from pathlib import Path

from ..toolchain import pyspark_home
from ..errors import UserError
from .base import Daemon, free_port, wait_until_ready

READY_TIMEOUT_S = 90


class SparkStandalone:
    name = "spark"

    def __init__(self, home: Path, workers: int = 2, cores_per_worker: int = 1, memory_per_worker: str = "1g"):
        self.home = Path(home)
        self.workers = workers
        self.cores, self.memory = cores_per_worker, memory_per_worker
        self.master = Daemon(self.home, "master")

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    def _worker_daemons(self) -> list[Daemon]:
        try:
            n = json.loads(self.state_file.read_text())["workers"]
        except (OSError, ValueError, KeyError):
            n = self.workers
        return [Daemon(self.home, f"worker-{i}") for i in range(1, n + 1)]

    def _env(self) -> dict:
        env = os.environ.copy()
        env.update({"SPARK_HOME": str(pyspark_home()), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(self.home / "logs"),
                    "SPARK_NO_DAEMONIZE": "1"})
        return env

    def up(self, on_phase=print) -> dict:
        if self.master.pid() or any(w.pid() for w in self._worker_daemons()):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"Spark standalone in {self.home} is partly running; run `tierbench services down spark` first")
        ports = {"master": free_port(), "web": free_port()}
        self.home.mkdir(parents=True, exist_ok=True)
        self.state_file.write_text(json.dumps({"ports": ports, "workers": self.workers}))
        spark_class = str(pyspark_home() / "bin" / "spark-class")
        url = f"spark://127.0.0.1:{ports['master']}"
        on_phase("starting the Master")
        self.master.start([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                           "--port", str(ports["master"]), "--webui-port", str(ports["web"])], self._env())
        for i, w in enumerate(self._worker_daemons(), 1):
            on_phase(f"starting Worker {i} ({self.cores} core(s), {self.memory})")
            work = self.home / f"worker-{i}"
            work.mkdir(exist_ok=True)
            env = self._env() | {"SPARK_LOCAL_DIRS": str(work / "local")}
            w.start([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", str(self.cores),
                     "--memory", self.memory, "--work-dir", str(work), "--webui-port", "0", url], env)
        on_phase(f"waiting for {self.workers} Worker(s) to register")
        return wait_until_ready(self, [self.master, *self._worker_daemons()], "Spark standalone", READY_TIMEOUT_S, self.home)

    def status(self) -> dict:
        workers = self._worker_daemons()
        st = {"name": "spark", "dir": str(self.home), "ready": False, "master_pid": self.master.pid(),
              "worker_pids": [w.pid() for w in workers], "workers_alive": 0}
        try:
            ports = json.loads(self.state_file.read_text())["ports"]
        except (OSError, ValueError, KeyError):
            return st
        st["master_url"] = f"spark://127.0.0.1:{ports['master']}"
        st["web"] = f"http://127.0.0.1:{ports['web']}"
        if st["master_pid"]:
            try:
                with urllib.request.urlopen(f"{st['web']}/json/", timeout=3) as r:
                    st["workers_alive"] = int(json.load(r).get("aliveworkers", 0))
            except (OSError, ValueError):
                pass
        st["ready"] = bool(st["master_pid"] and st["workers_alive"] >= len(workers) > 0)
        return st

    def down(self) -> bool:
        stopped = False
        for w in self._worker_daemons():
            stopped = w.stop(grace_s=20) or stopped
        return self.master.stop(grace_s=20) or stopped

    def up_lines(self, st: dict) -> list[str]:
        """What `tierbench services up` prints once it is ready: where it is, how to use it, how to stop it."""
        return [f"spark is up: master {st['master_url']}, web UI {st['web']}, {st['workers_alive']} Worker(s) alive",
                f"use it:  in a spec, [engine] master = \"{st['master_url']}\"",
                "stop it: tierbench services down spark"]

    def status_line(self, st: dict, conf_dir_only: bool = False) -> tuple[str, bool]:
        """`tierbench services status`'s line and whether that is success (conf_dir_only: yarn's; ignored here)."""
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["master_pid"] else "not running")
        return (f"spark: {state}; master {st.get('master_url', '-')}, {st['workers_alive']} Worker(s) alive; dir {st['dir']}",
                bool(st["ready"]))
