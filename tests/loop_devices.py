"""Loop devices for the e2e tests that need real block devices of their own (root): two ext4 file systems on loop
devices, attached and mounted for a test and gone after it. conftest.py imports the fixtures."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

LOOP_SIZE_MB = 400


@pytest.fixture
def two_loop_devices(tmp_path):
    """Two loop devices of LOOP_SIZE_MB, ext4, mounted `sync` (each write reaches the device when it is made, so the
    sampler sees it in its phase): [(loop name, mount point)], tmp_path/"data" and tmp_path/"inter"."""
    yield from _loop_devices(tmp_path, sync=True)


@pytest.fixture
def two_loop_devices_buffered(tmp_path):
    """The same, mounted without `sync`: for tests of where bytes go, not when (a sync mount writes a TeraSort's
    shuffle a few KB at a time: 88 s for 64 MB)."""
    yield from _loop_devices(tmp_path, sync=False)


def _loop_devices(tmp_path, sync: bool):
    if os.geteuid() != 0:
        pytest.skip("not root: this test attaches loop devices and mounts them, which only root may do (CI runs as root)")
    for tool in ("losetup", "mkfs.ext4", "mount"):
        assert shutil.which(tool), f"{tool} missing"
    made = []
    try:
        for name in ("data", "inter"):
            img = tmp_path / f"{name}.img"
            with open(img, "wb") as f:
                f.truncate(LOOP_SIZE_MB << 20)
            loop = subprocess.run(["losetup", "-f", "--show", str(img)], check=True, capture_output=True, text=True).stdout.strip()
            made.append((loop, None))
            subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop], check=True, capture_output=True)
            mnt = tmp_path / name
            mnt.mkdir()
            subprocess.run(["mount", *(["-o", "sync"] if sync else []), loop, str(mnt)], check=True)
            made[-1] = (loop, mnt)
        yield [(Path(loop).name, mnt) for loop, mnt in made]
    finally:
        for loop, mnt in reversed(made):
            if mnt:
                subprocess.run(["umount", str(mnt)], check=False)
            subprocess.run(["losetup", "-d", loop], check=False)
