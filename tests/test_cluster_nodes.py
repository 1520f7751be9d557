"""A one-machine cluster: `tierbench services up spark --workers 2`, each Worker bound to its own loopback address
(127.0.0.2, 127.0.0.3) with its own local dirs on its own loop device, and a study of two configurations whose
intermediate dirs lie on different loop devices. The node agents in the executors observe both "nodes": each
node's shuffle went to the device its configuration named, both dropped their page cache, the report lists both."""

import json
import re

import pytest

from conftest import TERA_64MB, write_spec

pytestmark = pytest.mark.e2e


@pytest.fixture
def two_workers(tmp_path, two_loop_devices_buffered, tb):
    (dev_a, mnt_a), (dev_b, mnt_b) = two_loop_devices_buffered
    svc = tmp_path / "svc"
    up = tb("services", "up", "spark", "--dir", svc, "--workers", "2", "--worker-dirs", mnt_a / "w", mnt_b / "w", timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    master = re.search(r"spark://[0-9.]+:[0-9]+", up.stdout).group(0)
    try:
        yield master, (dev_a, mnt_a), (dev_b, mnt_b)
    finally:
        down = tb("services", "down", "spark", "--dir", svc, timeout=120)
        assert down.returncode == 0, down.stderr


def test_two_nodes_observed_each_shuffling_to_its_configurations_device(two_workers, tmp_path, tb):
    master, (dev_a, mnt_a), (dev_b, mnt_b) = two_workers
    spec = write_spec(tmp_path / "s.toml", f"""
name = "two-nodes"
repeats = 1
warm_up = false
[engine]
master = "{master}"
driver_memory = "1g"
executor_memory = "768m"
[storage.shuffle-on-a]
data = ["{tmp_path}/plain-data"]  # (not the fixture's loop device "data")
intermediate = ["{mnt_a}/tmp"]
[storage.shuffle-on-b]
data = ["{tmp_path}/plain-data"]  # (not the fixture's loop device "data")
intermediate = ["{mnt_b}/tmp"]
{TERA_64MB}
""")
    out = tb("run", spec, "--out", tmp_path / "res", timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = [json.loads(l) for l in (tmp_path / "res" / "runs.jsonl").read_text().splitlines()]
    assert recs and all(r["status"] == "ok" for r in recs), [r.get("error") for r in recs]
    named = {"shuffle-on-a": dev_a, "shuffle-on-b": dev_b}
    for r in recs:
        assert set(r["nodes"]) == {"127.0.0.2", "127.0.0.3"}, r["run_key"]
        assert r["storage"]["intermediate_applied"] == "worker restart"
        dropped = r["details"]["nodes_page_cache_dropped"]
        assert set(dropped) == {"127.0.0.2", "127.0.0.3"} and all(d["ok"] for d in dropped.values()), dropped
        for host, node in r["nodes"].items():
            # where the executor's block manager really put shuffle, as that node saw it: the configuration's device
            assert node["devices"]["shuffle"] == [named[r["config"]]], (r["run_key"], host, node["devices"], node["shuffle_dirs"])
        if r["workload"] == "terasort":
            for host, node in r["nodes"].items():
                cols = node["samples"]["devices"][named[r["config"]]]
                assert sum(cols["wr_bytes"]) > 0, (r["run_key"], host)  # each node wrote its shuffle there
            hosts = {h for st in r["details"]["stages"] for h in st.get("hosts", {})}
            assert hosts == {"127.0.0.2", "127.0.0.3"}  # task metrics carry their host
    report = (tmp_path / "res" / "report.md").read_text()
    assert "2 node(s) observed" in report
    assert "| 127.0.0.2 | spark-plugin |" in report and "| 127.0.0.3 | spark-plugin |" in report
    assert "per node" in report and "all 2 nodes" in report and "slowest node:" in report
