"""The validation corpus (model/corpus): it loads from the package, every figure names its source, every study its
citation, and the copies agree with the figures the package already holds."""

import tomllib
from importlib import resources

import pytest

from tierbench.model.corpus import Figure, studies
from tierbench.model.hardware import catalog, load_hardware

KINDS = ("runtime", "ratio", "best_ratio", "order")


@pytest.fixture(scope="module")
def corpus():
    return {s.name: s for s in studies()}


def test_the_corpus_has_every_study_of_the_issue(corpus):
    assert list(corpus) == ["sandisk-dfsio", "sandisk-terasort", "cloudera", "c3o-sort", "c3o-grep"]
    # one row per C3O configuration: 630 sort and 810 grep runs of 5 repeats each
    assert (len(corpus["c3o-sort"].figures), len(corpus["c3o-grep"].figures)) == (126, 162)


def test_every_figure_has_its_source_and_every_study_its_citation(corpus):
    for s in corpus.values():
        assert len(s.citation) > 40 and s.paper, s.name
        for f in s.figures:
            assert isinstance(f, Figure) and f.kind in KINDS and len(f.source) > 20, f
            assert f.value is not None or f.kind == "order", f
            assert f.baseline, f


def test_every_figure_names_a_shipped_cluster_at_a_size(corpus):
    for s in corpus.values():
        for f in s.figures:
            hw = load_hardware(f.hardware)
            assert f.size_bytes > 1e9 and hw.engine in ("hadoop", "spark"), f
            for config in filter(None, (f.config, f.slower, f.baseline)):
                assert not s.layouts or config in s.layouts, (s.name, config)


def test_the_cloudera_layouts_give_each_role_all_of_its_bytes(corpus):
    layouts = corpus["cloudera"].layouts
    assert set(layouts) == {"hdd-11", "ssd", "hybrid", "hybrid-split"}
    for name, pools in layouts.items():
        assert all(p["drive"] in catalog() for p in pools), name
        for role in ("data", "intermediate"):
            assert sum(p[role] for p in pools) == pytest.approx(1.0, abs=1e-5), (name, role)


def test_the_sandisk_runtimes_are_the_published_tables(corpus):
    published = tomllib.loads(resources.files("tierbench.analysis").joinpath("published.toml").read_text())
    columns = {"sandisk-dfsio": ("sandisk_testdfsio_2014", {"dfsio-read": 0, "dfsio-write": 1}),
               "sandisk-terasort": ("sandisk_terasort_2014", {"teragen": 0, "terasort": 1})}
    for name, (section, column) in columns.items():
        figures = corpus[name].figures
        assert len(figures) == len(column) * len(published[section]["results"])
        for f in figures:
            assert f.value == published[section]["results"][f.config][column[f.workload]], f


def test_a_c3o_row_is_the_median_of_its_repeats_with_their_spread(corpus):
    for name in ("c3o-sort", "c3o-grep"):
        for f in corpus[name].figures:
            fastest, slowest = f.spread
            assert fastest <= f.value <= slowest and 2 <= f.nodes <= 12, f
            assert f.baseline == f.config.split(" ")[0] + " x2"
    first = corpus["c3o-sort"].figures[0]  # c4.2xlarge x2, 10^7 lines of 1,000: 340 348 352 352 360 s in the source
    assert (first.config, first.value, first.spread, first.size_bytes) == ("c4.2xlarge x2", 352.0, (340.0, 360.0),
                                                                           9530 * (1 << 20))


def test_the_c3o_clusters_are_their_instances():
    for family, memory_gb, mb_s in (("c4", 15, 31.25), ("m4", 32, 31.25), ("r4", 61, 53.12)):
        hw = load_hardware(f"c3o-{family}-2xlarge")
        assert (hw.cores, hw.memory_bytes, hw.data.count, hw.engine) == (8, memory_gb << 30, 4, "spark")
        assert hw.data.drive.read_mb_s == pytest.approx(mb_s)


def test_a_c3o_grep_row_names_the_share_of_lines_that_match(corpus):
    shares = {f.params["p_occurrence"] for f in corpus["c3o-grep"].figures}
    assert shares == {"0.0", "0.25", "0.5", "0.75", "1.0"}
    assert all("p_occurrence" not in f.params for f in corpus["c3o-sort"].figures)


def test_a_finding_of_no_gain_is_an_order_that_allows_a_tie(corpus):
    no_gain = [f for f in corpus["cloudera"].figures if f.kind == "order" and f.or_equal]
    assert {(f.workload, f.config, f.slower) for f in no_gain} == {("terasort", "hdd-11", "hybrid"),
                                                                  ("shuffle", "hdd-11", "hybrid")}
    assert all(not f.or_equal for f in corpus["sandisk-terasort"].figures)
