"""Parity with upstream Apache Hadoop 3.4.2 (its own jars, local mode): same rows, same checksums, same figures."""

import hashlib
import subprocess
from pathlib import Path

import pytest

from tierbench.engines.hadoop.logparse import dfsio_printed, dfsio_tasks
from tierbench.engines.hadoop.runtime import classpath
from tierbench.toolchain import java_bin
from tierbench.workloads.dfsio import dfsio_figures

ROWS = 100_003  # not a multiple of the task count


def hadoop(tmp: Path, main: str, *args: str) -> str:
    """Run one of Hadoop's own tools in local mode; return its log."""
    # (its temporary files in the test's dir, not in /tmp: conftest.py's _no_jvm_litter)
    cmd = [java_bin(), f"-Djava.io.tmpdir={tmp}", "-cp", classpath(), main, "-D", "mapreduce.framework.name=local",
           "-D", "fs.defaultFS=file:///", "-D", f"hadoop.tmp.dir={tmp / 'hadoop-tmp'}",
           "-D", f"mapreduce.jobtracker.staging.root.dir=file://{tmp / 'staging'}", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stderr + out.stdout


def upstream_teravalidate(tmp: Path, data: Path, name: str) -> dict:
    report = tmp / f"report-{name}"
    hadoop(tmp, "org.apache.hadoop.examples.terasort.TeraValidate", f"file://{data}", f"file://{report}")
    lines = (report / "part-r-00000").read_text().splitlines()
    return {"checksum": [l.split("\t")[1] for l in lines if l.startswith("checksum")][0],
            "errors": [l for l in lines if l.startswith("error")]}


def parts(d: Path) -> bytes:
    files = sorted((p for p in d.iterdir() if p.name.startswith("part-")), key=lambda p: int(p.name.rsplit("-", 1)[1]))
    return b"".join(p.read_bytes() for p in files)


@pytest.fixture(scope="module")
def tera(tmp_path_factory, run_job):
    """Both engines' TeraGen and TeraSort of the same rows."""
    tmp = tmp_path_factory.mktemp("parity")
    run = run_job
    ours_gen = run("teragen", rows=ROWS, tasks=3, output=[f"file://{tmp / 'tb-gen'}"])
    run("terasort", input=[f"file://{tmp / 'tb-gen'}"], output=[f"file://{tmp / 'tb-sort'}"], partitions=3)
    hadoop(tmp, "org.apache.hadoop.examples.terasort.TeraGen", str(ROWS), f"file://{tmp / 'h-gen'}")
    hadoop(tmp, "org.apache.hadoop.examples.terasort.TeraSort", "-D", "mapreduce.job.reduces=2",
           f"file://{tmp / 'h-gen'}", f"file://{tmp / 'h-sort'}")
    return tmp, ours_gen, run


def test_teragen_same_rows_and_checksum_as_hadoop(tera):
    tmp, ours, _ = tera
    a, b = parts(tmp / "tb-gen"), parts(tmp / "h-gen")
    assert len(a) == len(b) == ROWS * 100
    assert hashlib.sha256(a).hexdigest() == hashlib.sha256(b).hexdigest()  # row for row
    up_ours = upstream_teravalidate(tmp, tmp / "tb-gen", "tb-gen")
    up_hadoop = upstream_teravalidate(tmp, tmp / "h-gen", "h-gen")
    assert ours["checksum"] == up_ours["checksum"] == up_hadoop["checksum"]


def test_upstream_teravalidate_accepts_our_terasort(tera):
    tmp, ours, _ = tera
    up = upstream_teravalidate(tmp, tmp / "tb-sort", "tb-sort")
    assert up["errors"] == [] and up["checksum"] == ours["checksum"]


def test_our_teravalidate_agrees_on_hadoops_terasort(tera):
    tmp, ours, run = tera
    v = run("teravalidate", input=[f"file://{tmp / 'h-sort'}"])
    assert v["error_count"] == 0 and v["checksum"] == ours["checksum"] and v["rows"] == ROWS
    assert v["files"] == 2


@pytest.mark.e2e
def test_our_dfsio_figures_equal_what_testdfsio_printed(tmp_path):
    for mode in ("-write", "-read"):
        log = hadoop(tmp_path, "org.apache.hadoop.fs.TestDFSIO", "-D", f"test.build.data={tmp_path / 'dfsio'}",
                     mode, "-nrFiles", "3", "-fileSize", "3MB", "-resFile", str(tmp_path / "res.log"))
        printed = dfsio_printed(log)
        sizes, times = dfsio_tasks(log)
        assert len(sizes) == 3 and sizes == [3 << 20] * 3
        exec_ms = round(float(printed["Test exec time sec"]) * 1000)
        ours = dfsio_figures(sizes, times, exec_ms).printed()
        assert ours == printed, (mode, ours, printed)
