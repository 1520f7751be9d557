"""The docs define every metric, record field and study.json key the code produces."""

import ast
import dataclasses
from pathlib import Path

from tierbench.store import RECORD_FIELDS
from tierbench.workloads import METRICS

DOCS = Path(__file__).parent.parent / "docs"
SRC = Path(__file__).parent.parent / "src" / "tierbench"


def test_every_metric_and_record_field_is_documented():
    text = (DOCS / "results.md").read_text()
    for m in METRICS:
        assert f"`{m}`" in text, m
    for f in RECORD_FIELDS:
        assert f"`{f}`" in text, f


# -- study.json: every key the code writes is a field of its type and documented ----------------------------------

def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's NAME = "text" assignments (a key given by a constant: config_commands.STUDY_KEY)."""
    return {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for t in node.targets if isinstance(t, ast.Name)}


def _dict_keys(d: ast.Dict, constants: dict[str, str], where: str) -> set[str]:
    from tierbench.machine import tool_facts

    spreads = {"tool_facts": set(tool_facts())}  # (a key a function returns: the test must know the function)
    keys = set()
    for k, v in zip(d.keys, d.values):
        if k is None:  # **spread
            name = v.func.id if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) else None
            assert name in spreads, f"{where}: study.json keys from `**{ast.unparse(v)}`: name its keys in this test"
            keys |= spreads[name]
        elif isinstance(k, ast.Constant):
            keys.add(k.value)
        else:
            assert isinstance(k, ast.Name) and k.id in constants, f"{where}: a study.json key this test cannot read"
            keys.add(constants[k.id])
    return keys


def _study_keys_written() -> dict[str, str]:
    """key -> where: the keys src/ writes into study.json, by ResultsDir.create(study={...}) and update_study(...), and
    the derived outputs it writes beside it (save_derived)."""
    written = {"schema_version": "store/results.py (ResultsDir.create)"}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        constants, where = _constants(tree), path.relative_to(SRC).as_posix()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr == "update_study":
                for kw in node.keywords:
                    keys = {kw.arg} if kw.arg else _dict_keys(kw.value, constants, f"{where}:{node.lineno}")
                    written |= {k: f"{where}:{node.lineno}" for k in keys}
            elif node.func.attr == "save_derived" and node.args and isinstance(node.args[0], ast.Constant):
                written[node.args[0].value] = f"{where}:{node.lineno}"  # a derived output: a file of its own
            elif node.func.attr == "create":
                for kw in node.keywords:
                    if kw.arg == "study" and isinstance(kw.value, ast.Dict):
                        written |= {k: f"{where}:{node.lineno}"
                                    for k in _dict_keys(kw.value, constants, f"{where}:{node.lineno}")}
    return written


def test_every_study_json_key_written_is_a_field_of_its_type_and_documented():
    from tierbench.store.stored import DERIVED_FILES, StudyFile

    text = (DOCS / "results.md").read_text()
    section = text[text.index("## study.json"):]
    section = section[:section.index("\n## ", 1)]
    fields = {f.name for f in dataclasses.fields(StudyFile)} - {"extra"}
    written = _study_keys_written()
    assert {"name", "spec", "fingerprint", "storage_map", "config_commands", "probe"} <= set(written)  # (the scan sees)
    for key, where in written.items():
        assert key in fields or key in DERIVED_FILES, f"{where}: study.json key `{key}` is not a field of StudyFile"
    for key in fields | set(written) | set(DERIVED_FILES):
        assert f"`{key}`" in section, f"study.json key `{key}` is not in docs/results.md's study.json table"
    for file in DERIVED_FILES.values():
        assert f"`{file}`" in text, file

