"""Credentials never land in what tierbench stores or prints, even when a user's command prints them; paths and
commands that would leak or split are refused in one line. Fast: FakeEngine (replayed real results), no JVM."""

import pytest

from test_cluster_configs import JOB_RESULTS, TERA_TOML, spec_of
from tierbench.cli.main import main
from tierbench.engines.fake import FakeEngine
from tierbench.errors import SpecError
from tierbench.study.runner import StudyRunner

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
KEY_ID = "AKIAIOSFODNN7EXAMPLE"


def _every_byte(folder) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_credentials_printed_by_setup_and_teardown_are_masked_everywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    storage = f"""
[storage.a]
data = ["{tmp_path}/data"]
setup = 'env; echo "key is $AWS_SECRET_ACCESS_KEY"'
teardown = 'echo "bad key $AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" >&2; exit 3'
"""
    spec = spec_of(tmp_path, "", storage, TERA_TOML)
    StudyRunner(spec, tmp_path / "results", ["test"], engines={"spark": FakeEngine(JOB_RESULTS)}).run()
    assert main(["report", str(tmp_path / "results")]) == 0
    assert main(["results", str(tmp_path / "results"), "--format", "csv"]) == 0
    printed = capsys.readouterr()
    stored = _every_byte(tmp_path / "results")
    assert b"<redacted>" in stored  # the output was kept, masked
    for value in (SECRET, KEY_ID):
        assert value.encode() not in stored and value not in printed.out + printed.err


@pytest.mark.parametrize("command", ["curl -fsS http://admin:hunter22@10.0.0.5/api/dirs",
                                     "ansible-playbook x.yml -e url=https://u:p@host/x"])
def test_a_password_in_a_setup_url_is_refused_as_it_is_in_data(tmp_path, command):
    with pytest.raises(SpecError) as e:
        spec_of(tmp_path, "", f'[storage.a]\ndata = ["{tmp_path}/d"]\nsetup = "{command}"\n', TERA_TOML)
    assert e.value.field == "storage.a.setup" and "password" in e.value.problem


@pytest.mark.parametrize("path, bad", [("/tmp/a,b", "','"), ("/tmp/a\\nb", "'\\n'"), ("/tmp/a\\tb", "'\\t'")])
def test_a_comma_or_control_character_in_a_directory_is_refused(tmp_path, path, bad):
    for role in ("data", "intermediate"):
        storage = f'[storage.a]\ndata = ["{path}"]\n' if role == "data" else \
            f'[storage.a]\ndata = ["{tmp_path}/d"]\nintermediate = ["{path}"]\n'
        with pytest.raises(SpecError) as e:
            spec_of(tmp_path, "", storage, TERA_TOML)
        assert e.value.field == f"storage.a.{role}[0]" and bad in e.value.problem


def test_a_name_ending_in_a_newline_is_refused(tmp_path):
    from tierbench.spec import parse_spec

    for where, raw in (("name", {"name": "quick\n", "storage": {"a": {"data": [str(tmp_path)]}}}),
                       ("storage.a\n", {"name": "quick", "storage": {"a\n": {"data": [str(tmp_path)]}}})):
        with pytest.raises(SpecError) as e:
            parse_spec({**raw, "workloads": [{"name": "teragen"}]}, "s.toml", tmp_path)
        assert e.value.field == where


def test_a_credential_in_an_engine_error_never_reaches_the_record(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SESSION_TOKEN", SECRET)
    spec = spec_of(tmp_path, "", f'[storage.a]\ndata = ["{tmp_path}/data"]\n', TERA_TOML)
    engine = FakeEngine(JOB_RESULTS, fail={"terasort": f"AccessDenied: token {SECRET} expired"})
    StudyRunner(spec, tmp_path / "results", ["test"], engines={"spark": engine}).run()
    runs = (tmp_path / "results" / "runs.jsonl").read_text()
    assert SECRET not in runs and "token <redacted> expired" in runs
