"""The kinds of storage a configuration's `data` can be: one class each (local, shared, hdfs, s3).

A storage type owns its facts: the spec fields of its `data` table and their
validation, the URIs of what lives on it, the Hadoop settings the engines need
for it, how tierbench reaches its namespaced root (local paths, or Hadoop's
FsShell for remote file systems), which engines support it, and which of its
directories are on this machine's devices (for sampling). Nothing outside this
package compares a storage type's name: everyone asks `storage_type(name)`.
"""

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SpecError
from ..fields import FILE_SCHEME, check_dirs, positive_int, unknown_fields
from ..redaction import has_userinfo
from ..units import parse_size


def to_uri(path) -> str:
    """A local path as Hadoop wants it: file:// + the path, unencoded (Hadoop's Path encodes it itself)."""
    return FILE_SCHEME + str(path)


def local_path(uri: str) -> Path | None:
    """The local path of a file:// URI, or None for a remote file system (hdfs://, s3a://)."""
    return Path(uri.removeprefix(FILE_SCHEME)) if uri.startswith(FILE_SCHEME) else None


class StorageType(ABC):
    """One kind of `data` storage. `parse` returns (data locations, replication, Hadoop settings)."""

    name: str
    title: str
    remote: bool = False  # reached through Hadoop's FileSystem (not as local paths)
    engines: tuple[str, ...] = ("spark", "hadoop")
    s3a: bool = False  # needs Hadoop's S3A connector on the classpath

    @abstractmethod
    def parse(self, src: str, where: str, value: dict, base_dir: Path) -> tuple[tuple[str, ...], int | None, dict]:
        """Its `data` table (each error naming the field) -> (data locations, replication, Hadoop settings)."""

    def check_engines(self, src, where, data: tuple[str, ...], engine_kinds: set[str]) -> None:
        """Refuse, in one line, an engine that cannot use this storage as configured."""
        for kind in sorted(engine_kinds - set(self.engines)):
            raise SpecError(src, where, f"{self.name} storage does not run on the {kind} engine in this version; "
                                        f"it runs on: {', '.join(self.engines)}")


    def engine_settings(self, replication: int | None, store_conf: dict) -> dict:
        """Hadoop-level settings this storage needs (engines prefix them: spark.hadoop.*, or -D)."""
        return {}

    # settings for tierbench's own housekeeping on this storage (pre-flight check, clean-up), not for the measured
    # jobs: a dead endpoint must fail in seconds, not after minutes of the client's retries
    fail_fast: dict = {}

    def local_dirs(self, data: tuple[str, ...]) -> tuple[str, ...]:
        """The data locations that are directories on this machine's file systems (sampled, namespaced locally)."""
        return () if self.remote else data

    def default_fs(self, data: tuple[str, ...]) -> str:
        """The file system jobs that work on the default one (TestDFSIO) must be given."""
        return "file:///"

    def dataset_uris(self, data: tuple[str, ...], namespace: str, rel: str) -> list[str]:
        """Where a data set lives: one URI per data dir (JBOD: part i in dir i mod n), or one under the remote
        root; `namespace` is tierbench's own root in each location (tierbench/<study>)."""
        return [to_uri(Path(d) / namespace / rel) for d in data]

    def remote_root(self, data: tuple[str, ...], namespace: str) -> str | None:
        """The namespaced root on a remote file system (None for local storage)."""
        return None

    def health(self, store_conf: dict, uris: list[str]) -> dict | None:
        """The storage's own view of its health after a run wrote `uris` (None: nothing to ask)."""
        return None

    def gateways_for_run(self, store_conf: dict):
        """What sets and counts the servers in front of this storage around a run (S3 behind HAProxy), or None."""
        return None

    # durable mode (spec `durability`): where an engine's writes to this storage cannot be put on the device
    # before the task that made them ends, by engine kind; the run records these lines and the report shows them
    sync_gaps: dict[str, str] = {}
    network_fs: bool = False  # its local paths are meant to be a network file system (the report checks the mount)


# mount types that are file systems shared over a network (or with a VM's host), for the `shared` check
NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3", "ceph", "glusterfs", "lustre", "beegfs", "gpfs", "9p", "virtiofs", "afs", "fuse.")


