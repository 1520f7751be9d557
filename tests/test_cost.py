"""Cost per job: the seed studies' published tables reproduced, the added costs, and bad input."""

import json
import math
import shutil
import tomllib
from pathlib import Path
from importlib import resources

import pytest

from conftest import as_run, as_runs, write_spec
from tierbench.analysis.cost import cost_per_job, published_rounding, wear_for, workload_cost
from tierbench.analysis.reference import recompute
from tierbench.errors import SpecError, UserError
from tierbench.spec import parse_spec
from tierbench.spec.cost import ConfigCost, DriveClass

# the studies' published tables, as copied into the package
REFERENCE = Path(__file__).resolve().parents[1] / "src" / "tierbench" / "analysis" / "published.toml"


def test_sandisk_testdfsio_tables_5_and_7():
    rows, note = recompute(f"{REFERENCE}#sandisk_testdfsio_2014")
    assert [(r.config, r.column) for r in rows] == [("all_hdd", "read"), ("all_hdd", "write"), ("all_ssd", "read"), ("all_ssd", "write")]
    for r in rows:
        # the paper truncates jobs in 3 years and $/job, e.g. 0.697 -> 0.69
        assert r.computed["jobs_3_years"] == r.published["jobs_3_years"]
        assert r.computed["usd_per_job"] == r.published["usd_per_job"]
        assert r.exact["jobs_3_years"] == pytest.approx(86400 / r.runtime_s * 365 * 3)
    assert rows[0].computed == {"jobs_per_day": 49.2, "jobs_3_years": 53876, "usd_per_job": 0.69}
    assert rows[0].exact["usd_per_job"] == pytest.approx(0.6971621, rel=1e-6)  # rounding would give 0.70
    jpd = {(r.config, r.column): (r.computed["jobs_per_day"], r.status["jobs_per_day"]) for r in rows}
    assert jpd[("all_hdd", "write")] == (16.84, "exact")
    # the one figure that no rounding rule reproduces: 86400/485 = 178.144, published as 178.15
    assert jpd[("all_ssd", "read")] == (178.14, "last digit")
    assert "178.15" in note


def test_sandisk_terasort_tables_5_and_7():
    rows, _ = recompute(f"{REFERENCE}#sandisk_terasort_2014")
    got = {r.config: r.computed for r in rows}
    assert got == {
        "all_hdd": {"jobs_per_day": 7.46, "jobs_3_years": 8163.60, "usd_per_job": 4.60},
        "hdd_plus_ssd_intermediate": {"jobs_per_day": 11.01, "jobs_3_years": 12051.97, "usd_per_job": 3.57},
        "all_ssd": {"jobs_per_day": 19.59, "jobs_3_years": 21450.63, "usd_per_job": 2.17},
    }
    assert all(set(r.status.values()) == {"exact"} for r in rows)


def test_cost_cli_what_if_and_reference(tb_main):
    out = tb_main("cost", "--runtime-s", 11589, "--price-usd", 37561, "--json", check=True)
    c = json.loads(out.stdout)
    assert c["jobs_per_day"] == pytest.approx(7.455345586) and c["usd_per_job"] == pytest.approx(4.601031932)
    out = tb_main("cost", "--runtime-s", 11589, "--price-usd", 37561, "--years", 5, check=True)
    assert "jobs in 5 years" in out.stdout and "13,606" in out.stdout
    out = tb_main("cost", "--reference", f"{REFERENCE}#sandisk_terasort_2014", check=True)
    assert "12,051.97 (12,051.97)" in out.stdout and "MISMATCH" not in out.stdout


@pytest.mark.parametrize("args,words", [
    (("--runtime-s", 0, "--price-usd", 100), "runtime_s: must be > 0"),
    (("--runtime-s", 10, "--price-usd", -1), "price_usd: must be >= 0"),
    (("--runtime-s", 10), "give --runtime-s and --price-usd"),
    (("--reference", "nofile.toml#x"), "no such file"),
    (("--reference", f"{REFERENCE}#nosuch"), "no section [nosuch]"),
    (("--reference", f"{REFERENCE}#cloudera_ssd_2014"), "no cost table"),
])
def test_bad_cost_input_is_one_line(tb_main, args, words):
    out = tb_main("cost", *args)
    assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_rounding_modes():
    assert published_rounding(0.6971, 2, "truncate") == 0.69
    assert published_rounding(0.6971, 2, "round") == 0.70
    assert published_rounding(2.175, 2, "round") == 2.18  # half up, on the decimal digits as written


