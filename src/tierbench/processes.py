"""The processes tierbench starts: each in a process group of its own, ended as a group, and known by identity.

Why groups: a child that forks (a user's `sh -c` setup running a playbook, `hadoop jar` starting a JVM, a
Spark worker and its py4j JVM) leaves its own children behind when only it is killed; and a terminal's Ctrl-C
(SIGINT to the foreground group) would hit every child at once, mid-write, before tierbench could stop them
in order. So every child runs in a process group of its own: only tierbench hears the terminal, stops its engines
as on any interrupt (applications asked to stop, so their JVMs delete their local dirs), then ends whatever
is left of each group it started (`end_all`).

Why identity: a pid file outlives its process (a crash, a reboot), and the number may then belong to any
other process. A pid is only signalled when its start time (field 22 of /proc/PID/stat, in clock ticks since
boot) is the one recorded when tierbench started it.
"""

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

_GROUPS: dict[int, int] = {}  # leader pid -> its start time: the groups tierbench started and has not ended
_LOCK = threading.Lock()
PR_SET_PDEATHSIG = 1  # prctl(2)


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # fields from 3 (state) on: the command name may hold spaces and ')'


def start_time(pid: int) -> int | None:
    """When the process started (clock ticks since boot); None when there is no such process or it is a zombie."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] == "Z":
        return None
    return int(fields[19])  # field 22 of stat, the 20th after the command


def identity(pid: int) -> dict | None:
    """What a pid file records of a process: its pid, start time and command line."""
    started = start_time(pid)
    if started is None:
        return None
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        cmd = ""
    return {"pid": pid, "start_time": started, "command": cmd}


def is_same(ident: dict) -> bool:
    """The process recorded in `ident` still runs (the pid not reused by another since)."""
    try:
        return start_time(int(ident["pid"])) == int(ident["start_time"])
    except (KeyError, TypeError, ValueError):
        return False


def group_members(leader: int, leader_start: int) -> list[int]:
    """The live processes of the group `leader` started (those that joined it after the leader started)."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is None or fields[0] == "Z":
            continue
        if int(fields[2]) == leader and int(fields[19]) >= leader_start:  # field 5: the process group
            out.append(int(entry.name))
    return out


def _signal_group(leader: int, leader_start: int, sig: int) -> bool:
    """Signal what is left of a group tierbench started; never another's (a leader pid alive under another
    start time is a new process: the group is gone). True when members were left to signal."""
    now = start_time(leader)
    if now is not None and now != leader_start:
        return False
    members = group_members(leader, leader_start)
    for pid in members:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    return bool(members)


