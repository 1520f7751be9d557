"""Studies kept apart (issue 60): two results folders of one spec never share emulated devices or data roots; a
folder's --resume finds its own again (an older folder, with no id, its old names); a resume after the devices were
rebuilt runs again what their data lost; a second study on what the machine shares (an embedded Spark cluster) is
refused in one line naming the first. Fast, on the FakeEngine (no JVM), but for one e2e test on emulated devices."""

import json
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tierbench.engines.fake import FakeEngine
from tierbench.errors import UserError
from tierbench.job import JobOutcome
from tierbench.ownership import valid_name
from tierbench.spec import parse_spec
from tierbench.storage import StudyLayout, local_path
from tierbench.store import ResultsDir
from tierbench.scale.calibration import calibration_spec
from tierbench.scale.derive import parse_in
from tierbench.study.identity import study_id
from tierbench.study.runner import StudyRunner

JOB_RESULTS = json.loads((Path(__file__).parent / "fixtures" / "job-results.json").read_text())
TERA = '[[workloads]]\nname = "teragen"\nrows = 20003\ntasks = 2\n[[workloads]]\nname = "terasort"\n'


class InputReadingFakeEngine(FakeEngine):
    """The FakeEngine, with the one behaviour of a real engine these tests need: a job writes its output (a part
    file) and fails, as Hadoop's and Spark's do, when its input is not there. `during`: called once, as the first
    run starts (a second study running meanwhile)."""

    def __init__(self, *args, during=None, **kw):
        super().__init__(*args, **kw)
        self.during = during

    def run(self, req, on_progress):
        if self.during is not None:
            during, self.during = self.during, None
            during()
        missing = [u for u in req.inputs if not (local_path(u) / "part-00000").is_file()]
        if missing:
            self.calls.append(f"run {req.run_key}")
            return JobOutcome(False, 0.01, error=f"Input path does not exist: {missing[0]}")
        outcome = super().run(req, on_progress)
        if outcome.ok:
            for u in req.outputs:
                local_path(u).mkdir(parents=True, exist_ok=True)
                (local_path(u) / "part-00000").write_text("rows")
        return outcome


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Each test its own cache dir: the devices it finds are its own (none, on plain directories)."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))


def plain_spec(data: Path, name: str = "iso", master: str = "local[2]") -> dict:
    """A study on a plain data directory (`data`, the same for every folder that runs it)."""
    return tomllib.loads(f'name = "{name}"\nrepeats = 1\ndrop_caches = "never"\n[sampling]\nenabled = false\n'
                         f'[engine]\nkind = "spark"\nmaster = "{master}"\n'
                         f'[storage.one]\ndata = ["{data}"]\n' + TERA)


def run(raw: dict, out: Path, engine: FakeEngine, resume: bool = False) -> list[dict]:
    """The study in `out`, as `tierbench run --out` parses it (its folder's id), on `engine`."""
    spec = parse_in(raw, "iso.toml", out.parent, out)
    StudyRunner(spec, out, ["test"], resume=resume, engines={"spark": engine}).run()
    return ResultsDir(out).records()


def devices(spec) -> set[str]:
    return {e["device"] for c in spec.storage for es in c.emulated.values() for e in es}


def test_two_folders_of_the_quickstart_take_disjoint_devices_and_data_roots(tmp_path):
    """The built-in emulated quickstart in two --out folders: no device and no data root in common, its calibration's
    included; every name valid for a device's folder; the same folder gets the same names again."""
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart-emulated.toml").read_text())
    a, b = (parse_in(raw, "qs", tmp_path / out, tmp_path / out) for out in ("a", "b"))
    assert devices(a) and not devices(a) & devices(b)
    assert all(valid_name(n) and len(n) <= 64 for n in devices(a) | devices(b))
    assert not set(StudyLayout(a).roots) & set(StudyLayout(b).roots)
    cal_a, cal_b = (calibration_spec(s, raw, tmp_path, tmp_path / o / "calibration", True) for s, o in ((a, "a"), (b, "b")))
    assert devices(cal_a) and not devices(cal_a) & devices(cal_b) and not devices(cal_a) & devices(a)
    again = parse_in(raw, "qs", tmp_path / "a", tmp_path / "a")
    assert devices(again) == devices(a) and StudyLayout(again).roots == StudyLayout(a).roots


