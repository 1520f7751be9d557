"""The studies' composite figures (issue 19): pipelines (TeraGen + TeraSort + TeraValidate totals and $/job), a
weighted workload mix beside $ per TB, intermediate data per node. Checked on committed real results."""

import json
import shutil
import statistics
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from tierbench.errors import SpecError
from tierbench.report.build import StudyResults
from tierbench.spec import parse_spec
from tierbench.store import ResultsDir

FIXTURES = Path(__file__).parent / "fixtures"


def quickstart(tmp_path, **spec_extra) -> StudyResults:
    d = tmp_path / "r"
    shutil.copytree(FIXTURES / "quickstart-results", d)
    sr = StudyResults.load(d)
    raw = tomllib.loads(resources.files("tierbench.spec").joinpath("quickstart.toml").read_text())
    sr.stored.study.spec["cost"] = parse_spec(raw, "quickstart", base_dir=tmp_path).to_dict()["cost"]
    sr.stored.study.spec.update(spec_extra)
    return sr


def section(doc, title):
    return next(s for s in doc.all_sections() if s.title == title)


def table_of(sec):
    return next(b for b in sec.blocks if hasattr(b, "rows"))


def test_tera_pipeline_by_default_totals_each_repeat(priced_quickstart):
    sr = priced_quickstart  # (quickstart() of this module, built once for the session: conftest.py)
    assert "pipelines" not in sr.stored.study.spec  # recorded before pipelines existed: the default applies
    sec = section(sr.document, "Pipelines")
    rows = {r[1]: r for r in table_of(sec).rows}
    assert set(rows) == {"single", "split"} and rows["single"][0] == "teragen+terasort+teravalidate"
    recs = [r for r in ResultsDir(FIXTURES / "quickstart-results").records() if r["config"] == "single"]
    totals = [sum(r["wall_s"] for r in recs if r["repeat"] == k and r["workload"] in ("teragen", "terasort", "teravalidate"))
              for k in sorted({r["repeat"] for r in recs})]
    assert float(rows["single"][3]) == pytest.approx(statistics.median(totals), abs=0.01)
    assert rows["single"][6] == "1.00x" and rows["split"][6].endswith("x")
    dollars = [float(rows[c][7].lstrip("$")) for c in rows]
    assert all(d > 0 for d in dollars)
    assert any(getattr(b, "id", None) == "chart-pipeline-teragen+terasort+teravalidate" for b in sec.blocks)


def test_pipeline_dollars_are_the_members_dollars_added(priced_quickstart):
    doc = priced_quickstart.document
    cost = section(doc, "Cost per job")
    ct = next(t for t in cost.blocks if hasattr(t, "head") and t.head[0] == "workload")
    total = {(r[1], r[0]): float(r[ct.head.index("total $/job")].lstrip("$")) for r in ct.rows}
    pipe = {r[1]: float(r[7].lstrip("$")) for r in table_of(section(doc, "Pipelines")).rows}
    for config, usd in pipe.items():
        assert usd == pytest.approx(sum(total[(config, w)] for w in ("teragen", "terasort", "teravalidate")), rel=0.02)


def test_a_mix_weights_runtimes_and_sets_cost_per_performance_beside_cost_per_tb(tmp_path):
    sr = quickstart(tmp_path, mix={"terasort": 3.0, "dfsio-read": 1.0})
    rows = {r[0]: r for r in table_of(section(sr.document, "Workload mix")).rows}
    an_rows = {(r[0], r[1]): float(r[3]) for r in table_of(section(sr.document, "Summary per configuration and workload")).rows}
    for c in ("single", "split"):
        assert float(rows[c][1]) == pytest.approx(3 * an_rows[("terasort", c)] + an_rows[("dfsio-read", c)], abs=0.02)
    assert rows["single"][2] == "1.00x" and rows["single"][4] == "1.00x"
    perf = float(rows["split"][4].rstrip("x"))
    assert perf == pytest.approx(float(rows["split"][2].rstrip("x")) * 1.04, rel=0.02)  # split's price is 1.04x


def test_intermediate_bytes_per_node_from_the_engine(sweep_sql_document):
    d = FIXTURES / "sweep-sql-results"
    doc = sweep_sql_document
    t = table_of(section(doc, "Intermediate data per node"))
    row = next(r for r in t.rows if r[0] == "wordcount.split_size-512KB" and r[1] == "one@spark.shuffle_compress-false")
    run = next(r for r in ResultsDir(d).records() if r["run_key"].endswith("one@spark.shuffle_compress-false/wordcount.split_size-512KB"))
    written = sum(st.get("shuffle_write_bytes", 0) + st.get("disk_spill_bytes", 0) for st in run["details"]["stages"])
    assert written > 0 and row[-1] == "engine" and row[5] == "1"
    compressed = next(r for r in t.rows if r[0] == row[0] and r[1] == "one@spark.shuffle_compress-true")
    assert int(compressed[4].rstrip("%")) < int(row[4].rstrip("%"))  # compression shrinks the intermediate data


SPEC = """
name = "p"
[engine]
master = "local[1]"
[storage.a]
data = ["{d}"]
[[workloads]]
name = "teragen"
size = "1MB"
[[workloads]]
name = "terasort"
"""


@pytest.mark.parametrize("extra, field", [
    ('[[pipelines]]\nworkloads = ["teragen"]', "pipelines[0].workloads"),
    ('[[pipelines]]\nworkloads = ["teragen", "wordcount"]', "pipelines[0].workloads"),
    ('[[pipelines]]\nworkloads = ["teragen", "terasort"]\nsteps = 2', "pipelines[0].steps"),
    ('[mix]\nterasort = 0', "mix.terasort"),
    ('[mix]\ngrep = 1', "mix.grep"),
])
def test_bad_pipelines_and_mixes_are_named(tmp_path, extra, field):
    raw = tomllib.loads(SPEC.format(d=tmp_path) + extra)
    with pytest.raises(SpecError) as e:
        parse_spec(raw, "s.toml", base_dir=tmp_path)
    assert field in str(e.value)


def test_pipelines_and_mix_change_no_fingerprint(tmp_path):
    plain = parse_spec(tomllib.loads(SPEC.format(d=tmp_path)), "s.toml", base_dir=tmp_path)
    assert plain.pipelines == ()  # no teravalidate: no default pipeline
    more = parse_spec(tomllib.loads(SPEC.format(d=tmp_path) + '[[pipelines]]\nname = "gen-sort"\nworkloads = ["teragen", "terasort"]\n'
                                    '[mix]\nterasort = 2\nteragen = 1\n'), "s.toml", base_dir=tmp_path)
    assert more.pipelines == ({"name": "gen-sort", "workloads": ["teragen", "terasort"]},) and more.mix == {"terasort": 2.0, "teragen": 1.0}
    assert more.fingerprint() == plain.fingerprint()
    json.dumps(more.to_dict())
