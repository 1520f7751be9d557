"""No silent surprises (issue 58): a data or intermediate directory whose parent does not exist is refused unless
the spec says to create it; `intermediate` left out on a cluster master with remote data means the cluster's own
local dirs, as documented; compare's interval agrees with its verdict and its header names every column; the
CLI's default output folders are ignored by git. Fast: spec parses, the CLI in-process, the committed fixtures."""

import json
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from conftest import one_error_line, tierbench_main, write_spec
from tierbench.errors import SpecError
from tierbench.scale.derive import parse as parse_scaled
from tierbench.spec import load_spec, parse_spec
from tierbench.spec.cluster import NOT_APPLIED, intermediate_applied
from tierbench.storage.layout import StudyLayout

REPO = Path(__file__).parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "compare"
WORKLOAD = '[[workloads]]\nname = "teragen"\nsize = "1MB"\n'


def spec_text(storage: str, engine: str = "") -> str:
    return f'name = "surprises"\ndrop_caches = "never"\n{engine}\n{storage}\n{WORKLOAD}'


def parse(tmp_path: Path, storage: str, engine: str = ""):
    return parse_spec(tomllib.loads(spec_text(storage, engine)), "s.toml", tmp_path)


# -- a directory whose parent does not exist --------------------------------------------------------------

@pytest.mark.parametrize("role", ["data", "intermediate"])
def test_a_directory_whose_parent_is_missing_is_refused_in_one_line_naming_the_field_path_and_fix(tmp_path, role):
    typo = tmp_path / "mnt" / "ssd1" / "tb"  # (/mnt/ssd1 not mounted, or misspelt)
    dirs = {"data": f'["{tmp_path}/d"]', "intermediate": f'["{tmp_path}/i"]'} | {role: f'["{typo}"]'}
    spec = write_spec(tmp_path / "s.toml", spec_text(f"[storage.fast]\ndata = {dirs['data']}\n"
                                                     f"intermediate = {dirs['intermediate']}\n"))
    one_error_line(tierbench_main("run", spec, "--out", tmp_path / "res"), f"storage.fast.{role}", str(typo),
                   f"{typo.parent} does not exist", "storage.fast.create_dirs = true")
    assert not (tmp_path / "mnt").exists() and not (tmp_path / "res").exists()


def test_a_missing_directory_whose_parent_exists_is_accepted_and_made_by_the_study(tmp_path):
    spec = parse(tmp_path, f'[storage.fast]\ndata = ["{tmp_path}/tb"]\n')
    assert spec.config("fast").data == (str(tmp_path / "tb"),)


def test_create_dirs_accepts_a_missing_parent_and_the_study_makes_the_whole_path(tmp_path):
    spec = parse(tmp_path, f'[storage.fast]\ndata = ["{tmp_path}/a/b/tb"]\nintermediate = ["{tmp_path}/c/d/tmp"]\n'
                           "create_dirs = true\n")
    layout = StudyLayout(spec)
    layout.claim()
    try:
        assert all(root.is_dir() for root in layout.roots) and len(layout.roots) == 2
    finally:
        layout.release()
    assert (tmp_path / "a" / "b" / "tb").is_dir() and (tmp_path / "c" / "d" / "tmp").is_dir()


def test_create_dirs_must_be_true_or_false(tmp_path):
    with pytest.raises(SpecError) as e:
        parse(tmp_path, f'[storage.fast]\ndata = ["{tmp_path}/tb"]\ncreate_dirs = "yes"\n')
    assert e.value.field == "storage.fast.create_dirs" and "true or false" in e.value.problem


def test_a_shared_mounts_path_with_a_missing_parent_is_refused_too(tmp_path):
    with pytest.raises(SpecError) as e:
        parse(tmp_path, f'[storage.nfs]\ndata = {{ type = "shared", path = "{tmp_path}/nfs/tb" }}\n'
                        f'intermediate = ["{tmp_path}/tmp"]\n')
    assert e.value.field == "storage.nfs.data" and f"{tmp_path}/nfs does not exist" in e.value.problem