def test_wear_adds_replacements_when_endurance_ends_first():
    ssd = DriveClass("ssd", 100.0, 10**12, 3.0, endurance_bytes=100 * 10**12)  # 100 TBW
    cfg = ConfigCost(price_usd=1000.0, nodes=2, node_watts=100.0, drives={"ssd": 2}, data_drive="ssd", copies=2.0)
    # 1 TB per job to the ssd class = 0.25 TB per drive; 86400 s jobs, 3 years = 1095 jobs
    wc = workload_cost("c", "w", 86400, 10.0, cfg, {"ssd": ssd}, {"ssd": 10**12}, 3, 1.0, 0.10)
    (w,) = wc.wear
    assert w.bytes_per_job_per_drive == 0.25 * 10**12 and w.jobs_until_worn == pytest.approx(400)
    assert w.worn_before_period_ends and w.replacements == math.ceil(1095 / 400) - 1 == 2
    assert w.replacement_usd_per_job == pytest.approx(2 * 4 * 100 / 1095)
    assert wc.power_usd_per_job == pytest.approx((2 * (100 + 2 * 3)) * 24 / 1000 * 0.10)
    assert wc.usd_per_job_total == pytest.approx(1000 / 1095 + wc.power_usd_per_job + w.replacement_usd_per_job)
    assert wc.usd_per_mb_s == 100.0
    assert wc.usd_per_usable_tb == pytest.approx(1000 / (2 * 2 * 1 / 2.0))  # 4 TB raw, replication 2
    hdd = DriveClass("hdd", 50.0, 4 * 10**12)
    assert wear_for(ConfigCost(1.0, drives={"hdd": 1}), {"hdd": hdd}, {"hdd": 10**12}, 1000)[0].jobs_until_worn is None


COST_SPEC = """
name = "c"
[storage.a]
data = ["{d}"]
[[workloads]]
name = "teragen"
[cost]
years = 3
[cost.drive_classes.ssd]
price_usd = 100
capacity = "1TB"
dwpd = 1
[storage.a.cost]
drives = {{ ssd = 2 }}
node_price_usd = 1000
protection = {{ ec = "3+2" }}
"""


def test_cost_spec_bill_of_materials(tmp_path):
    spec = parse_spec(tomllib.loads(COST_SPEC.format(d=tmp_path)), "s.toml")
    a = spec.cost.configs["a"]
    assert a.price_usd == 1200 and a.data_drive == "ssd" and a.copies == pytest.approx(5 / 3)
    assert spec.cost.drive_classes["ssd"].endurance_bytes == 10**12 * 365 * 5  # 1 DWPD over 5 years
    assert spec.fingerprint() == parse_spec(tomllib.loads(COST_SPEC.format(d=tmp_path).replace("price_usd = 100", "price_usd = 90")), "s.toml").fingerprint()


@pytest.mark.parametrize("old,new,field", [
    ("price_usd = 100", "price_usd = -100", "cost.drive_classes.ssd.price_usd"),
    ("drives = { ssd = 2 }", "drives = { nvme = 2 }", "storage.a.cost.drives.nvme"),
    ("ec = \"3+2\"", "ec = \"three\"", "storage.a.cost.protection.ec"),
    ("years = 3", "years = 0", "cost.years"),
    ("capacity = \"1TB\"", "capacity = \"big\"", "cost.drive_classes.ssd.capacity"),
])
def test_bad_cost_spec_names_the_field(tmp_path, old, new, field):
    text = COST_SPEC.format(d=tmp_path).replace(old.replace("{", "{").replace("}", "}"), new)
    with pytest.raises(SpecError) as e:
        parse_spec(tomllib.loads(text), "s.toml")
    assert e.value.field == field


