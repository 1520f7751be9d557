"""A single-node Ceph cluster with an S3 gateway on 127.0.0.1: the object store the disaggregation study used.

One monitor, one manager, one OSD on BlueStore over a sparse file, and radosgw
(beast) bound to 127.0.0.1, all in one directory, from Debian's ceph packages
(16.2.x; installed by `services up s3` when root). The three pitfalls of this
set-up, handled here: the BlueStore block file must lie outside the OSD's data
dir (else ELOOP); with `auth = none` radosgw hangs unless its client section
says `ms mon client mode = crc` and `auth client required = none`; and pools
of size 1 need `mon allow pool size one`. An S3 user and a bucket are created;
the credentials are written to a file of mode 600 and printed once, for export.
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
PACKAGES = ("ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "ceph-common")
BLOCK_SIZE = 20 << 30  # sparse: takes only what is written


def ensure_ceph(on_phase=print) -> None:
    if all(shutil.which(b) for b in ("ceph-mon", "ceph-osd", "ceph-mgr", "radosgw", "radosgw-admin", "ceph", "monmaptool")):
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise UserError("Ceph is not installed: as root, `tierbench services up s3` installs it; otherwise run "
                        "apt-get install " + " ".join(PACKAGES))
    on_phase("installing Ceph from Debian's packages (about a minute)")
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]):
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
    name = "s3"

    def __init__(self, home: Path, bucket: str = "tierbench", port: int | None = None):
        self.home = Path(home)
        self.port = port  # radosgw's port (default: a free one, chosen when the service is first created)
        self.bucket = bucket
        self.conf = self.home / "ceph.conf"
        self.mon = Daemon(self.home, "mon")
        self.mgr = Daemon(self.home, "mgr")
        self.osd = Daemon(self.home, "osd")
        self.rgw = Daemon(self.home, "rgw")

    @property
    def state_file(self) -> Path:
        return self.home / "service.json"

    @property
    def credentials_file(self) -> Path:
        return self.home / "credentials"

    def _state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _ceph(self, *args: str, timeout: int = 60) -> subprocess.CompletedProcess:
        return subprocess.run(["ceph", "-c", str(self.conf), "--connect-timeout", "20", *args], capture_output=True, text=True, timeout=timeout)

    def _write_conf(self, fsid: str, ports: dict) -> None:
        h = self.home
        self.conf.write_text(f"""# written by tierbench services: a single-node Ceph on 127.0.0.1