def test_emulated_devices_are_made_by_tierbench_so_a_fresh_cache_is_no_missing_parent(tmp_path, monkeypatch):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "fresh" / "cache"))  # (nothing of it exists yet)
    spec = parse(tmp_path, '[storage.hdd]\ndata = { emulate = "hdd", drives = 2, size = "256MB" }\n'
                           '[storage.hybrid]\ndata = { emulate = "hdd", size = "256MB" }\n'
                           'intermediate = { emulate = "sata-ssd", size = "256MB" }\n')
    assert all(d.startswith(str(tmp_path / "fresh")) for c in spec.storage for d in (*c.data, *c.intermediate))


@pytest.mark.parametrize("which", ["quickstart.toml", "quickstart-emulated.toml"])
def test_the_quickstarts_spec_parses_with_an_out_folder_that_does_not_exist_yet(tmp_path, monkeypatch, which):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath(which).read_text())
    spec = parse_scaled(raw, which, tmp_path / "tierbench-results" / "quickstart")  # (a scale model's: derived)
    assert spec.storage and not (tmp_path / "tierbench-results").exists()


@pytest.mark.parametrize("path", sorted((REPO / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_every_example_parses_where_its_folders_do_not_exist_yet(path, tmp_path, monkeypatch):
    """The examples name folders under /tmp/tierbench-example, absent on a fresh machine: each is moved under a
    folder that does not exist, so that the test does not depend on what an earlier run left in /tmp."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    text = path.read_text().replace("/tmp/tierbench-example", str(tmp_path / "fresh" / "tierbench-example"))
    spec = parse_scaled(tomllib.loads(text), path.name, path.parent)
    assert spec.storage and not (tmp_path / "fresh").exists()


# -- `intermediate` left out on a cluster master, with remote data ----------------------------------------------

@pytest.mark.parametrize("engine", ['[engine]\nmaster = "yarn"', '[engine]\nmaster = "spark://10.0.0.5:7077"',
                                    '[engine]\nkind = "hadoop"\nmode = "yarn"\nhadoop_conf_dir = "{d}"'])
@pytest.mark.parametrize("data", ['{ type = "hdfs", uri = "hdfs://nn:8020/bench" }',
                                  '{ type = "s3", endpoint = "http://127.0.0.1:7480", bucket = "bench" }'])
def test_intermediate_left_out_on_a_cluster_master_with_remote_data_is_the_cluster_managers_own(tmp_path, monkeypatch,
                                                                                               engine, data):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))  # (no embedded Spark cluster known)
    spec = parse(tmp_path, f"[storage.remote]\ndata = {data}\n", engine.format(d=tmp_path))
    config = spec.config("remote")
    assert intermediate_applied(spec.engines[0], config) == NOT_APPLIED  # recorded as "none"
    # tierbench's and the driver's own scratch: in tierbench's folder, never a remote URI
    assert config.intermediate == (str(tmp_path / "cache" / "scratch"),)


@pytest.mark.parametrize("engine, applies", [('[engine]\nmaster = "local[2]"', "spark.local.dir"),
                                             ('[engine]\nmaster = "k8s://https://api:6443"', "k8s volumes")])
def test_intermediate_left_out_with_remote_data_where_tierbench_applies_it_is_refused_saying_so(tmp_path, engine, applies):
    spec = write_spec(tmp_path / "s.toml", spec_text('[storage.remote]\ndata = { type = "hdfs", uri = "hdfs://nn:8020/b" }\n',
                                                     engine))
    line = one_error_line(tierbench_main("run", spec, "--out", tmp_path / "res"), "storage.remote.intermediate",
                          "missing", applies, "intermediate = [")
    assert "only local directories" not in line and "hdfs://" not in line


def test_the_yarn_refusals_hint_is_true_the_spec_without_intermediate_parses(tmp_path, monkeypatch):
    """The refusal of a named `intermediate` on YARN says "or leave intermediate out": doing so is accepted."""
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    storage = '[storage.fast]\ndata = { type = "hdfs", uri = "hdfs://nn:8020/b" }\n'
    with pytest.raises(SpecError) as e:
        parse(tmp_path, storage + f'intermediate = ["{tmp_path}/ssd"]\n', '[engine]\nmaster = "yarn"')
    assert "leave intermediate out" in e.value.problem
    assert parse(tmp_path, storage, '[engine]\nmaster = "yarn"').config("fast").remote


# -- compare: the interval beside a verdict agrees with it --------------------------------------------------------

def compare_json(tmp_path: Path, capsys, *names: str) -> dict:
    from tierbench.cli.main import main

    assert main(["compare", *(str(FIXTURES / f"{n}-results") for n in names), "--out", str(tmp_path / "cmp"),
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_on_the_fixtures_every_interval_excludes_1_exactly_when_its_verdict_is_significant(tmp_path, capsys):
    """Jobs, phases and queries of the rerun and of the one-core run (the bootstrap interval of the median ratio of
    one shuffle phase, 1.08-2.47, sat beside "not significant, p = 0.057")."""
    cmp = compare_json(tmp_path, capsys, "base", "rerun", "slow")
    rows = cmp["jobs"] + cmp["phases"] + cmp["queries"]
    assert len(rows) > 40 and {r["verdict"] for r in rows} >= {"slower", "not significant"}
    def interval_says(r: dict) -> str:
        lo, hi = r["ratio_interval"]
        return "slower" if lo > 1 else "faster" if hi < 1 else "not significant"

    assert [r for r in rows if interval_says(r) != r["verdict"]] == []
    assert all((r["p_value"] < 0.05) == (r["verdict"] != "not significant") for r in rows)
    for r in rows:  # (what the interval is: said in the record too)
        lo, hi = r["ratio_interval"]
        assert r["ratio_interval_kind"] == "welch 95%, ratio of means" and lo <= r["mean_ratio"] <= hi, r


def test_welchs_interval_excludes_1_exactly_when_welchs_test_is_significant():
    import numpy as np

    from tierbench.analysis.compare import welch_interval
    from tierbench.analysis.stats import compare

    rng = np.random.default_rng(58)
    agreed = {True: 0, False: 0}
    for _ in range(400):
        nb, no = rng.integers(2, 9, size=2)
        base = list(rng.normal(10, rng.uniform(0.1, 2), nb))
        other = list(rng.normal(10 * rng.uniform(0.8, 1.25), rng.uniform(0.1, 2), no))
        lo, hi = welch_interval(base, other)
        significant = compare(base, other, "c", "w", "b").p_value < 0.05
        assert (lo > 1 or hi < 1) == significant, (base, other, lo, hi)
        agreed[significant] += 1
    assert min(agreed.values()) > 40  # (both outcomes met, many times)
    assert welch_interval([5.0, 5.0], [6.0, 6.0]) == (1.2, 1.2) and welch_interval([5.0], [6.0, 7.0]) is None


def table_rows(text: str, first: str) -> list[list[str]]:
    """A printed table (columns apart by two spaces or more) from its header line, which starts with `first`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


@pytest.mark.parametrize("names, theirs", [(("base", "slow"), "B median"), (("base", "rerun", "slow"), "study's median")])
def test_the_terminal_table_names_every_column_and_says_what_its_interval_is(tmp_path, capsys, names, theirs):
    from tierbench.cli.main import main

    assert main(["compare", *(str(FIXTURES / f"{n}-results") for n in names), "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    head, rule, *rows = table_rows(out, "job ")
    assert head == ["job", "study", "A median", theirs, "median ratio", "mean ratio 95% CI", "Welch p", "verdict"]
    assert len(rule) == len(head) and rows and all(len(r) == len(head) for r in rows)
    assert "Welch's interval" in out and "excludes 1.00 exactly" in out.replace("\n", " ")


def test_the_documents_tables_name_every_column(tmp_path, capsys):
    compare_json(tmp_path, capsys, "base", "rerun", "slow")
    md = (tmp_path / "cmp" / "report.md").read_text()
    heads = [line for line in md.splitlines() if line.startswith("| job (configuration / workload)")]
    assert len(heads) == 3  # jobs, phases, queries
    for line in heads:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert all(cells) and len(set(cells)) == len(cells) and "mean ratio, Welch 95% interval" in cells
    assert "it excludes 1.00 exactly when p < 0.05" in md


# -- the CLI's default output folders are ignored by git --------------------------------------------------------

def default_output_folders() -> set[str]:
    """Every "tierbench-<name>" folder the CLI's sources name as a relative path (run's and probe's
    tierbench-results/<study>, the quickstart's, compare's tierbench-compare/<A>-vs-<B>), and compare's constant."""
    from tierbench.cli.compare import DEFAULT_OUT

    found = {DEFAULT_OUT}
    for source in (REPO / "src" / "tierbench" / "cli").glob("*.py"):
        found |= set(re.findall(r"""["'](tierbench-[a-z-]+)(?:/|["'])""", source.read_text()))
    return found


def test_every_default_output_folder_of_the_cli_is_ignored_by_git():
    import subprocess

    folders = default_output_folders()
    assert {"tierbench-results", "tierbench-compare"} <= folders
    listed = set((REPO / ".gitignore").read_text().split())
    for name in sorted(folders):
        assert f"{name}/" in listed or f"/{name}/" in listed, name
        written = f"{name}/some-study/report.html"  # (what a command writes there: nothing need exist)
        assert subprocess.run(["git", "check-ignore", "-q", "--no-index", written], cwd=REPO).returncode == 0, written


def test_compares_help_says_what_the_interval_is_in_lines_under_100_characters():
    out = tierbench_main("compare", "--help")
    assert out.returncode == 0 and "95% interval" in out.stdout and "examples:" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) < 100, out.stdout


def test_data_on_the_root_file_system_beside_data_on_a_mount_of_its_own_is_warned(tmp_path):
    """/mnt/hdd1 exists, but its disk was not mounted: the parent check passes, the warning says it."""
    from tierbench.analysis.validity import root_fs_lines, study_lines

    (tmp_path / "hdd1").mkdir(), (tmp_path / "ssd1").mkdir()
    spec = parse(tmp_path, f'[storage.hdd]\ndata = ["{tmp_path}/hdd1/tb"]\n[storage.ssd]\ndata = ["{tmp_path}/ssd1/tb"]\n'
                           '[storage.s3]\ndata = { type = "s3", endpoint = "http://127.0.0.1:7480", bucket = "bench" }\n'
                           f'intermediate = ["{tmp_path}/ssd1/tmp"]\n').to_dict()

    def on(**points) -> dict:
        return {"dirs": {f"{tmp_path}/{name}/tb": {"device": "vda", "mount": {"mount_point": p}} for name, p in points.items()}}

    [line] = root_fs_lines(spec, on(hdd1="/", ssd1="/mnt/ssd1"))
    assert line.startswith(f"storage hdd: its data ({tmp_path}/hdd1/tb) is on the root file system (/)")
    assert "ssd's is on /mnt/ssd1" in line and "not" in line and line in study_lines(spec, {}, on(hdd1="/", ssd1="/mnt/ssd1"))
    assert root_fs_lines(spec, on(hdd1="/", ssd1="/")) == []  # (one disk for all: nothing stands out)
    assert root_fs_lines(spec, on(hdd1="/mnt/hdd1", ssd1="/mnt/ssd1")) == []
