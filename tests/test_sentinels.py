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


# -- links planted where tierbench writes as root (issue 60) ------------------------------------------------------
# Each case: a folder tierbench writes in (a results folder being resumed, a data root with tierbench's mark, a
# services dir with tierbench's mark), one file or folder in it replaced by a symbolic link to a victim; the verb
# refuses in one line naming the link, and neither the victim nor the link changes.

def _results(base: Path) -> Path:
    res = base / "res"
    shutil.copytree(COMPARE / "base-results", res)
    return res


def _data_root(base: Path) -> Path:
    from tierbench.study.identity import new_study_id

    root = base / "data" / "tierbench" / f"sentinel-{new_study_id(base / 'new')}"  # (the root of the study in --out new)
    root.mkdir(parents=True)
    (root / ".tierbench-owner").write_text(json.dumps({"study": "sentinel"}))
    return root


def _services_dir(base: Path) -> Path:
    svc = base / "svc"
    (svc / "pids").mkdir(parents=True)
    (svc / "logs").mkdir()
    (svc / ".tierbench-service").write_text("a directory of tierbench's hdfs service\n")
    return svc


def _run(base: Path, out: str, *more: str) -> list[str]:
    return ["run", str(base / "spec.toml"), "--out", str(base / out), *more]


LINKED = [  # (where, what becomes a link, to the victim file or folder, the command)
    (_results, ".tierbench-lock", "file", lambda b: _run(b, "res", "--resume")),
    (_results, ".tierbench-reserve", "file", lambda b: _run(b, "res", "--resume")),
    (_results, "runs.jsonl", "file", lambda b: _run(b, "res", "--resume")),
    (_results, "study.json", "file", lambda b: _run(b, "res", "--resume")),
    (_results, "logs", "dir", lambda b: _run(b, "res", "--resume")),
    (_results, "logs/runs", "dir", lambda b: _run(b, "res", "--resume")),
    (_data_root, ".tierbench-lock", "file", lambda b: _run(b, "new")),
    (_data_root, ".tierbench-owner", "file", lambda b: _run(b, "new")),
    (_data_root, ".tierbench-lock", "file", lambda b: ["probe", str(b / "spec.toml"), "--out", str(b / "new")]),
    (_services_dir, "pids/namenode.pid", "file", lambda b: ["services", "down", "hdfs", "--dir", str(b / "svc")]),
    (_services_dir, "pids/namenode.pid", "file", lambda b: ["services", "status", "hdfs", "--dir", str(b / "svc")]),
    (_services_dir, "pids", "dir", lambda b: ["services", "down", "hdfs", "--dir", str(b / "svc")]),
    (_services_dir, "logs/namenode.log", "file", lambda b: ["services", "up", "hdfs", "--dir", str(b / "svc")]),
    (_services_dir, "logs/resourcemanager.log", "file", lambda b: ["services", "up", "yarn", "--dir", str(b / "svc")]),
    (_services_dir, "pids/master.pid", "file", lambda b: ["services", "up", "spark", "--dir", str(b / "svc")]),
    (_services_dir, "pids/mon.pid", "file", lambda b: ["services", "up", "s3", "--dir", str(b / "svc")]),
]


class ADaemonWasAboutToStart(AssertionError):
    """Raised by the guards below: a `services up` that got past its refusal (a regression) stops here, before it
    fetches jars, installs Ceph or starts a JVM."""


@pytest.fixture
def nothing_starts(monkeypatch):
    from tierbench.services import base, hdfs, s3, yarn

    def guard(*_, **__):
        raise ADaemonWasAboutToStart("a services verb went past its refusal")

    monkeypatch.setattr(base.Daemon, "start", guard)
    for module, name in ((hdfs, "hadoop_lib"), (yarn, "hadoop_lib"), (s3, "ensure_ceph")):
        monkeypatch.setattr(module, name, guard)


@pytest.mark.usefixtures("nothing_starts")
@pytest.mark.parametrize("make, name, kind, argv", LINKED, ids=[f"{m.__name__[1:]}-{n}-{a(Path('/b'))[0:2]}"
                                                                 for m, n, _, a in LINKED])
def test_a_planted_link_is_refused_in_one_line_and_its_target_untouched(tmp_path, monkeypatch, capsys, make, name,
                                                                         kind, argv):
    monkeypatch.setenv("TIERBENCH_CACHE", str(tmp_path / "cache"))
    victims = tmp_path / "victims"
    (victims / "dir").mkdir(parents=True)
    (victims / "file").write_text(json.dumps({"study": "sentinel"}))  # (what a planted owner mark would say)
    (victims / "dir" / "notes.txt").write_text("the user's notes")
    (tmp_path / "spec.toml").write_text(f'name = "sentinel"\n[storage.a]\ndata = ["{tmp_path}/data"]\n'
                                        '[[workloads]]\nname = "teragen"\nrows = 1000\n')
    folder = make(tmp_path)
    link = folder / name
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_dir():
        shutil.rmtree(link)
    link.unlink(missing_ok=True)
    link.symlink_to(victims / kind)
    before = snapshot(victims)
    code = main(argv(tmp_path))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "symbolic link" in err[0] and name.rsplit("/")[-1] in err[0], (code, err)
    assert snapshot(victims) == before
    assert os.readlink(link) == str(victims / kind)
