"""The model's and the scale model's constants: two registries (model/constants.py, scale/constants.py) holding
the values the modules use, and docs/model.md's one table of them, which must be both. Fast: no JVM."""

import re
from pathlib import Path

import pytest

from tierbench.model.constants import MODEL_CONSTANTS
from tierbench.scale.constants import ALL, CORE_CONSTANTS, DRIVE_CONSTANTS, FITTED, RULE, SCALE_CONSTANTS, Constant

DOC = Path(__file__).resolve().parent.parent / "docs" / "model.md"
EVERY = {c.name: c for c in MODEL_CONSTANTS} | ALL


def _table(text: str) -> dict[str, list[str]]:
    """The constants table's rows of docs/model.md: name -> [value, unit, models, provenance]."""
    section = text.split("## 6. Constants", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `([\w.-]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [cell.strip() for cell in m.group(2).split(" | ")]
    return rows


def test_the_docs_constants_table_is_the_registry():
    rows = _table(DOC.read_text())
    assert list(rows) == list(EVERY), "the table's constants, in order, are the registries'"
    for name, (value, unit, models, provenance) in rows.items():
        c = EVERY[name]
        assert (value, unit, models) == (c.shown(), c.unit, c.models), name
        assert provenance == f"**{c.kind}**: {c.provenance}", name


def test_the_table_check_sees_a_value_changed():
    text = DOC.read_text().replace("| `model.WRITE_SEEK_KIB` | 1024 |", "| `model.WRITE_SEEK_KIB` | 512 |")
    assert _table(text)["model.WRITE_SEEK_KIB"][0] == "512" != ALL["model.WRITE_SEEK_KIB"].shown()


@pytest.mark.parametrize("c", SCALE_CONSTANTS, ids=lambda c: c.name)
def test_each_scale_module_takes_its_value_from_the_registry(c: Constant):
    import importlib

    module, name = c.name.split(".")
    assert getattr(importlib.import_module(f"tierbench.scale.{module}"), name) == c.value


@pytest.mark.parametrize("c", CORE_CONSTANTS, ids=lambda c: c.name)
def test_the_cores_constants_are_listed_at_their_own_values(c: Constant):
    import importlib

    module, name = c.name.split(".")
    assert getattr(importlib.import_module({"profiles": "tierbench.storage.profiles"}[module]), name) == c.value


@pytest.mark.parametrize("c", MODEL_CONSTANTS, ids=lambda c: c.name)
def test_each_model_module_holds_the_value_its_registry_lists(c: Constant):
    import importlib

    module, name = c.name.split(".")
    if c.name == "trust.half_width_log":  # fitted into model/corpus/errors.toml by bench/bench_validate.py
        from tierbench.model.trust import corpus_error
        assert corpus_error().half_width_log == c.value
        return
    held = getattr(importlib.import_module(f"tierbench.model.{module}"), name)
    assert held == pytest.approx(c.value), c.name


def test_the_models_only_fitted_constant_is_the_corpus_interval():
    assert [c.name for c in MODEL_CONSTANTS if c.kind == FITTED] == ["trust.half_width_log"]
    assert all(c.models and c.provenance for c in MODEL_CONSTANTS)


def test_only_the_seek_sizes_are_fitted_and_each_constant_says_where_it_comes_from():
    """The 2014 HDD's seek sizes are fitted (to SanDisk's all-HDD runs), and the defaults for drives that barely seek
    are those; the current drives' are rules, not SanDisk's fit."""
    assert {c.name for c in ALL.values() if c.kind == FITTED} == {
        "model.WRITE_SEEK_KIB", "model.READ_SEEK_KIB",
        "drives.hdd-7200-2014.write_seek_kib", "drives.hdd-7200-2014.read_seek_kib"}
    assert {ALL[f"drives.{d}.{rw}_seek_kib"].kind for d in ("hdd-7200", "hdd-10k-sas") for rw in ("write", "read")} == {RULE}
    assert all(c.models and c.provenance for c in ALL.values())


@pytest.mark.parametrize("c", DRIVE_CONSTANTS, ids=lambda c: c.name)
def test_each_rotating_drives_seek_figures_are_listed_at_the_catalogs_values(c: Constant):
    from tierbench.model.hardware import catalog

    _, drive, figure = c.name.split(".")
    assert getattr(catalog()[drive], figure) == c.value
