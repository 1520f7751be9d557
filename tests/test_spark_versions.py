"""The spark engine's `spark` knob (`[engine] spark = "4.1.4"`): the spec's check, where another release lives in
tierbench's cache, what its application's worker is started with, a release that cannot be used as one line, and
`compare` of two studies that ran different releases. Fast: no JVM and no pip (stand-ins say what pip and javac
would); the real release runs in test_spark_version_e2e.py."""

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import write_spec
from tierbench.analysis.compare import compare_studies, study_labels
from tierbench.cli.main import main
from tierbench.engines import spark, spark_versions
from tierbench.engines.jobs_jar import JobsCompileError
from tierbench.spec import parse_spec
from tierbench.spec.fingerprint import run_fingerprint
from tierbench.store import ResultsDir
from tierbench.toolchain import PROJECT_SPARK

ROOT = Path(__file__).resolve().parent.parent
COMPARE = Path(__file__).parent / "fixtures" / "compare"

SPEC = """
name = "t"
[engine]
master = "local[1]"
{line}
[storage.a]
data = ["{d}/a"]
[[workloads]]
name = "teragen"
size = "1MB"
"""


def spec_of(tmp_path, line: str):
    return parse_spec(tomllib.loads(SPEC.format(line=line, d=tmp_path)), "s.toml")


