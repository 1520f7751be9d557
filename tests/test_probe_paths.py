"""fio is given the probe's folder as its working directory, not as --directory= (which fio splits at ':'): a
data directory whose path holds a colon is probed where it is, nowhere else (issue 60: no user string is split)."""

import shutil

import pytest

from tierbench.sampling.probe import probe_dirs


@pytest.mark.skipif(not shutil.which("fio"), reason="fio is installed by ./setup.sh")
def test_a_folder_with_a_colon_is_probed_in_place(tmp_path):
    spec_dir = tmp_path / "a:b"
    spec_dir.mkdir()
    (tmp_path / "a").mkdir()  # what fio would write into, had it split the path
    work = spec_dir / "tierbench" / "probe"
    result = probe_dirs({str(spec_dir): work}, 4 << 20, 1, on_phase=lambda t: None)
    assert list((tmp_path / "a").iterdir()) == []
    assert not (tmp_path / "b").exists()
    (entry,) = result.values()
    assert entry["tests"] and "error" not in entry, entry
