"""safefiles: the one rule for files tierbench writes as root in folders it does not fully own (issue 60)."""

import os

import pytest

from tierbench.errors import UserError
from tierbench.safefiles import check_no_link, make_dirs, open_file, write_text


@pytest.mark.parametrize("mode", ["w", "a", "rw", "r+"])
def test_a_link_is_refused_and_its_target_untouched(tmp_path, mode):
    target = tmp_path / "victim"
    target.write_text("precious")
    link = tmp_path / ".tierbench-lock"
    link.symlink_to(target)
    with pytest.raises(UserError, match="symbolic link"):
        open_file(link, mode)
    assert target.read_text() == "precious"


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        open_file(fifo, "a")


def test_regular_files_are_written(tmp_path):
    write_text(tmp_path / "f", "one\n")
    with open_file(tmp_path / "f", "a") as f:
        f.write("two\n")
    assert (tmp_path / "f").read_text() == "one\ntwo\n"


def test_a_linked_folder_inside_the_root_is_refused(tmp_path):
    outside = tmp_path / "etc"
    outside.mkdir()
    root = tmp_path / "results"
    root.mkdir()
    (root / "logs").symlink_to(outside)
    with pytest.raises(UserError, match="logs is a symbolic link"):
        make_dirs(root / "logs" / "runs", root)
    assert list(outside.iterdir()) == []
    check_no_link(root / "fine" / "x", root)  # (what does not exist yet is no link)
    linked_root = tmp_path / "via-link"
    linked_root.symlink_to(root)
    make_dirs(linked_root / "made", linked_root)  # the root itself may be reached through a link
    assert (root / "made").is_dir()


def test_a_secret_file_is_created_owner_only(tmp_path):
    """(S3's credentials file: made 0600 at creation, never readable by others for a moment.)"""
    old = os.umask(0)
    try:
        write_text(tmp_path / "credentials", "{}", perm=0o600)
    finally:
        os.umask(old)
    assert (tmp_path / "credentials").stat().st_mode & 0o777 == 0o600
