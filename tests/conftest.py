import contextlib
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import traceback
import unittest.mock
import warnings
from pathlib import Path

import pytest

from loop_devices import two_loop_devices, two_loop_devices_buffered  # noqa: F401 (fixtures: tests/loop_devices.py)

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

# The end-to-end layer (`pytest -m e2e`): tests that start a JVM (Spark, Hadoop's jobs, HDFS, YARN, Ceph), and one long
# headless-browser run.
# A test is e2e when it uses one of these fixtures, or says so with @pytest.mark.e2e; everything else is the
# fast layer (`pytest -m "not e2e"`: no JVM, under 2 minutes).
E2E_FIXTURES = {"spark", "run_job", "study", "hdfs", "hdfs_uri", "ceph", "yarn", "standalone", "tera", "two_loop_devices", "two_loop_devices_buffered"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)


def pytest_collection_finish(session):
    """(After -m and -k have deselected: the last test that will use the shared Ceph.)"""
    users = [i.nodeid for i in session.items if "ceph" in getattr(i, "fixturenames", ())]
    _CEPH["last_user"] = users[-1] if users else None


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if item.nodeid == _CEPH.get("last_user"):  # the shared Ceph's last test: stop it now, not at the session's end
        _stop_shared_ceph()


@pytest.fixture(autouse=True)
def _vm_memory_kept(request):
    """The e2e layer runs on a VM set as `tierbench check` advises: free page reporting off (host_memory.py), from
    the first e2e test to the end of the session, then set back. Otherwise every page a JVM or the page cache takes
    anew is a host fault too, and the jobs measure the VM (8 GB TeraSort: 61 s instead of 44 s)."""
    if request.node.get_closest_marker("e2e") and not _VM_MEMORY:
        from tierbench.study.host_memory import freed_pages_kept

        kept = freed_pages_kept()
        _VM_MEMORY.append(kept)
        done = kept.__enter__()
        if done:
            print(f"\n{done}", file=sys.stderr)
        request.session.config.add_cleanup(lambda: kept.__exit__(None, None, None))
    yield


_VM_MEMORY: list = []

# What a JVM leaves in /tmp when nobody points its temporary files elsewhere (java.io.tmpdir, hadoop.tmp.dir,
# spark.local.dir): tierbench's JVMs keep theirs under its own roots, deleted with what they belong to.
JVM_LITTER = ("liblz4-java-", "libsnappyjava", "snappy-", "jetty-", "hadoop", "spark-", "blockmgr-")


def jvm_litter() -> set[str]:
    """/tmp's entries a JVM would leave, with what lies up to three levels inside Hadoop's default tmp dirs."""
    tmp, found = Path("/tmp"), set()
    for entry in tmp.iterdir():
        if entry.name.startswith(JVM_LITTER):
            found.add(entry.name)
            if entry.name.startswith("hadoop") and entry.is_dir():
                found.update(str(p.relative_to(tmp)) for depth in ("*", "*/*", "*/*/*") for p in entry.glob(depth))
    return found


@pytest.fixture(autouse=True)
def _no_device_left_up(request):
    """Every e2e test: an emulated device it brought up and left (a study that failed keeps its devices for --resume)
    is taken down after it, so that a failed test does not hold up to GBs of the machine's memory for the rest."""
    if not request.node.get_closest_marker("e2e"):
        yield
        return
    from tierbench.storage import emulation

    before = {d.name for d in emulation.devices()}
    yield
    for name in sorted({d.name for d in emulation.devices()} - before):
        emulation.down(name)


@pytest.fixture(autouse=True)
def _no_jvm_litter(request):
    """Every e2e test: no JVM it caused left anything new in /tmp."""
    if not request.node.get_closest_marker("e2e"):
        yield
        return
    before = jvm_litter()
    yield
    new = sorted(jvm_litter() - before)
    assert not new, f"left in /tmp by a JVM: {new[:5]}"


def tierbench(*args, cwd=None, timeout=600, check=False) -> subprocess.CompletedProcess:
    """Run the CLI as a user would, in its own process."""
    out = subprocess.run([sys.executable, "-m", "tierbench", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"tierbench {' '.join(map(str, args))} exited {out.returncode}\n{out.stdout}\n{out.stderr}")
    return out


def tierbench_main(*args, cwd=None, check=False) -> subprocess.CompletedProcess:
    """The CLI's main() called in this process, as `python -m tierbench` calls it: its exit code (SystemExit's code,
    argparse's 2; an uncaught exception is its traceback on stderr and exit 1, as Python's own), its stdout and stderr,
    Python warnings printed as Python prints them. The same command and outcome as `tierbench`, without a Python
    start and the imports (numpy, scipy, matplotlib) each call (0.5-2 s): for tests of what a command says, writes
    and exits with. A test of the process itself (signals, its children, its environment) runs `tierbench`."""
    from tierbench.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}  # main() sets its own
    here = os.getcwd()
    width = {"COLUMNS": os.environ.get("COLUMNS", "80")}  # a pipe's, as argparse and rich see a captured process's
    try:
        os.chdir(cwd or here)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _warnings_as_python_prints_them(), \
                unittest.mock.patch.dict(os.environ, width):
            try:
                raise SystemExit(main(list(map(str, args))))
            except SystemExit as e:
                code = _exit_status(e.code)
            except Exception:
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(here)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    done = subprocess.CompletedProcess(["tierbench", *map(str, args)], code, out.getvalue(), err.getvalue())
    if check and code != 0:
        raise AssertionError(f"tierbench {' '.join(map(str, args))} exited {code}\n{done.stdout}\n{done.stderr}")
    return done


