"""What every kind of storage a configuration's `data` can be shares: the StorageType base class (one subclass
per type, one module each under kinds/, found by registry.py), the connector an engine needs for it, the
helpers their `data` tables are checked with, and StorageConfig, a study's named storage configuration.

A storage type owns its facts: the spec fields of its `data` table and their
validation, the URIs of what lives on it, the Hadoop settings and connector the
engines need for it, how tierbench reaches its namespaced root (local paths, or
Hadoop's FsShell for remote file systems), which engines support it, and which
of its directories are on this machine's devices (for sampling). Nothing outside
this package compares a storage type's name: everyone asks `storage_type(name)`.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import SpecError
from ..fields import FILE_SCHEME, check_dirs, positive_int, unknown_fields


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

    @abstractmethod
    def parse(self, src: str, where: str, value: dict, base_dir: Path) -> tuple[tuple[str, ...], int | None, dict]:
        """Its `data` table (each error naming the field) -> (data locations, replication, Hadoop settings)."""

    def check_engines(self, src, where, data: tuple[str, ...], engine_kinds: set[str], drives: int | None = None,
                      hadoop_spreads: bool = False) -> None:
        """Refuse, in one line, an engine that cannot use this storage as configured (`drives`: how many devices
        the data dirs are, when tierbench makes them: emulated drives, each listed as `split` dirs; `hadoop_spreads`:
        the hadoop engine's jobs run durable in local mode, where its file system spreads a data set's files)."""
        for kind in sorted(engine_kinds - set(self.engines)):
            raise SpecError(src, where, f"{self.name} storage does not run on the {kind} engine in this version; "
                                        f"it runs on: {', '.join(self.engines)}")


    def engine_settings(self, replication: int | None, store_conf: dict) -> dict:
        """Hadoop-level settings this storage needs (engines prefix them: spark.hadoop.*, or -D)."""
        return {}

    def connector(self, engine: str) -> "Connector":
        """What the `engine` kind needs on its classpath (and in its settings) to reach this storage: none by
        default; a file system Hadoop reaches through a connector of its own (S3A) says so here."""
        return Connector()

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


@dataclass(frozen=True)
class Connector:
    """A storage type's connector for one engine: the jars it needs on the engine's classpath, fetched from Maven
    Central on first use (so a function giving classpath entries: jar files, or a directory's as dir/*), and
    Hadoop settings of its own, what it needs to work (engines give them as they give the storage's, spark.hadoop.*
    or -D, over the storage's: only the engine's own conf overrides them)."""
    title: str = ""  # what it is, for progress lines ("the S3A connector")
    fetch_jars: Callable[[], tuple[str, ...]] | None = None
    settings: tuple[tuple[str, str], ...] = ()  # (key, value) pairs (a tuple: a connector is hashable, engines give each once)

    def jars(self) -> tuple[str, ...]:
        """Its classpath entries, fetching them the first time."""
        return self.fetch_jars() if self.fetch_jars else ()


# mount types that are file systems shared over a network (or with a VM's host), for the `shared` check
NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3", "ceph", "glusterfs", "lustre", "beegfs", "gpfs", "9p", "virtiofs", "afs", "fuse.")


def is_network_fs(fs_type: str) -> bool:
    return any(fs_type == t or (t.endswith(".") and fs_type.startswith(t)) for t in NETWORK_FS)


# engine kind -> what it cannot sync of file:// output. None now: the hadoop engine's local mode writes through
# tierbench's SyncingLocalFileSystem (its YARN mode says its own gaps: engines/hadoop/engine.py YARN_SYNC_GAPS)
FILE_SYNC_GAPS: dict[str, str] = {}


class RemoteStorage(StorageType):
    """A file system reached through Hadoop's FileSystem by URI (hdfs://, s3a://): one root, under it tierbench's own."""
    remote = True

    def dataset_uris(self, data, namespace, rel):
        return [f"{data[0]}/{namespace}/{rel}"]

    def remote_root(self, data, namespace):
        return f"{data[0]}/{namespace}"


# how the jobs commit their output (an s3 table's `committer`): the storage setting, and what it means to MapReduce
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


DEFAULT_TYPE = "local"


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
        return storage_type(self.data_type)

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


# The storage types themselves, found by the registry. Imported last: their modules import this one's base class
# and helpers, which are all defined by now. (Here too so that `storage.types` keeps naming what it always named.)
from .registry import STORAGE_TYPES, parse_data, storage_type  # noqa: E402
