"""A guard for the future (issue 31): every CLI verb, run against a tree of sentinel files and a sentinel process
(a user's `sleep` whose pid a stale pid file names), changes none of them. Each verb is given paths into the
sentinel tree, as a careless or hostile user would: traversal names, non-empty folders of someone else's,
stale pid files, roots without tierbench's marker. Fast: no verb here starts a JVM (each refuses, or reads).
"""

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tierbench.cli.main import VERBS, main

FIXTURES = Path(__file__).parent / "fixtures"
COMPARE = FIXTURES / "compare"


def snapshot(tree: Path) -> dict:
    """Every path under `tree`: its kind, mode, size, content hash and mtime (a change to any is a change)."""
    out = {}
    for p in sorted(tree.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else os.readlink(p) if p.is_symlink() else ""
        out[str(p.relative_to(tree))] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return out


@pytest.fixture
def sentinels(tmp_path, monkeypatch):
    """A user's tree: files around every path a verb is given; a cache whose pid files name the user's process."""
    tree = tmp_path / "user"
    (tree / "docs").mkdir(parents=True)
    (tree / "docs" / "notes.txt").write_text("the user's notes")
    (tree / "docs" / "probe.json").write_text("{}")  # a stray file of tierbench's name in the user's folder
    (tree / "victim" / "mnt").mkdir(parents=True)
    (tree / "victim" / "device.json").write_text(json.dumps({"name": "victim", "loop": "/dev/loop0", "mount": str(tree / "victim" / "mnt")}))
    (tree / "data" / "tierbench" / "sentinel").mkdir(parents=True)  # a root of the study's name, not made by tierbench
    (tree / "data" / "tierbench" / "sentinel" / "theirs.bin").write_bytes(os.urandom(64))
    (tree / "link-to-docs").symlink_to(tree / "docs")
    (tree / "spec.toml").write_text(f'name = "sentinel"\n[storage.a]\ndata = ["{tree}/data"]\n'
                                    '[[workloads]]\nname = "teragen"\nrows = 1000\n')
    (tree / "hw.toml").write_text('nodes = 0\n')
    cache = tmp_path / "cache"
    monkeypatch.setenv("TIERBENCH_CACHE", str(cache))
    sleeper = subprocess.Popen(["sleep", "600"], start_new_session=True)
    for service, daemon in (("hdfs", "namenode"), ("yarn", "resourcemanager"), ("spark", "master"), ("s3", "mon")):
        (cache / "services" / service / "pids").mkdir(parents=True)
        (cache / "services" / service / "pids" / f"{daemon}.pid").write_text(str(sleeper.pid))
    (cache / "emulate").mkdir(parents=True)
    monkeypatch.chdir(tree / "docs")
    yield tree, cache, sleeper
    sleeper.kill()
    sleeper.wait()


def commands(tree: Path) -> list[list[str]]:
    """Each verb, with arguments that point into the sentinel tree."""
    results = tmp = str(tree / "docs")
    return [
        ["emulate", "down", "../../user/victim"], ["emulate", "down", str(tree / "victim")], ["emulate", "up", "../x"],
        ["emulate", "status"],
        ["services", "down", "hdfs"], ["services", "down", "yarn"], ["services", "down", "spark"], ["services", "down", "s3"],
        ["services", "status", "hdfs"], ["services", "down", "hdfs", "--dir", tmp],
        ["run", str(tree / "spec.toml")], ["run", str(tree / "spec.toml"), "--out", results],
        ["run", str(tree / "spec.toml"), "--out", str(tree / "link-to-docs")],
        ["run", str(tree / "spec.toml"), "--out", str(tree / "data" / "tierbench" / "sentinel" / "out")],
        ["quickstart", "--out", results], ["quickstart", "--out", results, "--resume"],
        ["report", results], ["results", results], ["results", results, "--format", "csv"], ["advise", results],
        ["predict", results, "--hardware", str(tree / "hw.toml")], ["predict", "--drives"],
        ["probe", str(tree / "spec.toml"), "--size", "500TB"], ["probe", str(tree / "spec.toml"), "--out", results],
        ["check", "--dir", str(tree / "docs")],
        ["cost", "--runtime-s", "inf", "--price-usd", "1"], ["cost", "--runtime-s", "100", "--price-usd", "37561"],
        ["workloads"],
        ["compare", results, results], ["compare", str(COMPARE / "base-results"), str(COMPARE / "rerun-results"), "--out", results],
        ["compare", str(COMPARE / "base-results"), str(COMPARE / "rerun-results"), "--out", str(tree / "link-to-docs")],
    ]


def test_every_verb_is_covered():
    names = {v.__name__.rsplit(".", 1)[1] for v in VERBS}
    assert names == {c[0] for c in commands(Path("/x"))}, "a verb without a sentinel case: add one to commands()"


def test_no_verb_changes_a_sentinel_or_signals_the_users_process(sentinels, capsys):
    tree, cache, sleeper = sentinels
    before = snapshot(tree)
    for argv in commands(tree):
        code = main(argv)
        out = capsys.readouterr()
        assert code in (0, 2, 3), (argv, code, out.err[-500:])
        assert "Traceback" not in out.err, (argv, out.err)
        assert snapshot(tree) == before, f"tierbench {' '.join(argv)} changed the user's tree"
        assert sleeper.poll() is None, f"tierbench {' '.join(argv)} signalled a process it did not start"
    # (tierbench's own cache may change: a stale pid file of its own is tidied away, never acted on)
