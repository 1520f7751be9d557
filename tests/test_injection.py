"""Issue 60: no string from a user reaches a command line unquoted; what tierbench's children print is masked as it
is written; setup/teardown commands die with tierbench, and a teardown a kill skipped runs first on --resume; an
ended YARN client's application is killed.

Fast (no JVM): every path and string field of a spec that reaches an engine, made of hostile pieces, through the
spark engine's settings and the hadoop engine's command line: each is one argument (or one item of its list), or
refused in one line. A real tierbench killed with `kill -9` during a setup leaves nothing of it running. The
ResourceManager that kills an application is a fake (`FakeResourceManager`): killing needs a running YARN
application, which only the e2e layer has.
"""

import http.server
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import threading
import time
import tomllib
from pathlib import Path

import pytest

from fixtures.capture_job_results import TERA_TOML
from tierbench import processes
from tierbench.engines import spark as spark_engine
from tierbench.engines.cmdline import OPTION_WORD
from tierbench.engines.fake import FakeEngine
from tierbench.engines.hadoop import engine as hadoop_engine
from tierbench.engines.hadoop.yarn_kill import application_ids, kill_applications, rm_web_address
from tierbench.errors import UserError
from tierbench.job import JobRequest
from tierbench.redaction import MaskedLog
from tierbench.spec import parse_spec
from tierbench.storage import StudyLayout
from tierbench.store import ResultsDir
from tierbench.scale.derive import parse_in
from tierbench.study.runner import StudyRunner
from tierbench.toolchain import cache_dir

JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())

# each as a folder's name (or a field's value): what an attacker (or an unlucky user) may put in a path
HOSTILE = {
    "javaagent": "x -javaagent:/nonexistent/agent.jar",
    "conf": "x --conf spark.driver.extraJavaOptions=-javaagent:/a.jar",
    "semicolon": "x;touch /tmp/tb-pwned",
    "subshell": "$(touch /tmp/tb-pwned)",
    "quotes": "x'y\"z`w",
    "comma": "a,b",
    "newline": "a\nb",
    "expansion": "${env.HOME}",
    "spaces": "my data dir",
}


def spec_with(d: Path, piece: str, engine: str = "", workloads: str = TERA_TOML, intermediate: bool = True):
    data, inter = d / f"data {piece}", d / f"tmp {piece}"
    doc = {"name": "inj", "repeats": 1, "drop_caches": "never", "sampling": {"enabled": False},
           "storage": {"a": {"data": [str(data)], **({"intermediate": [str(inter)]} if intermediate else {}),
                             "create_dirs": True}}}  # (a piece with a '/' is a folder in a folder)
    doc.update(tomllib.loads(textwrap.dedent(engine)))
    doc.update(tomllib.loads(workloads))
    return parse_spec(doc, "inj.toml", d)


def one_line(e: UserError) -> str:
    text = str(e)
    assert "\n" not in text.strip() and text.strip(), text
    return text


def spark_settings(d: Path, piece: str, monkeypatch) -> dict | None:
    """The spark engine's settings of a study whose dirs hold `piece` (None: refused in one line)."""
    monkeypatch.setattr(spark_engine, "jobs_jar", lambda spark=None: Path("/opt/tierbench/jobs.jar"))
    try:
        spec = spec_with(d, piece)
        config = spec.config("a")
        dirs = StudyLayout(spec).intermediate_dirs(config, "a")
        engine = spark_engine.SparkEngine(spec.engines[0], spec.name, d / "logs")
        conf = engine.application_conf("a", config, dirs, lambda text: None)
    except UserError as e:
        one_line(e)
        return None
    tmp = spark_engine.make_app_tmp(engine._tmp_root, "a")
    try:
        conf.update(spark_engine.jvm_tmp_conf(conf, tmp, True))
    finally:
        spark_engine.remove_app_tmp(tmp)
    return {"conf": conf, "dirs": [str(p) for p in dirs], "data": list(config.local_data), "tmp": tmp}


