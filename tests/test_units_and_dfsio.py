import pytest

from tierbench.units import parse_size
from tierbench.workloads.dfsio import dfsio_figures, hadoop_decimal


@pytest.mark.parametrize("text,expected", [("64MB", 64 * 10**6), ("1.5GB", 15 * 10**8), ("64MiB", 64 << 20), ("1.5 GiB", 3 << 29), ("512 KiB", 512 << 10), ("100", 100), (4096, 4096), ("2g", 2 << 30)])
def test_sizes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "MB", "-1MB", "12 parsecs", 0, -5, True, "1.5"])
def test_bad_sizes_say_what_is_accepted(bad):
    with pytest.raises(ValueError, match="size"):
        parse_size(bad)


def test_dfsio_figures_follow_testdfsio_formulas():
    # two tasks: 64 MB in 1 s (64 MB/s) and 64 MB in 2 s (32 MB/s); the job took 2.5 s
    f = dfsio_figures([64 << 20, 64 << 20], [1000, 2000], 2500)
    assert f.total_mb == 128
    assert f.throughput_mb_s == pytest.approx(128 / 3, rel=1e-6)  # total MB / sum of task seconds
    assert f.avg_io_rate_mb_s == pytest.approx(48)  # mean of per-task rates
    assert f.io_rate_std_dev_mb_s == pytest.approx(16, rel=1e-5)
    assert f.aggregate_throughput_mb_s == pytest.approx(128 / 2.5)
    assert f.printed() == {"Number of files": "2", "Total MBytes processed": "128", "Throughput mb/sec": "42.67",
                           "Average IO rate mb/sec": "48", "IO rate std deviation": "16", "Test exec time sec": "2.5"}


def test_hadoop_decimal_rounds_half_even_like_java():
    assert hadoop_decimal(0.125) == "0.12"
    assert hadoop_decimal(0.135) == "0.14"  # 0.135 as a double is slightly above .135
    assert hadoop_decimal(2.0) == "2"
    assert hadoop_decimal(1234.5) == "1234.5"


def test_a_dfsio_read_that_saw_fewer_files_than_were_written_fails():
    """On a cluster whose nodes keep local data, a reader may see only its own node's files: the run must fail."""
    from tierbench.workloads.dfsio import DfsioRead

    job = {"task_bytes": [8 << 20], "task_ms": [100]}
    written = {"task_bytes": [8 << 20, 8 << 20]}
    m = DfsioRead().measure(job, 0.2, written)
    assert m.failure and "1 file(s)" in m.failure and "of the 2 file(s)" in m.failure
    assert DfsioRead().measure({"task_bytes": [8 << 20] * 2, "task_ms": [100] * 2}, 0.2, written).failure is None
