"""A Spark standalone cluster on this machine: one Master and K Workers, from pyspark's own distribution.

The path for users who outgrow local[N]: a study with master = "spark://..."
runs its jobs on executors in other JVMs, as on a real cluster (the jobs jar
is shipped with spark.jars). Worker i listens on its own loopback address,
127.0.0.(i+1) (the Master on 127.0.0.1), so its executors report a host of
their own, as on a cluster of nodes. Standalone executors put shuffle and
spill data in their Worker's local dirs (SPARK_LOCAL_DIRS), never in
spark.local.dir: so a study on this cluster restarts the Workers for each
storage configuration with that configuration's intermediate dirs
(`restart_workers`, called when the engine starts the configuration's
application), and puts them back on their own dirs when it ends.
`services up` records which master URL is which service directory
(toolchain.remember_spark_master) for the spec's validation and the engine.
"""

import json
import os
import time
import urllib.request
from pathlib import Path

from ..toolchain import embedded_spark_dir, pyspark_home, remember_spark_master
from ..errors import UserError
from ..safefiles import write_text
from .base import Daemon, claim_dir, free_port, wait_until_ready

READY_TIMEOUT_S = 90
ORDER = 2  # its place among `tierbench services`' services (services/registry.py)
MAX_WORKERS = 250  # Worker i on 127.0.0.(i+1)
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def worker_host(i: int) -> str:
    """Worker i's own loopback address (Linux routes all of 127.0.0.0/8 to lo, no set-up needed)."""
    return f"127.0.0.{i + 1}"


def embedded_standalone(master: str) -> "SparkStandalone | None":
    """The `tierbench services up spark` cluster whose Master is `master`, or None (another cluster's)."""
    home = embedded_spark_dir(master)
    return SparkStandalone(home) if home is not None else None


