"""An embedded HDFS on 127.0.0.1: a NameNode and N DataNodes, separate JVMs from Hadoop 3.4.2's jars.

Each DataNode has its own conf dir, data dirs and ports (all bound to
127.0.0.1, several DataNodes share the host); the service is ready when the
NameNode's FSNamesystemState bean counts them live.
"""

import json
import os
import subprocess
import urllib.request
from pathlib import Path

from ..toolchain import ADD_OPENS, hadoop_lib, hadoop_log4j_dir, java_bin
from .. import bounds
from ..errors import UserError
from ..safefiles import write_text
from ..ownership import remove_owned_root
from .base import Daemon, claim_dir, free_port, port_free, wait_until_ready, xml_conf

READY_TIMEOUT_S = 120
ORDER = 3  # its place among `tierbench services`' services (services/registry.py)

JVM_TMP_MARK = ".tierbench-jvm-tmp"


class Hdfs:
    name = "hdfs"

    def __init__(self, home: Path, datanodes: int = 2, dirs_per_datanode: int = 1, data_dirs: list[str] | None = None,
                 port: int | None = None):
        self.home = Path(home)
        self.port = port  # the NameNode's RPC port (default: a free one)
        self.datanodes = datanodes
        self.dirs_per_datanode = dirs_per_datanode
        self.data_dirs = data_dirs  # where the DataNodes keep blocks (default: inside the service dir)
        self.namenode = Daemon(self.home, "namenode")

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    def _state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _dn_daemons(self) -> list[Daemon]:
        n = self._state().get("datanodes", self.datanodes)
        return [Daemon(self.home, f"datanode-{i}") for i in range(1, n + 1)]

    @property
    def jvm_tmp(self) -> Path:
        """The daemons' java.io.tmpdir: their web servers unpack a directory each there at every start (Jetty's
        jetty-localhost-*), which would otherwise be left in /tmp, three per `services up`; removed at `down`."""
        return self.home / "jvm-tmp"

    def _java(self, conf: Path, main: str, *args: str) -> list[str]:
        if not self.jvm_tmp.exists():  # marked as ours: `down` deletes it only then (ownership.py)
            self.jvm_tmp.mkdir(parents=True)
            write_text(self.jvm_tmp / JVM_TMP_MARK, "java.io.tmpdir of this HDFS's daemons: deleted at services down\n")
        return [java_bin(), "-Xmx512m", *ADD_OPENS.split(), f"-Dhadoop.log.dir={self.home / 'logs'}",
                f"-Djava.io.tmpdir={self.jvm_tmp}", "-cp", f"{conf}:{hadoop_log4j_dir()}:{hadoop_lib()}/*", main, *args]

    def up(self, on_phase=print) -> dict:
        self._check_options()
        claim_dir(self.home, self.name)  # (a folder of someone else's files is refused before anything is written)
        if self.namenode.pid() or any(d.pid() for d in self._dn_daemons()):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"HDFS in {self.home} is partly running; run `tierbench services down hdfs` first")
        on_phase("fetching Hadoop's jars (first use only) and writing the configuration")
        hadoop_lib()
        if self.port and not port_free(self.port):
            raise UserError(f"--port {self.port}: 127.0.0.1:{self.port} is in use; choose another port or leave --port out")
        ports = self._ports()
        nn_dir = self.home / "namenode"
        common = {"fs.defaultFS": f"hdfs://127.0.0.1:{ports['rpc']}", "hadoop.tmp.dir": self.home / "tmp",
                  "dfs.namenode.rpc-address": f"127.0.0.1:{ports['rpc']}", "dfs.namenode.http-address": f"127.0.0.1:{ports['http']}",
                  # a killed DataNode is declared dead after 2 x recheck + 10 x heartbeat = 14 s, not Hadoop's 10.5 min
                  "dfs.heartbeat.interval": 1, "dfs.namenode.heartbeat.recheck-interval": 2000,
                  "dfs.replication": min(3, self.datanodes), "dfs.permissions.enabled": "false",
                  "dfs.namenode.datanode.registration.ip-hostname-check": "false",
                  "dfs.client.use.datanode.hostname": "false", "dfs.namenode.safemode.extension": 0,
                  "dfs.namenode.name.dir": nn_dir, "dfs.blocksize": 32 << 20}
        confs = {"namenode": self.home / "conf" / "namenode"}
        for c in confs.values():
            c.mkdir(parents=True, exist_ok=True)
            write_text(c / "core-site.xml", xml_conf({"fs.defaultFS": common["fs.defaultFS"], "hadoop.tmp.dir": common["hadoop.tmp.dir"]}))
            write_text(c / "hdfs-site.xml", xml_conf(common))
        dn_dirs = [self._write_datanode_conf(i, common) for i in range(1, self.datanodes + 1)]
        # the clients' conf: what HADOOP_CONF_DIR should point at
        client = self.home / "conf" / "client"
        client.mkdir(parents=True, exist_ok=True)
        write_text(client / "core-site.xml", xml_conf({"fs.defaultFS": common["fs.defaultFS"]}))
        write_text(client / "hdfs-site.xml", xml_conf({"dfs.replication": common["dfs.replication"], "dfs.blocksize": common["dfs.blocksize"]}))
        write_text(self.state_file, json.dumps({"ports": ports, "datanodes": self.datanodes, "datanode_dirs": dn_dirs,
                                               "uri": common["fs.defaultFS"], "conf_dir": str(client)}))
        if not (nn_dir / "current" / "VERSION").exists():
            on_phase("formatting the NameNode")
            out = subprocess.run(self._java(confs["namenode"], "org.apache.hadoop.hdfs.server.namenode.NameNode", "-format", "-force",
                                            "-nonInteractive"), capture_output=True, text=True, cwd=self.home)
            if out.returncode != 0:
                raise UserError(f"formatting the NameNode failed: {(out.stderr or out.stdout).strip().splitlines()[-1]}")
        on_phase("starting the NameNode")
        self.namenode.start(self._java(confs["namenode"], "org.apache.hadoop.hdfs.server.namenode.NameNode"))
        for i, d in enumerate(self._dn_daemons(), 1):
            on_phase(f"starting DataNode {i}")
            d.start(self._java(self.home / "conf" / f"datanode-{i}", "org.apache.hadoop.hdfs.server.datanode.DataNode"))
        on_phase(f"waiting for {self.datanodes} DataNode(s) to be live")
        return wait_until_ready(self, [self.namenode, *self._dn_daemons()], "HDFS", READY_TIMEOUT_S, self.home / 'logs')

    def _write_datanode_conf(self, i: int, common: dict) -> list[str]:
        """DataNode i's conf dir (its own data dirs and ports on 127.0.0.1); its data dirs."""
        c = self.home / "conf" / f"datanode-{i}"
        c.mkdir(parents=True, exist_ok=True)
        if self.data_dirs:
            dirs = [Path(self.data_dirs[(i - 1) % len(self.data_dirs)]) / f"datanode-{i}-{k}" for k in range(self.dirs_per_datanode)]
        else:
            dirs = [self.home / f"datanode-{i}" / f"data{k}" for k in range(self.dirs_per_datanode)]
        write_text(c / "core-site.xml", xml_conf({"fs.defaultFS": common["fs.defaultFS"], "hadoop.tmp.dir": self.home / "tmp" / f"dn{i}"}))
        write_text(c / "hdfs-site.xml", xml_conf(common | {
            "dfs.datanode.data.dir": ",".join(f"file://{d}" for d in dirs),
            "dfs.datanode.address": "127.0.0.1:0", "dfs.datanode.http.address": "127.0.0.1:0",
            "dfs.datanode.ipc.address": "127.0.0.1:0", "dfs.datanode.hostname": "127.0.0.1",
            # a finished block is on the disk before the writer is told so: durable studies measure the disks
            "dfs.datanode.synconclose": "true"}))
        return [str(d) for d in dirs]

    def _check_options(self) -> None:
        """The CLI's bounds for callers of the library too: each DataNode is a JVM and a configuration written
        before any starts, so 200,000 of them is a slip to refuse, not a loop to begin."""
        bounds.option("--datanodes", self.datanodes, bounds.DATANODES)
        bounds.option("--datanode-dirs", self.dirs_per_datanode, bounds.DATANODE_DIRS)
        if self.port is not None:
            bounds.option("--port", self.port, bounds.PORT)

    def _ports(self) -> dict:
        """The ports of this service folder's last start when they are still free (an interrupted study's spec
        names the NameNode's address: it must not change across down/up), else new ones; --port wins."""
        old = self._state().get("ports", {})
        rpc = self.port or (old["rpc"] if old.get("rpc") and port_free(old["rpc"]) else free_port())
        http = old["http"] if old.get("http") and old["http"] != rpc and port_free(old["http"]) else free_port()
        return {"rpc": rpc, "http": http}

    def status(self) -> dict:
        state = self._state()
        st = {"name": "hdfs", "dir": str(self.home), "ready": False, "namenode_pid": self.namenode.pid(),
              "datanode_pids": [d.pid() for d in self._dn_daemons()], "live_datanodes": 0,
              "uri": state.get("uri"), "conf_dir": state.get("conf_dir")}
        if st["namenode_pid"] and state.get("ports"):
            url = f"http://127.0.0.1:{state['ports']['http']}/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState"
            try:
                with urllib.request.urlopen(url, timeout=3) as r:
                    beans = json.load(r).get("beans", [])
                st["live_datanodes"] = int(beans[0].get("NumLiveDataNodes", 0)) if beans else 0
                st["dead_datanodes"] = int(beans[0].get("NumDeadDataNodes", 0)) if beans else 0
                st["safe_mode"] = beans[0].get("FSState") if beans else None
            except (OSError, ValueError):
                pass
        n = len(st["datanode_pids"])
        st["web"] = f"http://127.0.0.1:{state['ports']['http']}" if state.get("ports") else None
        # ready: the NameNode counts every DataNode live, and every DataNode process of ours is running
        st["ready"] = bool(st["namenode_pid"] and n and all(st["datanode_pids"]) and st["live_datanodes"] >= n
                           and st.get("safe_mode") != "safeMode")
        return st

    def down(self) -> bool:
        stopped = False
        for d in self._dn_daemons():
            stopped = d.stop(grace_s=20) or stopped
        stopped = self.namenode.stop(grace_s=20) or stopped
        if not self.namenode.pid() and not any(d.pid() for d in self._dn_daemons()):
            remove_owned_root(self.jvm_tmp, JVM_TMP_MARK)  # its daemons' scratch: none of them runs
        return stopped

    def up_lines(self, st: dict) -> list[str]:
        """What `tierbench services up` prints once it is ready: where it is, how to use it, how to stop it."""
        return [f"hdfs is up: {st['uri']}, {st['live_datanodes']} DataNode(s) live",
                f"use it:  in a spec, data = {{ type = \"hdfs\", uri = \"{st['uri']}/tb\", web = \"{st['web']}\" }}",
                f"         (clients' conf: export HADOOP_CONF_DIR={st['conf_dir']})",
                "stop it: tierbench services down hdfs"]

    def status_line(self, st: dict, conf_dir_only: bool = False) -> tuple[str, bool]:
        """`tierbench services status`'s line and whether that is success (conf_dir_only: yarn's; ignored here)."""
        state = "ready" if st["ready"] else ("starting or unhealthy" if st["namenode_pid"] else "not running")
        down = sum(1 for p in st["datanode_pids"] if not p)
        dead = f", {down} of {len(st['datanode_pids'])} DataNode process(es) not running" if st["namenode_pid"] and down else ""
        return (f"hdfs: {state}; {st.get('uri') or '-'}, {st['live_datanodes']} DataNode(s) live{dead}; dir {st['dir']}",
                bool(st["ready"]))


SERVICE = Hdfs