@pytest.mark.parametrize("what", sorted(HOSTILE))
def test_a_hostile_path_reaches_spark_as_one_item_or_is_refused_in_one_line(tmp_path, monkeypatch, what):
    got = spark_settings(tmp_path, HOSTILE[what], monkeypatch)
    if got is None:
        assert what in ("comma", "newline"), f"{what}: refused, though Spark can carry it"
        return
    conf = got["conf"]
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        words = shlex.split(conf[key])  # (as Spark's launcher splits them: whitespace, quotes)
        assert words == [f"-Djava.io.tmpdir={got['tmp']}"], words
        assert OPTION_WORD.match(str(got["tmp"])) and str(got["tmp"]).startswith(str(cache_dir()))
        assert str(tmp_path) not in conf[key]  # (no user's path in a split option at all)
    assert conf["spark.local.dir"].split(",") == got["dirs"]
    assert not Path(got["tmp"]).exists()


def hadoop_command(d: Path, piece: str, monkeypatch, mode: str = "local", conf_dir: str | None = None,
                   pattern: str = "needle") -> list[str] | None:
    """The hadoop engine's command line for a Grep of `pattern` over a study whose dirs hold `piece` (None: refused)."""
    monkeypatch.setattr(hadoop_engine, "jobs_jar", lambda: Path("/opt/tierbench/jobs.jar"))
    monkeypatch.setattr("tierbench.engines.hadoop.runtime.hadoop_lib", lambda: Path("/opt/hadoop/lib"))
    monkeypatch.setattr("tierbench.engines.hadoop.runtime.hadoop_log4j_dir", lambda: Path("/opt/hadoop/log4j"))
    engine_toml = f'[engine]\nkind = "hadoop"\nmode = "{mode}"\n' + (f'hadoop_conf_dir = {json.dumps(conf_dir)}\n' if conf_dir else "")
    grep = f'[[workloads]]\nname = "textgen"\nsize = "1MB"\n[[workloads]]\nname = "grep"\npattern = {json.dumps(pattern)}\n'
    try:
        spec = spec_with(d, piece, engine_toml, grep, intermediate=mode == "local")
        config, layout = spec.config("a"), StudyLayout(spec)
        w = next(w for w in spec.workloads if w.name == "grep")
        req = JobRequest("r1/a/grep", w, None, layout.dataset_uris(config, "a", 1, "text"),
                         layout.dataset_uris(config, "a", 1, "grep"), layout.intermediate_dirs(config, "a"),
                         layout.scratch_dir(config, "a", 1, "grep"), config.engine_settings(), config.default_fs)
        engine = hadoop_engine.HadoopEngine(spec.engines[0], d / "logs")
        return engine._command(req, engine._generic(req)), req
    except UserError as e:
        one_line(e)
        return None


@pytest.mark.parametrize("what", sorted(HOSTILE))
def test_a_hostile_path_reaches_hadoop_as_one_argument_or_is_refused_in_one_line(tmp_path, monkeypatch, what):
    got = hadoop_command(tmp_path, HOSTILE[what], monkeypatch)
    if got is None:
        assert what in ("comma", "newline", "expansion"), f"{what}: refused, though Hadoop can carry it"
        return
    cmd, req = got
    main = cmd.index("org.apache.hadoop.examples.Grep")
    jvm_options = cmd[1:main]
    assert not any("javaagent" in a or a.startswith("--conf") for a in jvm_options if not a.startswith("-Djava.io.tmpdir="))
    assert f"-Djava.io.tmpdir={req.scratch / 'jvm-tmp'}" in jvm_options  # one argv element, whole
    settings = dict(cmd[i + 1].split("=", 1) for i in range(main, len(cmd)) if cmd[i] == "-D")
    assert settings["mapreduce.cluster.local.dir"].split(",") == [str(p) for p in req.local_dirs]
    args = cmd[main + 1:]
    assert req.inputs[0] in args and req.outputs[0] in args  # each path one argument


@pytest.mark.parametrize("what", sorted(HOSTILE) + ["quote_end"])
def test_a_hostile_grep_pattern_is_one_literal_argument_or_refused_in_one_line(tmp_path, monkeypatch, what):
    pattern = HOSTILE.get(what, "a\\E.*")
    got = hadoop_command(tmp_path, "plain", monkeypatch, pattern=pattern)
    if got is None:  # (the spec's pattern is one word)
        return
    cmd, req = got
    # Pattern.quote's form: a `\E` in it does not end the literal early (what follows it stays literal)
    assert cmd[-1] == "\\Q" + pattern.replace("\\E", "\\E\\\\E\\Q") + "\\E" and cmd[-2] == req.outputs[0]