[global]
fsid = {fsid}
mon host = v1:127.0.0.1:{ports['mon']}
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
run dir = {h}/run
log file = {h}/logs/$name.log
admin socket = {h}/run/$name.asok
pid file = {h}/run/$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = bluestore
mgr initial modules =
[mon.a]
mon data = {h}/mon/a
[mgr.x]
mgr data = {h}/mgr/x
[osd.0]
osd data = {h}/osd/0
bluestore block path = {h}/osd-0.block
bluestore block create = true
bluestore block size = {BLOCK_SIZE}
osd memory target = 939524096
# the OSD would otherwise place itself in CRUSH at start, a command its monitor client
# can send before it knows the cluster's fsid ("wrong fsid"); tierbench places it instead
osd crush update on start = false
osd class update on start = false
[client.rgw.gw]
rgw frontends = beast endpoint=127.0.0.1:{ports['rgw']}
rgw data = {h}/rgw
rgw dns name = 127.0.0.1
ms mon client mode = crc
auth client required = none
""")

    def up(self, on_phase=print) -> dict:
        if any(d.pid() for d in (self.mon, self.mgr, self.osd, self.rgw)):
            st = self.status()
            if st["ready"]:
                return st
            raise UserError(f"Ceph in {self.home} is partly running; run `tierbench services down s3` first")
        ensure_ceph(on_phase)
        state = self._state()
        fresh = not state
        if not fresh and self.port and state["ports"]["rgw"] != self.port:
            raise UserError(f"the S3 service in {self.home} was created with port {state['ports']['rgw']}; leave --port out, "
                            f"or give another --dir for a service on port {self.port}")
        if fresh and self.port and not port_free(self.port):
            raise UserError(f"--port {self.port}: 127.0.0.1:{self.port} is in use; choose another port or leave --port out")
        if fresh:
            if self.home.exists() and any(self.home.iterdir()):
                raise UserError(f"{self.home} is not empty and holds no tierbench S3 service; choose another --dir")
            state = {"fsid": str(uuid.uuid4()), "osd_uuid": str(uuid.uuid4()),
                     "ports": {"mon": free_port(), "rgw": self.port or free_port()}}
            for d in ("run", "logs", "mon/a", "mgr/x", "osd/0", "rgw"):
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
        if fresh:
            on_phase("creating the OSD (BlueStore on a sparse file)")
            self._ceph_until_ok("ceph osd new", lambda out: out.stdout.strip() == "0", "osd", "new", state["osd_uuid"])
            self._run(["ceph-osd", "-c", str(self.conf), "-i", "0", "--mkfs", "--osd-uuid", state["osd_uuid"]], "ceph-osd --mkfs")
            self._ceph_until_ok("placing the OSD in CRUSH", lambda out: True,
                                "osd", "crush", "add", "osd.0", "1.0", "root=default", "host=tierbench")
        on_phase("starting the OSD")
        self.osd.start(["ceph-osd", "-c", str(self.conf), "-i", "0", "-f"])
        self._wait(lambda: '"num_up_osds":1' in self._ceph("osd", "stat", "-f", "json").stdout.replace(" ", ""), "the OSD", 90)
        on_phase("starting radosgw")
        self.rgw.start(["radosgw", "-c", str(self.conf), "-n", "client.rgw.gw", "-f"])
        endpoint = f"http://127.0.0.1:{state['ports']['rgw']}"
        self._wait(lambda: self._http_ok(endpoint), "radosgw", 120)
        if fresh:
            on_phase("creating the S3 user and bucket")
            out = subprocess.run(["radosgw-admin", "-c", str(self.conf), "-n", "client.rgw.gw", "user", "create", "--uid", "tierbench",
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
        state["endpoint"] = endpoint
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
            for d in (self.mon, self.mgr, self.osd, self.rgw):
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
              "pids": {d.name: d.pid() for d in (self.mon, self.mgr, self.osd, self.rgw)}, "ready": False,
              "credentials_file": str(self.credentials_file)}
        st["ready"] = bool(all(st["pids"].values()) and st["endpoint"] and self._http_ok(st["endpoint"]))
        return st

    def down(self) -> bool:
        stopped = False
        for d in (self.rgw, self.osd, self.mgr, self.mon):
            stopped = d.stop(grace_s=30) or stopped
        return stopped

    def up_lines(self, st: dict) -> list[str]:
        """What `tierbench services up` prints once it is ready: the endpoint, the exports and spec line, how to stop it."""
        creds = st["credentials_file"]
        return [f"s3 is up: Ceph RGW at {st['endpoint']}, bucket {st['bucket']}",
                f"use it:  export AWS_ACCESS_KEY_ID=$(python3 -c \"import json;print(json.load(open('{creds}'))['access_key'])\")",
                f"         export AWS_SECRET_ACCESS_KEY=$(python3 -c \"import json;print(json.load(open('{creds}'))['secret_key'])\")",
                f"         and in a spec: data = {{ type = \"s3\", endpoint = \"{st['endpoint']}\", bucket = \"{st['bucket']}\", "
                "signing_algorithm = \"AWS4UnsignedPayloadSignerType\" }",
                "stop it: tierbench services down s3"]

    def status_line(self, st: dict, conf_dir_only: bool = False) -> tuple[str, bool]:
        """`tierbench services status`'s line and whether that is success (conf_dir_only: yarn's; ignored here)."""
        state = "ready" if st["ready"] else ("starting or unhealthy" if any(st["pids"].values()) else "not running")
        return f"s3: {state}; endpoint {st.get('endpoint') or '-'}, bucket {st.get('bucket') or '-'}; dir {st['dir']}", bool(st["ready"])
