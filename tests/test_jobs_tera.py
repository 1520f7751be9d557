"""tierbench's Java Tera jobs on a real local Spark: Hadoop's row format, sorting, validation."""

import hashlib
from pathlib import Path

import pytest

# Entries of Hadoop 3.4.2's Random16.genArray (terasort/Random16.java), copied from its source.
HADOOP_RANDOM16 = {
    1: ("17bce35bdf69743c529ed9eb20e0ae99", "95e0e48262b3edfe04479485c755b646"),
    2: ("f4dd417327db7a9bd194dfbe42d45771", "882a02c315362b60765f100068b33a1c"),
    13: ("df8a6fc1a833d201f98d719dd1f78001", "59b60ee4c52fa49e9fe90682bd2fe000"),
    85: ("318a79b1f78000000000000000000001", None),
}
# MD5 of rows 0..100002 as written by Hadoop 3.4.2's own GenSort.generateRecord + Random16
# (compiled from hadoop-mapreduce-examples-3.4.2-sources.jar and run over the same rows).
HADOOP_MD5_100003_ROWS = "93f43a8c0213e7a9bc4059ff9b94581a"


def test_random16_table_matches_hadoop(spark):
    r16 = spark._jvm.tierbench.jobs.Random16
    for i, (a, c) in HADOOP_RANDOM16.items():
        got_a, got_c = r16.constant(i).split()
        assert got_a.zfill(32) == a
        if c:
            assert got_c.zfill(32) == c


def _concat(parts: list[Path]) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(parts, key=lambda p: int(p.name.split("-")[1])))


def test_teragen_rows_are_hadoops_byte_for_byte(run_job, tmp_path):
    dirs = [tmp_path / "d0", tmp_path / "d1"]
    r = run_job("teragen", rows=100_003, tasks=3, output=[d.as_uri() for d in dirs])
    assert r["rows"] == 100_003
    parts = [p for d in dirs for p in d.glob("part-*")]
    assert len(parts) == 3 and {p.parent.name for p in parts} == {"d0", "d1"}  # JBOD: round-robin over dirs
    data = _concat(parts)
    assert len(data) == 100_003 * 100
    assert hashlib.md5(data).hexdigest() == HADOOP_MD5_100003_ROWS


@pytest.fixture
def sorted_data(run_job, tmp_path):
    gen = run_job("teragen", rows=20_011, tasks=2, output=[(tmp_path / "in").as_uri()])
    out = [(tmp_path / "out0").as_uri(), (tmp_path / "out1").as_uri()]
    srt = run_job("terasort", input=[(tmp_path / "in").as_uri()], output=out, partitions=5, split_bytes=300_000)
    return gen, srt, tmp_path


def _tamper(path: Path, data: bytes) -> None:
    """Rewrite a part file behind Hadoop's back: drop its .crc so the local file system's own
    checksum does not catch it first (the point is that TeraValidate does)."""
    path.write_bytes(data)
    (path.parent / f".{path.name}.crc").unlink(missing_ok=True)


def test_terasort_output_is_sorted_and_complete(sorted_data, run_job):
    gen, srt, tmp = sorted_data
    assert srt["rows"] == 20_011 and srt["reduce_tasks"] == 5 and srt["map_tasks"] == 8
    data = _concat(list(tmp.glob("out*/part-*")))
    keys = [data[i:i + 10] for i in range(0, len(data), 100)]
    assert keys == sorted(keys)
    rows_in = sorted(_concat(list((tmp / "in").glob("part-*")))[i:i + 100] for i in range(0, 20_011 * 100, 100))
    rows_out = sorted(data[i:i + 100] for i in range(0, len(data), 100))
    assert rows_in == rows_out
    v = run_job("teravalidate", input=[(tmp / "out0").as_uri(), (tmp / "out1").as_uri()])
    assert v["error_count"] == 0 and v["errors"] == []
    assert v["checksum"] == gen["checksum"] and v["rows"] == 20_011


def test_teravalidate_catches_misorder_within_a_file(sorted_data, run_job):
    gen, _, tmp = sorted_data
    part = sorted(tmp.glob("out*/part-*"))[0]
    b = bytearray(part.read_bytes())
    b[0:100], b[100:200] = b[100:200], b[0:100]  # swap the first two rows
    _tamper(part, bytes(b))
    v = run_job("teravalidate", input=[(tmp / "out0").as_uri(), (tmp / "out1").as_uri()])
    assert v["error_count"] >= 1 and v["errors"][0].startswith("misorder in part-00000 between")
    assert v["checksum"] == gen["checksum"]  # same rows, wrong order


