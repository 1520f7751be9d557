"""Sane bounds on every number of every command (tierbench.bounds): an absurd figure (nan, inf, a sign slip, 1e-300,
200,000 DataNodes) is refused in one line "tierbench: error: ..." with exit 2, naming the field or option, the
value and the accepted range, before anything is computed or written; and no message shows a literal {{ }}."""

import ast
import json
import math
import shutil
import signal
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tierbench import bounds
from tierbench.cli.main import main
from tierbench.errors import SpecError, UserError
from tierbench.model.hardware import hardware_from_dict

SRC = Path(__file__).parent.parent / "src" / "tierbench"
HW = 'nodes = 4\ncores = 8\nmemory = "64GB"\n[data]\ndrive = "hdd-7200"\n'


@pytest.fixture(autouse=True)
def _signals_kept():
    """main() installs its SIGTERM/SIGHUP handlers: put pytest's back."""
    kept = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    yield
    for s, handler in kept.items():
        signal.signal(s, handler)


def cli(capsys, *argv) -> tuple[int, str]:
    """Exit code and stderr of the CLI in this process (argparse's own refusals are a SystemExit)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def one_line(capsys, *argv, says=()) -> str:
    code, err = cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("tierbench: error: "), (code, err)
    assert "Traceback" not in err
    for word in says:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# -- tierbench cost ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("option, value, says", [
    ("--runtime-s", "inf", ["runtime_s", "--runtime-s inf", "from 0.001 to 1e+09 s"]),  # was a ZeroDivisionError
    ("--runtime-s", "1e-300", ["runtime_s", "1e-300", "0.001"]),  # was 8.64e304 jobs a day, printed in full
    ("--runtime-s", "1e12", ["runtime_s", "1e+09 s"]),
    ("--runtime-s", "abc", ["runtime_s", "abc"]),  # was argparse's usage and a second line
    ("--price-usd", "1e300", ["price_usd", "at most 1e+12 USD"]),
    ("--years", "inf", ["years", "from 0.01 to 100 years"]),  # was $0 a job
    ("--years", "1e-300", ["years", "1e-300"]),
    ("--utilisation", "1e-300", ["utilisation", "0.001"]),
])
def test_cost_refuses_absurd_figures_in_one_line(capsys, option, value, says):
    args = {"--runtime-s": "100", "--price-usd": "1000", option: value}
    one_line(capsys, "cost", *(f"{k}={v}" for k, v in args.items()), says=says)


def test_cost_still_computes_sane_figures(capsys):
    assert main(["cost", "--runtime-s", "11589", "--price-usd", "37561", "--years", "5", "--utilisation", "0.5"]) == 0
    assert "jobs in 5 years" in capsys.readouterr().out


def test_cost_reference_refuses_a_bad_period(capsys):
    one_line(capsys, "cost", "--reference", "sandisk_testdfsio_2014", "--years=-3", says=["years", "--years -3"])


# -- tierbench predict and hardware descriptions ---------------------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (("--nodes", "200000"), ["--nodes 200000", "at most 100000 nodes"]),
    (("--nodes", "four"), ["--nodes four", "whole number"]),  # was argparse's usage and a second line
    (("--years", "nan"), ["--years nan", "at least 0.01 and at most 100 years"]),
    (("--years", "1e-300"), ["--years 1e-300"]),
    (("--size", "99999TB"), ["--size 99999TB", "at most 10000 TB"]),
    (("--size", "1KB"), ["--size 1KB", "at least 1 MB"]),
])
def test_predict_options_are_checked_before_anything_is_read(capsys, tmp_path, args, says):
    # the results directory does not exist: the option must be what is refused
    one_line(capsys, "predict", tmp_path / "nowhere", "--hardware", "sandisk-all-ssd", *args, says=says)


@pytest.mark.parametrize("line, field, says", [
    ("read_mb_s = 1e-300", "data.read_mb_s", "from 0.1 to 100000 MB/s"),  # was a 300-digit predicted runtime
    ("write_mb_s = 1e+300", "data.write_mb_s", "MB/s"),
    ("read_iops = 1e-300", "data.read_iops", "IOPS"),
    ("count = 100000", "data.count", "at most 1000 drives per node"),
])
def test_hardware_drive_figures_have_sane_bounds(capsys, tmp_path, line, field, says):
    hw = tmp_path / "lab.toml"
    hw.write_text(HW + line + "\n")
    err = one_line(capsys, "predict", tmp_path / "nowhere", "--hardware", hw, says=[f"{hw}: {field}: ", says])
    assert line.split(" = ")[1] in err  # the value given


@pytest.mark.parametrize("change, field, says", [
    (("nodes = 4", "nodes = 1000000000"), "nodes", "at most 100000 nodes"),
    (("cores = 8", "cores = 10000000"), "cores", "task slots per node"),
    (("cores = 8", "cores = 8\nnetwork_gbps = 1e-300"), "network_gbps", "from 0.001 to 10000 Gbit/s"),
    (("cores = 8", "cores = 8\nreplication = 100000"), "replication", "at most 512 copies"),
    (("cores = 8", 'cores = 8\nerasure = "1000+1"'), "erasure", "at most 64"),
    (("cores = 8", 'cores = 8\nerasure = "' + "9" * 5000 + '+1"'), "erasure", "k+m"),  # int() refuses 4,300+ digits
    (("cores = 8", "cores = 8\nprice_usd = 1e300"), "price_usd", "1e+12 USD"),
    (("cores = 8", "cores = 8\nprice_usd = 1e-300"), "price_usd", "from 1 to"),
    (('memory = "64GB"', 'memory = "2000TB"'), "memory", "at most 1024 TB"),
    (('memory = "64GB"', 'memory = "' + "9" * 400 + 'GB"'), "memory", "too large"),  # was an OverflowError
])
def test_hardware_cluster_figures_have_sane_bounds(tmp_path, change, field, says):
    import tomllib

    with pytest.raises(SpecError) as e:
        hardware_from_dict(tomllib.loads(HW.replace(*change)), "lab.toml")
    assert e.value.field == field and says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_an_odd_key_stays_on_one_line(capsys, tmp_path):
    hw = tmp_path / "lab.toml"
    hw.write_text(HW + '"a\\nb" = 1\n')
    one_line(capsys, "predict", tmp_path / "nowhere", "--hardware", hw, says=["'a\\nb': unknown field"])


# -- tierbench services and probe ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, says", [
    (("status", "hdfs", "--datanodes", "200000"), ["--datanodes 200000", "at most 64 DataNodes"]),
    (("status", "hdfs", "--datanode-dirs", "100000"), ["--datanode-dirs 100000", "at most 64"]),
    (("status", "hdfs", "--port", "70000"), ["--port 70000", "at most 65535"]),
    (("status", "s3", "--port", "0"), ["--port 0", "at least 1"]),
    (("status", "spark", "--workers", "1000"), ["--workers 1000", "at most 64 Workers"]),
    (("status", "s3", "--osds", "many"), ["--osds many", "at most 16 OSDs"]),  # was argparse's usage + a line
    (("status", "s3", "--gateways", "nan"), ["--gateways nan", "whole number"]),
])
def test_service_options_have_sane_bounds(capsys, tmp_path, args, says):
    one_line(capsys, "services", *args, "--dir", tmp_path / "svc", says=says)
    assert not (tmp_path / "svc").exists()


def test_hdfs_refuses_200000_datanodes_before_writing_anything(tmp_path, monkeypatch):
    from tierbench.services import hdfs

    def began(*_):
        raise AssertionError("began work with 200,000 DataNodes")

    monkeypatch.setattr(hdfs, "hadoop_lib", began)  # the first step of a start that would go on
    with pytest.raises(UserError, match=r"--datanodes 200000: .* at most 64"):
        hdfs.Hdfs(tmp_path / "svc", datanodes=200_000).up(on_phase=lambda _: None)
    assert not (tmp_path / "svc").exists()


@pytest.mark.parametrize("size, says", [("1KB", "at least 1 MB"), ("2000000TB", "at most 1024 TB"),
                                        ("lots", "such as 64MB")])
def test_probe_size_is_checked_before_the_spec(capsys, tmp_path, size, says):
    one_line(capsys, "probe", tmp_path / "none.toml", "--size", size, says=[f"--size {size}", says])


# -- the spec's [cost] shares the bounds ----------------------------------------------------------------------

@pytest.mark.parametrize("line, field", [
    ("years = nan", "cost.years"), ("usd_per_kwh = inf", "cost.usd_per_kwh"),
    ("utilisation = 1e-300", "cost.utilisation"), ('target_size = "99999TB"', "cost.target_size"),
])
def test_spec_cost_refuses_non_finite_and_absurd_figures(tmp_path, line, field):
    import tomllib

    from tierbench.spec import parse_spec

    text = f'name = "c"\n[storage.a]\ndata = ["{tmp_path}"]\n[[workloads]]\nname = "teragen"\n[cost]\n{line}\n'
    with pytest.raises(SpecError) as e:
        parse_spec(tomllib.loads(text), "s.toml")
    assert e.value.field == field and "\n" not in str(e.value)


# -- no literal {{ }} in a message -----------------------------------------------------------------------------

def test_no_plain_string_holds_doubled_braces():
    """`{{` is an f-string's escape, already undone in the parsed f-string; a plain string (say one part of an
    implicitly joined message, which the parser merges into the f-string as written) prints it. tierbench calls no
    str.format, which would undo it too."""
    found = []
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        if "{{" not in text and "}}" not in text:
            continue
        tree = ast.parse(text)
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings: never printed
        found += [f"{path.relative_to(SRC)}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                  and ("{{" in n.value or "}}" in n.value)]
    assert not found, found


def test_the_uncalibrated_study_message_shows_single_braces(tmp_path):
    from tierbench.model.hardware import load_hardware
    from tierbench.model.whatif import predict

    shutil.copytree(Path(__file__).parent / "fixtures" / "engines-results", tmp_path / "r")
    with pytest.raises(UserError) as e:
        predict(tmp_path / "r", [load_hardware("sandisk-all-ssd")])
    assert 'data = { emulate = "sata-ssd" }' in str(e.value) and "{{" not in str(e.value)


# -- properties: garbage anywhere is one line, exit 2, nothing made ---------------------------------------------

def _outside(b: bounds.Bound):
    """Values a bound refuses: nan, inf, below and above it (negative, tiny, huge), text, and any float for a count."""
    out = lambda x: not b.low <= x <= b.high
    numbers = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf]), st.floats().filter(out),
                        st.integers().filter(out), st.integers(-10**30, 10**30).map(lambda n: n * 10**300).filter(out))
    if b.whole:
        numbers = numbers | st.floats(allow_nan=False, allow_infinity=False)
    no_digits = st.text(alphabet=st.characters(blacklist_categories=("Nd", "Cs")), max_size=12)
    return numbers | no_digits


def _cli_text(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _toml(value) -> str:
    if isinstance(value, str):  # a TOML basic string: JSON's escapes, and DEL's, which JSON leaves as is
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return repr(value) if isinstance(value, float) else str(value)


GARBAGE = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
COST_OPTIONS = {"--runtime-s": bounds.RUNTIME_S, "--price-usd": bounds.PRICE_USD, "--years": bounds.YEARS,
                "--utilisation": bounds.UTILISATION}
PREDICT_OPTIONS = {"--nodes": bounds.NODES, "--years": bounds.YEARS}
HW_FIELDS = {"nodes": bounds.NODES, "cores": bounds.CORES, "network_gbps": bounds.NETWORK_GBPS,
             "replication": bounds.REPLICATION, "price_usd": bounds.HARDWARE_PRICE_USD, "data.count": bounds.DRIVES_PER_NODE,
             "data.read_mb_s": bounds.DRIVE_MB_S, "data.write_iops": bounds.DRIVE_IOPS}


def _refused_and_nothing_made(capsys, cwd, *argv, says):
    one_line(capsys, *argv, says=[says])
    assert list(cwd.iterdir()) == []


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    return tmp_path / "cwd"


@GARBAGE
@given(data=st.data(), option=st.sampled_from(sorted(COST_OPTIONS)))
def test_property_cost_options(capsys, cwd, data, option):
    value = data.draw(_outside(COST_OPTIONS[option]))
    args = {"--runtime-s": "100", "--price-usd": "1000", option: _cli_text(value)}
    _refused_and_nothing_made(capsys, cwd, "cost", *(f"{k}={v}" for k, v in args.items()), says=f"got {option} ")


@GARBAGE
@given(data=st.data(), option=st.sampled_from(sorted(PREDICT_OPTIONS) + ["--size"]))
def test_property_predict_options(capsys, cwd, data, option):
    value = data.draw(_outside(PREDICT_OPTIONS[option]) if option != "--size" else
                      st.one_of(st.text(alphabet=string.ascii_letters + ".-", max_size=8), st.integers(-10**9, 1023),
                                st.integers(10**17, 10**40)))
    _refused_and_nothing_made(capsys, cwd, "predict", "results", "--hardware", "sandisk-all-ssd",
                              f"{option}={_cli_text(value)}", says=f"error: {option} ")


def _hardware_text(name: str, value) -> str:
    """A valid description (HW) with one field set to `value`: its line replaced, or added to its table."""
    table, _, key = name.rpartition(".")
    top, drive = HW.split("[data]\n")
    lines = {"": top.splitlines(), "data": drive.splitlines()}
    lines[table] = [ln for ln in lines[table] if not ln.startswith(f"{key} =")] + [f"{key} = {_toml(value)}"]
    return "\n".join(lines[""] + ["[data]"] + lines["data"]) + "\n"


def test_the_property_s_descriptions_are_valid_but_for_the_one_field():
    import tomllib

    hw = hardware_from_dict(tomllib.loads(_hardware_text("data.count", 3)), "lab.toml")
    assert (hw.nodes, hw.data.count) == (4, 3)
    assert hardware_from_dict(tomllib.loads(_hardware_text("nodes", 7)), "lab.toml").nodes == 7


@GARBAGE
@given(data=st.data(), name=st.sampled_from(sorted(HW_FIELDS)))
def test_property_hardware_fields(capsys, cwd, tmp_path, data, name):
    hw = tmp_path / "lab.toml"
    hw.write_text(_hardware_text(name, data.draw(_outside(HW_FIELDS[name]))))
    _refused_and_nothing_made(capsys, cwd, "predict", "results", "--hardware", hw, says=f"{hw}: {name}: ")


@pytest.mark.parametrize("argv, words", [
    (["--size=1e400GB"], "--size"), (["--size=1MB"], "--size"),
    (["--profile", "custom", "--read-mb-s=nan", "--write-mb-s=1", "--read-iops=1", "--write-iops=1"], "--read-mb-s"),
    (["--profile", "custom", "--read-mb-s=1", "--write-mb-s=1e-300", "--read-iops=1", "--write-iops=1"], "--write-mb-s"),
    (["--profile", "custom", "--read-mb-s=1", "--write-mb-s=1", "--read-iops=inf", "--write-iops=1"], "--read-iops"),
    (["--profile", "custom", "--read-mb-s=abc", "--write-mb-s=1", "--read-iops=1", "--write-iops=1"], "--read-mb-s"),
])
def test_emulate_up_refuses_absurd_figures_in_one_line_before_anything(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    assert main(["emulate", "up", "dev1", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert not (tmp_path / "cache").exists()
