"""The files and names of the Ceph S3 service (services/s3.py): its topology (checked and described), ceph.conf and
HAProxy's configuration as text, the gateways' names, and one signed S3 request for creating the bucket."""

import datetime
import hashlib
import hmac
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from ..errors import UserError

BLOCK_SIZE = 20 << 30  # sparse: takes only what is written
BALANCERS = ("none", "haproxy")
BACKEND = "s3"  # HAProxy's proxy of the gateways: the name a study's gateway count is applied to


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


def ceph_conf(h: Path, t: dict, fsid: str, ports: dict) -> str:
    """ceph.conf of the service in `h` with topology `t` (the module docstring of services/s3.py: its pitfalls)."""
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
    return f"""# written by tierbench services: Ceph on 127.0.0.1, {describe(t)}
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
{osd_sections}{gateway_sections}"""


def haproxy_cfg(admin_socket: Path, ports: dict) -> str:
    """Round robin over the gateways, health-checked each second (a dead one is out in about 2 s, and a
    request refused by it is sent to another: retries + redispatch), an admin socket for the studies."""
    servers = "".join(f"    server {gateway_name(i)} 127.0.0.1:{p} check\n" for i, p in enumerate(ports["rgw"]))
    return f"""# written by tierbench services: HAProxy in front of the radosgw instances
global
    maxconn 1024
    stats socket {admin_socket} mode 600 level admin
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
{servers}"""


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
