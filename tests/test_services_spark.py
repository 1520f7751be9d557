"""A study on a Spark standalone cluster (Master + 2 Workers) started by `tierbench services up spark`."""

import json

import pytest

from conftest import SMALL_WORKLOADS, write_spec


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    from conftest import tierbench

    d = tmp_path_factory.mktemp("spark-standalone")
    up = tierbench("services", "up", "spark", "--dir", d / "svc", "--workers", "2", timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    yield d, up
    down = tierbench("services", "down", "spark", "--dir", d / "svc", timeout=120)
    assert down.returncode == 0 and "stopped" in down.stdout


def test_study_runs_on_two_standalone_workers(standalone, tb):
    d, up = standalone
    master = next(w for w in up.stdout.split() if w.startswith("spark://")).rstrip(",")
    assert master.startswith("spark://127.0.0.1:")
    st = tb("services", "status", "spark", "--dir", d / "svc")
    assert st.returncode == 0 and "2 Worker(s) alive" in st.stdout
    spec = write_spec(d / "s.toml", f"""
name = "standalone"
repeats = 1
warm_up = false
[engine]
master = "{master}"
driver_memory = "1g"
executor_memory = "768m"
[storage.one]
data = ["{d}/data"]
{SMALL_WORKLOADS}
""")
    out = tb("run", spec, "--out", d / "res", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = [json.loads(l) for l in (d / "res" / "runs.jsonl").read_text().splitlines()]
    assert len(recs) == 5 and all(r["status"] == "ok" for r in recs)
    assert all(r["engine_conf"]["spark.master"] == master for r in recs)
    # the Workers were restarted on the configuration's intermediate dirs (its data dirs: none named), not ignored
    assert all(r["storage"]["intermediate_applied"] == "worker restart" for r in recs)
    by = {r["workload"]: r for r in recs}
    assert by["teragen"]["details"]["checksum"] == by["teravalidate"]["details"]["checksum"]
    # the tasks ran in executors on both Workers, not in the driver
    for w in (1, 2):
        assert list((d / "svc" / f"worker-{w}").glob("app-*")), f"no executor ran on worker {w}"
