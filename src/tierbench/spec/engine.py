"""The spec's engines: `[engine]`, or `[engines.NAME]` tables when a study compares several; a knob given as a
list (a sweep) makes one engine per value, named NAME.KNOB-VALUE."""

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SpecError
from ..fields import choice, unknown_fields
from ..ownership import NAME_RE
from ..redaction import has_userinfo, is_secret_key
from ..toolchain import PROJECT_SPARK
from ..units import parse_size
from .knobs import ENGINE_KNOBS, engine_knob_conf, swept, token

ENGINE_KINDS = ("spark", "hadoop")
HADOOP_MODES = ("local", "yarn")
SPARK_KEYS = ("kind", "spark", "master", "driver_memory", "executor_memory", "keep_alive_memory", "conf", *ENGINE_KNOBS)
HADOOP_KEYS = ("kind", "mode", "hadoop_conf_dir", "conf", "java_options", *ENGINE_KNOBS)
JAVA_OPTION = re.compile(r"^-(XX:[+-]?[A-Za-z0-9]+(=[A-Za-z0-9_.:/-]+)?|Xs[sx][0-9]+[kmgKMG]|Xm[sxn][0-9]+[kmgKMG])$")
SPARK_MASTER = re.compile(r"^(local(\[(\*|[1-9][0-9]*)(,[0-9]+)?\])?|spark://.+|yarn|k8s://.+|local-cluster\[.+\])$")
JVM_MEMORY = re.compile(r"^[0-9]+[kmgtKMGT]$")
# a release as PyPI numbers pyspark's (4.1.4); nothing else reaches pip, so a spec never names a URL or a path
SPARK_RELEASE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")


@dataclass(frozen=True)
class EngineSpec:
    name: str = "spark"  # names the engine in a study that compares several
    kind: str = "spark"  # "spark" | "hadoop"
    master: str = "local[*]"  # spark
    driver_memory: str = "2g"  # spark
    executor_memory: str | None = None  # spark
    # spark, local masters: bytes the idle applications of other configurations may hold, so that a switch of
    # configuration reuses a running application instead of starting a JVM; None = a quarter of this machine's memory
    keep_alive_memory: int | None = None
    conf: dict = field(default_factory=dict)  # Spark settings, or Hadoop -D settings
    mode: str = "local"  # hadoop: "local" (LocalJobRunner) or "yarn" (submit with a Hadoop conf dir)
    hadoop_conf_dir: str | None = None  # hadoop, yarn mode: default $HADOOP_CONF_DIR
    knobs: dict = field(default_factory=dict)  # shuffle_compress, io_codec, task_memory as given (already in conf)
    java_options: tuple[str, ...] = ()  # hadoop, local mode: the job's JVM flags (-XX:..., -Xss/-Xms/-Xmn)
    # spark: the pyspark release whose JVM runs the jobs, installed into tierbench's cache on first use
    # (engines/spark_versions.py); None = the project's own pyspark (4.3.0)
    spark: str | None = None


def parse_engines(src, raw: dict, sweeps: list) -> tuple[EngineSpec, ...]:
    """`[engine]` (one, spark by default) or `[engines.NAME]` (several), each expanded by its sweep."""
    if "engine" in raw and "engines" in raw:
        raise SpecError(src, "engines", "give either [engine] or [engines.NAME] tables, not both")
    if "engines" in raw:
        if not isinstance(raw["engines"], dict) or not raw["engines"]:
            raise SpecError(src, "engines", "expected tables such as [engines.spark] kind = \"spark\" and [engines.hadoop] kind = \"hadoop\"")
        engines = tuple(x for n, e in raw["engines"].items() for x in _parse_engine(src, f"engines.{n}", e, n, sweeps))
    else:
        engines = tuple(_parse_engine(src, "engine", raw.get("engine", {}), None, sweeps))
    if len({e.name for e in engines}) != len(engines):
        raise SpecError(src, "engines", "two engines have the same name after expanding sweeps; rename one")
    return engines


def _parse_engine(src, where, eng, name, sweeps: list) -> list[EngineSpec]:
    """One engine, or one per value of a swept engine knob (named NAME.KNOB-VALUE)."""
    if not isinstance(eng, dict):
        raise SpecError(src, where, f"expected a table: [{where}]")
    knob, values = swept(src, where, eng, ENGINE_KNOBS)
    if not knob:
        return [_parse_one_engine(src, where, eng, name)]
    base = name or eng.get("kind", "spark")
    out = [_parse_one_engine(src, where, dict(eng, **{knob: v}), f"{base}.{knob}-{token(v)}") for v in values]
    sweeps.append({"level": "engine", "base": base, "knob": knob,
                   "members": [{"name": e.name, "value": v} for e, v in zip(out, values)]})
    return out


def _parse_one_engine(src, where, eng, name) -> EngineSpec:
    if not isinstance(eng, dict):
        raise SpecError(src, where, f"expected a table: [{where}]")
    kind = eng.get("kind", "spark")
    choice(src, f"{where}.kind", kind, ENGINE_KINDS)
    name = name or kind
    if not NAME_RE.match(name):
        raise SpecError(src, where, "an engine name may use letters, digits, '.', '_' and '-'")
    unknown_fields(src, f"{where}.", eng, SPARK_KEYS if kind == "spark" else HADOOP_KEYS)
    conf = _engine_conf(src, where, kind, eng.get("conf", {}))
    knobs = {k: eng[k] for k in ENGINE_KNOBS if k in eng}
    conf.update(engine_knob_conf(src, where, kind, str(eng.get("master", "local[*]")), knobs))
    if kind == "hadoop":
        return _hadoop_engine(src, where, eng, name, conf, knobs)
    return _spark_engine(src, where, eng, name, conf, knobs)