def test_a_conf_dir_with_a_colon_is_refused_in_one_line(tmp_path, monkeypatch):
    conf_dir = tmp_path / "conf:evil.jar"
    conf_dir.mkdir()
    (conf_dir / "yarn-site.xml").write_text("<configuration/>")
    assert hadoop_command(tmp_path, "plain", monkeypatch, mode="yarn", conf_dir=str(conf_dir)) is None


# -- logs masked as they are written -------------------------------------------------------------------------

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


def test_a_childs_log_never_holds_a_secret_even_while_it_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    path = tmp_path / "job.log"
    log = MaskedLog(path, "w", header=f"# header {SECRET}\n")
    proc = processes.spawn(["sh", "-c", 'echo "key=$AWS_SECRET_ACCESS_KEY"; echo "half ${AWS_SECRET_ACCESS_KEY%????}"; '
                            'echo ready; sleep 30'], stdout=log.fd, stderr=subprocess.STDOUT)
    log.started()
    try:
        deadline = time.monotonic() + 10
        while "ready" not in path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        text = path.read_text()  # (the child still running: what is on disk now)
        assert proc.poll() is None and "ready" in text
        assert SECRET not in text and "key=<redacted>" in text and "# header <redacted>" in text
    finally:
        processes.end_group(proc.pid)
        proc.wait()
        log.close()
    assert SECRET not in path.read_text()


def test_a_log_through_a_symbolic_link_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "job.log").symlink_to(target)
    with pytest.raises(UserError):
        MaskedLog(tmp_path / "job.log", "w")
    assert target.read_text() == "keep"


# -- setup and teardown die with tierbench; a skipped teardown runs first on --resume -----------------------

def study_with_commands(d: Path) -> Path:
    """A spark study whose setup hangs (while HANG exists) after writing its sleep's pid; both commands log."""
    log, hang, pid = d / "commands.log", d / "HANG", d / "sleep.pid"
    setup = (f'echo setup >> "{log}"; if [ -e "{hang}" ]; then sleep 300 & echo $! > "{pid}"; wait; fi')
    spec = d / "study.toml"
    spec.write_text(textwrap.dedent(f"""
        name = "killed"
        repeats = 1
        drop_caches = "never"
        [sampling]
        enabled = false
        [storage.a]
        data = ["{d}/data"]
        setup = {json.dumps(setup)}
        teardown = {json.dumps(f'echo teardown >> "{log}"')}
        """) + TERA_TOML)
    return spec


