"""Storage configurations that really apply on a cluster, or a refusal before anything runs.

Fast (no JVM): `intermediate` where the cluster manager owns the executors' local dirs is refused in one line,
unless a `setup` command is named; setup/teardown around each block of a configuration's runs (on the
FakeEngine); a failing setup; the k8s local-dir volumes; what each record says applied its intermediate dirs.
End to end: `tierbench services up spark --workers 2` and a study of two configurations on it: each Worker's
executors on that configuration's intermediate dirs, on hosts 127.0.0.2 and 127.0.0.3.
"""

import json
import re
import textwrap
import tomllib
import urllib.request
from pathlib import Path

import pytest

from conftest import one_error_line, tierbench, tierbench_main, write_spec
from fixtures.capture_job_results import TERA_TOML
from tierbench.engines.fake import FakeEngine
from tierbench.errors import SpecError
from tierbench.study.runner import StudyRunner
from tierbench.spec import parse_spec
from tierbench.spec.cluster import NOT_APPLIED, intermediate_applied
from tierbench.store import ResultsDir

JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())


def spec_of(d: Path, engine: str, storage: str, workloads: str = TERA_TOML, **top):
    text = textwrap.dedent(f"""
        name = "cluster"
        repeats = {top.get("repeats", 1)}
        drop_caches = "never"
        [sampling]
        enabled = false
        """) + textwrap.dedent(engine) + textwrap.dedent(storage) + workloads
    return parse_spec(tomllib.loads(text), "cluster.toml", d)


# -- the refusal, before anything runs ------------------------------------------------------------------

def test_intermediate_on_a_yarn_master_is_refused_in_one_line_naming_the_field(tmp_path):
    spec = write_spec(tmp_path / "s.toml", f"""
        name = "onyarn"
        [engine]
        master = "yarn"
        [storage.fast]
        data = {{ type = "shared", path = "{tmp_path}/data" }}
        intermediate = ["{tmp_path}/ssd"]
        [[workloads]]
        name = "teragen"
        """)
    line = one_error_line(tierbench_main("run", spec, "--out", tmp_path / "res"), "storage.fast.intermediate",
                          "yarn.nodemanager.local-dirs", "storage.fast.setup", "leave intermediate out")
    assert "s.toml" in line
    assert not (tmp_path / "res").exists() and not (tmp_path / "ssd").exists() and not (tmp_path / "data").exists()


@pytest.mark.parametrize("engine, says", [
    ('[engine]\nmaster = "yarn"', "yarn.nodemanager.local-dirs"),
    ('[engine]\nmaster = "spark://10.0.0.5:7077"', "SPARK_LOCAL_DIRS"),
    ('[engine]\nkind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{d}"', "NodeManagers' local dirs"),
])
def test_named_intermediate_is_refused_where_the_cluster_manager_owns_the_local_dirs(tmp_path, engine, says):
    split = f'[storage.s]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\nintermediate = {{ dirs = ["{tmp_path}/ssd"], split = 2 }}\n'
    with pytest.raises(SpecError) as e:
        spec_of(tmp_path, engine.format(d=tmp_path) + "\n", split)
    assert e.value.field == "storage.s.intermediate" and says in e.value.problem and "\n" not in str(e.value)


def test_with_a_setup_command_it_is_accepted_and_recorded_as_applied_by_it(tmp_path):
    spec = spec_of(tmp_path, '[engine]\nmaster = "yarn"\n', f"""
        [storage.fast]
        data = {{ type = "shared", path = "{tmp_path}/data" }}
        intermediate = ["{tmp_path}/ssd"]
        setup = "ansible-playbook local-dirs.yml -e dirs=$TIERBENCH_INTERMEDIATE"
        teardown = "ansible-playbook local-dirs.yml -e dirs=default"
        """)
    assert intermediate_applied(spec.engines[0], spec.config("fast")) == "setup command"