def test_the_default_is_the_project_pin_and_leaves_every_fingerprint_as_it_was(tmp_path):
    pinned = re.search(r'"pyspark==([0-9.]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert PROJECT_SPARK == pinned
    default, named = spec_of(tmp_path, ""), spec_of(tmp_path, f'spark = "{PROJECT_SPARK}"')
    assert default.engines[0].spark is None and named.engines[0].spark is None  # (the venv's own: nothing installed)
    assert default.fingerprint() == named.fingerprint()
    other = spec_of(tmp_path, 'spark = "4.1.4"')
    assert other.engines[0].spark == "4.1.4" and other.fingerprint() != default.fingerprint()  # never pooled on resume


@pytest.mark.parametrize("value", ['"4.1"', '"latest"', "4.1", '"4.1.4 --index-url http://x"', '"../4.1.4"', '["4.1.4"]'])
def test_a_malformed_release_is_one_line_naming_the_field_and_what_is_accepted(tmp_path, tb_main, value):
    spec = write_spec(tmp_path / "s.toml", SPEC.format(line=f"spark = {value}", d=tmp_path))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    [line] = out.stderr.strip().splitlines()
    assert "engine.spark" in line and '"4.1.4"' in line and PROJECT_SPARK in line
    assert not (tmp_path / "res").exists()


def test_another_release_lives_in_tierbench_cache_and_its_worker_imports_it_from_there(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    assert spark_versions.release_dir("4.1.4") == tmp_path / "cache" / "spark" / "4.1.4"
    assert spark_versions.spark_home("4.1.4") == tmp_path / "cache" / "spark" / "4.1.4" / "pyspark"
    from tierbench.toolchain import pyspark_home

    assert spark_versions.spark_home(None) == spark_versions.spark_home(PROJECT_SPARK) == pyspark_home()
    env = {"PATH": "/bin", "PYTHONPATH": "/mine"}
    assert spark_versions.worker_env(None, env) is env  # the default path: the environment as it is
    other = spark_versions.worker_env("4.1.4", env)
    assert other["PYTHONPATH"].split(":") == [str(tmp_path / "cache" / "spark" / "4.1.4"), "/mine"]
    assert other["SPARK_HOME"] == str(tmp_path / "cache" / "spark" / "4.1.4" / "pyspark") and env["PYTHONPATH"] == "/mine"


def test_the_engine_starts_the_release_with_its_own_jobs_jar(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    started = {}

    class StandInApp:  # (no JVM: what the engine would start its application with)
        def __init__(self, conf, log_path, env=None, confine=None, uncovered=None):
            started.update(conf=conf, env=env)
            self.spark_version, self.full_conf, self.conf = "4.1.4", dict(conf), conf

        def stop(self):
            pass

    monkeypatch.setattr(spark, "SparkApp", StandInApp)
    monkeypatch.setattr(spark, "jobs_jar", lambda release=None: Path(f"/jobs-for-{release}.jar"))
    engine = spark.SparkEngine(spec_of(tmp_path, 'spark = "4.1.4"').engines[0], "t", tmp_path)

    class Config:
        from tierbench.storage import storage_type

        type, local_data = storage_type("local"), ()
        engine_settings = staticmethod(dict)

    engine.open("a", Config, [tmp_path / "x"], lambda _: None)
    assert started["conf"]["spark.jars"] == "/jobs-for-4.1.4.jar"
    assert started["env"]["SPARK_HOME"].endswith("/spark/4.1.4/pyspark")
    assert engine.version == "spark 4.1.4"  # what each run records as its engine_version (lifecycle.py)
    engine.close()


def refused_run(tmp_path, tb_main) -> str:
    spec = write_spec(tmp_path / "s.toml", SPEC.format(line='spark = "9.9.9"', d=tmp_path))
    out = tb_main("run", spec, "--out", tmp_path / "res")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert not list((tmp_path / "res").glob("runs.jsonl"))  # refused before anything was recorded
    return line


def test_a_release_pip_cannot_install_is_one_line_and_leaves_nothing_in_the_cache(tmp_path, tb_main, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    asked = []

    def pip(cmd, **kwargs):  # (what pip says of a release PyPI does not have)
        asked.append(cmd)
        Path(cmd[cmd.index("--target") + 1]).mkdir(parents=True)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not find a version that satisfies the requirement "
                                           "pyspark==9.9.9\nERROR: No matching distribution found for pyspark==9.9.9\n")

    monkeypatch.setattr(spark_versions.processes, "run", pip)
    line = refused_run(tmp_path, tb_main)
    assert 'engine.spark = "9.9.9"' in line and "No matching distribution found for pyspark==9.9.9" in line
    assert "pip" in line and PROJECT_SPARK in line
    assert asked and "--target" in asked[0] and asked[0][-1] == "pyspark==9.9.9"
    assert list((tmp_path / "cache" / "spark").iterdir()) == [tmp_path / "cache" / "spark" / ".install.lock"]


def test_a_release_the_jobs_do_not_compile_against_is_one_line(tmp_path, tb_main, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    (spark_versions.release_dir("9.9.9") / "pyspark" / "jars").mkdir(parents=True)  # (as if installed)

    def javac_refuses(release=None):
        raise JobsCompileError("compiling tierbench's Java jobs failed", "Jobs.java:12: error: cannot find symbol")

    monkeypatch.setattr("tierbench.engines.jobs_jar.jobs_jar", javac_refuses)
    line = refused_run(tmp_path, tb_main)
    assert 'engine.spark = "9.9.9"' in line and "do not compile against Spark 9.9.9" in line
    assert "cannot find symbol" in line and PROJECT_SPARK in line


def ran_on(release: str, tmp_path: Path) -> Path:
    """A copy of the compare fixture's rerun as if its spec had said spark = release (its runs recorded so)."""
    d = tmp_path / f"rerun-{release}"
    shutil.copytree(COMPARE / "rerun-results", d)
    study = json.loads((d / "study.json").read_text())
    study["spec"]["engines"][0]["spark"] = release
    study["fingerprint"] = run_fingerprint(study["spec"])
    (d / "study.json").write_text(json.dumps(study))
    runs = [json.loads(x) for x in (d / "runs.jsonl").read_text().splitlines()]
    for r in runs:
        r["engine_version"] = f"spark {release}"
    (d / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return d


def test_compare_sets_two_releases_side_by_side_labelled_by_release(tmp_path, capsys):
    base, other = COMPARE / "base-results", ran_on("4.1.4", tmp_path)
    studies = [ResultsDir(d).load(analysed=True) for d in (base, other)]
    labels = study_labels(studies)
    assert labels == [f"A spark {PROJECT_SPARK}", "B spark 4.1.4"]
    cmp = compare_studies(studies, labels)  # (the release differs in the spec: accepted, it is what is compared)
    assert cmp.accepted_differences == () and cmp.jobs and {d.study for d in cmp.jobs} == {"B spark 4.1.4"}
    [diff] = [d for d in cmp.environment if d.field == "engine_version"]
    assert diff.values == (f"spark {PROJECT_SPARK}", "spark 4.1.4")
    assert main(["compare", str(base), str(other), "--out", str(tmp_path / "cmp")]) == 0
    out = capsys.readouterr().out
    assert f"A spark {PROJECT_SPARK} = {base}" in out and "B spark 4.1.4 median" in out
    assert "B spark 4.1.4" in (tmp_path / "cmp" / "report.md").read_text()
    assert study_labels(studies[:1] * 2) == ["A", "B"]  # one release: the letters alone, as before


def test_another_release_on_the_embedded_standalone_cluster_is_one_line(tmp_path, monkeypatch):
    from tierbench.errors import UserError

    monkeypatch.setattr(spark_versions, "embedded_spark_dir", lambda master: tmp_path)  # (as `services up spark` left it)
    spec = parse_spec(tomllib.loads(SPEC.format(line='spark = "4.1.4"', d=tmp_path).replace(
        'master = "local[1]"', 'master = "spark://127.0.0.1:7077"').replace(
        f'data = ["{tmp_path}/a"]', f'data = {{ type = "shared", path = "{tmp_path}/a" }}')), "s.toml")
    with pytest.raises(UserError, match=r'engine.spark = "4.1.4": the embedded cluster .* runs the project'):
        spark_versions.prepare_releases(spec, lambda _: None)


def test_an_interrupted_install_leaves_no_partial_release(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))

    def interrupted(cmd, **kwargs):  # (processes.run has ended pip's group by then: test_ownership.py)
        Path(cmd[cmd.index("--target") + 1], "pyspark").mkdir(parents=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(spark_versions.processes, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        spark_versions.ensure_release("4.1.4", "s.toml: engine.spark")
    assert not spark_versions.installed("4.1.4")
    assert sorted(p.name for p in (tmp_path / "cache" / "spark").iterdir()) == [".install.lock"]
