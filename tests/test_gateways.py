"""How many gateways serve an S3 study (issue 18): `gateways` and `balancer` in an s3 data table, set through a
real HAProxy's admin socket (Debian's haproxy, installed by ./setup.sh --test). Here HAProxy fronts two small
HTTP servers so that the test needs no Ceph; tests/test_s3.py sweeps the gateways of real radosgw instances."""

import http.server
import shutil
import subprocess
import threading
import tomllib
import urllib.request

import pytest

from tierbench.errors import SpecError, UserError
from tierbench.services.base import free_port
from tierbench.spec import parse_spec
from tierbench.storage.balancer import HAProxyAdmin

S3 = """
name = "g"
[engine]
master = "local[1]"
[storage.s3]
data = {{ type = "s3", endpoint = "http://127.0.0.1:7480", bucket = "bkt", {extra} }}
intermediate = ["{d}/tmp"]
[[workloads]]
name = "dfsio-write"
files = 1
file_size = "1MB"
"""


def _spec(tmp_path, extra):
    return parse_spec(tomllib.loads(S3.format(d=tmp_path, extra=extra)), "g.toml", tmp_path)


def test_a_gateway_count_given_as_a_list_is_a_sweep_set_through_the_admin_socket(tmp_path):
    spec = _spec(tmp_path, 'gateways = [1, 2, 4], balancer_admin = "/run/haproxy.sock"')
    assert [c.name for c in spec.storage] == ["s3.gateways-1", "s3.gateways-2", "s3.gateways-4"]
    assert spec.sweeps[0]["knob"] == "gateways" and [m["value"] for m in spec.sweeps[0]["members"]] == [1, 2, 4]
    run = spec.storage[2].type.gateways_for_run(spec.storage[2].store_conf)
    assert (run.count, run.balancer, run.admin.address) == (4, "haproxy", "/run/haproxy.sock")
    assert spec.storage[0].type.gateways_for_run(_spec(tmp_path, 'committer = "magic"').storage[0].store_conf) is None


@pytest.mark.parametrize("extra, field, says", [
    ("gateways = 2", "balancer_admin", "HAProxy's admin socket"),
    ('gateways = 2, balancer_admin = "haproxy.sock"', "balancer_admin", "host:port"),
    ('gateways = 0, balancer_admin = "/run/h.sock"', "gateways", "a whole number >= 1"),
    ('balancer = "dns", balancer_admin = "/run/h.sock"', "balancer", '"haproxy" or "none"'),
    ('balancer = "none", gateways = 2, balancer_admin = "/run/h.sock"', "gateways", "one gateway"),
])
def test_a_gateway_setting_that_cannot_work_names_its_field(tmp_path, extra, field, says):
    with pytest.raises(SpecError) as e:
        _spec(tmp_path, extra)
    assert f"storage.s3.data.{field}" in str(e.value) and says in str(e.value)


class _Named(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def haproxy(tmp_path_factory):
    """A real HAProxy in front of two HTTP servers that answer with their name, as tierbench's s3 service writes it."""
    assert shutil.which("haproxy"), "haproxy is not installed: ./setup.sh --test installs it (Debian: apt-get install haproxy)"
    d = tmp_path_factory.mktemp("haproxy")
    servers = []
    for name in ("gw", "gw2"):
        s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Named)
        s.name = name
        threading.Thread(target=s.serve_forever, daemon=True).start()
        servers.append(s)
    port, sock = free_port(), d / "haproxy.sock"
    lines = "".join(f"    server {s.name} 127.0.0.1:{s.server_address[1]} check\n" for s in servers)
    (d / "haproxy.cfg").write_text(f"""global
    stats socket {sock} mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
listen s3
    bind 127.0.0.1:{port}
    balance roundrobin
    option httpchk GET /
    default-server inter 200ms fall 2 rise 2
{lines}""")
    p = subprocess.Popen(["haproxy", "-f", str(d / "haproxy.cfg"), "-db"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    admin = HAProxyAdmin(str(sock))
    for _ in range(100):
        if sock.exists() and all(s["status"].startswith("UP") for s in admin.servers()):
            break
        threading.Event().wait(0.1)
    yield admin, f"http://127.0.0.1:{port}/", servers
    p.terminate()
    p.wait(10)
    for s in servers:
        s.shutdown()


def _who_answers(url, n=8):
    names = []
    for _ in range(n):
        with urllib.request.urlopen(url, timeout=5) as r:
            names.append(r.read().decode())
    return names


def test_haproxy_serves_through_as_many_gateways_as_set_and_counts_each(haproxy):
    admin, url, servers = haproxy
    assert [s["name"] for s in admin.servers()] == ["gw", "gw2"]
    assert admin.set_serving(1) == ["gw"]
    before = admin.requests()
    assert set(_who_answers(url)) == {"gw"}
    after = admin.requests()
    assert (after["gw"] - before["gw"], after["gw2"] - before["gw2"]) == (8, 0)
    assert admin.set_serving(2) == ["gw", "gw2"]
    assert sorted(_who_answers(url)) == ["gw"] * 4 + ["gw2"] * 4  # round robin
    assert admin.first_gateway() == f"127.0.0.1:{servers[0].server_address[1]}"
    with pytest.raises(UserError) as e:
        admin.set_serving(3)
    assert "has 2 gateway server(s) (gw, gw2)" in str(e.value)


def test_without_a_balancer_s3a_goes_to_the_first_gateway_haproxy_knows(haproxy, tmp_path):
    admin, _, servers = haproxy
    spec = _spec(tmp_path, f'balancer = "none", balancer_admin = "{admin.address}"')
    settings = spec.storage[0].engine_settings()
    assert settings["fs.s3a.endpoint"] == f"http://127.0.0.1:{servers[0].server_address[1]}"
    run = spec.storage[0].type.gateways_for_run(spec.storage[0].store_conf)
    run.apply()  # nothing to set: HAProxy is not in the way
    run.start()
    assert run.details() == {"balancer": "none", "serving": 1, "endpoint": f"127.0.0.1:{servers[0].server_address[1]}"}


def test_an_admin_socket_that_does_not_answer_is_named(tmp_path):
    with pytest.raises(UserError) as e:
        HAProxyAdmin(str(tmp_path / "none.sock")).servers()
    assert "none.sock" in str(e.value) and "level admin" in str(e.value)


def test_the_report_shows_the_requests_each_gateway_served(tmp_path):
    from pathlib import Path

    from tierbench.report.build import StudyResults

    d = tmp_path / "r"
    shutil.copytree(Path(__file__).parent / "fixtures" / "quickstart-results", d)
    sr = StudyResults.load(d)
    for r in sr.records:
        if r["workload"] == "dfsio-write" and r["config"] == "split":
            r["details"]["gateways"] = {"balancer": "haproxy", "serving": 2, "requests": {"gw": 5, "gw2": 7}}
    sec = next(s for s in sr.document.sections if s.title == "Gateways")
    table = next(b for b in sec.blocks if hasattr(b, "rows"))
    repeats = sum(1 for r in sr.records if r["workload"] == "dfsio-write" and r["config"] == "split" and r["status"] == "ok")
    assert [row[:5] for row in table.rows] == [["dfsio-write", "split", "haproxy", "2", f"gw {5 * repeats}, gw2 {7 * repeats}"]]
