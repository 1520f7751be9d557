"""Whether a storage configuration's intermediate dirs reach the engine's shuffle and spill, and what puts them there.

Who gives the executors (or map tasks) their local dirs:
  spark, local[N] or local-cluster     spark.local.dir (the driver's JVM, or its in-process Workers, read it)
  spark on `tierbench services up`     the Workers, restarted for each configuration with SPARK_LOCAL_DIRS = its dirs
  spark on k8s://                      hostPath volumes named spark-local-dir-N (Spark's per-application local dirs)
  hadoop, mode = "local"               mapreduce.cluster.local.dir
  spark on yarn or another spark://,   the cluster manager (yarn.nodemanager.local-dirs, a Worker's SPARK_LOCAL_DIRS),
  hadoop on yarn                       which only the user's own `setup` command can point at them
Every run records the answer as storage.intermediate_applied, and a spec that names intermediate dirs where
nothing would apply them is refused before anything runs: two such configurations would be the same set-up.

And the spec's [cluster] table (parse_cluster): the hosts tierbench observes over ssh.
"""

import re
from pathlib import Path

from ..errors import SpecError
from ..fields import unknown_fields
from ..toolchain import embedded_spark_dir

CLUSTER_KEYS = ("nodes", "ssh_config", "processes")
NOT_APPLIED = "none"  # `intermediate` not named on a cluster: the cluster manager's own local dirs were used


def intermediate_applied(engine, config) -> str:
    """What applied the configuration's intermediate dirs on this engine (a spec.EngineSpec), or NOT_APPLIED."""
    if engine.kind == "hadoop":
        if engine.mode == "local":
            return "mapreduce.cluster.local.dir"
    elif engine.master.startswith("local"):
        return "spark.local.dir"
    elif engine.master.startswith("k8s://"):
        return "k8s volumes"
    elif engine.master.startswith("spark://") and embedded_spark_dir(engine.master) is not None:
        return "worker restart"
    return "setup command" if config.setup else NOT_APPLIED


def _owner_of_local_dirs(engine) -> str:
    if engine.kind == "hadoop":
        return ("on the hadoop engine in mode \"yarn\" map outputs go to the NodeManagers' local dirs "
                "(yarn.nodemanager.local-dirs)")
    if engine.master == "yarn":
        return "on master \"yarn\" executors get the NodeManagers' local dirs (yarn.nodemanager.local-dirs)"
    return (f"on master \"{engine.master}\" (not a `tierbench services up spark` cluster) executors use their Worker's "
            "local dirs (SPARK_LOCAL_DIRS)")


def check_intermediate_applies(src: str, engines, configs, named: set[str]) -> None:
    """Refuse a configuration that names intermediate dirs (`named`) which its engines' cluster managers would ignore."""
    for c in configs:
        if c.name not in named:
            continue
        for e in engines:
            if intermediate_applied(e, c) == NOT_APPLIED:
                raise SpecError(src, f"storage.{c.name}.intermediate",
                                f"{_owner_of_local_dirs(e)}, so tierbench cannot apply these dirs: give storage.{c.name}.setup "
                                "a command that points the cluster's local dirs at them (and teardown to undo it), "
                                "or leave intermediate out")


def _executors_elsewhere(engine) -> bool:
    """The engine's tasks run on other hosts than this one (whose local directories are not this one's)."""
    if engine.kind == "hadoop":
        return False  # (YARN's nodes may be this machine, as `tierbench services up yarn` makes them: not known here)
    if engine.master.startswith("local"):
        return False
    return not (engine.master.startswith("spark://") and embedded_spark_dir(engine.master) is not None)


def check_local_data_reaches_every_node(src: str, engines, configs) -> None:
    """Refuse node-local `data` dirs where tasks run on other hosts: a writer's parts land on its own node and a
    reader (or the driver listing the parts) sees only its own, so every read would be short or wrong."""
    for c in configs:
        if c.type.remote or c.type.network_fs:
            continue
        for e in engines:
            if _executors_elsewhere(e):
                where = "YARN's nodes" if e.master == "yarn" else f"the hosts of {e.master}"
                raise SpecError(src, f"storage.{c.name}.data",
                                f"local directories on {where} differ from node to node: a job's parts would be spread over "
                                "their local disks and a reader would see only its own node's; use a mount every node shares "
                                "(data = { type = \"shared\", path = ... }), hdfs or s3")


def parse_cluster(src, raw, base_dir: Path) -> dict:
    """[cluster]: the hosts tierbench observes over ssh, with the user's own ssh config and keys."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(src, "cluster", f"expected a table, e.g. [cluster] nodes = [\"dn1\", \"dn2\"], got {raw!r}")
    unknown_fields(src, "cluster.", raw, CLUSTER_KEYS)
    nodes = raw.get("nodes", [])
    if not isinstance(nodes, list) or not all(isinstance(n, str) and re.match(r"^[A-Za-z0-9_.@:\[\]-]+$", n) for n in nodes):
        raise SpecError(src, "cluster.nodes", f"expected a list of ssh host names (as in your ssh config: \"dn1\", "
                        f"\"user@10.0.0.5\"), got {nodes!r}")
    if len(set(nodes)) != len(nodes):
        raise SpecError(src, "cluster.nodes", "a node is named twice")
    ssh_config = raw.get("ssh_config")
    if ssh_config is not None:
        if not isinstance(ssh_config, str):
            raise SpecError(src, "cluster.ssh_config", f"expected a path to an ssh config file, got {ssh_config!r}")
        path = Path(ssh_config).expanduser()
        path = path if path.is_absolute() else base_dir / path
        if not path.is_file():
            raise SpecError(src, "cluster.ssh_config", f"{path}: no such file (leave it out to use ~/.ssh/config)")
        ssh_config = str(path)
    processes = raw.get("processes")
    if processes is not None and (not isinstance(processes, str) or not processes.strip()):
        raise SpecError(src, "cluster.processes", f"expected a command-line substring such as \"DataNode\", got {processes!r}")
    return {"nodes": list(nodes), "ssh_config": ssh_config, "processes": processes} if nodes else {}
