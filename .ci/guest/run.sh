#!/usr/bin/env bash
# The cgroup-v2 guest layer (issue 57): boots Debian 12's 6.1 kernel (cgroup v2 only, io and memory controllers) under
# QEMU's software emulation with this machine's root shared in (virtme-ng), and runs tests/guest/ (`pytest -m guest`)
# inside, in one Python process. This machine's cgroup v1 cannot test tierbench's v2 code; the guest can.
# Parts installed by .ci/guest/setup.sh (which refuses, exit 3, where it would write into a /lib/modules in use).
# Results come back through a folder shared writable into the guest: pytest.log, rc, results.json (the fio figures
# and what was left after SIGTERM/SIGKILL). Exit status: the guest's pytest's (3: refused, 4: no result came back).
# Usage: .ci/guest/run.sh [OUT]   (root; env TIERBENCH_GUEST_PYTHON: the Python with pytest, default .venv's)
set -euo pipefail
PROJECT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${TIERBENCH_GUEST_PYTHON:-$PROJECT/.venv/bin/python}
CACHE="${TIERBENCH_CACHE:-$HOME/.cache/tierbench}/guest"
K=$("$PROJECT/.ci/guest/setup.sh" | tail -1)
OUT=${1:-$(mktemp -d "$CACHE/run.XXXXXX")}
mkdir -p "$OUT" && rm -f "$OUT/rc" "$OUT/pytest.log" "$OUT/results.json"
export PATH="$CACHE/vng/bin:$PATH"
start=$(date +%s)
# /dev/kvm does not boot a nested guest on these machines (it resets after "Probing EDD"): TCG, software emulation
timeout 480 vng --disable-kvm --force-9p --rwdir "$OUT" --cpus 2 --memory 4G --run "$CACHE/kernel/boot/vmlinuz-$K" \
    --exec "$PROJECT/.ci/guest/inside.sh $OUT $PY" </dev/null >"$OUT/console.log" 2>&1 || true
echo "guest layer: $(( $(date +%s) - start )) s in the guest (kernel $K); results in $OUT"
if [ ! -s "$OUT/rc" ]; then
  echo "guest layer: no result came back from the guest; its console: $OUT/console.log" >&2
  tail -20 "$OUT/console.log" >&2
  exit 4
fi
tail -5 "$OUT/pytest.log"
exit "$(cat "$OUT/rc")"
