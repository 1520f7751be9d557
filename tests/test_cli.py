"""The command line as a user meets it: help, errors, cost, service status; and its shape (one module per verb). Fast: no JVM."""

import ast
import importlib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from conftest import one_error_line, tierbench_main

CLI = Path(__file__).parent.parent / "src" / "tierbench" / "cli"

OPTIONS = {  # each verb and what its --help must mention
    "run": ["spec", "--out", "--resume"],
    "quickstart": ["--out", "--resume", "results/quickstart", "--local", "emulate"],
    "report": ["dir"],
    "results": ["dir", "--format", "{json,csv}"],
    "compare": ["DIR", "--out", "--allow", "--allow-mixed", "--fail-if-slower", "--json", "tierbench-compare",
                "baseline", "exit status"],
    "workloads": [],
    "probe": ["spec", "--out", "--size"],
    "check": ["spec", "--dir", "--json", "swappiness", "noatime", "[cluster]", "Exit status 1"],
    "predict": ["results", "--hardware", "--size", "--nodes", "--calibrate", "--published", "--json", "--drives",
                "sandisk-all-ssd", "docs/model.md"],
    "advise": ["results", "--hardware", "--size", "--json", "split"],
    "services": ["{up,down,status}", "{yarn,spark,hdfs,s3}", "--datanodes", "--port", "--datanode-dirs", "--data-dir",
                 "--workers", "--worker-dirs", "--dir", "--conf-dir"],
    "emulate": ["{up,down,status}", "--profile", "--size", "--no-check", "--read-mb-s", "hdd", "sata-ssd", "nvme", "custom"],
    "cost": ["--runtime-s", "--price-usd", "--years", "--utilisation", "--reference", "--json"],
}


@pytest.mark.parametrize("verb", OPTIONS)
def test_every_verb_has_help_with_its_options(verb):
    out = tierbench_main(verb, "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: tierbench {verb}")
    for opt in OPTIONS[verb]:
        assert opt in out.stdout, (verb, opt)


def test_no_verb_prints_help_and_exits_2():
    out = tierbench_main()
    assert out.returncode == 2
    assert out.stdout.startswith("usage: tierbench")
    listed = [line.split()[0] for line in out.stdout.split("COMMAND\n", 2)[-1].split("\n\n")[0].splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed == list(OPTIONS)  # every verb, in this order
    assert "examples:" in out.stdout and "docs: README.md" in out.stdout


def test_version_and_unknown_verb():
    out = tierbench_main("--version")
    assert out.returncode == 0 and out.stdout.startswith("tierbench ")
    out = tierbench_main("frobnicate")
    assert out.returncode == 2 and "invalid choice: 'frobnicate'" in out.stderr


def test_cost_per_job_of_the_published_example():
    out = tierbench_main("cost", "--runtime-s", "11589", "--price-usd", "37561")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "runtime              11589 s",
        "price                $37,561.00",
        "jobs per day         7.46   (86400 / runtime x utilisation 1)",
        "jobs in 3 years      8,163.60",
        "$ per job            $4.6010   (hardware only)",
    ]


def test_cost_without_a_price_is_one_error_line():
    one_error_line(tierbench_main("cost", "--runtime-s", "485"), "--runtime-s", "--price-usd")


@pytest.mark.parametrize("verb", ["run", "probe"])
def test_missing_spec_file_is_one_error_line_naming_it(tmp_path, verb):
    missing = tmp_path / "no-such-study.toml"
    one_error_line(tierbench_main(verb, missing), str(missing))
    assert not (tmp_path / "tierbench-results").exists()


@pytest.mark.parametrize("service, says", [
    ("spark", "spark: not running; master -, 0 Worker(s) alive; dir "),
    ("yarn", "yarn: not running; ResourceManager pid None, NodeManager pid None, 0 node(s) running; dir "),
    ("hdfs", "hdfs: not running; -, 0 DataNode(s) live; dir "),
    ("s3", "s3: not running; endpoint -, bucket -; dir "),
])
def test_status_of_a_service_that_is_not_running_exits_3(tmp_path, service, says):
    d = tmp_path / "svc"
    out = tierbench_main("services", "status", service, "--dir", d)
    assert out.returncode == 3, out.stderr
    assert out.stdout == f"{says}{d}\n"
    assert not d.exists()  # status looks, never creates


@pytest.mark.parametrize("options, says", [
    (["--ec", "3+2"], "--ec 3+2: each object's 5 chunks go to different OSDs, so at least 5 are needed: add --osds 5"),
    (["--osds", "5", "--ec", "3"], "--ec: K+M with K >= 2 data and M >= 1 coding chunks, such as 3+2; got '3'"),
    (["--gateways", "0"], "--gateways: 1 to 16 radosgw instances, got 0"),
])
def test_an_s3_service_topology_that_cannot_be_is_one_line_and_nothing_created(tmp_path, options, says):
    d = tmp_path / "svc"
    one_error_line(tierbench_main("services", "up", "s3", "--dir", d, *options), says)
    assert not d.exists()


