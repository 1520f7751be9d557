"""`tierbench advise` and `tierbench predict` on a scale model's results: without --size they work at the full-size
job's size ([scale] size), not at the model's own 128 MB where nothing spills; --size wins; a study that is no
scale model keeps the largest measured size; results of differing targets fall back to it and say why.

On the committed real results of the emulated quickstart (tests/fixtures/quickstart-emulated-results, recorded
before [scale] existed), given the scale model that the quickstart's spec derives now, as a scaled run records it
in study.json (`spec.scale`). Fast: no JVM."""

import json
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from conftest import tierbench_main
from tierbench.model.hardware import shipped
from tierbench.model.measured import load
from tierbench.scale.derive import parse as parse_spec
from tierbench.units import format_size, parse_size

FIXTURE = Path(__file__).parent / "fixtures" / "quickstart-emulated-results"
QUICKSTART = resources.files("tierbench.spec").joinpath("quickstart-emulated.toml")


def scaled_copy(folder: Path, **scale) -> dict:
    """A copy of the fixture at `folder` whose study.json records the quickstart spec's scale model, its [scale]
    table changed by `scale` (e.g. size="2TB"); the model's dict (spec.scale) is returned. Without `scale` at all
    (scale=None) the copy is the fixture as recorded: no scale model."""
    shutil.copytree(FIXTURE, folder)
    if scale.get("scale", True) is None:
        return {}
    raw = tomllib.loads(QUICKSTART.read_text())
    raw["scale"] |= scale
    model = parse_spec(raw, str(QUICKSTART), folder.parent).scale.to_dict()
    study = json.loads((folder / "study.json").read_text())
    study["spec"]["scale"] = model
    (folder / "study.json").write_text(json.dumps(study))
    return model


def largest_measured(folder: Path) -> dict[str, float]:
    """Each job's largest size as run (the model's default), from the runs' profiles."""
    profiles = load(folder)[0]
    return {p.job: max(q.size_bytes for q in profiles if q.job == p.job) for p in profiles}


def predicted_sizes(out: dict) -> dict[str, float]:
    return {r["job"]: r["size_bytes"] for r in out["predictions"]}


