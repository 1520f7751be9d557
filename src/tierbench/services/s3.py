"""Ceph with an S3 gateway on 127.0.0.1: the object store the disaggregation study used.

A monitor, a manager, N OSDs on BlueStore over sparse files, an erasure-coded
data pool when asked (k+m chunks of each object on k+m OSDs), G radosgw (beast)
instances and, when asked, HAProxy in front of them (round robin, health-checked,
with an admin socket through which a study sets how many gateways serve), all
bound to 127.0.0.1 in one directory, from Debian's packages (ceph 16.2.x,
haproxy 2.6; installed by `services up s3` when root). The pitfalls of this
set-up, handled here: the BlueStore block files must lie outside the OSDs' data
dirs (else ELOOP); with `auth = none` radosgw hangs unless its client section
says `ms mon client mode = crc` and `auth client required = none`; pools of
size 1 need `mon allow pool size one`; the EC pool must exist before radosgw
first starts; radosgw-admin must not take a running gateway's name (its admin
socket). An S3 user and a bucket are created; the credentials are written to a
file of mode 600 and printed once, for export.
"""

import datetime
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

from ..errors import UserError
from .base import Daemon, free_port, port_free

READY_TIMEOUT_S = 180
ORDER = 4  # its place among `tierbench services`' services (services/registry.py)
PACKAGES = ("ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "ceph-common")
BLOCK_SIZE = 20 << 30  # sparse: takes only what is written
BALANCERS = ("none", "haproxy")
BACKEND = "s3"  # HAProxy's proxy of the gateways: the name a study's gateway count is applied to
DATA_POOL = "default.rgw.buckets.data"  # where radosgw keeps the objects' data (the erasure-coded pool when asked)


def ensure_ceph(on_phase=print, haproxy: bool = False) -> None:
    needed = ("ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "radosgw-admin", "ceph", "monmaptool", *(("haproxy",) if haproxy else ()))
    if all(shutil.which(b) for b in needed):
        return
    packages = (*PACKAGES, *(("haproxy",) if haproxy else ()))
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise UserError("Ceph is not installed: as root, `tierbench services up s3` installs it; otherwise run "
                        "apt-get install " + " ".join(packages))
    on_phase(f"installing {' and '.join(('Ceph', 'HAProxy') if haproxy else ('Ceph',))} from Debian's packages (about a minute)")
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]):
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise UserError(f"installing Ceph failed: {(out.stderr or out.stdout).strip().splitlines()[-1]}")