def test_what_applies_the_intermediate_dirs_is_never_spark_local_dir_on_a_cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))  # no embedded cluster known
    storage = f'[storage.a]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\n'  # intermediate left out: the cluster manager's own dirs

    def applied(engine: str) -> str:
        spec = spec_of(tmp_path, engine, storage)
        return intermediate_applied(spec.engines[0], spec.config("a"))

    assert applied('[engine]\nmaster = "local[2]"\n') == "spark.local.dir"
    assert applied('[engine]\nmaster = "k8s://https://api:6443"\n') == "k8s volumes"
    assert applied('[engine]\nmaster = "yarn"\n') == NOT_APPLIED
    assert applied('[engine]\nmaster = "spark://127.0.0.1:7077"\n') == NOT_APPLIED
    assert applied(f'[engine]\nkind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{tmp_path}"\n') == NOT_APPLIED
    assert applied('[engine]\nkind = "hadoop"\n') == "mapreduce.cluster.local.dir"
    # the master of a `tierbench services up spark` cluster (its directory recorded under the cache dir)
    from tierbench.toolchain import remember_spark_master

    svc = tmp_path / "svc"
    svc.mkdir()
    (svc / "service.json").write_text(json.dumps({"ports": {"master": 7077, "web": 8080}, "master_url": "spark://127.0.0.1:7077"}))
    remember_spark_master("spark://127.0.0.1:7077", svc)
    assert applied('[engine]\nmaster = "spark://127.0.0.1:7077"\n') == "worker restart"
    assert applied('[engine]\nmaster = "spark://127.0.0.1:7077,"\n') == "worker restart"  # as copied from `up`'s line
    spec_of(tmp_path, '[engine]\nmaster = "spark://localhost:7077"\n', storage + f'intermediate = ["{tmp_path}/ssd"]\n')


def test_a_bad_setup_command_is_one_line(tmp_path):
    with pytest.raises(SpecError) as e:
        spec_of(tmp_path, "", f'[storage.a]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\nsetup = ["ansible-playbook", "x.yml"]\n')
    assert e.value.field == "storage.a.setup" and "sh -c" in e.value.problem


# -- setup / teardown around each block of a configuration's runs (FakeEngine: no JVM) ------------------------

def two_configs(d: Path, setup_a: str) -> str:
    log = d / "commands.log"
    record = lambda what: f'echo "{what} $TIERBENCH_CONFIG" >> {log}; echo "$TIERBENCH_INTERMEDIATE" >> {d}/dirs-$TIERBENCH_CONFIG'
    return f"""
        [storage.a]
        data = ["{d}/data-a"]
        intermediate = {{ dirs = ["{d}/tmp-a"], split = 2 }}
        setup = '{setup_a or record("setup")}'
        teardown = '{record("teardown")}'
        [storage.b]
        data = ["{d}/data-b"]
        setup = '{record("setup")}'
        teardown = '{record("teardown")}'
        """


def run_fake(d: Path, storage: str, repeats: int = 1):
    spec = spec_of(d, "", storage, TERA_TOML, repeats=repeats)
    engine = FakeEngine(JOB_RESULTS)
    StudyRunner(spec, d / "results", ["test"], engines={"spark": engine}).run()
    results = ResultsDir(d / "results")
    return results.records(), results.study(), engine


def test_setup_and_teardown_run_once_per_configuration_block_in_order(tmp_path):
    recs, study, engine = run_fake(tmp_path, two_configs(tmp_path, ""))
    assert (tmp_path / "commands.log").read_text().splitlines() == ["setup a", "teardown a", "setup b", "teardown b"]
    assert len(recs) == 6 and all(r["status"] == "ok" for r in recs)
    for r in recs:
        assert r["details"]["setup"]["command"].startswith('echo "setup $TIERBENCH_CONFIG"')
        assert r["details"]["setup"]["exit_code"] == 0 and r["details"]["setup"]["seconds"] >= 0
        assert r["storage"]["intermediate_applied"] == "spark.local.dir"  # local mode: the setup is the user's extra
    ran = study["config_commands"]
    assert [(c["kind"], c["config"], c["exit_code"]) for c in ran] == [
        ("setup", "a", 0), ("teardown", "a", 0), ("setup", "b", 0), ("teardown", "b", 0)]
    # the commands saw the configuration's intermediate dirs as the runs use them (split included)
    assert (tmp_path / "dirs-a").read_text().split("\n")[0] == ",".join(recs[0]["storage"]["local_dirs"])
    assert len(recs[0]["storage"]["local_dirs"]) == 2
    # the last configuration's application was closed before the next one's setup changed the cluster
    assert engine.calls.index("close") < engine.calls.index("open b")


