"""`hdfs`: an HDFS file system, by its NameNode's URI (and web address, asked for its health after a run)."""

import re

from ...errors import SpecError
from ...redaction import has_userinfo
from ..types import RemoteStorage, positive_int, unknown_fields

ORDER = 3

_DATANODE_SYNC = "HDFS: a block reaches the DataNodes' disks when it is finished only where they set dfs.datanode.synconclose = true (the DataNodes of `tierbench services` do; a cluster of yours may not)"


class HdfsStorage(RemoteStorage):
    name, title = "hdfs", "HDFS"
    sync_gaps = {"spark": _DATANODE_SYNC + "; tierbench's jobs hsync each file's last block themselves",
                 "hadoop": _DATANODE_SYNC + "; Hadoop's jobs do not hsync"}

    def parse(self, src, where, value, base_dir):
        unknown_fields(src, f"{where}.", value, ("type", "uri", "replication", "web"))
        uri = value.get("uri")
        if isinstance(uri, str) and has_userinfo(uri):
            raise SpecError(src, f"{where}.uri", "no user or key in the URI (user@ / user:key@): tierbench reaches HDFS as the "
                            "user it runs as; set HADOOP_USER_NAME in the environment to act as another")
        if not isinstance(uri, str) or not re.match(r"^hdfs://[^/]+(/.*)?$", uri):
            raise SpecError(src, f"{where}.uri", f"expected an HDFS URI such as \"hdfs://namenode:8020/benchmarks\", got {uri!r}")
        replication = value.get("replication")
        if replication is not None:
            replication = positive_int(src, f"{where}.replication", replication, 1)
        web = value.get("web", "http://" + re.match(r"^hdfs://([^/:]+)", uri).group(1) + ":9870")  # Hadoop 3's default
        if not isinstance(web, str) or not re.match(r"^https?://[^/@]+/?$", web):
            raise SpecError(src, f"{where}.web", f"expected the NameNode's web address such as \"http://namenode:9870\", got {web!r}")
        return (uri.rstrip("/"),), replication, {"namenode_web": web.rstrip("/")}

    def engine_settings(self, replication, store_conf):
        return {"dfs.replication": str(replication)} if replication else {}

    def health(self, store_conf: dict, uris: list[str]) -> dict:
        """What the NameNode says (its web address: JMX and WebHDFS) right after a run wrote `uris`: live and
        dead DataNodes, and how many of the blocks the run wrote have fewer replicas than their file asks for.
        {"checked": False, "why": ...} when it cannot be asked."""
        import json
        import urllib.parse
        import urllib.request

        web = store_conf.get("namenode_web")

        def get(path: str, query: str) -> dict:
            with urllib.request.urlopen(f"{web}{path}?{query}", timeout=5) as r:
                return json.load(r)

        try:
            state = (get("/jmx", "qry=Hadoop:service=NameNode,name=FSNamesystemState").get("beans") or [{}])[0]
            files = blocks = under = 0
            todo = [urllib.parse.urlparse(u).path or "/" for u in uris]
            while todo and files < 10_000:
                path = todo.pop()
                for st in get(f"/webhdfs/v1{urllib.parse.quote(path)}", "op=LISTSTATUS")["FileStatuses"]["FileStatus"]:
                    child = f"{path.rstrip('/')}/{st['pathSuffix']}" if st["pathSuffix"] else path
                    if st["type"] == "DIRECTORY":
                        todo.append(child)
                        continue
                    files += 1
                    locs = get(f"/webhdfs/v1{urllib.parse.quote(child)}", "op=GETFILEBLOCKLOCATIONS")["BlockLocations"]["BlockLocation"]
                    blocks += len(locs)
                    under += sum(1 for b in locs if len(b["names"]) < st["replication"])
        except (OSError, ValueError, KeyError) as e:
            return {"checked": False, "why": f"the NameNode's web address {web} did not answer ({e}); set `web` in the spec"}
        return {"checked": True, "live_datanodes": state.get("NumLiveDataNodes"), "dead_datanodes": state.get("NumDeadDataNodes"),
                "files_written": files, "blocks_written": blocks, "under_replicated_blocks": under}

    def default_fs(self, data):
        return re.match(r"^hdfs://[^/]+", data[0]).group(0)

    fail_fast = {"ipc.client.connect.timeout": "5000", "ipc.client.connect.max.retries": "1",
                 "ipc.client.connect.max.retries.on.timeouts": "1", "dfs.client.retry.policy.enabled": "false"}


STORAGE_TYPE = HdfsStorage()
