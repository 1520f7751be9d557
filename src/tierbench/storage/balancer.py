"""How many object gateways serve a study's S3 endpoint, set through HAProxy's runtime API.

The disaggregation study scaled radosgw instances behind a round-robin front
and found DFSIO write stopped scaling past five. A study sweeps that with
`gateways = [1, 2, ...]` in an s3 data table and `balancer_admin` naming
HAProxy's admin socket (`stats socket ... level admin`: a unix socket path, or
host:port): before each run the first N servers of the proxy are set ready and
the others to maintenance, and the run records how many requests each gateway
was given (HAProxy's `lbtot`: each time it chose that server). `balancer =
"none"` sends S3A straight to the first gateway instead (the address HAProxy
has for it), the figure's point without a balancer.
"""

import csv
import io
import socket
import time

from ..errors import UserError

READY_TIMEOUT_S = 20  # servers back from maintenance pass `rise` health checks first (2 at 1 s in tierbench's HAProxy)


class HAProxyAdmin:
    def __init__(self, address: str):
        self.address = address

    def command(self, line: str) -> str:
        """One command over the runtime API (a connection each, HAProxy's non-interactive mode)."""
        try:
            if self.address.startswith("/"):
                s = socket.socket(socket.AF_UNIX)
                target = self.address
            else:
                host, _, port = self.address.rpartition(":")
                s = socket.socket(socket.AF_INET)
                target = (host, int(port))
            with s:
                s.settimeout(10)
                s.connect(target)
                s.sendall(line.encode() + b"\n")
                chunks = []
                while chunk := s.recv(65536):
                    chunks.append(chunk)
        except (OSError, ValueError) as e:
            raise UserError(f"balancer_admin {self.address!r}: HAProxy's admin socket does not answer ({e}); is HAProxy "
                            "running with `stats socket ... level admin` there? (`tierbench services up s3 --balancer "
                            "haproxy` prints the path)") from None
        return b"".join(chunks).decode(errors="replace")

    def servers(self) -> list[dict]:
        """The servers of the one proxy that has them, in configuration order: name, address, status, lbtot."""
        text = self.command("show stat")
        if not text.startswith("# "):
            raise UserError(f"balancer_admin {self.address!r}: `show stat` answered {text.strip()[:200]!r}, not HAProxy's "
                            "statistics: is this HAProxy's admin socket?")
        rows = [r for r in csv.DictReader(io.StringIO(text[2:])) if r.get("svname") not in ("FRONTEND", "BACKEND")]
        proxies = list(dict.fromkeys(r["pxname"] for r in rows))
        if len(proxies) != 1:
            raise UserError(f"balancer_admin {self.address!r}: tierbench sets the gateways of a HAProxy with one proxy of "
                            f"servers; this one has {len(proxies)}: {', '.join(proxies) or 'none'}")
        return [{"proxy": proxies[0], "name": r["svname"], "addr": r.get("addr", ""), "status": r["status"],
                 "lbtot": int(r.get("lbtot") or 0)} for r in rows]

    def set_serving(self, count: int) -> list[str]:
        """The first `count` servers ready and the rest in maintenance; returns when HAProxy reports the first
        `count` UP (their health checks passed), with their names."""
        servers = self.servers()
        if count > len(servers):
            raise UserError(f"gateways = {count}: the HAProxy at {self.address} has {len(servers)} gateway server(s) "
                            f"({', '.join(s['name'] for s in servers)}); start more (`tierbench services up s3 --gateways N`)")
        for i, s in enumerate(servers):
            answer = self.command(f"set server {s['proxy']}/{s['name']} state {'ready' if i < count else 'maint'}").strip()
            if answer:
                raise UserError(f"balancer_admin {self.address!r}: setting {s['name']} answered {answer[:200]!r} "
                                "(the socket needs `level admin`)")
        wanted = [s["name"] for s in servers[:count]]
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            status = {s["name"]: s["status"] for s in self.servers()}
            if all(status[n].startswith("UP") for n in wanted):
                return wanted
            if time.monotonic() > deadline:
                down = ", ".join(f"{n} {status[n]}" for n in wanted if not status[n].startswith("UP"))
                raise UserError(f"gateways = {count}: HAProxy at {self.address} does not report them up after "
                                f"{READY_TIMEOUT_S} s ({down}): is that radosgw running?")
            time.sleep(0.25)

    def requests(self) -> dict[str, int]:
        """How many times HAProxy has chosen each server so far (a counter: the run's share is a difference)."""
        return {s["name"]: s["lbtot"] for s in self.servers()}

    def first_gateway(self) -> str:
        """The first server's address, for S3A to reach it without the balancer."""
        servers = self.servers()
        if not servers or not servers[0]["addr"]:
            raise UserError(f"balancer_admin {self.address!r}: HAProxy reports no address for its first server")
        return servers[0]["addr"]


class GatewaysForRun:
    """A run's gateways: set before it, counted around it."""

    def __init__(self, admin: str, count: int | None, balancer: str):
        self.admin, self.count, self.balancer = HAProxyAdmin(admin), count, balancer
        self.serving: list[str] = []
        self.before: dict[str, int] = {}

    def apply(self) -> None:
        if self.balancer == "haproxy":
            self.serving = self.admin.set_serving(self.count or len(self.admin.servers()))

    def start(self) -> None:
        if self.balancer == "haproxy":
            self.before = self.admin.requests()

    def details(self) -> dict:
        """For the run's record: the balancer, the gateways that served and the requests each was given."""
        if self.balancer != "haproxy":
            return {"balancer": "none", "serving": 1, "endpoint": self.admin.first_gateway()}
        after = self.admin.requests()
        return {"balancer": "haproxy", "serving": len(self.serving),
                "requests": {n: after.get(n, 0) - self.before.get(n, 0) for n in after}}