def sigv4_request(method: str, url: str, access_key: str, secret_key: str, region: str = "us-east-1", body: bytes = b"") -> int:
    """One signed S3 request (AWS Signature Version 4), for creating the bucket without an SDK. Returns the HTTP status."""
    parsed = urllib.parse.urlparse(url)
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(body).hexdigest()
    headers = {"host": parsed.netloc, "x-amz-content-sha256": payload, "x-amz-date": amz_date}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([method, parsed.path or "/", parsed.query, *(f"{k}:{headers[k]}" for k in sorted(headers)), "", signed, payload])
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret_key).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    req = urllib.request.Request(url, data=body if method in ("PUT", "POST") else None, method=method, headers={
        **headers, "Authorization": f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed}, Signature={sig}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


class CephS3:
    """The Ceph service: OSDs on sparse files, an optional erasure-coded data pool, G radosgw instances and,
    when asked, HAProxy in front of them (round robin, an admin socket through which a study sets how many
    gateways serve). What was created is kept in service.json: a later `up` restarts exactly that."""
    name = "s3"

    def __init__(self, home: Path, bucket: str = "tierbench", port: int | None = None, osds: int | None = None,
                 gateways: int | None = None, ec: str | None = None, balancer: str | None = None):
        self.home = Path(home)
        self.port = port  # the endpoint's port: HAProxy's with a balancer, else the first gateway's (default: a free one)
        self.bucket = bucket
        self.conf = self.home / "ceph.conf"
        self.asked = {"osds": osds, "gateways": gateways, "ec": ec, "balancer": balancer}  # None: as created, or the default
        self.topology = topology(self._state().get("topology") or {}, self.asked)
        self.mon = Daemon(self.home, "mon")
        self.mgr = Daemon(self.home, "mgr")

    # -- the daemons of this topology ---------------------------------------------------------------------
    @property
    def osds(self) -> list[Daemon]:  # (the first keeps the single-OSD service's names: older service dirs restart)
        return [Daemon(self.home, "osd" if i == 0 else f"osd.{i}") for i in range(self.topology["osds"])]

    @property
    def gateways(self) -> list[Daemon]:
        return [Daemon(self.home, "rgw" if i == 0 else f"rgw{i + 1}") for i in range(self.topology["gateways"])]

    @property
    def balancer(self) -> Daemon | None:
        return Daemon(self.home, "haproxy") if self.topology["balancer"] == "haproxy" else None

    @property
    def daemons(self) -> list[Daemon]:
        return [self.mon, self.mgr, *self.osds, *self.gateways, *([self.balancer] if self.balancer else [])]

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    @property
    def credentials_file(self) -> Path:
        return self.home / "credentials"

    @property
    def admin_socket(self) -> Path:
        """HAProxy's runtime API (level admin): what a study's `balancer_admin` names."""
        return self.home / "run" / "haproxy.sock"

    def _state(self) -> dict:
        try:
            state = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}
        if "osd_uuid" in state:  # a single-OSD service dir of an earlier version
            state["osd_uuids"] = [state.pop("osd_uuid")]
            state["ports"]["rgw"] = [state["ports"]["rgw"]]
        return state

    def _ceph(self, *args: str, timeout: int = 60) -> subprocess.CompletedProcess:
        return subprocess.run(["ceph", "-c", str(self.conf), "--connect-timeout", "20", *args], capture_output=True, text=True, timeout=timeout)

    def _write_conf(self, fsid: str, ports: dict) -> None:
        h, t = self.home, self.topology
        size = min(3, t["osds"])
        osd_sections = "".join(f"""[osd.{i}]
osd data = {h}/osd/{i}
bluestore block path = {h}/{"osd-0.block" if i == 0 else f"blocks/osd-{i}.block"}
""" for i in range(t["osds"]))
        gateway_sections = "".join(f"""[client.rgw.{gateway_name(i)}]
rgw frontends = beast endpoint=127.0.0.1:{port}
rgw data = {h}/rgw{"" if i == 0 else f"/{gateway_name(i)}"}
rgw dns name = 127.0.0.1
ms mon client mode = crc
auth client required = none
""" for i, port in enumerate(ports["rgw"]))
        self.conf.write_text(f"""# written by tierbench services: Ceph on 127.0.0.1, {describe(t)}
[global]
fsid = {fsid}
mon host = v1:127.0.0.1:{ports['mon']}
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
run dir = {h}/run
log file = {h}/logs/$name.log
admin socket = {h}/run/$name.asok
pid file = {h}/run/$name.pid
osd pool default size = {size}
osd pool default min size = {max(1, size - 1)}
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
# harmless on a loopback-only cluster without auth: silenced so that `ceph -s` says HEALTH_OK
mon warn on insecure global id reclaim allowed = false
mon warn on msgr2 not enabled = false
osd crush chooseleaf type = 0
osd objectstore = bluestore
mgr initial modules =
[mon.a]
mon data = {h}/mon/a
[mgr.x]
mgr data = {h}/mgr/x
[osd]
bluestore block create = true
bluestore block size = {BLOCK_SIZE if t["osds"] == 1 else BLOCK_SIZE // 2}
osd memory target = 939524096
# the OSD would otherwise place itself in CRUSH at start, a command its monitor client
# can send before it knows the cluster's fsid ("wrong fsid"); tierbench places it instead
osd crush update on start = false
osd class update on start = false
{osd_sections}{gateway_sections}""")

    def _write_haproxy(self, ports: dict) -> Path:
        """Round robin over the gateways, health-checked each second (a dead one is out in about 2 s, and a
        request refused by it is sent to another: retries + redispatch), an admin socket for the studies."""
        cfg = self.home / "haproxy.cfg"
        servers = "".join(f"    server {gateway_name(i)} 127.0.0.1:{p} check\n" for i, p in enumerate(ports["rgw"]))
        cfg.write_text(f"""# written by tierbench services: HAProxy in front of the radosgw instances
global
    maxconn 1024
    stats socket {self.admin_socket} mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 300s
    timeout server 300s
    retries 3
    option redispatch
listen {BACKEND}
    bind 127.0.0.1:{ports['balancer']}
    balance roundrobin
    option httpchk GET /
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
{servers}""")
        return cfg

    def up(self, on_phase=print) -> dict:
        if any(d.pid() for d in self.daemons):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"Ceph in {self.home} is partly running; run `tierbench services down s3` first")
        state = self._state()
        fresh = not state
        t = self.topology
        if not fresh:
            changed = [f"--{k} {v}" for k, v in self.asked.items() if v is not None and str(v) != str(state["topology"].get(k))]
            if changed:
                raise UserError(f"the S3 service in {self.home} was created as {describe(state['topology'])}; "
                                f"{', '.join(changed)} would change that: leave the option out, or give another --dir")
        ensure_ceph(on_phase, haproxy=t["balancer"] == "haproxy")
        endpoint_port = (state.get("ports") or {}).get("balancer") or ((state.get("ports") or {}).get("rgw") or [None])[0]
        if not fresh and self.port and endpoint_port != self.port:
            raise UserError(f"the S3 service in {self.home} was created with port {endpoint_port}; leave --port out, "
                            f"or give another --dir for a service on port {self.port}")
        if fresh and self.port and not port_free(self.port):
            raise UserError(f"--port {self.port}: 127.0.0.1:{self.port} is in use; choose another port or leave --port out")
        if fresh:
            if self.home.exists() and any(self.home.iterdir()):
                raise UserError(f"{self.home} is not empty and holds no tierbench S3 service; choose another --dir")
            haproxy = t["balancer"] == "haproxy"
            rgw_ports = [free_port() for _ in range(t["gateways"])]
            if self.port and not haproxy:
                rgw_ports[0] = self.port
            state = {"fsid": str(uuid.uuid4()), "osd_uuids": [str(uuid.uuid4()) for _ in range(t["osds"])], "topology": t,
                     "ports": {"mon": free_port(), "rgw": rgw_ports, "balancer": (self.port or free_port()) if haproxy else None}}
            for d in ("run", "logs", "mon/a", "mgr/x", "rgw", "blocks", *(f"osd/{i}" for i in range(t["osds"])),
                      *(f"rgw/{gateway_name(i)}" for i in range(1, t["gateways"]))):
                (self.home / d).mkdir(parents=True, exist_ok=True)
            self._write_conf(state["fsid"], state["ports"])
            on_phase("creating the monitor")
            subprocess.run(["monmaptool", "--create", "--addv", "a", f"[v1:127.0.0.1:{state['ports']['mon']}]", "--fsid", state["fsid"],
                            str(self.home / "monmap")], check=True, capture_output=True)
            self._run(["ceph-mon", "-c", str(self.conf), "--mkfs", "-i", "a", "--monmap", str(self.home / "monmap")], "ceph-mon --mkfs")
        on_phase("starting the monitor")
        self.mon.start(["ceph-mon", "-c", str(self.conf), "-i", "a", "-f"])
        self._wait(lambda: self._ceph("mon", "stat", timeout=30).returncode == 0, "the monitor", 60)
        on_phase("starting the manager")
        self.mgr.start(["ceph-mgr", "-c", str(self.conf), "-i", "x", "-f"])
        n = t["osds"]
        if fresh:
            on_phase(f"creating {n} OSD{'s' if n > 1 else ''} (BlueStore on sparse files)")
            for i, osd_uuid in enumerate(state["osd_uuids"]):
                self._ceph_until_ok(f"ceph osd new (osd.{i})", lambda out, i=i: out.stdout.strip() == str(i), "osd", "new", osd_uuid)
            mkfs = [subprocess.Popen(["ceph-osd", "-c", str(self.conf), "-i", str(i), "--mkfs", "--osd-uuid", u], cwd=self.home,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    for i, u in enumerate(state["osd_uuids"])]  # in parallel: a few seconds each
            for i, p in enumerate(mkfs):
                out, _ = p.communicate()
                if p.returncode != 0:
                    raise UserError(f"ceph-osd --mkfs (osd.{i}) failed: {out.strip()[-400:]}")
            for i in range(n):
                self._ceph_until_ok(f"placing osd.{i} in CRUSH", lambda out: True,
                                    "osd", "crush", "add", f"osd.{i}", "1.0", "root=default", "host=tierbench")
        on_phase(f"starting {n} OSD{'s' if n > 1 else ''}")
        for i, osd in enumerate(self.osds):
            osd.start(["ceph-osd", "-c", str(self.conf), "-i", str(i), "-f"])
        self._wait(lambda: f'"num_up_osds":{n}' in self._ceph("osd", "stat", "-f", "json").stdout.replace(" ", ""), "the OSDs", 120)
        if fresh and t["ec"]:
            k, m = t["ec"].split("+")
            on_phase(f"creating the erasure-coded data pool (k={k}, m={m})")
            self._ceph_until_ok("the erasure-code profile", lambda out: True, "osd", "erasure-code-profile", "set", "tierbench",
                                f"k={k}", f"m={m}", "crush-failure-domain=osd")
            # before radosgw first starts: it then puts the buckets' data in this pool (its other pools replicated)
            self._ceph_until_ok("the data pool", lambda out: True, "osd", "pool", "create", DATA_POOL, "32", "32", "erasure", "tierbench")
            self._ceph_until_ok("the data pool's application", lambda out: True, "osd", "pool", "application", "enable", DATA_POOL, "rgw")
        g = t["gateways"]
        on_phase(f"starting {g} radosgw instance{'s' if g > 1 else ''}")
        for i, gw in enumerate(self.gateways):
            gw.start(["radosgw", "-c", str(self.conf), "-n", f"client.rgw.{gateway_name(i)}", "-f"])
        direct = [f"http://127.0.0.1:{p}" for p in state["ports"]["rgw"]]
        for url in direct:
            self._wait(lambda url=url: self._http_ok(url), "radosgw", 120)
        endpoint = direct[0]
        if self.balancer:
            on_phase("starting HAProxy in front of the gateways (round robin)")
            cfg = self._write_haproxy(state["ports"])
            self._run(["haproxy", "-c", "-q", "-f", str(cfg)], "haproxy -c (the configuration check)")
            self.admin_socket.unlink(missing_ok=True)
            self.balancer.start(["haproxy", "-f", str(cfg), "-db"])
            endpoint = f"http://127.0.0.1:{state['ports']['balancer']}"
            self._wait(lambda: self._http_ok(endpoint) and self.admin_socket.exists(), "HAProxy", 30)
        if fresh:
            on_phase("creating the S3 user and bucket")
            # as client.admin: as one of the gateways' names it would clash with that running gateway's admin socket
            out = subprocess.run(["radosgw-admin", "-c", str(self.conf), "user", "create", "--uid", "tierbench",
                                  "--display-name", "tierbench"], capture_output=True, text=True)
            if out.returncode != 0:
                raise UserError(f"radosgw-admin user create failed: {out.stderr.strip()[-300:]}")
            keys = json.loads(out.stdout)["keys"][0]
            self.credentials_file.write_text(json.dumps({"access_key": keys["access_key"], "secret_key": keys["secret_key"]}))
            self.credentials_file.chmod(0o600)
            status = sigv4_request("PUT", f"{endpoint}/{self.bucket}", keys["access_key"], keys["secret_key"])
            if status not in (200, 409):
                raise UserError(f"creating bucket {self.bucket} failed: HTTP {status}")
            state["bucket"] = self.bucket
        state.update(endpoint=endpoint, gateways=direct, balancer_admin=str(self.admin_socket) if self.balancer else None)
        self.state_file.write_text(json.dumps(state))
        return self.status()

    def _ceph_until_ok(self, what: str, done, *args: str, timeout_s: int = 90) -> None:
        """A monitor command that is idempotent, retried for a while: a monitor that has just started (with the
        manager starting beside it) can answer a first command with "Error EPERM: problem getting command
        descriptions from mon." (seen once in CI, not reproduced here); the same command a moment later succeeds."""
        deadline = time.time() + timeout_s
        while True:
            try:
                out = self._ceph(*args)
                if out.returncode == 0 and done(out):
                    return
                why = (out.stderr or out.stdout).strip()
            except subprocess.TimeoutExpired:
                why = "no answer in 60 s"
            if time.time() > deadline:
                raise UserError(f"{what} failed for {timeout_s} s: {why}; see the logs in {self.home / 'logs'}")
            time.sleep(2)

    def _run(self, cmd: list[str], what: str) -> None:
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=self.home)
        if out.returncode != 0:
            raise UserError(f"{what} failed: {(out.stderr or out.stdout).strip()[-400:]}")

    def _http_ok(self, url: str) -> bool:
        try:
            with urllib.request.urlopen(url, timeout=3) as r:
                return r.status == 200
        except urllib.error.HTTPError as e:
            return e.code in (403, 404)
        except OSError:
            return False

    def _wait(self, ready, what: str, timeout_s: int) -> None:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if ready():
                return
            for d in self.daemons:
                if d.pid_file.exists() and d.pid() is None:
                    self.down()
                    raise UserError(f"Ceph's {d.name} exited during start-up; see {self.home / 'logs'}: {d.log_tail()}")
            time.sleep(1)
        self.down()
        raise UserError(f"{what} did not become ready in {timeout_s} s; see the logs in {self.home / 'logs'}")

    def credentials(self) -> dict:
        return json.loads(self.credentials_file.read_text())

    def status(self) -> dict:
        state = self._state()
        st = {"name": "s3", "dir": str(self.home), "endpoint": state.get("endpoint"), "bucket": state.get("bucket"),
              "topology": self.topology, "gateways": state.get("gateways") or [], "balancer_admin": state.get("balancer_admin"),
              "pids": {d.name: d.pid() for d in self.daemons}, "ready": False, "credentials_file": str(self.credentials_file)}
        st["ready"] = bool(all(st["pids"].values()) and st["endpoint"] and self._http_ok(st["endpoint"]))
        return st

    def down(self) -> bool:
        stopped = False
        for d in reversed(self.daemons):
            stopped = d.stop(grace_s=30) or stopped
        return stopped

    def up_lines(self, st: dict) -> list[str]:
        """What `tierbench services up` prints once it is ready: the endpoint, the exports and spec line, how to stop it."""
        creds = st["credentials_file"]
        t = st["topology"]
        lines = [f"s3 is up: Ceph RGW at {st['endpoint']}, bucket {st['bucket']}; {describe(t)}",
                 f"use it:  export AWS_ACCESS_KEY_ID=$(python3 -c \"import json;print(json.load(open('{creds}'))['access_key'])\")",
                 f"         export AWS_SECRET_ACCESS_KEY=$(python3 -c \"import json;print(json.load(open('{creds}'))['secret_key'])\")",
                 f"         and in a spec: data = {{ type = \"s3\", endpoint = \"{st['endpoint']}\", bucket = \"{st['bucket']}\", "
                 "signing_algorithm = \"AWS4UnsignedPayloadSignerType\" }"]
        if st.get("balancer_admin"):
            counts = ", ".join(str(i) for i in range(1, t["gateways"] + 1))
            lines.append(f"         gateways behind HAProxy as a sweep: add  gateways = [{counts}], "
                         f"balancer_admin = \"{st['balancer_admin']}\"")
        elif len(st["gateways"]) > 1:
            lines.append(f"         the gateways, each its own endpoint: {', '.join(st['gateways'])}")
        return [*lines, "stop it: tierbench services down s3"]

    def status_line(self, st: dict, conf_dir_only: bool = False) -> tuple[str, bool]:
        """`tierbench services status`'s line and whether that is success (conf_dir_only: yarn's; ignored here)."""
        state = "ready" if st["ready"] else ("starting or unhealthy" if any(st["pids"].values()) else "not running")
        made = f"{describe(st['topology'])}; " if st.get("endpoint") else ""  # (nothing to describe before it is created)
        return (f"s3: {state}; endpoint {st.get('endpoint') or '-'}, bucket {st.get('bucket') or '-'}; {made}dir {st['dir']}",
                bool(st["ready"]))