def _exit_status(code) -> int:
    """The status a process leaving by SystemExit(code) exits with: None is 0, a number itself, else 1 (printed)."""
    if code is None or isinstance(code, int):
        return int(code or 0)  # (True is 1)
    print(code, file=sys.stderr)
    return 1


@contextlib.contextmanager
def _warnings_as_python_prints_them():
    """Warnings to (the redirected) stderr under Python's default filters, not pytest's record of them: a command
    that warns here says so where a user's `tierbench` would."""
    with warnings.catch_warnings():
        warnings.resetwarnings()  # (each warning shown once per place, as a fresh Python shows it)
        for hidden in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", hidden)
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: sys.stderr.write(
            warnings.formatwarning(message, category, filename, lineno, line))
        yield


def can_emulate_or_skip(why: str) -> None:
    """Skip, saying `why` the test needs it and what is missing, when this machine cannot emulate devices."""
    from tierbench.storage import emulation

    try:
        emulation.check_can_emulate()
    except Exception as e:
        pytest.skip(f"this machine cannot emulate devices, so {why}: {e}")


def one_error_line(out, *words) -> str:
    """The CLI refused, as it must: exit 2, one line "tierbench: error: ..." holding each of `words`, no traceback."""
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stdout + out.stderr
    assert len(lines) == 1 and lines[0].startswith("tierbench: error: ") and "Traceback" not in out.stderr, out.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# The five seed workloads at test size (megabytes): the body of most test studies.
# TeraGen of 20,003 rows in 2 tasks (an odd count: the last task's share differs), TeraSort and TeraValidate of it
TERA_SMALL = """
[[workloads]]
name = "teragen"
rows = 20_003
tasks = 2
[[workloads]]
name = "terasort"
[[workloads]]
name = "teravalidate"
"""
DFSIO_SMALL = """
[[workloads]]
name = "dfsio-write"
files = 2
file_size = "2MiB"
[[workloads]]
name = "dfsio-read"
"""
SMALL_WORKLOADS = DFSIO_SMALL + TERA_SMALL


# TeraGen of 64 MB in 2 files and the TeraSort of it: the durability and emulation studies' writers
TERA_64MB = """
[[workloads]]
name = "teragen"
size = "64MiB"
tasks = 2
[[workloads]]
name = "terasort"
"""


