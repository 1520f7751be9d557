"""Property (Hypothesis): stored data of the wrong shape never crashes a reader and never makes a file. A study.json
field of the wrong type is one line, exit 2, nothing created; a record field of the wrong type is that record
skipped with a warning naming its line, the others kept. Fast: a committed real results folder, derandomized."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from test_stored_input import cli

FIXTURE = Path(__file__).parent / "fixtures" / "quickstart-results"
SETTINGS = settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])

any_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                        max_leaves=6)


def wrong(kind: type):
    """JSON values that are not of `kind` (a bool is no number here, as the loader reads them)."""
    def is_kind(v):
        return isinstance(v, kind) and not (isinstance(v, bool) and kind is not bool)
    return any_json.filter(lambda v: not is_kind(v))


# study.json: (path of the field, the type every reader relies on)
STUDY_FIELDS = [(("name",), str), (("spec",), dict), (("machine",), dict), (("command_line",), list),
                (("spec", "storage"), list), (("spec", "workloads"), list), (("spec", "repeats"), int),
                (("spec", "baseline"), str), (("schema_version",), int)]
RECORD_FIELDS = [("run_key", str), ("status", str), ("workload", str), ("repeat", int), ("metrics", dict),
                 ("details", dict), ("wall_s", float)]


def _cli(capsys, *argv) -> tuple[int, list[str]]:
    code, _, err = cli(capsys, *argv)
    return code, err.strip().splitlines()


@pytest.mark.parametrize("field", range(len(STUDY_FIELDS)), ids=[".".join(p) for p, _ in STUDY_FIELDS])
@SETTINGS
@given(data=st.data())
def test_a_study_json_field_of_the_wrong_type_is_one_line_exit_2_nothing_created(field, data, capsys):
    path, kind = STUDY_FIELDS[field]
    value = data.draw(wrong(kind))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "r"
        shutil.copytree(FIXTURE, d)
        study = json.loads((d / "study.json").read_text())
        node = study
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        (d / "study.json").write_text(json.dumps(study))
        before = sorted(os.listdir(d))
        for verb in ("results", "report"):
            code, err = _cli(capsys, verb, d)
            assert code == 2 and len(err) == 1 and "study.json" in err[0], (path, value, err)
            assert sorted(os.listdir(d)) == before


@pytest.mark.parametrize("field", range(len(RECORD_FIELDS)), ids=[f for f, _ in RECORD_FIELDS])
@SETTINGS
@given(data=st.data())
def test_a_record_field_of_the_wrong_type_skips_that_record_and_keeps_the_others(field, data, capsys):
    name, kind = RECORD_FIELDS[field]
    value = data.draw(wrong(kind).filter(lambda v: not (kind is float and (v is None or isinstance(v, int)))))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "r"
        shutil.copytree(FIXTURE, d)
        lines = (d / "runs.jsonl").read_text().splitlines()
        bad = json.loads(lines[0])
        bad[name] = value
        (d / "runs.jsonl").write_text("\n".join([json.dumps(bad), *lines[1:]]) + "\n")
        code, err = _cli(capsys, "results", d, "--format", "json")
        assert code == 0 and any("runs.jsonl:1:" in line for line in err), (name, value, err)
        assert not any("Traceback" in line for line in err)