def wait_for(check, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def test_a_kill_9_during_a_setup_leaves_none_of_it_running_and_resume_runs_the_skipped_teardown_first(tmp_path):
    spec = study_with_commands(tmp_path)
    (tmp_path / "HANG").touch()
    out = tmp_path / "results"
    tb = subprocess.Popen([sys.executable, "-m", "tierbench", "run", str(spec), "--out", str(out)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: (tmp_path / "sleep.pid").is_file() and (tmp_path / "sleep.pid").read_text().strip(), 60)
        sleeper = int((tmp_path / "sleep.pid").read_text())
        assert processes.start_time(sleeper) is not None
        tb.send_signal(signal.SIGKILL)
        tb.wait()
        assert wait_for(lambda: processes.start_time(sleeper) is None, 30), "the setup's sleep outlived tierbench"
    finally:
        if tb.poll() is None:
            tb.kill()
            tb.wait()
    assert json.loads((out / ".tierbench-teardown").read_text()) == {"config": "a", "variant": "a"}
    assert (tmp_path / "commands.log").read_text().splitlines() == ["setup"]

    (tmp_path / "HANG").unlink()
    parsed = parse_in(tomllib.loads(spec.read_text()), str(spec), tmp_path, out)  # (as `run --resume` names its roots)
    StudyRunner(parsed, out, ["test"], resume=True, engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    # the teardown the kill skipped, before the resumed study's own setup
    assert (tmp_path / "commands.log").read_text().splitlines() == ["setup", "teardown", "setup", "teardown"]
    assert not (out / ".tierbench-teardown").exists()
    assert [c["kind"] for c in ResultsDir(out).study()["config_commands"]] == ["teardown", "setup", "teardown"]


def test_a_setup_command_is_guarded_and_its_children_end_with_its_group(tmp_path):
    """(processes.run as config_commands runs them: the supervisor does not outlive the command, whose exit status
    and output are the run's, a signal's as a shell says it)"""
    out = processes.run(["sh", "-c", "awk '{print $5}' /proc/$$/stat; sleep 300 >/dev/null 2>&1 & exit 4"], capture_output=True,
                        text=True, die_with_parent=signal.SIGKILL, group_dies_with_parent=True)
    group = int(out.stdout)
    assert out.returncode == 4 and out.stderr == ""
    processes.end_group(group, 0, grace_s=5)  # (as the caller ends what the command left, the sleep)
    assert not processes.group_members(group, 0)
    killed = processes.run(["sh", "-c", "kill -TERM $$"], capture_output=True, text=True, group_dies_with_parent=True)
    assert killed.returncode == 128 + signal.SIGTERM


# -- an ended YARN client's application is killed -----------------------------------------------------------

CLIENT_LOG = """2026-01-01 10:00:00,000 INFO impl.YarnClientImpl: Submitted application application_1767261600000_0007
2026-01-01 10:00:01,000 INFO mapreduce.Job: The url to track the job: http://rm:8088/proxy/application_1767261600000_0007/
2026-01-01 10:00:01,000 INFO mapreduce.Job: Running job: job_1767261600000_0007
"""


class FakeResourceManager(http.server.BaseHTTPRequestHandler):
    """Stands in for YARN's ResourceManager web service (a fake: killing needs a running application): records the
    state changes it is asked for."""
    asked: list = []

    def do_PUT(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        FakeResourceManager.asked.append((self.path, json.loads(body)))
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"state": "KILLING"}')

    def log_message(self, *args):
        pass


def test_the_application_an_ended_client_submitted_is_killed_at_the_resource_manager(tmp_path):
    assert application_ids(CLIENT_LOG) == ["application_1767261600000_0007"]
    server = http.server.HTTPServer(("127.0.0.1", 0), FakeResourceManager)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        (tmp_path / "yarn-site.xml").write_text(
            "<configuration><property><name>yarn.resourcemanager.hostname</name><value>127.0.0.1</value></property>"
            "<property><name>yarn.resourcemanager.webapp.address</name>"
            f"<value>${{yarn.resourcemanager.hostname}}:{port}</value></property></configuration>")
        assert rm_web_address(tmp_path) == f"127.0.0.1:{port}"
        FakeResourceManager.asked = []
        assert kill_applications(CLIENT_LOG, tmp_path) == []
        assert FakeResourceManager.asked == [("/ws/v1/cluster/apps/application_1767261600000_0007/state",
                                              {"state": "KILLED"})]
    finally:
        server.shutdown()
    # an unreachable ResourceManager: one line to warn with
    (why,) = kill_applications(CLIENT_LOG, tmp_path)
    assert "application_1767261600000_0007" in why and "\n" not in why


def test_an_interrupted_yarn_job_asks_for_its_application_to_be_killed(tmp_path, monkeypatch):
    """The hadoop engine's run, interrupted while its client waits: the client ended, its application killed."""
    asked = []
    monkeypatch.setattr(hadoop_engine, "kill_applications", lambda text, conf_dir: asked.append(application_ids(text)) or [])
    monkeypatch.setattr(hadoop_engine.HadoopEngine, "_command", lambda self, req, generic: [
        "sh", "-c", f"printf '%s' {shlex.quote(CLIENT_LOG)}; exec sleep 60"])

    def interrupted(proc, log_path, on_progress):
        wait_for(lambda: "Running job" in log_path.read_text(), 10)
        raise KeyboardInterrupt

    monkeypatch.setattr(hadoop_engine, "wait_for_job", interrupted)
    (tmp_path / "yarn-site.xml").write_text("<configuration/>")
    spec = spec_with(tmp_path, "plain", f'[engine]\nkind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{tmp_path}"\n',
                     intermediate=False)
    config, layout = spec.config("a"), StudyLayout(spec)
    w = spec.workloads[0]
    scratch = layout.scratch_dir(config, "a", 1, w.label)
    scratch.mkdir(parents=True)
    req = JobRequest("r1/a/teragen", w, None, [], layout.dataset_uris(config, "a", 1, "tera"), [], scratch)
    engine = hadoop_engine.HadoopEngine(spec.engines[0], tmp_path / "logs")
    monkeypatch.setattr(engine, "_generic", lambda req: {})
    with pytest.raises(KeyboardInterrupt):
        engine.run(req, lambda ev: None)
    assert asked == [["application_1767261600000_0007"]]