def gateway_name(i: int) -> str:
    """radosgw instance i's name (client.rgw.NAME) and HAProxy's name for it; the first is the single-gateway service's."""
    return "gw" if i == 0 else f"gw{i + 1}"


def topology(created: dict, asked: dict) -> dict:
    """What the service is: as created (service.json), else as asked, else one OSD, one gateway, no balancer.
    Checked here so that a wrong option is one line before anything starts."""
    t = {"osds": 1, "gateways": 1, "ec": None, "balancer": "none", **created}
    if not created:
        t.update({k: v for k, v in asked.items() if v is not None})
    osds, gateways, ec, balancer = t["osds"], t["gateways"], t["ec"], t["balancer"]
    if not isinstance(osds, int) or not 1 <= osds <= 16:
        raise UserError(f"--osds: 1 to 16 OSDs on this machine, got {osds}")
    if not isinstance(gateways, int) or not 1 <= gateways <= 16:
        raise UserError(f"--gateways: 1 to 16 radosgw instances, got {gateways}")
    if balancer not in BALANCERS:
        raise UserError(f"--balancer: one of {', '.join(BALANCERS)}, got {balancer!r}")
    if ec is not None:
        parts = str(ec).split("+")
        if len(parts) != 2 or not all(p.isdigit() for p in parts) or int(parts[0]) < 2 or int(parts[1]) < 1:
            raise UserError(f"--ec: K+M with K >= 2 data and M >= 1 coding chunks, such as 3+2; got {ec!r}")
        if int(parts[0]) + int(parts[1]) > osds:
            raise UserError(f"--ec {ec}: each object's {int(parts[0]) + int(parts[1])} chunks go to different OSDs, "
                            f"so at least {int(parts[0]) + int(parts[1])} are needed: add --osds {int(parts[0]) + int(parts[1])}")
    return t


def describe(t: dict) -> str:
    osds, g = t["osds"], t["gateways"]
    pool = f"erasure-coded data pool {t['ec']}" if t["ec"] else f"replicated pools of size {min(3, osds)}"
    front = ", round robin behind HAProxy" if t["balancer"] == "haproxy" else ""
    return f"{osds} OSD{'s' if osds > 1 else ''}, {pool}, {g} gateway{'s' if g > 1 else ''}{front}"


SERVICE = CephS3