def test_with_repeats_each_block_has_its_own_setup(tmp_path):
    run_fake(tmp_path, two_configs(tmp_path, ""), repeats=2)
    assert (tmp_path / "commands.log").read_text().splitlines() == ["setup a", "teardown a", "setup b", "teardown b"] * 2


def test_a_failing_setup_fails_its_blocks_runs_with_its_cause_and_the_study_goes_on(tmp_path):
    storage = two_configs(tmp_path, "echo preparing; echo no such NodeManager: nm7 >&2; exit 3")
    recs, study, _ = run_fake(tmp_path, storage)
    by = {r["run_key"]: r for r in recs}
    for w in ("teragen", "terasort", "teravalidate"):
        r = by[f"r1/a/{w}"]
        assert r["status"] == "failed" and r["error"] == "not run: storage.a.setup failed (exit 3): no such NodeManager: nm7"
        assert r["details"]["setup"]["exit_code"] == 3
        assert by[f"r1/b/{w}"]["status"] == "ok"
    # its teardown still ran (to undo what a setup may have half done), and what ran is in study.json with its log
    assert (tmp_path / "commands.log").read_text().splitlines() == ["teardown a", "setup b", "teardown b"]
    failed = study["config_commands"][0]
    assert failed["cause"].endswith("no such NodeManager: nm7")
    assert "preparing" in (tmp_path / "results" / failed["log"]).read_text()


def test_a_fixed_setup_command_may_be_resumed_with(tmp_path):
    """The commands prepare the cluster, they are not what is measured: editing one keeps the study's fingerprint
    (--resume goes on; each run records what its setup did)."""
    base = f'[storage.a]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\n'
    fingerprints = {spec_of(tmp_path, "", base + extra).fingerprint() for extra in
                    ("", 'setup = "ansible-playbook x.yml"\n', 'setup = "ansible-playbook fixed.yml"\nteardown = "true"\n')}
    assert len(fingerprints) == 1


# -- Kubernetes: the executors' local dirs are volumes named spark-local-dir-N ---------------------------------

def test_k8s_master_mounts_each_intermediate_dir_as_a_spark_local_dir_volume(tmp_path, monkeypatch):
    from tierbench.engines import spark

    monkeypatch.setattr(spark, "jobs_jar", lambda spark=None: Path("/jobs.jar"))  # (building it needs javac)
    spec = spec_of(tmp_path, '[engine]\nmaster = "k8s://https://api.example:6443"\n',
                   f'[storage.s]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\nintermediate = ["/mnt/ssd1", "/mnt/ssd2"]\n')
    dirs = [Path("/mnt/ssd1/tierbench/cluster/s/intermediate/dir0"), Path("/mnt/ssd2/tierbench/cluster/s/intermediate/dir0")]
    conf = spark.spark_conf(spec.engines[0], "app", dirs)
    volume = "spark.kubernetes.executor.volumes.hostPath.spark-local-dir-{}.{}"
    for n, d in enumerate(dirs, 1):
        assert conf[volume.format(n, "mount.path")] == conf[volume.format(n, "options.path")] == str(d)
    assert not any("spark-local-dir-3" in k for k in conf)
    assert intermediate_applied(spec.engines[0], spec.config("s")) == "k8s volumes"
    local = spark.spark_conf(spec_of(tmp_path, "", f'[storage.s]\ndata = {{ type = "shared", path = "{tmp_path}/d" }}\n').engines[0], "app", dirs)
    assert not any(k.startswith("spark.kubernetes.") for k in local)


