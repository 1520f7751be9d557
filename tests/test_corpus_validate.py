"""bench/bench_validate.py on the recorded fixtures: every figure of the corpus predicted and labelled, the summary
counting predicted figures only, and the published jobs described as the recorded ones they are made of."""

import importlib.util
import math
import statistics
from pathlib import Path

import pytest

from tierbench.model.corpus import studies

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_validate.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_validate", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(bench):
    loaded, out = {}, {}
    for study in studies():
        path, workloads, variant = bench.SOURCES[study.name]
        key = (path, str(workloads), variant)
        loaded.setdefault(key, bench.load_source(str(bench.FIXTURES / path), workloads, variant))
        out[study.name] = bench.predict_study(study, loaded[key])
    return out


def test_every_figure_is_predicted_and_labelled(rows):
    labels = [(name, r["figure"].workload, r["figure"].config, r.get("label")) for name, rs in rows.items() for r in rs]
    assert all(label.split(":")[0] in ("predicted", "fitted", "structural") for *_, label in labels), labels
    # the scale model's calibration run, and the TeraGen pooled with all-HDD's
    # (model/labels.py, as predict --published: the all-HDD runtimes the seek sizes were set watching, and the hybrid
    # TeraGen, pooled with all-HDD's: the same figure; the fixture's core_speed was given, so all-SSD is predicted)
    fitted = [x[:3] for x in labels if x[3].startswith("fitted")]
    assert fitted == [("sandisk-terasort", "teragen", "all_hdd"), ("sandisk-terasort", "teragen", "hdd_plus_ssd_intermediate"),
                      ("sandisk-terasort", "terasort", "all_hdd")], fitted


def test_the_summary_counts_predicted_figures_only(bench, rows):
    s = bench.score(rows["sandisk-terasort"])
    # 6 runtimes: the three fitted ones (the all-HDD TeraGen and TeraSort, the hybrid TeraGen pooled with all-HDD's)
    # are left out of the errors and the coverage; of the ratios to all-HDD, the pooled TeraGen's is structural, the
    # others the numerator's (model/labels.py): 3 left
    assert (s["n"], s["runtimes"], s["ratios"], s["covered_of"]) == (6, 3, 3, 3)
    assert s["labels"] == {"predicted": 3, "fitted": 3}


def test_c3o_grep_writes_the_lines_that_match(rows):
    """A grep whose every line matches writes its whole input: it takes longer than one that matches none, on the
    same workers and data (C3O measured 204 s and 116 s on two m4.2xlarge, 10,100 MiB)."""
    by = {(r["figure"].config, r["figure"].size_bytes, r["figure"].params["p_occurrence"]): r for r in rows["c3o-grep"]}
    none, every = by[("m4.2xlarge x2", 10100 * (1 << 20), "0.0")], by[("m4.2xlarge x2", 10100 * (1 << 20), "1.0")]
    assert (none["published"], every["published"]) == (116, 204)
    assert every["predicted"] > 1.5 * none["predicted"]


def test_loso_fits_on_the_other_papers_only(bench, rows):
    corpus = studies()
    papers = {s.name: s.paper for s in corpus}
    c3o = next(s for s in corpus if s.name == "c3o-sort")
    fit = bench.loso(c3o, rows, papers)
    # the scale from SanDisk's two papers alone: C3O's grep, the same paper, is left out with its sort
    sandisk = [bench.log_errors(rows[n]) for n in ("sandisk-dfsio", "sandisk-terasort")]
    assert fit["scale"] == pytest.approx(math.exp(statistics.median(statistics.median(e) for e in sandisk)))