@pytest.fixture(scope="module")
def scaled(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("scaled") / "quickstart"
    return folder, scaled_copy(folder)


def predict_json(*args) -> dict:
    return json.loads(tierbench_main("predict", *args, "--hardware", "sandisk-all-hdd", "--json", check=True).stdout)


def advise_json(*args) -> list[dict]:
    return json.loads(tierbench_main("advise", *args, "--json", check=True).stdout)


def test_the_fixture_is_a_scale_model_of_one_terabyte_on_the_sandisk_hybrid(scaled):
    _, model = scaled
    assert model["target"] == "sandisk-hybrid" and model["target_size"] == parse_size("1TB") == 10**12
    assert model["data_bytes"] == parse_size("128MiB")  # the model's own size: the largest measured


def test_predict_without_size_predicts_the_scale_targets_size_and_says_so(scaled):
    folder, model = scaled
    out = predict_json(folder)
    assert {r["size_bytes"] for r in out["predictions"]} == {model["target_size"]}
    assert out["size"]["size_from"] == "scale target" and out["size"]["scale_target"] == "sandisk-hybrid"
    stored = json.loads((folder / "predictions.json").read_text())
    assert stored["size"]["size_bytes"] == model["target_size"]  # what the report reads says it too
    text = tierbench_main("predict", folder, "--hardware", "sandisk-all-hdd", check=True).stdout.splitlines()
    assert text[0].startswith("size: 1 TB,") and "the scale model's target size ([scale] size in the spec)" \
        in text[0] and "--size to change" in text[0]
    assert any(" 1 TB " in line for line in text if line.startswith("terasort"))


def test_predict_with_size_predicts_at_that_size(scaled):
    folder, model = scaled
    out = predict_json(folder, "--size", "4GB")
    assert {r["size_bytes"] for r in out["predictions"]} == {4 * 10**9}
    assert out["size"]["size_from"] == "--size" and "target size is 1 TB" in out["size"]["note"]


def test_advise_without_size_advises_at_the_scale_targets_size_on_its_cluster(scaled):
    folder, model = scaled
    head, *items = advise_json(folder)
    assert head["topic"] == "scale target" and head["size_from"] == "scale target"
    assert head["size_bytes"] == model["target_size"]
    assert "sandisk-hybrid" in shipped() and (head["hardware"], head["hardware_from"]) == ("sandisk-hybrid", "scale target")
    at = format_size(model["target_size"])
    data_tier = next(a for a in items if a["topic"] == "data tier")
    assert all(f" at {at}: " in n for n in data_tier["numbers"]), data_tier
    # at the target's size the shuffle leaves the page cache: the SSD for intermediate data pays, as in the study
    assert "terasort" in next(a for a in items if a["topic"] == "intermediate tier")["advice"]
    text = tierbench_main("advise", folder, check=True).stdout.splitlines()
    assert text[0].startswith("size: 1 TB") and "--size to change" in text[0]
    assert text[1].startswith("cluster: sandisk-hybrid, the scale model's target") and "--hardware to change" in text[1]


def test_advise_with_size_and_hardware_uses_them(scaled):
    folder, _ = scaled
    head, *items = advise_json(folder, "--size", "4GB", "--hardware", "sandisk-all-ssd")
    assert (head["size_bytes"], head["size_from"]) == (4 * 10**9, "--size")
    assert (head["hardware"], head["hardware_from"]) == ("sandisk-all-ssd", "--hardware")
    assert all(" at 4 GB: " in n for n in next(a for a in items if a["topic"] == "data tier")["numbers"])


def test_a_study_without_scale_keeps_the_largest_measured_size_and_its_output(tmp_path):
    plain = tmp_path / "plain"
    scaled_copy(plain, scale=None)
    largest = largest_measured(plain)
    out = predict_json(plain)
    assert "size" not in out and predicted_sizes(out) == largest
    assert {format_size(b) for b in largest.values()} == {"134 MB"}  # the model's data, TeraGen's whole rows
    items = advise_json(plain)
    assert items[0]["topic"] == "data tier"  # no scale target item
    assert all(" at 134 MB: " in n for n in items[0]["numbers"])
    text = tierbench_main("advise", plain, check=True).stdout
    assert not text.startswith(("size:", "cluster:"))


@pytest.mark.parametrize("second", [{"size": "2TB"}, {"scale": None}], ids=["another-size", "no-scale"])
def test_results_of_differing_targets_keep_the_largest_measured_and_say_why(tmp_path, second):
    one, two = tmp_path / "one", tmp_path / "two"
    scaled_copy(one)
    scaled_copy(two, **second)
    out = predict_json(one, two)
    assert predicted_sizes(out) == largest_measured(one)
    note = out["size"]["note"]
    assert out["size"]["size_from"] == "largest measured" and "scale targets differ" in note
    assert f"{one}: sandisk-hybrid at 1 TB" in note
    assert f"{two}: " + ("sandisk-hybrid at 2 TB" if "size" in second else "no [scale]") in note
    head, *items = advise_json(one, two)
    assert head["size_from"] == "largest measured" and head["hardware_from"] == "default"
    assert all(" at 134 MB: " in n for n in next(a for a in items if a["topic"] == "data tier")["numbers"])
    text = tierbench_main("predict", one, two, "--hardware", "sandisk-all-hdd", check=True).stdout.splitlines()
    assert text[0].startswith("size: the largest measured") and "--size to choose" in text[0]


from test_scale_own_target import MY_CLUSTER  # (a user's cluster: 10 x 32 threads, 12 HDDs + 2 NVMe a node)


def test_a_scale_target_of_the_users_own_file_is_advised_and_predicted_on_from_the_results(tmp_path):
    """study.json keeps a user's target as loaded: advise and predict take it from there, though the file has moved."""
    (tmp_path / "my-cluster.toml").write_text(MY_CLUSTER)
    folder = tmp_path / "mine"
    model = scaled_copy(folder, target="my-cluster.toml")
    assert model["target"] == "my-cluster"
    assert model["target_hardware"]["file"] == str(tmp_path / "my-cluster.toml")
    assert model["target_hardware"]["description"]["cores"] == 32
    (tmp_path / "my-cluster.toml").rename(tmp_path / "moved.toml")
    head, *items = advise_json(folder)
    assert head["size_bytes"] == model["target_size"] and head["size_from"] == "scale target"
    assert (head["hardware"], head["hardware_from"]) == ("my-cluster", "scale target")
    assert "as the results keep it" in head["advice"] and "sandisk" not in head["advice"]
    assert "on 10 nodes x 12 drives" in next(a for a in items if a["topic"] == "data tier")["advice"]
    # core_speed was estimated from the CPUs' scores: its range is said, and carried into each predicted time
    estimate = head["core_speed_estimate"]
    assert estimate["low"] < estimate["core_speed"] < estimate["high"] and "ESTIMATE" in head["advice"]
    out = json.loads(tierbench_main("predict", folder, "--json", check=True).stdout)
    assert {p["hardware"] for p in out["predictions"]} == {"my-cluster"}
    assert {p["nodes"] for p in out["predictions"]} == {10}
    # the fixture's drives are SanDisk's, not this cluster's: no configuration models it, so the resource model
    # answers, which uses no core_speed (a core there does what one here did): no estimate's range on its rows
    assert {p["method"] for p in out["predictions"]} == {"resource model"}
    assert not any("seconds_low" in p or "ESTIMATE" in p["interval_from"] for p in out["predictions"])
    assert out["size"]["core_speed_estimate"] == estimate and "ESTIMATE" in out["size"]["estimate_note"]
    text = tierbench_main("predict", folder, check=True).stdout.splitlines()
    assert text[1].startswith("core_speed ") and "is an ESTIMATE" in text[1]


def test_predict_without_hardware_on_results_of_no_scale_model_says_what_to_give(tmp_path):
    plain = tmp_path / "plain"
    scaled_copy(plain, scale=None)
    out = tierbench_main("predict", plain)
    assert out.returncode != 0 and "--hardware" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("command", ["advise", "predict"])
def test_help_states_the_size_default(command):
    out = tierbench_main(command, "--help", check=True).stdout
    assert "default: the scale model's target size, [scale] size in the spec" in " ".join(out.split())