def end_group(leader: int, leader_start: int | None = None, grace_s: float = 5.0) -> None:
    """SIGTERM to every member of the group, then SIGKILL to what is left after grace_s."""
    with _LOCK:
        leader_start = _GROUPS.pop(leader, leader_start)
    if leader_start is None or not _signal_group(leader, leader_start, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and group_members(leader, leader_start):
        time.sleep(0.05)
    _signal_group(leader, leader_start, signal.SIGKILL)


def spawn(cmd: list[str], die_with_parent: int | None = None, group_dies_with_parent: bool = False,
          **kwargs) -> subprocess.Popen:
    """subprocess.Popen in a process group of its own, remembered until end_group/end_all ends it. A group, not a
    session: the terminal's Ctrl-C goes to its foreground group alone, and the child stays in tierbench's session,
    so in its scheduler autogroup (a session of its own is a CPU group of its own: with one, test_model_scale's
    4 GB TeraGen prediction missed by +16% and +17% in two runs, over its 15%; with a group it passed again).
    `die_with_parent`: the signal the child gets when tierbench dies without ending it (SIGKILL gives no chance to
    end_all: an engine's job JVM left running, parent 1, in a study's dirs and memory group, was seen after one).
    `group_dies_with_parent`: the child's children too (a user's `sh -c` forks what it runs; the parent-death signal
    reaches the shell alone): the command runs under a supervisor, the group's leader, that kills all of the group
    when tierbench dies (_SUPERVISOR); the Popen is the supervisor's, its exit status the command's."""
    parent = os.getpid()
    if group_dies_with_parent:
        cmd = [sys.executable, "-I", "-S", "-c", _SUPERVISOR, str(parent), *cmd]
        kwargs["preexec_fn"] = _supervisor_before_exec(parent)
    elif die_with_parent is not None:
        kwargs["preexec_fn"] = lambda: _set_parent_death_signal(die_with_parent, parent)
    proc = subprocess.Popen(cmd, process_group=0, **kwargs)
    fields = _stat_fields(proc.pid)  # (a zombie's too: a child that ended at once may have left its group running)
    started = int(fields[19]) if fields is not None else None
    if started is not None:
        with _LOCK:
            _GROUPS[proc.pid] = started
    return proc


# The supervisor: the group's leader, which starts the command in its group only once it listens for tierbench's
# death, so that no moment exists in which the command runs unguarded (a guard that joined the group after the
# command had started left, after a kill -9 in between, the command's children running: seen in CI). SIGUSR2, the
# parent-death signal, is blocked from before its exec until its handler is set, so that a tierbench killed meanwhile
# is still seen (pending, then handled); a parent already gone when it starts is seen by its parent pid. A command
# ended by a signal gives 128 + the signal, as a shell says it.
GUARD_SIGNAL = signal.SIGUSR2
_SUPERVISOR = """import os, signal, subprocess, sys
signal.signal(signal.SIGUSR2, lambda *_: os.killpg(0, signal.SIGKILL))
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR2])
if os.getppid() != int(sys.argv[1]):
    os.killpg(0, signal.SIGKILL)
try:
    code = subprocess.call(sys.argv[2:])
except OSError as e:
    print(f"{sys.argv[2]}: {e.strerror}", file=sys.stderr)
    code = 127
sys.exit(code if code >= 0 else 128 - code)
"""


def _supervisor_before_exec(parent: int):
    def before_exec():
        signal.pthread_sigmask(signal.SIG_SETMASK, [GUARD_SIGNAL])  # (only it: SIGTERM ends the supervisor)
        _set_parent_death_signal(GUARD_SIGNAL, parent)
    return before_exec


def _set_parent_death_signal(sig: int, parent: int | None = None) -> None:
    """In the child, before exec: the kernel sends `sig` when the thread that forked it ends (tierbench's engines
    spawn from the main thread: when tierbench ends). Kept across exec; not inherited by the child's own children.
    A parent that died before the request was made is seen by the child's parent pid: the child ends at once."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig))
    except OSError:  # (no glibc: the child only ends with its group)
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def forget(proc: subprocess.Popen) -> None:
    """A child that ended on its own: end any of its group left behind (a daemonised grandchild included)."""
    end_group(proc.pid, grace_s=2.0)


def run(cmd: list[str], timeout: float | None = None, input: str | None = None, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run in a group of its own: on a timeout, Ctrl-C or SIGTERM the whole group is ended (not only
    the direct child, as subprocess.run does), before the exception goes on."""
    stdin = subprocess.PIPE if input is not None else kwargs.pop("stdin", subprocess.DEVNULL)
    if kwargs.pop("capture_output", False):
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    proc = spawn(cmd, stdin=stdin, **kwargs)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        end_group(proc.pid, grace_s=2.0)
        proc.kill()  # (the leader, should it have left the group)
        proc.wait()
        raise
    forget(proc)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def end_all(grace_s: float = 5.0) -> None:
    """Every group tierbench started and has not ended: ended (at exit, after an interrupt), with a further
    Ctrl-C or SIGTERM held off meanwhile so that the ending itself is not cut short."""
    with _LOCK:
        groups = list(_GROUPS.items())
    if not groups:
        return
    main = threading.current_thread() is threading.main_thread()  # (only the main thread may set handlers)
    held = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)} if main else {}
    try:
        for leader, started in groups:
            end_group(leader, started, grace_s)
    finally:
        for sig, handler in held.items():
            signal.signal(sig, handler)
