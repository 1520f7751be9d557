"""Shared machinery of local services: a directory each, pid files, readiness waits, clean stops.

A service's directory is tierbench's or empty (as --out is): `up` marks a new or empty one with SERVICE_MARK and
refuses a folder holding files it did not make (root would overwrite a user's pids/namenode.pid, append to their
logs, and `down` delete them); `down` and `status` on such a folder touch nothing. A folder under tierbench's own
cache dir made by an older version (no mark) is its own. Pid files and logs are never opened through a link.
"""

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from ..toolchain import cache_dir
from .. import processes
from ..errors import UserError
from ..safefiles import check_no_link, check_tree_no_link, make_dirs, open_file, write_text

SERVICE_MARK = ".tierbench-service"
DAEMON_DIRS = ("pids", "logs", "conf")  # what tierbench writes: checked for planted links before anything starts or stops


def default_dir(name: str) -> Path:
    return cache_dir() / "services" / name


def _in_own_cache(home: Path) -> bool:
    """`home` lies in tierbench's own cache (its default services dirs, made by any version)."""
    base, real = Path(os.path.realpath(cache_dir() / "services")), Path(os.path.realpath(home))
    return real != base and real.is_relative_to(base)


def check_dir(home: Path, service: str) -> None:
    """One line unless `home` is missing, empty, marked as a service dir of tierbench's, or in tierbench's cache; and
    unless the pid files and logs in it are free of symbolic links. Writes nothing."""
    home = Path(home)
    if os.path.lexists(home) and not os.path.isdir(home):
        raise UserError(f"--dir {home}: not a directory; give a new or empty folder for the {service} service")
    if not home.is_dir():
        return
    mark = home / SERVICE_MARK
    if os.path.islink(mark) or (not mark.is_file() and not _in_own_cache(home) and any(home.iterdir())):
        raise UserError(f"--dir {home} holds files tierbench did not make (no {SERVICE_MARK}); tierbench will not run, "
                        f"stop or tidy a service there: give a new or empty folder for the {service} service")
    for entry in home.iterdir():  # (the service's folders and files: a link among them would lead root elsewhere)
        check_no_link(entry, home, f"the {service} service's files")
    for sub in DAEMON_DIRS:
        check_tree_no_link(home / sub, home, f"the {service} service's files")


def claim_dir(home: Path, service: str) -> None:
    """`up`, before anything is written: check_dir, then the folder made (if new) and marked as tierbench's."""
    check_dir(home, service)
    home = Path(home)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"--dir {home}: cannot create it: {e.strerror}") from None
    if not (home / SERVICE_MARK).is_file():
        write_text(home / SERVICE_MARK, f"a directory of tierbench's {service} service (tierbench services)\n",
                   "its service mark")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_free(port: int) -> bool:
    """Nothing listens on 127.0.0.1:port. (SO_REUSEADDR, as the servers set it: a port whose last connections
    are in TIME_WAIT after a stop is free for them, and must be for a restart on the same ports.)"""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def xml_conf(props: dict) -> str:
    body = "\n".join(f"  <property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
    return f'<?xml version="1.0"?>\n<!-- written by tierbench services -->\n<configuration>\n{body}\n</configuration>\n'


class Daemon:
    """One server process with its pid file and log in the service's directory."""

    def __init__(self, home: Path, name: str):
        self.home, self.name = home, name
        self.pid_file = home / "pids" / f"{name}.pid"
        self.log = home / "logs" / f"{name}.log"

    def pid(self) -> int | None:
        """The daemon's pid, if the process the pid file names is the one tierbench started (same start time):
        a stale pid file (after a crash or a reboot) may name anyone's process now."""
        try:
            with open_file(self.pid_file, "r", "its pid file") as f:  # (a link is refused, not read)
                ident = json.loads(f.read(4096))
        except (OSError, ValueError):
            return None
        if not isinstance(ident, dict) or not processes.is_same(ident):
            return None
        return int(ident["pid"])

    def start(self, cmd: list[str], env: dict | None = None) -> int:
        if self.pid():
            raise UserError(f"{self.name} is already running (pid {self.pid()}); stop it first")
        make_dirs(self.pid_file.parent, self.home, "its pid files")
        make_dirs(self.log.parent, self.home, "its logs")
        with open_file(self.log, "a", "its log") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, cwd=self.home, start_new_session=True)
        ident = processes.identity(proc.pid) or {"pid": proc.pid, "start_time": -1}
        write_text(self.pid_file, json.dumps(ident), "its pid file")
        return proc.pid

    def stop(self, grace_s: float = 30) -> bool:
        """TERM, wait up to grace_s, then KILL (NodeManager takes its time). True if it was running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.time() + grace_s
        while time.time() < deadline and self.pid() == pid:
            time.sleep(0.3)
        if self.pid() == pid:  # (checked again: never a KILL to a pid that another process took meanwhile)
            os.kill(pid, signal.SIGKILL)
            while self.pid() == pid:
                time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)
        return True

    def log_tail(self, n: int = 3) -> str:
        try:
            lines = [l for l in self.log.read_text(errors="replace").splitlines() if l.strip()]
        except OSError:
            return ""
        return " | ".join(lines[-n:])


def wait_until_ready(service, daemons: list[Daemon], label: str, timeout_s: int, logs: Path) -> dict:
    """Poll service.status() until ready; if a daemon dies or time runs out, stop everything and say where to look."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        st = service.status()
        if st["ready"]:
            return st
        for d in daemons:
            if d.pid() is None:
                service.down()
                raise UserError(f"{label}'s {d.name} exited during start-up; see {d.log}: {d.log_tail()}")
        time.sleep(1)
    service.down()
    raise UserError(f"{label} did not become ready in {timeout_s} s; see the logs in {logs}")