def test_the_spark_jvms_temporary_files_go_to_tierbenchs_dir_where_the_jvms_run_here(tmp_path):
    from tierbench.engines.spark_tmp import jvm_tmp_conf

    here = jvm_tmp_conf({"spark.driver.extraJavaOptions": "-XX:+UseG1GC"}, tmp_path / "t", executors_here=True)
    assert here == {"spark.driver.extraJavaOptions": f"-XX:+UseG1GC -Djava.io.tmpdir={tmp_path / 't'}",
                    "spark.executor.extraJavaOptions": f"-Djava.io.tmpdir={tmp_path / 't'}",
                    "spark.hadoop.hadoop.tmp.dir": str(tmp_path / "t" / "hadoop"),
                    # (the driver's SparkSession makes it: else an empty spark-warehouse/ in the working directory)
                    "spark.sql.warehouse.dir": f"file:{tmp_path / 't' / 'spark-warehouse'}"}
    # another cluster's executors: a path of this machine means nothing there; the spec's own tmpdir wins
    assert jvm_tmp_conf({}, tmp_path / "t", executors_here=False) == {
        "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={tmp_path / 't'}",
        "spark.sql.warehouse.dir": f"file:{tmp_path / 't' / 'spark-warehouse'}"}
    assert jvm_tmp_conf({"spark.driver.extraJavaOptions": "-Djava.io.tmpdir=/scratch", "spark.hadoop.hadoop.tmp.dir": "/h",
                         "spark.sql.warehouse.dir": "/w"},
                        tmp_path / "t", executors_here=True) == {"spark.executor.extraJavaOptions": f"-Djava.io.tmpdir={tmp_path / 't'}"}


def test_the_spark_engine_restarts_an_embedded_clusters_workers_on_the_configurations_dirs(tmp_path, monkeypatch):
    from tierbench.engines import spark
    from tierbench.services import spark as standalone

    restarted = []

    class Cluster:
        def restart_workers(self, local_dirs, on_phase):
            restarted.append(local_dirs)

        def registered_workers(self):
            return 2

    class App:
        def __init__(self, conf, log, env, confine=None, uncovered=None):
            self.conf, self.spark_version, self.full_conf = conf, "4", conf
            assert "SPARK_LOCAL_DIRS" not in env  # it would win over spark.local.dir

        def stop(self):
            pass

    monkeypatch.setenv("SPARK_LOCAL_DIRS", "/elsewhere")
    monkeypatch.setattr(spark, "jobs_jar", lambda spark=None: Path("/jobs.jar"))
    monkeypatch.setattr(spark, "SparkApp", App)
    monkeypatch.setattr(standalone, "embedded_standalone", lambda master: Cluster() if master == "spark://127.0.0.1:7" else None)
    for master, expected in (("spark://127.0.0.1:7", 1), ("local[2]", 0)):
        restarted.clear()
        spec = spec_of(tmp_path, f'[engine]\nmaster = "{master}"\n', f'[storage.s]\ndata = {{ type = "shared", path = "{tmp_path}/d" }}\n')
        engine = spark.SparkEngine(spec.engines[0], "cluster", tmp_path)
        engine.open("s", spec.config("s"), [tmp_path / "i0", tmp_path / "i1"], lambda text: None)
        assert restarted == [[tmp_path / "i0", tmp_path / "i1"]] * expected


# -- end to end: the embedded standalone cluster applies them ------------------------------------------------