def test_a_second_study_of_one_spec_runs_beside_the_first_and_leaves_its_data(tmp_path):
    """Two folders of one spec on one data directory, the second run whole while the first is in its first run:
    the second neither stops the first nor deletes its data, and each records every run ok. (Before: one data
    root for both, and the second refused, or, after the first, cleared it.)"""
    raw, second = plain_spec(tmp_path / "disk"), []
    second_engine = InputReadingFakeEngine(JOB_RESULTS)
    first = InputReadingFakeEngine(JOB_RESULTS, during=lambda: second.extend(run(raw, tmp_path / "b", second_engine)))
    records = run(raw, tmp_path / "a", first)
    assert [r["status"] for r in second] == ["ok", "ok"] and [r["status"] for r in records] == ["ok", "ok"]
    assert "run r1/one/terasort" in second_engine.calls


def test_a_resumed_folder_finds_its_own_names_even_moved(tmp_path):
    """The id is recorded in study.json at creation: the folder's --resume parses to the same devices and roots,
    and so does the folder moved elsewhere (its records pool: the same fingerprint)."""
    raw = plain_spec(tmp_path / "disk")
    records = run(raw, tmp_path / "a", InputReadingFakeEngine(JOB_RESULTS, fail={"terasort": "boom"}))
    assert [r["status"] for r in records] == ["ok", "failed"]
    recorded = json.loads((tmp_path / "a" / "study.json").read_text())["study_id"]
    shutil.move(tmp_path / "a", tmp_path / "moved")
    assert study_id(tmp_path / "moved") == recorded
    records = run(raw, tmp_path / "moved", InputReadingFakeEngine(JOB_RESULTS), resume=True)
    assert records[-1]["status"] == "ok" and records[-1]["label"] == "terasort"
    assert StudyLayout(parse_in(raw, "iso.toml", tmp_path, tmp_path / "moved")).roots[0].name == f"iso-{recorded}"


def test_a_folder_recorded_before_ids_resumes_with_its_old_names(tmp_path):
    """A folder whose study.json has no id (recorded before them) keeps the names it ran with: its resume pools."""
    raw, out = plain_spec(tmp_path / "disk"), tmp_path / "old"
    old = parse_spec(raw, "iso.toml", tmp_path)  # (as 9a95184 parsed it: no id)
    StudyRunner(old, out, ["test"], engines={"spark": InputReadingFakeEngine(JOB_RESULTS, fail={"terasort": "x"})}).run()
    assert not json.loads((out / "study.json").read_text()).get("study_id")
    assert study_id(out) == "" and StudyLayout(parse_in(raw, "iso.toml", tmp_path, out)).roots == StudyLayout(old).roots
    records = run(raw, out, InputReadingFakeEngine(JOB_RESULTS), resume=True)
    assert records[-1]["status"] == "ok"