class SparkStandalone:
    name = "spark"

    def __init__(self, home: Path, workers: int = 2, cores_per_worker: int = 1, memory_per_worker: str = "1g",
                 worker_dirs: list | None = None):
        self.home = Path(home)
        self.workers = workers
        self.cores, self.memory = cores_per_worker, memory_per_worker
        self.worker_dirs = [Path(d).resolve() for d in worker_dirs or []]  # Worker i's local dirs on the i-th, round-robin
        self.master = Daemon(self.home, "master")

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    def _state(self) -> dict:
        """service.json as `up` wrote it (older ones lack cores, memory, master_url, worker_dirs: the defaults)."""
        try:
            state = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(state, dict):
            return {}
        if "ports" in state:
            state.setdefault("master_url", f"spark://127.0.0.1:{state['ports']['master']}")
        return state

    def _write_state(self, state: dict) -> None:
        tmp = self.state_file.with_suffix(".tmp")
        write_text(tmp, json.dumps(state, indent=1))
        os.replace(tmp, self.state_file)

    def registered_workers(self) -> int:
        """How many Workers `up` started (each is one executor host of an application)."""
        return int(self._state().get("workers", self.workers))

    def _worker_daemons(self) -> list[Daemon]:
        n = self._state().get("workers", self.workers)
        return [Daemon(self.home, f"worker-{i}") for i in range(1, n + 1)]

    def _env(self, host: str = "127.0.0.1") -> dict:
        env = os.environ.copy()
        env.update({"SPARK_HOME": str(pyspark_home()), "SPARK_LOCAL_IP": host, "SPARK_LOG_DIR": str(self.home / "logs"),
                    "SPARK_NO_DAEMONIZE": "1"})
        return env

    def default_local_dirs(self, i: int) -> list[Path]:
        """Worker i's own local dirs: a `worker-<i>` dir on the i-th --worker-dirs dir (round-robin), else in its work dir."""
        dirs = self._state().get("worker_dirs") or []
        return [Path(dirs[(i - 1) % len(dirs)]) / f"worker-{i}"] if dirs else [self.home / f"worker-{i}" / "local"]

    def _start_worker(self, i: int, daemon: Daemon, local_dirs: list[Path], state: dict) -> None:
        work = self.home / f"worker-{i}"
        work.mkdir(exist_ok=True)
        for d in local_dirs:
            d.mkdir(parents=True, exist_ok=True)
        # SPARK_LOCAL_IP: what the Worker and the executors it launches bind to and report as their host
        env = self._env(worker_host(i)) | {"SPARK_LOCAL_DIRS": ",".join(str(d) for d in local_dirs)}
        daemon.start([str(pyspark_home() / "bin" / "spark-class"), WORKER_CLASS, "--host", worker_host(i),
                      "--cores", str(state.get("cores", self.cores)), "--memory", state.get("memory", self.memory),
                      "--work-dir", str(work), "--webui-port", "0", state["master_url"]], env)
        state.setdefault("worker_local_dirs", {})[str(i)] = [str(d) for d in local_dirs]

    def up(self, on_phase=print) -> dict:
        claim_dir(self.home, self.name)  # (a folder of someone else's files is refused before anything is written)
        if self.master.pid() or any(w.pid() for w in self._worker_daemons()):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"Spark standalone in {self.home} is partly running; run `tierbench services down spark` first")
        if not 1 <= self.workers <= MAX_WORKERS:
            raise UserError(f"--workers: 1 to {MAX_WORKERS} (Worker i listens on 127.0.0.(i+1)), got {self.workers}")
        for d in self.worker_dirs:
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise UserError(f"--worker-dirs: cannot create {d}: {e.strerror}") from None
        ports = {"master": free_port(), "web": free_port()}
        self.home.mkdir(parents=True, exist_ok=True)
        url = f"spark://127.0.0.1:{ports['master']}"
        state = {"ports": ports, "workers": self.workers, "cores": self.cores, "memory": self.memory, "master_url": url,
                 "worker_dirs": [str(d) for d in self.worker_dirs]}
        self._write_state(state)
        remember_spark_master(url, self.home)
        on_phase("starting the Master")
        self.master.start([str(pyspark_home() / "bin" / "spark-class"), "org.apache.spark.deploy.master.Master",
                           "--host", "127.0.0.1", "--port", str(ports["master"]), "--webui-port", str(ports["web"])], self._env())
        for i, w in enumerate(self._worker_daemons(), 1):
            on_phase(f"starting Worker {i} on {worker_host(i)} ({self.cores} core(s), {self.memory})")
            self._start_worker(i, w, self.default_local_dirs(i), state)
        self._write_state(state)
        on_phase(f"waiting for {self.workers} Worker(s) to register")
        return wait_until_ready(self, [self.master, *self._worker_daemons()], "Spark standalone", READY_TIMEOUT_S, self.home)

    def _master_json(self) -> dict:
        """The Master's /json/ page (its workers, their hosts and states), or {} when it does not answer."""
        state = self._state()
        if "ports" not in state:
            return {}
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{state['ports']['web']}/json/", timeout=3) as r:
                return json.load(r)
        except (OSError, ValueError):
            return {}

    def restart_workers(self, local_dirs: list[Path] | None, on_phase=lambda text: None) -> None:
        """Every Worker stopped and started again, Worker i on `<d>/worker-<i>` for each d in local_dirs (two Workers
        never share a dir; None: each on its own default dirs); returns once all have registered again. Executors
        of a running application would be lost: call it between applications."""
        state = self._state()
        if "master_url" not in state or not self.master.pid():
            raise UserError(f"the Spark standalone cluster in {self.home} is not running: start it with "
                            f"`tierbench services up spark --dir {self.home}`")
        daemons = self._worker_daemons()
        own = lambda i: self.default_local_dirs(i) if local_dirs is None else [Path(d) / f"worker-{i}" for d in local_dirs]
        wanted = {str(i): [str(d) for d in own(i)] for i in range(1, len(daemons) + 1)}
        if state.get("worker_local_dirs") == wanted and self.status()["ready"]:
            return  # already there (an application restarted for the same configuration)
        before = {w.get("id") for w in self._master_json().get("workers", [])}
        on_phase(f"restarting {len(daemons)} Spark Worker(s) on " + ("their own local dirs" if local_dirs is None
                                                                      else ", ".join(str(d) for d in local_dirs)))
        for w in daemons:
            w.stop(grace_s=20)
        for i, w in enumerate(daemons, 1):
            self._start_worker(i, w, [Path(d) for d in wanted[str(i)]], state)
        self._write_state(state)
        deadline = time.time() + READY_TIMEOUT_S
        while time.time() < deadline:
            fresh = [w for w in self._master_json().get("workers", []) if w.get("state") == "ALIVE" and w.get("id") not in before]
            if len(fresh) >= len(daemons):
                return
            for d in daemons:
                if d.pid() is None:
                    raise UserError(f"Spark standalone's {d.name} exited while restarting; see {d.log}: {d.log_tail()}")
            time.sleep(0.5)
        raise UserError(f"Spark standalone's Workers did not register again in {READY_TIMEOUT_S} s; see the logs in {self.home}")

    def status(self) -> dict:
        workers = self._worker_daemons()
        st = {"name": "spark", "dir": str(self.home), "ready": False, "master_pid": self.master.pid(),
              "worker_pids": [w.pid() for w in workers], "workers_alive": 0}
        state = self._state()
        if "ports" not in state:
            return st
        st["master_url"] = state["master_url"]
        st["web"] = f"http://127.0.0.1:{state['ports']['web']}"
        st["worker_local_dirs"] = state.get("worker_local_dirs", {})
        if st["master_pid"]:
            page = self._master_json()
            st["workers_alive"] = int(page.get("aliveworkers", 0))
            st["worker_hosts"] = sorted(w.get("host", "") for w in page.get("workers", []) if w.get("state") == "ALIVE")
        st["ready"] = bool(st["master_pid"] and st["workers_alive"] >= len(workers) > 0)
        return st

    def down(self) -> bool:
        stopped = False
        for w in self._worker_daemons():
            stopped = w.stop(grace_s=20) or stopped
        stopped = self.master.stop(grace_s=20) or stopped
        url = self._state().get("master_url")
        registered = embedded_spark_dir(url) if url else None
        if registered is not None and registered.resolve() == self.home.resolve():
            remember_spark_master(url, None)
        return stopped

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


SERVICE = SparkStandalone