def is_network_fs(fs_type: str) -> bool:
    return any(fs_type == t or (t.endswith(".") and fs_type.startswith(t)) for t in NETWORK_FS)


_FILE_GAPS = {"hadoop": "Hadoop's jobs do not sync file:// output (Hadoop has no setting for it): what they leave in the page cache shows as 'writeback after the job'"}


class LocalStorage(StorageType):
    name, title = "local", "local directories (JBOD)"
    sync_gaps = _FILE_GAPS

    def parse(self, src, where, value, base_dir):
        if not isinstance(value, dict):  # a bare list of directories
            return check_dirs(src, where, value, base_dir), None, {}
        unknown_fields(src, f"{where}.", value, ("type", "dirs"))
        return check_dirs(src, f"{where}.dirs", value.get("dirs"), base_dir), None, {}

    def check_engines(self, src, where, data, engine_kinds):
        if len(data) > 1 and "hadoop" in engine_kinds:
            raise SpecError(src, where, "the hadoop engine writes each data set to one directory: list one "
                            "(spreading over several local directories, JBOD-style, is what HDFS does)")


class SharedStorage(StorageType):
    name, title = "shared", "a shared mount (NFS), the same path on every node"
    network_fs = True
    sync_gaps = _FILE_GAPS

    def parse(self, src, where, value, base_dir):
        unknown_fields(src, f"{where}.", value, ("type", "path"))
        if "path" not in value:
            raise SpecError(src, f"{where}.path", "missing: the shared mount's path, the same on every node (e.g. an NFS mount)")
        return check_dirs(src, f"{where}.path", [value["path"]], base_dir), None, {}


class _RemoteStorage(StorageType):
    remote = True

    def dataset_uris(self, data, namespace, rel):
        return [f"{data[0]}/{namespace}/{rel}"]

    def remote_root(self, data, namespace):
        return f"{data[0]}/{namespace}"


_DATANODE_SYNC = "HDFS: a block reaches the DataNodes' disks when it is finished only where they set dfs.datanode.synconclose = true (the DataNodes of `tierbench services` do; a cluster of yours may not)"


class HdfsStorage(_RemoteStorage):
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


COMMITTER_KEY = "tierbench.committer"
S3_COMMITTERS = ("file-v1", "file-v2", "directory", "magic")


def hadoop_committer_settings(committer: str | None) -> dict:
    """What makes MapReduce's FileOutputFormat commit through `committer` (it asks PathOutputCommitterFactory for
    the scheme's factory): the FileOutputCommitter's algorithm, or S3A's committer factory and committer. Spark's
    jobs do the same in OutputCommit.java; Spark SQL's own writers are left with their default."""
    if committer in ("file-v1", "file-v2"):
        return {"mapreduce.fileoutputcommitter.algorithm.version": committer[-1]}
    if committer in ("directory", "magic"):
        return {"mapreduce.outputcommitter.factory.scheme.s3a": "org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory",
                "fs.s3a.committer.name": committer, "fs.s3a.committer.magic.enabled": "true",
                "fs.s3a.committer.staging.conflict-mode": "replace", "fs.s3a.committer.staging.unique-filenames": "false"}
    return {}
S3_KEYS = ("type", "endpoint", "bucket", "prefix", "region", "path_style", "ssl", "signing_algorithm", "input_fadvise",
           "readahead_range", "fast_upload_buffer", "multipart_size", "connection_maximum", "committer", "gateways", "balancer",
           "balancer_admin")
# how the gateways in front of the store are set for a run (storage/balancer.py); not S3A's settings
GATEWAYS_KEY, BALANCER_KEY, BALANCER_ADMIN_KEY = "tierbench.gateways", "tierbench.balancer", "tierbench.balancer_admin"
SECRET_KEYS = ("access_key", "secret_key", "access_key_id", "secret_access_key", "session_token", "password")