def write_spec(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


@pytest.fixture
def tb():
    return tierbench


@pytest.fixture
def tb_main():
    return tierbench_main


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """One local Spark session with tierbench's jobs jar, for tests of the Java jobs."""
    from pyspark.sql import SparkSession
    from tierbench.engines.jobs_jar import jobs_jar

    tmp = tmp_path_factory.mktemp("spark-session")  # its JVM's temporary files and Spark's local dir, not /tmp's
    s = (SparkSession.builder.master("local[2]").appName("tierbench-tests")
         .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={tmp}").config("spark.local.dir", str(tmp))
         .config("spark.hadoop.hadoop.tmp.dir", str(tmp / "hadoop"))
         .config("spark.jars", str(jobs_jar())).config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def run_job(spark):
    import json

    from tierbench.workloads import WORKLOADS

    def run(job, **params):
        """`job`: a workload name (its Spark job) or a job's own "Class.method" name."""
        job = WORKLOADS[job].spark_job if job in WORKLOADS else job
        return json.loads(spark._jvm.tierbench.jobs.Jobs.run(spark._jsc, job, json.dumps(params)))

    return run


def hdfs_service(tmp_path_factory, name: str, datanodes: int):
    """A real HDFS from `tierbench services up hdfs` for a test module: yields (dir, uri, `up` output); stops it after."""
    import json

    d = tmp_path_factory.mktemp(name)
    up = tierbench("services", "up", "hdfs", "--dir", d / "svc", "--datanodes", str(datanodes), timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    yield d, json.loads((d / "svc" / "service.json").read_text())["uri"], up
    down = tierbench("services", "down", "hdfs", "--dir", d / "svc", timeout=120)
    assert down.returncode == 0 and "stopped" in down.stdout


# One Ceph for the S3 tests (tests/test_s3.py, then tests/test_s3_tables.py, which sorts right after it): its start
# and stop cost a minute of CI's 45; stopped after the last test that uses it (pytest_runtest_teardown above).
_CEPH: dict = {}


@pytest.fixture(scope="session")
def ceph(tmp_path_factory):
    """The study's object store in small, from `tierbench services up s3`: 5 OSDs, the buckets' data erasure-coded
    3+2, 2 gateways behind HAProxy. Yields (dir, endpoint, credentials, `up` output)."""
    import json

    d = tmp_path_factory.mktemp("ceph")
    up = tierbench("services", "up", "s3", "--dir", d / "svc", "--osds", "5", "--ec", "3+2", "--gateways", "2",
                   "--balancer", "haproxy", timeout=900)
    assert up.returncode == 0, up.stderr[-3000:]
    _CEPH["dir"] = d
    state = json.loads((d / "svc" / "service.json").read_text())
    yield d, state["endpoint"], json.loads((d / "svc" / "credentials").read_text()), up
    _stop_shared_ceph()


def _stop_shared_ceph() -> None:
    d = _CEPH.pop("dir", None)
    if d is not None:
        down = tierbench("services", "down", "s3", "--dir", d / "svc", timeout=300)
        assert down.returncode == 0 and "stopped" in down.stdout, down.stderr[-2000:]


def standalone_spark_service(tmp_path_factory):
    """A real standalone Spark of 2 Workers (127.0.0.2 and .3) from `tierbench services up spark`, on Worker dirs of
    its own (`own/worker-N`), for a test module: yields (dir, master URL); stops it after."""
    import json

    d = tmp_path_factory.mktemp("standalone")
    up = tierbench("services", "up", "spark", "--workers", "2", "--dir", d / "svc", "--worker-dirs", d / "own",
                   timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    yield d, json.loads((d / "svc" / "service.json").read_text())["master_url"]
    down = tierbench("services", "down", "spark", "--dir", d / "svc", timeout=120)
    assert down.returncode == 0 and "stopped" in down.stdout


@pytest.fixture(scope="session")
def sweep_sql_document():
    """The report document of the committed sweep + SQL results, built once for every test that only reads it
    (building draws every chart: ~5 s). Read-only: the folder is not written to."""
    from tierbench.report.build import StudyResults

    return StudyResults.load(Path(__file__).parent / "fixtures" / "sweep-sql-results").document


@pytest.fixture(scope="session")
def priced_quickstart():
    """The committed quickstart results priced as the quickstart spec prices them (its [cost], example prices, which
    the folder's study.json predates: set in memory), the report document built once for every test that only
    reads it. Read-only: the folder is not written to."""
    import tomllib
    from importlib import resources

    from tierbench.report.build import StudyResults
    from tierbench.spec import parse_spec

    folder = Path(__file__).parent / "fixtures" / "quickstart-results"
    results = StudyResults.load(folder)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    results.stored.study.spec["cost"] = parse_spec(raw, "quickstart", base_dir=folder).to_dict()["cost"]
    return results


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def ssh_config(tmp_path_factory):
    """An sshd on a free port, root's login by a key made here, and an ssh config naming node-a and node-b
    (both this machine) and node-closed (a port nothing listens on)."""
    if not (shutil.which("ssh") and os.path.exists("/usr/sbin/sshd")):
        pytest.fail("ssh/sshd not installed: run ./setup.sh --test (installs openssh-client and openssh-server)")
    if os.geteuid() != 0:
        pytest.skip("not root: this test starts its own sshd (host keys, privilege separation in /run/sshd) and logs "
                    "in over it as root, which only root may set up (CI runs as root)")
    d = tmp_path_factory.mktemp("sshd")
    for key in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)], check=True)
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    port = _free_port()
    (d / "sshd_config").write_text(f"""Port {port}
ListenAddress 127.0.0.1
HostKey {d}/host_key
AuthorizedKeysFile {d}/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile {d}/sshd.pid
""")
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(d / "sshd_config")],
                            stdout=subprocess.DEVNULL, stderr=open(d / "sshd.log", "w"))
    cfg = d / "ssh_config"
    cfg.write_text(f"""Host node-closed
  Port {_free_port()}
Host node-a node-b node-closed
  HostName 127.0.0.1
  Port {port}
  User root
  IdentityFile {d}/client_key
  IdentitiesOnly yes
  UserKnownHostsFile /dev/null
  StrictHostKeyChecking no
  LogLevel ERROR
""")  # (ssh takes the first value it finds for an option: node-closed's Port comes first)
    try:
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert sshd.poll() is None and time.time() < deadline, (d / "sshd.log").read_text()
                time.sleep(0.1)
        yield str(cfg)
    finally:
        sshd.kill()
        sshd.wait()


def daemon_pid(pid_file) -> int:
    """The pid a `tierbench services` pid file records (with the process's start time, services/base.py)."""
    import json

    return int(json.loads(Path(pid_file).read_text())["pid"])


def as_run(record):
    """A record dict as analysis/ and report/ read runs (store.StoredRun, made by the store's StoredRun.from_dict). A
    hand-made record holds only what the tested code reads: the fields every stored record has get neutral values
    (variant and configuration each other's, as record.upgrade gives them). A StoredRun is returned as it is."""
    from tierbench.store import StoredRun

    if isinstance(record, StoredRun):
        return record
    r = {"run_key": "", "status": "", "workload": "", "label": "", "repeat": 0, "metrics": {}, "details": {}} | record
    r.setdefault("variant", r.get("config"))
    r.setdefault("config", r["variant"])
    return StoredRun.from_dict(r)


def as_runs(records) -> list:
    return [as_run(r) for r in records]