def test_teravalidate_catches_bad_partitioning(sorted_data, run_job):
    _, _, tmp = sorted_data
    # swap the contents of two files: each is sorted, the whole is not
    p0, p1 = tmp / "out0" / "part-00000", tmp / "out1" / "part-00001"
    a, b = p0.read_bytes(), p1.read_bytes()
    _tamper(p0, b)
    _tamper(p1, a)
    v = run_job("teravalidate", input=[(tmp / "out0").as_uri(), (tmp / "out1").as_uri()])
    assert any(e.startswith("bad key partitioning") for e in v["errors"])


def test_teravalidate_catches_truncated_output(sorted_data, run_job):
    from tierbench.workloads import measure

    gen, _, tmp = sorted_data
    part = tmp / "out1" / "part-00003"
    _tamper(part, part.read_bytes()[:-150])  # one and a half rows lost
    v = run_job("teravalidate", input=[(tmp / "out0").as_uri(), (tmp / "out1").as_uri()])
    assert any("truncated file part-00003" in e for e in v["errors"])
    assert v["rows"] == 20_011 - 2 and v["checksum"] != gen["checksum"]
    m = measure("teravalidate", v, 1.0, {"checksum": gen["checksum"], "rows": 20_011})
    assert m.failure and "differs from TeraGen's" in m.failure and "20009 rows where TeraGen wrote 20011" in m.failure


def test_dfsio_records_every_task(run_job, tmp_path):
    dirs = [(tmp_path / "io0").as_uri(), (tmp_path / "io1").as_uri()]
    w = run_job("dfsio-write", dirs=dirs, files=3, file_bytes=3_000_001, buffer_bytes=1_000_000)
    assert w["task_bytes"] == [3_000_001] * 3 and len(w["task_ms"]) == 3
    sizes = sorted(p.stat().st_size for p in tmp_path.glob("io*/part-*"))
    assert sizes == [3_000_001] * 3
    r = run_job("dfsio-read", dirs=dirs, files=3, file_bytes=3_000_001)
    assert r["bytes_read"] == 9_000_003


def test_terasort_orders_keys_whose_8_byte_prefixes_tie(run_job, tmp_path):
    import random

    rnd = random.Random(7)
    prefixes = [rnd.randbytes(8) for _ in range(50)]
    rows = [rnd.choice(prefixes) + rnd.randbytes(2) + rnd.randbytes(90) for _ in range(5000)]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part-00000").write_bytes(b"".join(rows))
    run_job("terasort", input=[(tmp_path / "in").as_uri()], output=[(tmp_path / "out").as_uri()], partitions=3, split_bytes=100_000)
    data = _concat(list((tmp_path / "out").glob("part-*")))
    got = [data[i:i + 100] for i in range(0, len(data), 100)]
    assert [r[:10] for r in got] == sorted(r[:10] for r in rows)
    assert sorted(got) == sorted(rows)


def test_random_filler_is_incompressible_and_still_validates(run_job, tmp_path):
    import zlib

    gen_h = run_job("teragen", rows=20_000, tasks=1, output=[(tmp_path / "h").as_uri()])
    gen_r = run_job("teragen", rows=20_000, tasks=1, output=[(tmp_path / "r").as_uri()], filler="random")
    hadoop_rows, random_rows = _concat(list((tmp_path / "h").glob("part-*"))), _concat(list((tmp_path / "r").glob("part-*")))
    assert hadoop_rows[:48] == random_rows[:48] and hadoop_rows != random_rows  # same keys and row ids, other filler
    assert len(zlib.compress(hadoop_rows, 1)) < 0.4 * len(hadoop_rows)
    assert len(zlib.compress(random_rows, 1)) > 0.6 * len(random_rows)  # only the row id's hex digits still compress
    run_job("terasort", input=[(tmp_path / "r").as_uri()], output=[(tmp_path / "rs").as_uri()], partitions=2)
    v = run_job("teravalidate", input=[(tmp_path / "rs").as_uri()])
    assert v["error_count"] == 0 and v["checksum"] == gen_r["checksum"] != gen_h["checksum"]