def master_json(svc: Path) -> dict:
    port = json.loads((svc / "service.json").read_text())["ports"]["web"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/", timeout=5) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    """One standalone cluster for this module's two studies (its start is most of a study's time here)."""
    from conftest import standalone_spark_service

    yield from standalone_spark_service(tmp_path_factory)


@pytest.mark.e2e
def test_embedded_standalone_workers_use_each_configurations_intermediate_dirs(tmp_path, standalone):
    d, master = standalone
    svc = d / "svc"
    hosts = sorted(w["host"] for w in master_json(svc)["workers"] if w["state"] == "ALIVE")
    assert hosts == ["127.0.0.2", "127.0.0.3"]
    spec = write_spec(tmp_path / "s.toml", f"""
        name = "standalone-dirs"
        repeats = 1
        warm_up = false
        drop_caches = "never"
        [sampling]
        enabled = false
        [engine]
        master = "{master}"
        driver_memory = "1g"
        executor_memory = "768m"
        [storage.a]
        data = ["{tmp_path}/data"]
        intermediate = ["{tmp_path}/inter-a"]
        [storage.b]
        data = ["{tmp_path}/data"]
        intermediate = {{ dirs = ["{tmp_path}/inter-b"], split = 2 }}
        [[workloads]]
        name = "teragen"
        size = "8MiB"
        tasks = 2
        [[workloads]]
        name = "terasort"
        """)
    out = tierbench("run", spec, "--out", tmp_path / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = [json.loads(l) for l in (tmp_path / "res" / "runs.jsonl").read_text().splitlines()]
    assert len(recs) == 4 and all(r["status"] == "ok" for r in recs)
    assert {r["storage"]["intermediate_applied"] for r in recs} == {"worker restart"}
    local_dirs = {r["config"]: r["storage"]["local_dirs"] for r in recs}
    assert len(local_dirs["b"]) == 2
    # each executor's block manager dirs (its stderr, kept in its Worker's work dir): under its Worker's
    # subdirectory of the configuration's intermediate dirs; its host: the Worker's own address
    apps = {a["id"]: a["name"] for a in master_json(svc)["completedapps"] if a["name"].startswith("tierbench standalone-dirs ")}
    seen = set()
    for w in (1, 2):
        for stderr in (svc / f"worker-{w}").glob("app-*/*/stderr"):
            if stderr.parent.parent.name not in apps:
                continue  # the module's other study
            config = apps[stderr.parent.parent.name].rsplit(" ", 1)[1]
            text = stderr.read_text()
            assert f'"--hostname" "127.0.0.{w + 1}"' in text.splitlines()[0]  # the executor's launch command
            created = re.findall(r"DiskBlockManager: Created local directory at (\S+)", text)
            assert created, stderr
            for path in created:
                assert any(path.startswith(f"{x}/worker-{w}/") for x in local_dirs[config]), (path, local_dirs[config])
            seen.add((config, w))
    assert seen == {("a", 1), ("a", 2), ("b", 1), ("b", 2)}
    # after the study, the Workers are back on their own dirs (the study's are deleted)
    state = json.loads((svc / "service.json").read_text())
    assert state["worker_local_dirs"] == {"1": [str(d / "own" / "worker-1")], "2": [str(d / "own" / "worker-2")]}
    assert not (tmp_path / "inter-a" / "tierbench").exists()


@pytest.mark.e2e
def test_an_embedded_standalone_clusters_executors_are_held_when_the_study_restarted_its_workers(tmp_path, standalone):
    """The scaled study of test_scale_model on `services up spark`: the engine restarts the Workers on the
    configuration's dirs for its application, joins them to the budget (tests/test_spark_budget.py), and their
    executors are born in it: the runs' page cache is held within the budget and TeraSort's shuffle is read from
    the drive."""
    from test_scale_model import device_read_bytes, run_scaled_study

    _, master = standalone
    # core_speed 1: the drives as before the calibration (test_scale_model checks that), each run long enough
    # for the budget's polls
    runs = run_scaled_study(tmp_path, "spark", 'copies = 1\nfiller = "random"',
                            f'master = "{master}"\ndriver_memory = "1g"\nexecutor_memory = "768m"',
                            scale_lines="core_speed = 1.0")
    sort = runs["terasort"]
    assert sort["storage"]["intermediate_applied"] == "worker restart"
    read, data = device_read_bytes(sort), sort["metrics"]["data_mb"] * (1 << 20)
    assert read >= 1.6 * data, f"TeraSort read {read / 2**20:.0f} MB from its drive for {data / 2**20:.0f} MB of " \
                               "input and as much shuffled"


@pytest.mark.parametrize("master", ["yarn", "spark://10.0.0.5:7077", "k8s://https://api.example:6443"])
def test_local_data_dirs_on_other_hosts_are_refused_unless_shared(tmp_path, master):
    """A writer's parts would land on its own node's disk and a reader would see only its own node's: refused."""
    with pytest.raises(SpecError) as e:
        spec_of(tmp_path, f'[engine]\nmaster = "{master}"\n', f'[storage.jbod]\ndata = ["{tmp_path}/data"]\n')
    assert "storage.jbod.data" in str(e.value) and "shared" in str(e.value)
    shared = spec_of(tmp_path, f'[engine]\nmaster = "{master}"\n',
                     f'[storage.nfs]\ndata = {{ type = "shared", path = "{tmp_path}/data" }}\n')
    assert shared.storage[0].name == "nfs"