def test_yarn_conf_dir_and_down_when_not_running(tmp_path):
    out = tierbench_main("services", "status", "yarn", "--dir", tmp_path / "y", "--conf-dir")
    assert out.returncode == 0 and out.stdout == f"{tmp_path / 'y' / 'conf'}\n"
    out = tierbench_main("services", "down", "spark", "--dir", tmp_path / "s")
    assert out.returncode == 0 and out.stdout == "spark: was not running\n"


@pytest.mark.parametrize("args, words", [
    (["--workers", "0"], ["--workers", "at least 1"]),
    (["--port", "8020"], ["--port", "yarn"]),
])
def test_bad_service_options_are_one_error_line(tmp_path, args, words):
    one_error_line(tierbench_main("services", "status", "yarn", "--dir", tmp_path, *args), *words)


# -- what the services print is their own -------------------------------------------------------

def _service(name, home):
    from tierbench.services.registry import SERVICES

    return SERVICES[name](home)


UP_STATE = {
    "yarn": {"resourcemanager": "127.0.0.1:1", "web": "http://127.0.0.1:2", "nodes_running": 1, "conf_dir": "/s/conf"},
    "spark": {"master_url": "spark://127.0.0.1:3", "web": "http://127.0.0.1:4", "workers_alive": 2},
    "hdfs": {"uri": "hdfs://127.0.0.1:5", "live_datanodes": 2, "conf_dir": "/s/conf/client", "web": "http://127.0.0.1:6"},
    "s3": {"endpoint": "http://127.0.0.1:6", "bucket": "tierbench", "credentials_file": "/s/credentials",
           "topology": {"osds": 5, "gateways": 2, "ec": "3+2", "balancer": "haproxy"}, "balancer_admin": "/s/run/haproxy.sock",
           "gateways": ["http://127.0.0.1:7", "http://127.0.0.1:8"]},
}


@pytest.mark.parametrize("name", UP_STATE)
def test_up_lines_say_how_to_use_and_stop_each_service(tmp_path, name):
    lines = _service(name, tmp_path).up_lines(UP_STATE[name])
    assert lines[0].startswith(f"{name} is up: ")
    assert any(line.startswith("use it:  ") for line in lines)
    assert lines[-1] == f"stop it: tierbench services down {name}"
    if name == "hdfs":
        assert 'data = { type = "hdfs", uri = "hdfs://127.0.0.1:5/tb", web = "http://127.0.0.1:6" }' in "\n".join(lines)
    if name == "spark":
        assert 'master = "spark://127.0.0.1:3"' in "\n".join(lines)
    if name == "s3":
        assert lines[0].endswith("5 OSDs, erasure-coded data pool 3+2, 2 gateways, round robin behind HAProxy")
        assert 'gateways = [1, 2], balancer_admin = "/s/run/haproxy.sock"' in "\n".join(lines)


def test_status_line_is_ready_only_when_ready(tmp_path):
    svc = _service("spark", tmp_path)
    st = {"dir": "/s", "ready": True, "master_pid": 7, "master_url": "spark://x:1", "workers_alive": 2}
    assert svc.status_line(st) == ("spark: ready; master spark://x:1, 2 Worker(s) alive; dir /s", True)
    assert svc.status_line(st | {"ready": False}) == ("spark: starting or unhealthy; master spark://x:1, 2 Worker(s) alive; dir /s", False)
    yarn = _service("yarn", tmp_path)
    st = {"dir": "/s", "conf_dir": "/s/conf", "ready": False, "resourcemanager_pid": None, "nodemanager_pid": None, "nodes_running": 0}
    assert yarn.status_line(st, conf_dir_only=True) == ("/s/conf", True)


# -- the shape of the CLI: a thin main, one module per verb ---------------------------------------

def test_main_is_thin_and_every_verb_is_a_module():
    from tierbench.cli import main

    source = (CLI / "main.py").read_text()
    assert len(source.splitlines()) < 90
    functions = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert functions == {"build_parser", "main", "_stop_on"}  # _stop_on: SIGTERM/SIGHUP handled as Ctrl-C
    assert [m.__name__.rsplit(".", 1)[-1] for m in main.VERBS] == list(OPTIONS)
    for verb in main.VERBS:
        assert callable(verb.add_parser) and callable(verb.run), verb.__name__
    assert {p.stem for p in CLI.glob("*.py")} == {"__init__", "main", "help_format", *OPTIONS}  # (+ how --help is laid out)


def test_services_verb_has_no_per_service_printing():
    source = (CLI / "services.py").read_text()
    for text in ("is up", "use it:", "stop it:", "starting or unhealthy", "conf_dir']"):
        assert text not in source, text
    for cls in {type(_service(n, Path("/nonexistent"))) for n in UP_STATE}:
        assert callable(cls.up_lines) and callable(cls.status_line), cls


def test_entry_point_is_cli_main():
    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "tierbench"]
    assert ep.value == "tierbench.cli.main:main"
    assert ep.load() is importlib.import_module("tierbench.cli.main").main
