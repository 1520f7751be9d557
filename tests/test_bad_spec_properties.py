"""Property (Hypothesis): any bad value in any spec field is one line, exit 2, and nothing created -- no
results folder, no data root, no folder named after a value. Each strategy makes only values the field's rule
refuses; the runner is replaced by a tripwire, so a value that got through fails the test instead of starting a
JVM. Fast: bounded examples, derandomized (the same examples on every run)."""

import json
import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tierbench.cli.main import main

BASE = {"name": "prop", "repeats": 1, "storage": {"a": {"data": ["DATA"]}}, "workloads": [{"name": "teragen", "rows": 1000}]}

# (a list is a sweep of a workload's parameter: only lists of bad values are bad there)
junk = st.one_of(st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
bad_name = st.one_of(junk, st.text(max_size=80).filter(lambda s: not s.isascii() or not s[:1].isalnum() or len(s) > 64
                                                       or any(not (c.isalnum() or c in "._-") for c in s) or s == ""),
                     st.sampled_from(["quick\n", "../x", "a/b", ".hidden", "x" * 65]))
bad_count = st.one_of(junk, st.integers(max_value=0), st.integers(min_value=1001), st.text(max_size=5))
bad_dir = st.one_of(st.sampled_from(["/tmp/a,b", "/tmp/a\nb", "/proc/tierbench", "s3a://b/x", "", "  ", "/tmp/\x7f"]),
                    st.integers(), st.lists(st.integers(), min_size=1, max_size=2))
bad_rows = st.one_of(junk, st.integers(max_value=0), st.integers(min_value=10**16), st.text(max_size=5),
                     st.lists(st.integers(max_value=0), min_size=1, max_size=2))

# (field path, strategy): each sets one field of the otherwise valid BASE
FIELDS = [
    (("name",), bad_name),
    (("repeats",), bad_count),
    (("storage", "a", "data"), bad_dir),
    (("storage", "a", "intermediate"), bad_dir),
    (("workloads", 0, "rows"), bad_rows),
    (("drop_caches",), junk | st.text(max_size=6).filter(lambda s: s not in ("auto", "always", "never"))),
    (("durability",), junk | st.text(max_size=6).filter(lambda s: s not in ("durable", "engine"))),
    (("keep_data",), st.one_of(st.integers(), st.text(max_size=3), st.floats())),
    (("storage", "a", "setup"), st.sampled_from(["a\nb", "curl http://u:pw@h/x"]) | st.integers()),
    (("unknown_field",), junk),
]


def toml_value(v) -> str:
    """A TOML rendering of a generated value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


def spec_text(path: tuple, value, data: str) -> str:
    spec = json.loads(json.dumps(BASE).replace("DATA", data))
    node = spec
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    lines = [f"{k} = {toml_value(v)}" for k, v in spec.items() if k not in ("storage", "workloads")]
    for name, table in spec["storage"].items():
        lines.append(f"[storage.{json.dumps(name)}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in table.items()]
    for w in spec["workloads"]:
        lines.append("[[workloads]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in w.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture
def tripwire(monkeypatch):
    from tierbench.study import runner

    def reached(self, *a, **k):
        raise AssertionError("a bad value got through to the runner")
    monkeypatch.setattr(runner.StudyRunner, "run", reached)


@pytest.mark.parametrize("field", range(len(FIELDS)), ids=[".".join(map(str, p)) for p, _ in FIELDS])
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_bad_spec_value_is_one_line_exit_2_and_nothing_created(field, data, tripwire, capsys):
    path, strategy = FIELDS[field]
    value = data.draw(strategy)
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        (work / "s.toml").write_text(spec_text(path, value, str(work / "data")))
        before = sorted(os.listdir(work))
        code = main(["run", str(work / "s.toml"), "--out", str(work / "out")])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("tierbench: error:"), (path, value, err)
        assert sorted(os.listdir(work)) == before, (path, value, sorted(os.listdir(work)))