def _engine_conf(src, where, kind, conf) -> dict:
    """`conf`: the engine's own settings as strings (true -> "true"); never a credential."""
    example = "\"spark.shuffle.compress\" = \"false\"" if kind == "spark" else "\"mapreduce.map.output.compress\" = \"true\""
    if not isinstance(conf, dict) or not all(isinstance(v, (str, int, float, bool)) for v in conf.values()):
        raise SpecError(src, f"{where}.conf", f"expected a table of settings, e.g. {example}")
    conf = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in conf.items()}
    for k, v in conf.items():
        if is_secret_key(k) or has_userinfo(v):
            raise SpecError(src, f"{where}.conf.{k}", "looks like a credential, and a spec is stored with every result: "
                            "give credentials through the environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, "
                            "AWS_PROFILE) or the cluster's own configuration, never in a spec")
    return conf


def _hadoop_engine(src, where, eng, name, conf, knobs) -> EngineSpec:
    mode = choice(src, f"{where}.mode", eng.get("mode", "local"), HADOOP_MODES)
    conf_dir = eng.get("hadoop_conf_dir")
    if conf_dir is not None and not (isinstance(conf_dir, str) and Path(conf_dir).is_dir()):
        raise SpecError(src, f"{where}.hadoop_conf_dir", f"{conf_dir!r} is not a directory (a Hadoop conf dir with core-site.xml, yarn-site.xml)")
    if mode == "yarn":
        from ..toolchain import yarn_conf_dir

        if yarn_conf_dir(conf_dir) is None:
            raise SpecError(src, f"{where}.mode", "\"yarn\" needs a Hadoop conf dir: set hadoop_conf_dir, export HADOOP_CONF_DIR, "
                            "or put your cluster's `hadoop` command on PATH (tierbench services up yarn prints one for an embedded YARN)")
    return EngineSpec(name=name, kind="hadoop", conf=conf, mode=mode, hadoop_conf_dir=conf_dir, master="", driver_memory="",
                      knobs=knobs, java_options=_java_options(src, where, eng.get("java_options", []), mode))


def _java_options(src, where, options, mode: str) -> tuple[str, ...]:
    """`java_options`: flags for the local job's JVM (one JVM runs the whole job in local mode; on YARN the
    cluster's own settings start the tasks). HotSpot's -XX flags and -Xss/-Xms/-Xmn; the heap (-Xmx) is the
    engine's, system properties (-D) are `conf`'s."""
    if not isinstance(options, list) or not all(isinstance(o, str) and JAVA_OPTION.match(o) for o in options):
        raise SpecError(src, f"{where}.java_options", "expected a list of JVM flags such as [\"-XX:TieredStopAtLevel=1\", "
                        f"\"-XX:+UseParallelGC\"] (-XX:..., -Xss, -Xms, -Xmn; Hadoop settings go in conf), got {options!r}")
    if options and mode != "local":
        raise SpecError(src, f"{where}.java_options", "local mode only (its one JVM runs the job); on YARN set "
                        "mapreduce.map.java.opts and mapreduce.reduce.java.opts in conf")
    return tuple(options)


def _spark_engine(src, where, eng, name, conf, knobs) -> EngineSpec:
    master = eng.get("master", "local[*]")
    if isinstance(master, str) and has_userinfo(master):
        raise SpecError(src, f"{where}.master", "no user or key in the master URL (user:key@): a spec is stored with every result")
    if not isinstance(master, str) or not SPARK_MASTER.match(master):
        raise SpecError(src, f"{where}.master", f"expected a Spark master URL (local[N], local[*], spark://HOST:PORT, yarn, k8s://...), got {master!r}")
    for mem_key in ("driver_memory", "executor_memory"):
        v = eng.get(mem_key)
        if v is not None and not (isinstance(v, str) and JVM_MEMORY.match(v)):
            raise SpecError(src, f"{where}.{mem_key}", f"expected a JVM memory size such as \"2g\" or \"512m\", got {v!r}")
    spark = _spark_release(src, where, eng.get("spark"))
    keep_alive = eng.get("keep_alive_memory")
    if keep_alive is not None:
        try:
            keep_alive = 0 if keep_alive in (0, "0") else parse_size(keep_alive)
        except ValueError as e:
            raise SpecError(src, f"{where}.keep_alive_memory", f"{e}; or 0 for one application at a time") from None
    return EngineSpec(name=name, kind="spark", master=master, driver_memory=eng.get("driver_memory", "2g"),
                      executor_memory=eng.get("executor_memory"), conf=conf, knobs=knobs, keep_alive_memory=keep_alive,
                      spark=spark)


def _spark_release(src, where, version) -> str | None:
    """`spark`: a pyspark release number such as "4.1.4"; the project's own release is the default, kept as None
    (so that its studies' fingerprints stay what they were before the knob existed)."""
    if version is None:
        return None
    if not isinstance(version, str) or not SPARK_RELEASE.match(version):
        raise SpecError(src, f"{where}.spark", f"expected a Spark release as PyPI's pyspark numbers it, such as \"4.1.4\" "
                        f"(or leave it out for the project's {PROJECT_SPARK}), got {version!r}")
    return None if version == PROJECT_SPARK else version