def test_report_has_cost_section_with_example_label(tmp_path):
    from importlib import resources

    from tierbench.report import render_report

    d = tmp_path / "results"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    spec = parse_spec(raw, "quickstart", base_dir=tmp_path)
    study = json.loads((d / "study.json").read_text())
    study["spec"]["cost"] = spec.to_dict()["cost"]
    (d / "study.json").write_text(json.dumps(study))
    html_path, md_path = render_report(d)
    html = html_path.read_text()
    assert "Cost per job" in html and "EXAMPLE PRICES" in html and "chart-cost" in html
    md = md_path.read_text()
    assert "| configuration | price | $/job: dfsio-write |" in md and "| split | 1.04x |" in md  # price 4% more
    assert "scaled-down jobs: these figures are for the jobs as run" in md and "cost.target_size" in md


def test_target_size_extrapolates_linearly_and_says_so(tmp_path):
    from tierbench.analysis.cost import job_bytes as job_bytes_of_run, study_costs
    from tierbench.analysis.stats import analyse
    from tierbench.analysis.stats import runs_for_analysis as _runs_for_analysis
    from tierbench.report.build import build_report
    from tierbench.store import ResultsDir, StoredStudy

    job_bytes = lambda record: job_bytes_of_run(as_run(record))  # noqa: E731 (a record dict, as the test reads it)

    d = tmp_path / "results"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    raw["cost"]["target_size"] = "1TB"
    cost = parse_spec(raw, "quickstart", base_dir=tmp_path).to_dict()["cost"]
    assert cost["target_bytes"] == 10**12
    study, records = ResultsDir(d).study(), ResultsDir(d).records()
    runs = _runs_for_analysis(as_runs(records))
    an = analyse(runs, "single", ["single", "split"], [w["label"] for w in study["spec"]["workloads"]])
    costs = {(c.config, c.workload): c for c in study_costs(cost, an, runs, {"single": "single", "split": "split"})}
    c = costs[("split", "terasort")]
    one = next(r for r in runs if r.label == "terasort" and r.status == "ok").as_record_dict()
    assert c.job_bytes == job_bytes(one) == one["metrics"]["data_mb"] * 2**20
    f = 10**12 / c.job_bytes
    assert c.at_target.base.runtime_s == pytest.approx(c.base.runtime_s * f)
    assert c.at_target.usd_per_job_total > c.usd_per_job_total * f * 0.99  # the price is spread over fewer, longer jobs
    study["spec"]["cost"] = cost
    md = "\n".join(str(b) for b in build_report(StoredStudy.from_dicts(d, study, records)).walk())
    assert "at target_size = 1 TB: a linear extrapolation" in md and "scaled-down" not in md
    bad = dict(raw["cost"], target_size="lots")
    with pytest.raises(SpecError, match="cost.target_size"):
        parse_spec({**raw, "cost": bad}, "q", base_dir=tmp_path)


def test_wear_uses_the_sampled_device_writes_when_there_are_samples():
    from tierbench.analysis.cost import bytes_written_sampled as bytes_written_sampled_of_run

    bytes_written_sampled = lambda record, smap: bytes_written_sampled_of_run(as_run(record), smap)  # noqa: E731

    rec = {"storage": {"data": ["/d"], "intermediate": ["/i"]},
           "samples": {"devices": {"sda": {"wr_bytes": [10, 20, 5]}, "sdb": {"wr_bytes": [100, 0, 0]}}}}
    smap = {"dirs": {"/d": {"device": "sda"}, "/i": {"device": "sdb"}}}
    assert bytes_written_sampled(rec, smap) == {"data": 35.0, "intermediate": 100.0, "separate": True}
    smap["dirs"]["/i"]["device"] = "sda"  # one device holds both: counted once, as data
    assert bytes_written_sampled(rec, smap) == {"data": 35.0, "intermediate": 0.0, "separate": False}
    assert bytes_written_sampled({**rec, "samples": None}, smap) is None
