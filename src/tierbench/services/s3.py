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

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from ..errors import UserError
from ..safefiles import write_text
from .base import SERVICE_MARK, Daemon, claim_dir, free_port, port_free
from .ceph_files import ceph_conf, describe, gateway_name, haproxy_cfg, sigv4_request, topology

READY_TIMEOUT_S = 180
ORDER = 4  # its place among `tierbench services`' services (services/registry.py)
PACKAGES = ("ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "ceph-common")
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

    def up(self, on_phase=print) -> dict:
        claim_dir(self.home, self.name)  # (a folder of someone else's files is refused before anything is written)
        if any(d.pid() for d in self.daemons):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"Ceph in {self.home} is partly running; run `tierbench services down s3` first")
        state = self._state()
        fresh = not state
        self._check_as_created(state)
        ensure_ceph(on_phase, haproxy=self.topology["balancer"] == "haproxy")
        self._check_port(state)
        if fresh:
            state = self._create(on_phase)
        on_phase("starting the monitor")
        self.mon.start(["ceph-mon", "-c", str(self.conf), "-i", "a", "-f"])
        self._wait(lambda: self._ceph("mon", "stat", timeout=30).returncode == 0, "the monitor", 60)
        on_phase("starting the manager")
        self.mgr.start(["ceph-mgr", "-c", str(self.conf), "-i", "x", "-f"])
        self._start_osds(state, fresh, on_phase)
        if fresh and self.topology["ec"]:
            self._create_ec_pool(on_phase)
        direct, endpoint = self._start_gateways(state, on_phase)
        if fresh:
            self._create_user_and_bucket(endpoint, on_phase)
            state["bucket"] = self.bucket
        state.update(endpoint=endpoint, gateways=direct, balancer_admin=str(self.admin_socket) if self.balancer else None)
        write_text(self.state_file, json.dumps(state))
        return self.status()

    def _check_as_created(self, state: dict) -> None:
        """An option that would change what was created is refused: a later `up` restarts exactly that."""
        if not state:
            return
        changed = [f"--{k} {v}" for k, v in self.asked.items() if v is not None and str(v) != str(state["topology"].get(k))]
        if changed:
            raise UserError(f"the S3 service in {self.home} was created as {describe(state['topology'])}; "
                            f"{', '.join(changed)} would change that: leave the option out, or give another --dir")

    def _check_port(self, state: dict) -> None:
        endpoint_port = (state.get("ports") or {}).get("balancer") or ((state.get("ports") or {}).get("rgw") or [None])[0]
        if state and self.port and endpoint_port != self.port:
            raise UserError(f"the S3 service in {self.home} was created with port {endpoint_port}; leave --port out, "
                            f"or give another --dir for a service on port {self.port}")
        if not state and self.port and not port_free(self.port):
            raise UserError(f"--port {self.port}: 127.0.0.1:{self.port} is in use; choose another port or leave --port out")

    def _create(self, on_phase) -> dict:
        """A new service: its directories, ports, ceph.conf and the monitor's store; returns what service.json keeps."""
        t = self.topology
        if self.home.exists() and any(p.name != SERVICE_MARK for p in self.home.iterdir()):
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
        write_text(self.conf, ceph_conf(self.home, t, state["fsid"], state["ports"]))
        on_phase("creating the monitor")
        subprocess.run(["monmaptool", "--create", "--addv", "a", f"[v1:127.0.0.1:{state['ports']['mon']}]", "--fsid", state["fsid"],
                        str(self.home / "monmap")], check=True, capture_output=True)
        self._run(["ceph-mon", "-c", str(self.conf), "--mkfs", "-i", "a", "--monmap", str(self.home / "monmap")], "ceph-mon --mkfs")
        return state

    def _start_osds(self, state: dict, fresh: bool, on_phase) -> None:
        n = self.topology["osds"]
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

    def _create_ec_pool(self, on_phase) -> None:
        k, m = self.topology["ec"].split("+")
        on_phase(f"creating the erasure-coded data pool (k={k}, m={m})")
        self._ceph_until_ok("the erasure-code profile", lambda out: True, "osd", "erasure-code-profile", "set", "tierbench",
                            f"k={k}", f"m={m}", "crush-failure-domain=osd")
        # before radosgw first starts: it then puts the buckets' data in this pool (its other pools replicated)
        self._ceph_until_ok("the data pool", lambda out: True, "osd", "pool", "create", DATA_POOL, "32", "32", "erasure", "tierbench")
        self._ceph_until_ok("the data pool's application", lambda out: True, "osd", "pool", "application", "enable", DATA_POOL, "rgw")

    def _start_gateways(self, state: dict, on_phase) -> tuple[list[str], str]:
        """The radosgw instances and, when asked, HAProxy in front; returns the gateways' URLs and the endpoint."""
        g = self.topology["gateways"]
        on_phase(f"starting {g} radosgw instance{'s' if g > 1 else ''}")
        for i, gw in enumerate(self.gateways):
            gw.start(["radosgw", "-c", str(self.conf), "-n", f"client.rgw.{gateway_name(i)}", "-f"])
        direct = [f"http://127.0.0.1:{p}" for p in state["ports"]["rgw"]]
        for url in direct:
            self._wait(lambda url=url: self._http_ok(url), "radosgw", 120)
        endpoint = direct[0]
        if self.balancer:
            on_phase("starting HAProxy in front of the gateways (round robin)")
            cfg = self.home / "haproxy.cfg"
            write_text(cfg, haproxy_cfg(self.admin_socket, state["ports"]))
            self._run(["haproxy", "-c", "-q", "-f", str(cfg)], "haproxy -c (the configuration check)")
            self.admin_socket.unlink(missing_ok=True)
            self.balancer.start(["haproxy", "-f", str(cfg), "-db"])
            endpoint = f"http://127.0.0.1:{state['ports']['balancer']}"
            self._wait(lambda: self._http_ok(endpoint) and self.admin_socket.exists(), "HAProxy", 30)
        return direct, endpoint

    def _create_user_and_bucket(self, endpoint: str, on_phase) -> None:
        on_phase("creating the S3 user and bucket")
        # as client.admin: as one of the gateways' names it would clash with that running gateway's admin socket
        out = subprocess.run(["radosgw-admin", "-c", str(self.conf), "user", "create", "--uid", "tierbench",
                              "--display-name", "tierbench"], capture_output=True, text=True)
        if out.returncode != 0:
            raise UserError(f"radosgw-admin user create failed: {out.stderr.strip()[-300:]}")
        keys = json.loads(out.stdout)["keys"][0]
        # created owner-only (not chmod'ed after: the keys would be readable by anyone for a moment)
        self.credentials_file.unlink(missing_ok=True)
        write_text(self.credentials_file, json.dumps({"access_key": keys["access_key"], "secret_key": keys["secret_key"]}),
                   perm=0o600)
        self.credentials_file.chmod(0o600)
        status = sigv4_request("PUT", f"{endpoint}/{self.bucket}", keys["access_key"], keys["secret_key"])
        if status not in (200, 409):
            raise UserError(f"creating bucket {self.bucket} failed: HTTP {status}")

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


SERVICE = CephS3
