"""The results folder read as frozen values (store/stored.py), and the derived outputs in files of their own
(store/derived.py: probe.json, predictions.json) -- with folders that kept them in study.json reading the same."""

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from tierbench.errors import UserError
from tierbench.store import ResultsDir, StoredRun, StoredStudy, StudyFile
from tierbench.store.record import SCHEMA_VERSION, RunRecord

FIXTURES = Path(__file__).parent / "fixtures"
PROBE = {"loop0": {"device": "loop0", "dirs": ["/d"], "direct_io": True,
                   "tests": {"seq_write": {"mb_s": 100.0}, "seq_read": {"mb_s": 120.0},
                             "rand_read_64k": {"mb_s": 50.0, "iops": 800.0}}}}


def _copy(tmp_path, fixture="model-results", name="r") -> Path:
    shutil.copytree(FIXTURES / fixture, tmp_path / name)
    return tmp_path / name


def _edit_study(d: Path, change) -> None:
    study = json.loads((d / "study.json").read_text())
    change(study)
    (d / "study.json").write_text(json.dumps(study))


def test_a_stored_run_has_the_fields_of_a_run_record():
    assert {f.name for f in dataclasses.fields(RunRecord)} == {f.name for f in dataclasses.fields(StoredRun)} - {"extra"}


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*-results")))
def test_load_gives_what_the_dicts_give_as_frozen_values(fixture):
    rd = ResultsDir(FIXTURES / fixture)
    stored, study, records = rd.load(analysed=True), rd.study(), rd.records(analysed=True)
    assert isinstance(stored, StoredStudy) and isinstance(stored.study, StudyFile)
    assert len(stored.runs) == len(records)
    for run, rec in zip(stored.runs, records):
        assert all(getattr(run, k) == v for k, v in rec.items() if k in run.__dataclass_fields__), rec["run_key"]
        assert run.extra == {} and run.schema_version == SCHEMA_VERSION
    assert stored.study.name == study["name"] and stored.study.spec == study["spec"]
    assert stored.study.schema_version == study["schema_version"] and stored.study.extra == {}
    assert stored.latest_ok().keys() == {r["run_key"] for r in records if r["status"] == "ok"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        stored.runs[0].status = "failed"


def test_fields_of_a_newer_version_are_kept_in_extra(tmp_path):
    d = _copy(tmp_path, "engines-results")
    _edit_study(d, lambda s: s.update(novel={"a": 1}))
    lines = (d / "runs.jsonl").read_text().splitlines()
    (d / "runs.jsonl").write_text("\n".join([json.dumps(dict(json.loads(lines[0]), novel=2)), *lines[1:]]) + "\n")
    stored = ResultsDir(d).load()
    assert stored.study.extra == {"novel": {"a": 1}} and stored.runs[0].extra == {"novel": 2}
    assert stored.runs[0].as_record_dict()["novel"] == 2


def test_predictions_go_to_their_own_file_and_an_older_folders_read_the_same(tmp_path):
    from tierbench.model.hardware import load_hardware
    from tierbench.model.whatif import predict
    from tierbench.report.build import build_report

    old, new = _copy(tmp_path, name="old"), _copy(tmp_path, name="new")
    out = json.loads(json.dumps(predict(old, [load_hardware("sandisk-all-ssd")])))  # (as stored: JSON)
    _edit_study(old, lambda s: s.update(predictions=out))  # what tierbench 0.x before schema version 5 wrote
    ResultsDir(new).save_derived("predictions", out)
    assert "predictions" not in json.loads((new / "study.json").read_text())
    assert json.loads((new / "predictions.json").read_text()) == out
    assert ResultsDir(old).study() == ResultsDir(new).study() and ResultsDir(new).study()["predictions"] == out
    assert ResultsDir(old).load().predictions == ResultsDir(new).load().predictions == out
    assert ResultsDir(old).load().study == ResultsDir(new).load().study
    # (matplotlib names each chart's clip paths at random)
    reports = [re.sub(r"\b([phm])[0-9a-f]{10}\b", "ID", str(build_report(ResultsDir(d).load(analysed=True)).sections)) for d in (old, new)]
    assert reports[0] == reports[1] and "What-if" in reports[0]
    ResultsDir(old).save_derived("predictions", dict(out, years=5))  # made again: moved out of study.json
    assert "predictions" not in json.loads((old / "study.json").read_text())
    assert ResultsDir(old).load().predictions["years"] == 5


def test_the_probe_goes_to_probe_json_and_study_json_s_older_copy_wins_until_probed_again(tmp_path):
    d = _copy(tmp_path)
    ResultsDir(d).update_study(probe=PROBE, probe_error=None)  # (the runner's call: the probe still goes to its file)
    assert "probe" not in json.loads((d / "study.json").read_text())
    assert json.loads((d / "probe.json").read_text()) == PROBE and ResultsDir(d).load().probe == PROBE
    assert ResultsDir(d).study()["probe"] == PROBE and ResultsDir(d).probe_result() == PROBE
    older = {"loop1": dict(PROBE["loop0"], device="loop1")}
    _edit_study(d, lambda s: s.update(probe=older))  # an older folder: taken over into study.json, probed again there
    assert ResultsDir(d).load().probe == older and ResultsDir(d).study()["probe"] == older
    ResultsDir(d).update_study(probe=PROBE)
    assert ResultsDir(d).load().probe == PROBE and "probe" not in json.loads((d / "study.json").read_text())


@pytest.mark.parametrize("file, content, says", [
    ("predictions.json", '{"calibrated_on": []}', "predictions.json: not a tierbench predict result (`hardware` is missing"),
    ("predictions.json", "{", "predictions.json: damaged"),
    ("probe.json", json.dumps({"sda": {"device": "sda", "dirs": ["/d"], "tests": {"seq_read": {"mb_s": "fast"}}}}),
     "probe.json: not a tierbench probe result (sda.tests.seq_read: `mb_s` is missing or not a number"),
])
def test_a_derived_file_of_the_wrong_shape_is_refused_naming_it(tmp_path, file, content, says):
    d = _copy(tmp_path)
    (d / file).write_text(content)
    with pytest.raises(UserError) as e:
        ResultsDir(d).load()
    assert says in str(e.value), str(e.value)


def test_a_stray_probe_json_in_a_study_folder_is_not_read(tmp_path):
    d = _copy(tmp_path)
    (d / "probe.json").write_text('{"my": "notes"}')
    assert ResultsDir(d).load().probe is None and "probe" not in ResultsDir(d).study()


def test_a_new_study_json_is_of_this_schema_version(tmp_path):
    rd = ResultsDir(tmp_path / "r")
    rd.create({"name": "s", "spec": json.loads((FIXTURES / "model-results" / "study.json").read_text())["spec"]})
    assert json.loads((tmp_path / "r" / "study.json").read_text())["schema_version"] == SCHEMA_VERSION == 5
    assert rd.load().study.schema_version == 5 and rd.load().runs == ()
