"""An embedded YARN: ResourceManager + NodeManager from Hadoop 3.4.2's jars, on 127.0.0.1.

With the four fixes Java 17 and these jars need: bcpkix on the classpath
(the pom has it), the FIFO scheduler (no capacity-scheduler.xml to ship),
--add-opens on the daemons and on every task JVM, and the timeline-service
jar. Its conf dir is what a hadoop engine in "yarn" mode submits with.
"""

import json
import os
import shutil
import urllib.request
from pathlib import Path

from ..toolchain import ADD_OPENS, hadoop_lib, hadoop_log4j_dir, java_bin
from ..errors import UserError
from ..safefiles import write_text
from .base import Daemon, claim_dir, free_port, wait_until_ready, xml_conf

READY_TIMEOUT_S = 120
ORDER = 1  # its place among `tierbench services`' services (services/registry.py)


class Yarn:
    name = "yarn"

    def __init__(self, home: Path):
        self.home = Path(home)
        self.conf = self.home / "conf"
        self.rm = Daemon(self.home, "resourcemanager")
        self.nm = Daemon(self.home, "nodemanager")

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    def _write_conf(self) -> dict:
        lib = hadoop_lib()
        ports = {k: free_port() for k in ("rm", "scheduler", "tracker", "admin", "web", "nm_web", "localizer", "shuffle")}
        for d in ("conf", "logs", "data/nm-local", "logs/containers", "tmp", "staging"):
            (self.home / d).mkdir(parents=True, exist_ok=True)
        cp = f"{self.conf}:{hadoop_log4j_dir()}:{lib}/*"
        write_text(self.conf / "core-site.xml", xml_conf({
            "fs.defaultFS": "file:///",
            "hadoop.tmp.dir": self.home / "tmp",
        }))
        write_text(self.conf / "yarn-site.xml", xml_conf({
            "yarn.resourcemanager.hostname": "127.0.0.1",
            "yarn.resourcemanager.address": f"127.0.0.1:{ports['rm']}",
            "yarn.resourcemanager.scheduler.address": f"127.0.0.1:{ports['scheduler']}",
            "yarn.resourcemanager.resource-tracker.address": f"127.0.0.1:{ports['tracker']}",
            "yarn.resourcemanager.admin.address": f"127.0.0.1:{ports['admin']}",
            "yarn.resourcemanager.webapp.address": f"127.0.0.1:{ports['web']}",
            "yarn.resourcemanager.scheduler.class": "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler",
            # the RM's node attribute store: /tmp/hadoop-yarn-<user> by default, which outlived the service
            "yarn.node-attribute.fs-store.root-dir": f"file://{self.home / 'tmp' / 'node-attribute'}",
            "yarn.nodemanager.hostname": "127.0.0.1",
            "yarn.nodemanager.address": "127.0.0.1:0",
            "yarn.nodemanager.webapp.address": f"127.0.0.1:{ports['nm_web']}",
            "yarn.nodemanager.localizer.address": f"127.0.0.1:{ports['localizer']}",
            "yarn.nodemanager.aux-services": "mapreduce_shuffle",
            "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
            "yarn.nodemanager.resource.memory-mb": 6144,
            "yarn.nodemanager.resource.cpu-vcores": 4,
            "yarn.scheduler.minimum-allocation-mb": 256,
            "yarn.scheduler.maximum-allocation-mb": 4096,
            "yarn.nodemanager.vmem-check-enabled": "false",
            "yarn.nodemanager.pmem-check-enabled": "false",
            "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "99.5",
            "yarn.nodemanager.local-dirs": self.home / "data" / "nm-local",
            "yarn.nodemanager.log-dirs": self.home / "logs" / "containers",
            "yarn.application.classpath": cp,
            "yarn.timeline-service.enabled": "false",
            "yarn.nodemanager.env-whitelist": "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,HADOOP_YARN_HOME,HADOOP_MAPRED_HOME,PATH,LANG,TZ",
        }))
        opts = f"-Xmx384m {ADD_OPENS}"
        write_text(self.conf / "mapred-site.xml", xml_conf({
            "mapreduce.framework.name": "yarn",
            "mapreduce.application.classpath": cp,
            "yarn.app.mapreduce.am.env": f"HADOOP_MAPRED_HOME={lib.parent}",
            "mapreduce.map.env": f"HADOOP_MAPRED_HOME={lib.parent}",
            "mapreduce.reduce.env": f"HADOOP_MAPRED_HOME={lib.parent}",
            "yarn.app.mapreduce.am.staging-dir": self.home / "staging",
            "yarn.app.mapreduce.am.resource.mb": 512,
            "yarn.app.mapreduce.am.command-opts": opts,
            "mapreduce.map.memory.mb": 512,
            "mapreduce.reduce.memory.mb": 512,
            "mapreduce.map.java.opts": opts,
            "mapreduce.reduce.java.opts": opts,
            "mapreduce.shuffle.port": ports["shuffle"],
        }))
        shutil.copy(hadoop_log4j_dir() / "log4j.properties", self.conf / "log4j.properties")
        return ports

    def up(self, on_phase=print) -> dict:
        claim_dir(self.home, self.name)  # (a folder of someone else's files is refused before anything is written)
        if self.rm.pid() or self.nm.pid():
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"YARN in {self.home} is partly running; run `tierbench services down yarn` first")
        on_phase("fetching Hadoop's jars (first use only) and writing the configuration")
        ports = self._write_conf()
        java = java_bin()
        env = os.environ.copy()
        env["JAVA_HOME"] = str(Path(os.path.realpath(java)).parent.parent)
        env["HADOOP_CONF_DIR"] = str(self.conf)
        cp = f"{self.conf}:{hadoop_lib()}/*"
        base = [java, "-Xmx512m", *ADD_OPENS.split(), f"-Djava.io.tmpdir={self.home / 'tmp'}",
                f"-Dhadoop.log.dir={self.home / 'logs'}", f"-Dyarn.log.dir={self.home / 'logs'}", "-cp", cp]
        write_text(self.state_file, json.dumps({"ports": ports, "conf_dir": str(self.conf)}))
        on_phase("starting the ResourceManager")
        self.rm.start(base + ["org.apache.hadoop.yarn.server.resourcemanager.ResourceManager"], env)
        on_phase("starting the NodeManager")
        self.nm.start(base + ["org.apache.hadoop.yarn.server.nodemanager.NodeManager"], env)
        on_phase("waiting for the NodeManager to register")
        return wait_until_ready(self, [self.rm, self.nm], "YARN", READY_TIMEOUT_S, self.home / 'logs')

    def status(self) -> dict:
        st = {"name": "yarn", "dir": str(self.home), "conf_dir": str(self.conf), "ready": False,
              "resourcemanager_pid": self.rm.pid(), "nodemanager_pid": self.nm.pid(), "nodes_running": 0}
        try:
            ports = json.loads(self.state_file.read_text())["ports"]
        except (OSError, ValueError, KeyError):
            return st
        st["web"] = f"http://127.0.0.1:{ports['web']}"
        st["resourcemanager"] = f"127.0.0.1:{ports['rm']}"
        if st["resourcemanager_pid"]:
            try:
                with urllib.request.urlopen(f"{st['web']}/ws/v1/cluster/nodes", timeout=3) as r:
                    nodes = (json.load(r).get("nodes") or {}).get("node") or []
                st["nodes_running"] = sum(1 for n in nodes if n.get("state") == "RUNNING")
            except (OSError, ValueError):
                pass
        st["ready"] = bool(st["resourcemanager_pid"] and st["nodemanager_pid"] and st["nodes_running"] >= 1)
        return st

    def down(self) -> bool:
        stopped = self.nm.stop(grace_s=30)
        stopped = self.rm.stop(grace_s=30) or stopped
        return stopped

    def up_lines(self, st: dict) -> list[str]:
        """What `tierbench services up` prints once it is ready: where it is, how to use it, how to stop it."""
        return [f"{self.name} is up: ResourceManager {st['resourcemanager']}, web UI {st['web']}, "
                f"{st['nodes_running']} NodeManager(s) running",
                f"use it:  export HADOOP_CONF_DIR={st['conf_dir']}",
                "         and in a spec: [engine] kind = \"hadoop\", mode = \"yarn\"",
                f"stop it: tierbench services down {self.name}"]

    def status_line(self, st: dict, conf_dir_only: bool = False) -> tuple[str, bool]:
        """`tierbench services status`'s line and whether that is success; conf_dir_only: just the conf dir (always success)."""
        if conf_dir_only:
            return st["conf_dir"], True
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["resourcemanager_pid"] or st["nodemanager_pid"] else "not running")
        return (f"{self.name}: {state}; ResourceManager pid {st['resourcemanager_pid']}, NodeManager pid {st['nodemanager_pid']}, "
                f"{st['nodes_running']} node(s) running; dir {st['dir']}", bool(st["ready"]))


SERVICE = Yarn
