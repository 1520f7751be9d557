"""What a node's operating system is set to, for the studies' node advice (analysis/node_check.py): one POSIX shell
script, run here with sh or on a cluster node over ssh (the same options as the ssh agent), printing key=value
lines. Nothing is installed or changed on the node; it reads /proc, /sys, findmnt and ulimit."""

import shlex
import subprocess

from ..errors import UserError

# Arguments: the directories whose mounts and devices are checked (data and intermediate dirs); a directory not
# made yet is looked up by its nearest existing parent.
FACTS_SCRIPT = r'''
say() { printf '%s=%s\n' "$1" "$2"; }
say hostname "$(hostname 2>/dev/null)"
say swappiness "$(cat /proc/sys/vm/swappiness 2>/dev/null)"
say nofile "$(ulimit -n 2>/dev/null)"
say thp_enabled "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
say thp_defrag "$(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
say page_reporting_order "$(cat /sys/module/page_reporting/parameters/page_reporting_order 2>/dev/null)"
say buddy_max_order "$(awk 'NR == 1 { print NF - 5 }' /proc/buddyinfo 2>/dev/null)"
# virtio-balloon (device 0x0005) with free page reporting negotiated: feature bit 5, the 6th character
balloon=""
for v in /sys/bus/virtio/devices/*; do
  [ "$(cat "$v/device" 2>/dev/null)" = "0x0005" ] && balloon=$(cut -c6 "$v/features" 2>/dev/null)
done
say balloon_reporting "$balloon"
govs=""
for g in /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor; do
  [ -r "$g" ] && govs="$govs $(cat "$g")"
done
say governors "$(printf '%s\n' $govs | sort -u | tr '\n' ' ')"
iface=$(awk '$2 == "00000000" { print $1; exit }' /proc/net/route 2>/dev/null)
say nic "$iface"
if [ -n "$iface" ]; then
  say nic_speed "$(cat /sys/class/net/$iface/speed 2>/dev/null)"
  say nic_mtu "$(cat /sys/class/net/$iface/mtu 2>/dev/null)"
fi
i=0
for d in "$@"; do
  p="$d"
  while [ ! -e "$p" ] && [ "$p" != "/" ]; do p=$(dirname "$p"); done
  say "dir.$i.path" "$d"
  say "dir.$i.mount" "$(findmnt -n -o TARGET -T "$p" 2>/dev/null | tail -n 1)"
  say "dir.$i.fstype" "$(findmnt -n -o FSTYPE -T "$p" 2>/dev/null | tail -n 1)"
  say "dir.$i.options" "$(findmnt -n -o OPTIONS -T "$p" 2>/dev/null | tail -n 1)"
  src=$(findmnt -n -o SOURCE -T "$p" 2>/dev/null | tail -n 1)
  say "dir.$i.source" "$src"
  case "$src" in
    /dev/*)
      name=$(basename "$(readlink -f "$src")")
      sys=/sys/class/block/$name
      disk=$name
      if [ -r "$sys/partition" ]; then
        disk=$(basename "$(dirname "$(readlink -f "$sys")")")
        say "dir.$i.start_sector" "$(cat "$sys/start" 2>/dev/null)"
      fi
      say "dir.$i.disk" "$disk"
      q=/sys/block/$disk/queue
      say "dir.$i.rotational" "$(cat "$q/rotational" 2>/dev/null)"
      say "dir.$i.scheduler" "$(cat "$q/scheduler" 2>/dev/null)"
      say "dir.$i.read_ahead_kb" "$(cat "$q/read_ahead_kb" 2>/dev/null)"
      ;;
  esac
  i=$((i + 1))
done
'''

SSH_OPTIONS = ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ControlMaster=no"]


def parse_facts(text: str) -> dict:
    """key=value lines -> {key: value, "dirs": [{path, mount, ...}]} (dir.N.key lines grouped per N)."""
    facts: dict = {}
    dirs: dict[int, dict] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if key.startswith("dir."):
            _, n, field = key.split(".", 2)
            dirs.setdefault(int(n), {})[field] = value.strip()
        else:
            facts[key] = value.strip()
    facts["dirs"] = [dirs[n] for n in sorted(dirs)]
    return facts


def local_facts(dirs: list[str]) -> dict:
    out = subprocess.run(["sh", "-c", FACTS_SCRIPT, "tierbench-check", *dirs], capture_output=True, text=True, timeout=60)
    return parse_facts(out.stdout)


def remote_facts(node: str, dirs: list[str], ssh_config: str | None = None, timeout_s: float = 60) -> dict:
    """The facts of a cluster node, over ssh (the user's keys, as the ssh agent logs in)."""
    remote = " ".join(shlex.quote(a) for a in ["sh", "-c", FACTS_SCRIPT, "tierbench-check", *dirs])
    cmd = ["ssh", *SSH_OPTIONS, *(["-F", ssh_config] if ssh_config else []), "--", node, remote]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except FileNotFoundError:
        raise UserError(f"node {node}: cannot run ssh; install the OpenSSH client (Debian: apt-get install openssh-client)") from None
    except subprocess.TimeoutExpired:
        return {"error": f"ssh to {node} did not answer within {timeout_s:g} s", "dirs": []}
    if out.returncode != 0 and "=" not in out.stdout:
        last = (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]
        return {"error": f"ssh to {node} failed: {last}", "dirs": []}
    return parse_facts(out.stdout)
