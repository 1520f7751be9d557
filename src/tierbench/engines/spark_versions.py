"""Spark releases other than the project's, for the spark engine's `spark` knob (`[engine] spark = "4.1.4"`).

The project's pyspark (toolchain.PROJECT_SPARK) is the venv's own: nothing is installed and nothing here runs for it.
Another release is pip-installed from PyPI on first use with `--target` into tierbench's cache,
<cache>/spark/<release>/ (pyspark and the py4j it pins, never the venv), and its application's worker imports it
from there (PYTHONPATH) with SPARK_HOME on its jars, so that its JVM is that release's. The jobs jar is compiled
against those jars (jobs_jar.py, cached per release). A release pip cannot install, or whose jars the jobs do not
compile against, is refused in one line before a study writes anything (study/preparation.py)."""

import fcntl
import os
import shutil
import sys
from pathlib import Path

from .. import processes
from ..errors import UserError
from ..toolchain import PROJECT_SPARK, cache_dir, embedded_spark_dir, pyspark_home

PIP_TIMEOUT_S = 1800.0  # pyspark 4.1.4 installs as 491 MB (29 s measured): minutes on a slow link, never hours


def is_project_spark(release: str | None) -> bool:
    return release is None or release == PROJECT_SPARK


def release_dir(release: str) -> Path:
    """Where a release other than the project's is installed (pip's --target): <cache>/spark/<release>."""
    return cache_dir() / "spark" / release


def spark_home(release: str | None = None) -> Path:
    """The pyspark package directory (SPARK_HOME: its jars/ and bin/) of `release`; the venv's for the project's."""
    return pyspark_home() if is_project_spark(release) else release_dir(release) / "pyspark"


def installed(release: str) -> bool:
    # (the folder is renamed into place only when pip finished: a folder there is a whole install)
    return (release_dir(release) / "pyspark" / "jars").is_dir()


def ensure_release(release: str | None, what: str, on_phase=None) -> Path:
    """SPARK_HOME of `release`, pip-installing it into the cache first if needed (under a lock: two studies
    starting at once install it once). `what` names the spec field in a refusal ("study.toml: engine.spark")."""
    if is_project_spark(release):
        return pyspark_home()
    if installed(release):
        return spark_home(release)
    root = cache_dir() / "spark"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed(release):
            if on_phase:
                on_phase(f"installing pyspark {release} from PyPI into {release_dir(release)} (first use: about 490 MB; "
                         "half a minute on a fast link)")
            _pip_install(release, what)
    return spark_home(release)


def _pip_install(release: str, what: str) -> None:
    partial = release_dir(release).with_name(f"{release}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
           "--target", str(partial), f"pyspark=={release}"]
    try:  # (in a group of its own: an interrupt ends pip and whatever it started, processes.run)
        out = processes.run(cmd, timeout=PIP_TIMEOUT_S, capture_output=True, text=True)
    except Exception as e:
        shutil.rmtree(partial, ignore_errors=True)
        raise UserError(f"{what} = \"{release}\": installing pyspark {release} with pip did not finish ({type(e).__name__}); "
                        f"try again, or leave spark out for the project's {PROJECT_SPARK}") from None
    except BaseException:  # (Ctrl-C: no half-made release left behind)
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if out.returncode != 0 or not (partial / "pyspark" / "jars").is_dir():
        shutil.rmtree(partial, ignore_errors=True)
        raise UserError(f"{what} = \"{release}\": pip could not install pyspark {release} from PyPI ({pip_reason(out)}); "
                        f"give a release PyPI has, such as \"4.1.4\", or leave spark out for the project's {PROJECT_SPARK}")
    shutil.rmtree(release_dir(release), ignore_errors=True)
    os.replace(partial, release_dir(release))


def pip_reason(out) -> str:
    """pip's own reason in a few words: its last ERROR line (No matching distribution found for ...)."""
    lines = [line.strip() for line in (out.stderr or "").splitlines() if line.strip()]
    errors = [line.removeprefix("ERROR: ") for line in lines if line.startswith("ERROR:")]
    reason = (errors or lines or [f"exit {out.returncode}"])[-1]
    return reason if len(reason) <= 200 else reason[:197] + "..."


def worker_env(release: str | None, env: dict) -> dict:
    """The environment of an application's worker process (spark_worker.py) that runs `release`: its pyspark
    and py4j first on the import path, SPARK_HOME its own (pyspark starts the JVM from SPARK_HOME's
    spark-submit). The project's release: `env` as it is."""
    if is_project_spark(release):
        return env
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(release_dir(release)), env.get("PYTHONPATH", "")) if p)
    env["SPARK_HOME"] = str(spark_home(release))
    return env


def engine_field(spec, engine) -> str:
    """The spec field an engine's `spark` came from, as a refusal names it: `engine.spark` for a lone [engine],
    `engines.NAME.spark` otherwise (a swept engine by its expanded name)."""
    lone = len(spec.engines) == 1 and engine.name == engine.kind
    return "engine.spark" if lone else f"engines.{engine.name}.spark"


def prepare_releases(spec, on_phase) -> None:
    """Each spark engine's release other than the project's installed, and the jobs jar compiled against its jars,
    before the study writes anything: a release that cannot be used is one line (UserError), never a failed run."""
    from .jobs_jar import JobsCompileError, jobs_jar

    for engine in spec.engines:
        if engine.kind != "spark" or is_project_spark(engine.spark):
            continue
        what = f"{spec.source}: {engine_field(spec, engine)}"
        if engine.master.startswith("spark://") and embedded_spark_dir(engine.master) is not None:
            raise UserError(f"{what} = \"{engine.spark}\": the embedded cluster at {engine.master} (`tierbench services "
                            f"up spark`) runs the project's Spark {PROJECT_SPARK}, and its executors would not run a "
                            f"{engine.spark} driver's tasks; use a local master (local[N]) or leave spark out")
        ensure_release(engine.spark, what, on_phase)
        try:
            jobs_jar(engine.spark)
        except JobsCompileError as e:
            raise UserError(f"{what} = \"{engine.spark}\": tierbench's Java jobs do not compile against Spark "
                            f"{engine.spark}'s jars ({e.first_error[:200] or 'javac failed'}); use a release they "
                            f"compile against, such as \"4.1.4\", or leave spark out for the project's {PROJECT_SPARK}") \
                from None
