"""The cgroup-v2 guest layer from the host (issue 57): .ci/guest/run.sh installs the guest's parts (its own scripts,
into tierbench's cache), boots Debian 12's kernel under QEMU's software emulation and runs tests/guest/ inside; this
fails when they fail. A VM boot of about 4 minutes: e2e, and its own step in .ci/run (-m guest_host)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.guest_host]
ROOT = Path(__file__).resolve().parent.parent


def test_the_cgroup_v2_guest_passes_its_tests(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the guest layer needs root (apt-get, /lib/modules, loop devices inside)")
    env = {**os.environ, "TIERBENCH_GUEST_PYTHON": os.environ.get("TIERBENCH_GUEST_PYTHON", sys.executable)}
    out = subprocess.run([str(ROOT / ".ci" / "guest" / "run.sh"), str(tmp_path)], capture_output=True, text=True,
                         env=env, timeout=900)
    if out.returncode == 3:  # refused (this machine's own kernel, or a /lib/modules not the layer's): said why
        pytest.skip(out.stderr.strip().splitlines()[-1])
    results = tmp_path / "results.json"
    print(out.stdout, json.dumps(json.loads(results.read_text()), indent=1) if results.exists() else "", sep="\n")
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}\n{(tmp_path / 'pytest.log').read_text()[-3000:]}" \
        if (tmp_path / "pytest.log").exists() else f"{out.stdout}\n{out.stderr}"
    assert "passed" in (tmp_path / "pytest.log").read_text() and "skipped" not in out.stdout.splitlines()[-1]
