#!/bin/sh
# Runs inside the cgroup-v2 guest (.ci/guest/run.sh boots it): the host's root is read-only here except OUT, so
# tierbench's cache (the emulated devices' images) lies on a tmpfs mounted over OUT/cache, the guest's own memory.
# The images' tmpfs has no O_DIRECT on 6.1: the loop devices fall back to buffered IO (storage/backing.py).
OUT=$1
PY=$2
PROJECT=$(cd "$(dirname "$0")/../.." && pwd)
modprobe loop
mkdir -p "$OUT/cache"
mount -t tmpfs -o size=3G tierbench-guest "$OUT/cache"
cd "$PROJECT"
export TIERBENCH_GUEST=1 TIERBENCH_GUEST_OUT="$OUT" TIERBENCH_CACHE="$OUT/cache/tierbench" PYTHONPATH="$PROJECT/src" \
  PYTHONDONTWRITEBYTECODE=1
"$PY" -m pytest -q -p no:cacheprovider -m guest --durations=0 --basetemp="$OUT/cache/pytest" tests/guest >"$OUT/pytest.log" 2>&1
rc=$?
python3 .ci/check_limits.py >>"$OUT/pytest.log" 2>&1 || rc=1   # (v2: tierbench's io.max limits no detached device)
echo $rc >"$OUT/rc.part"
umount "$OUT/cache" 2>>"$OUT/pytest.log"
mv "$OUT/rc.part" "$OUT/rc"