def test_an_id_that_is_not_tierbenchs_is_refused(tmp_path):
    """The id becomes part of paths tierbench creates and deletes as root: an edited one is refused in one line."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "study.json").write_text(json.dumps({"study_id": "../../etc"}))
    with pytest.raises(UserError, match="not an id tierbench writes"):
        study_id(tmp_path / "a")


def test_resume_after_the_data_root_was_rebuilt_runs_its_producer_again(tmp_path):
    """A data root made again since TeraGen ran (its device brought down and up: empty) holds no input for the
    TeraSort still to do: the resume runs TeraGen again first, and TeraSort then reads it. (Before: TeraSort failed
    on every resume.) A root left as it was runs nothing again."""
    raw, out = plain_spec(tmp_path / "disk"), tmp_path / "a"
    run(raw, out, InputReadingFakeEngine(JOB_RESULTS, fail={"terasort": "boom"}))
    root = StudyLayout(parse_in(raw, "iso.toml", tmp_path, out)).roots[0]
    shutil.rmtree(root)  # (what a rebuilt device leaves of it: nothing)
    engine = InputReadingFakeEngine(JOB_RESULTS)
    records = run(raw, out, engine, resume=True)
    assert [c for c in engine.calls if c.startswith("run")] == ["run r1/one/teragen", "run r1/one/terasort"]
    assert [r["status"] for r in records[-2:]] == ["ok", "ok"]


def test_resume_with_its_data_root_kept_runs_only_what_is_left(tmp_path):
    raw, out = plain_spec(tmp_path / "disk"), tmp_path / "a"
    run(raw, out, InputReadingFakeEngine(JOB_RESULTS, fail={"terasort": "boom"}))
    engine = InputReadingFakeEngine(JOB_RESULTS)
    assert run(raw, out, engine, resume=True)[-1]["status"] == "ok"
    assert [c for c in engine.calls if c.startswith("run")] == ["run r1/one/terasort"]


def test_a_second_study_on_one_embedded_spark_cluster_is_refused_naming_the_first(tmp_path):
    """An embedded Spark cluster (`services up spark`) is the machine's: a study moves its Workers onto its own
    directories. A second study on it while the first runs is refused in one line naming the first (study, PID,
    folder), before it makes its folder; the first goes on."""
    master = "spark://127.0.0.1:7077"
    (tmp_path / "cache" / "services" / "spark").mkdir(parents=True)
    (tmp_path / "cache" / "services" / "spark" / "service.json").write_text(json.dumps({"master_url": master}))
    raw, refused = plain_spec(tmp_path / "disk", master=master), []

    def second():
        try:
            run(plain_spec(tmp_path / "disk2", name="other", master=master), tmp_path / "b", FakeEngine(JOB_RESULTS))
        except UserError as e:
            refused.append(str(e))
    records = run(raw, tmp_path / "a", InputReadingFakeEngine(JOB_RESULTS, during=second))
    assert len(refused) == 1 and "\n" not in refused[0]
    assert master in refused[0] and "'iso'" in refused[0] and str(tmp_path / "a") in refused[0]
    assert not (tmp_path / "b").exists() and [r["status"] for r in records] == ["ok", "ok"]
    assert [r["status"] for r in run(raw, tmp_path / "c", InputReadingFakeEngine(JOB_RESULTS))] == ["ok", "ok"]


@pytest.mark.e2e
def test_on_emulated_devices_a_second_folder_leaves_the_first_its_devices_and_a_rebuilt_device_is_refilled(
        tmp_path):
    """One tiny study on an emulated device (no JVM: the input-reading fake engine). Its first session keeps its
    device up (TeraSort failed); the same spec run whole in another folder meanwhile brings its own device up and
    down and leaves the first's, data included (before: one device for both, taken down by the second). Then the
    first's device is brought down (`emulate down`) and the resume, on the device built again, runs TeraGen again
    before TeraSort, which reads it (before: TeraSort failed on every resume)."""
    from conftest import can_emulate_or_skip
    from tierbench.storage import emulation
    from tierbench.storage.backing import store_ceiling

    can_emulate_or_skip("a study's devices must be built and rebuilt")
    emulation.root_dir().mkdir(parents=True)
    # (this test times nothing: a figure for this machine's disk instead of fio's 512 MB to measure it)
    store_ceiling(emulation.root_dir() / "ceiling.json", "write_mb_s", 400.0)
    raw = tomllib.loads('name = "isoe"\nrepeats = 1\ndrop_caches = "never"\n[sampling]\nenabled = false\n'
                       '[storage.one]\ndata = { emulate = "nvme", size = "256MB" }\n' + TERA)
    a = parse_in(raw, "isoe.toml", tmp_path, tmp_path / "a")
    try:
        run(raw, tmp_path / "a", InputReadingFakeEngine(JOB_RESULTS, fail={"terasort": "boom"}))
        assert all(emulation.device(n) is not None for n in devices(a))
        teragen = StudyLayout(a).dataset_dirs(a.storage[0], "one", 1, "tera-input")
        assert [r["status"] for r in run(raw, tmp_path / "b", InputReadingFakeEngine(JOB_RESULTS))] == ["ok", "ok"]
        assert all(emulation.device(n) is not None for n in devices(a))
        assert all((d / "part-00000").is_file() for d in teragen), "the second study took the first's data"
        for name in devices(a):
            emulation.down(name)
        engine = InputReadingFakeEngine(JOB_RESULTS)
        records = run(raw, tmp_path / "a", engine, resume=True)
        assert [c for c in engine.calls if c.startswith("run")] == ["run r1/one/teragen", "run r1/one/terasort"]
        assert [r["status"] for r in records[-2:]] == ["ok", "ok"]
        assert all(emulation.device(n) is None for n in devices(a))  # (the study done: its device down)
    finally:
        for d in emulation.devices():
            emulation.down(d.name)