class S3Storage(_RemoteStorage):
    name, title = "s3", "an S3 object store through Hadoop's S3A connector"
    engines = ("spark", "hadoop")
    s3a = True

    def default_fs(self, data):
        """The bucket: TestDFSIO works on the default file system (the hadoop engine keeps its job staging local)."""
        return re.match(r"^s3a://[^/]+", data[0]).group(0)

    def parse(self, src, where, value, base_dir):
        """An s3 data table -> the fs.s3a.* settings. Credentials are refused here: they come from the environment."""
        for k in value:
            if k in SECRET_KEYS or "secret" in k or "key" in k and k != "readahead_range":
                raise SpecError(src, f"{where}.{k}", "credentials never go in a spec: export AWS_ACCESS_KEY_ID and "
                                "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) before running tierbench")
        unknown_fields(src, f"{where}.", value, S3_KEYS)
        endpoint, bucket = value.get("endpoint"), value.get("bucket")
        if isinstance(endpoint, str) and has_userinfo(endpoint):
            raise SpecError(src, f"{where}.endpoint", "credentials never go in a spec (user:key@ in the endpoint): export "
                            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) before running tierbench")
        if not isinstance(endpoint, str) or not re.match(r"^https?://[^/]+/?$", endpoint):
            raise SpecError(src, f"{where}.endpoint", f"expected an S3 endpoint such as \"http://127.0.0.1:7480\", got {endpoint!r}")
        if not isinstance(bucket, str) or not re.match(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", bucket):
            raise SpecError(src, f"{where}.bucket", f"expected an S3 bucket name (3-63 lower-case letters, digits, '.', '-'), got {bucket!r}")
        conf = {"fs.s3a.endpoint": endpoint.rstrip("/"), "fs.s3a.endpoint.region": str(value.get("region", "us-east-1")),
                "fs.s3a.path.style.access": str(bool(value.get("path_style", True))).lower(),
                "fs.s3a.connection.ssl.enabled": str(bool(value.get("ssl", endpoint.startswith("https")))).lower()}
        choices = {"input_fadvise": ("fs.s3a.experimental.input.fadvise", ("sequential", "random", "normal", "adaptive")),
                   "fast_upload_buffer": ("fs.s3a.fast.upload.buffer", ("disk", "array", "bytebuffer")),
                   # how the jobs commit their output (OutputCommit.java): Hadoop's FileOutputCommitter v1 / v2
                   # (renames: copies on S3) or S3A's directory (staged) and magic committers (multipart uploads)
                   "committer": (COMMITTER_KEY, S3_COMMITTERS)}
        for k, (key, allowed) in choices.items():
            if k in value:
                if value[k] not in allowed:
                    raise SpecError(src, f"{where}.{k}", f"expected one of {', '.join(allowed)}, got {value[k]!r}")
                conf[key] = value[k]
        for k, key in (("readahead_range", "fs.s3a.readahead.range"), ("multipart_size", "fs.s3a.multipart.size")):
            if k in value:
                try:
                    conf[key] = str(parse_size(value[k]))
                except ValueError as e:
                    raise SpecError(src, f"{where}.{k}", str(e)) from None
        if "connection_maximum" in value:
            conf["fs.s3a.connection.maximum"] = str(positive_int(src, f"{where}.connection_maximum", value["connection_maximum"], 1))
        if "signing_algorithm" in value:
            conf["fs.s3a.signing-algorithm"] = str(value["signing_algorithm"])
        conf.update(self._gateways(src, where, value))
        prefix = str(value.get("prefix", "")).strip("/")
        return (f"s3a://{bucket}" + (f"/{prefix}" if prefix else ""),), None, conf

    def _gateways(self, src, where, value) -> dict:
        """`gateways = N` (how many of the gateways behind HAProxy serve) and `balancer = "haproxy" | "none"`
        (through HAProxy, or straight to its first gateway), both through HAProxy's admin socket."""
        if not any(k in value for k in ("gateways", "balancer", "balancer_admin")):
            return {}
        admin = value.get("balancer_admin")
        if isinstance(admin, str) and admin.startswith("~/"):
            admin = str(Path(admin).expanduser())  # (`services up s3`'s default dir is under the home directory)
        if not isinstance(admin, str) or not re.match(r"^(/\S+|[\w.-]+:\d{1,5})$", admin):
            raise SpecError(src, f"{where}.balancer_admin", "gateways and balancer are set through HAProxy's admin socket: give "
                            "its path (`stats socket PATH level admin`; `tierbench services up s3 --balancer haproxy` "
                            f"prints it) or host:port, got {admin!r}")
        balancer = value.get("balancer", "haproxy")
        if balancer not in ("haproxy", "none"):
            raise SpecError(src, f"{where}.balancer", f"expected \"haproxy\" or \"none\", got {balancer!r}")
        conf = {BALANCER_KEY: balancer, BALANCER_ADMIN_KEY: admin}
        if "gateways" in value:
            gateways = positive_int(src, f"{where}.gateways", value["gateways"], 1)
            if balancer == "none" and gateways > 1:
                raise SpecError(src, f"{where}.gateways", f"balancer = \"none\" sends every request to one gateway, so "
                                f"gateways = {gateways} cannot serve: sweep gateways with balancer = \"haproxy\"")
            conf[GATEWAYS_KEY] = str(gateways)
        return conf

    def gateways_for_run(self, store_conf):
        from .balancer import GatewaysForRun

        if BALANCER_ADMIN_KEY not in store_conf:
            return None
        count = store_conf.get(GATEWAYS_KEY)
        return GatewaysForRun(store_conf[BALANCER_ADMIN_KEY], int(count) if count else None, store_conf[BALANCER_KEY])

    def engine_settings(self, replication, store_conf):
        settings = dict(store_conf)
        if store_conf.get(BALANCER_KEY) == "none":  # S3A to the first gateway itself, as HAProxy knows its address
            from .balancer import HAProxyAdmin

            settings["fs.s3a.endpoint"] = "http://" + HAProxyAdmin(store_conf[BALANCER_ADMIN_KEY]).first_gateway()
        return settings

    fail_fast = {"fs.s3a.connection.establish.timeout": "5s", "fs.s3a.connection.timeout": "15s",
                 "fs.s3a.attempts.maximum": "1", "fs.s3a.retry.limit": "1", "fs.s3a.retry.interval": "100ms",
                 "fs.s3a.retry.throttle.limit": "1"}


STORAGE_TYPES: dict[str, StorageType] = {t.name: t for t in (LocalStorage(), SharedStorage(), HdfsStorage(), S3Storage())}
DEFAULT_TYPE = "local"


def storage_type(name: str) -> StorageType:
    return STORAGE_TYPES[name]


def parse_data(src: str, where: str, value, base_dir: Path) -> tuple[tuple[str, ...], str, int | None, dict]:
    """`data`: a list of local dirs, or a table with a `type`. Returns (locations, type name, replication, settings)."""
    kind = value.get("type", DEFAULT_TYPE) if isinstance(value, dict) else DEFAULT_TYPE
    if kind not in STORAGE_TYPES:
        raise SpecError(src, f"{where}.type", f"expected one of {', '.join(STORAGE_TYPES)}, got {kind!r}")
    data, replication, conf = STORAGE_TYPES[kind].parse(src, where, value, base_dir)
    return data, kind, replication, conf


@dataclass(frozen=True)
class StorageConfig:
    """A named storage configuration of a study: where data and intermediate files go."""
    name: str
    data: tuple[str, ...]  # local: absolute directories (JBOD); shared: one mounted path; remote: one URI
    intermediate: tuple[str, ...]  # absolute local directories for shuffle/spill
    split: int = 1  # each intermediate dir is given to the engine as this many subdirs
    description: str = ""
    data_type: str = DEFAULT_TYPE  # a key of STORAGE_TYPES
    replication: int | None = None  # hdfs: dfs.replication for what the jobs write
    store_conf: dict = field(default_factory=dict)  # s3: the fs.s3a.* settings (never credentials)
    emulated: dict = field(default_factory=dict)  # role ("data", "intermediate") -> [{"device", "profile", "size"}]
    setup: str = ""  # a shell command run before each block of this configuration's runs (the user's cluster script)
    teardown: str = ""  # and after it

    @property
    def type(self) -> StorageType:
        return STORAGE_TYPES[self.data_type]

    @property
    def remote(self) -> bool:
        return self.type.remote

    @property
    def local_data(self) -> tuple[str, ...]:
        """The data directories on this machine's file systems (none for remote storage)."""
        return self.type.local_dirs(self.data)

    @property
    def default_fs(self) -> str:
        return self.type.default_fs(self.data)

    def engine_settings(self) -> dict:
        """Hadoop-level settings this storage needs (engines prefix them: spark.hadoop.*, or -D)."""
        return self.type.engine_settings(self.replication, self.store_conf)
