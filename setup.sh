#!/usr/bin/env bash
# Sets tierbench up in this checkout, on a fresh machine:
#   - Java 17+ (Debian's openjdk-17-jdk-headless when missing and run as root),
#   - a virtual environment in .venv with pyspark 4.3.0 and tierbench,
#   - tierbench's Java Spark jobs, compiled against pyspark's own jars,
#   - Maven (for the hadoop engine, which fetches Hadoop 3.4.2's jars on first use).
# Usage: ./setup.sh          for running studies (then: .venv/bin/tierbench quickstart)
#        ./setup.sh --test   also pytest and headless Chromium for the report test
set -euo pipefail
cd "$(dirname "$0")"

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# -- Python 3.11+ ---------------------------------------------------------------
PY=""
for cand in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
  [ -n "$cand" ] || continue
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    PY=$cand; break
  fi
done
[ -n "$PY" ] || die "Python 3.11 or newer is needed (with venv); install it (Debian: apt-get install python3 python3-venv) or set PYTHON=/path/to/python3.11"

# -- Java 17+ (a JDK: the jobs are compiled here) -----------------------------------
apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing $* from Debian's packages"
    if [ -z "${TIERBENCH_APT_UPDATED:-}" ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
      export TIERBENCH_APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
  else
    return 1
  fi
}
java_ok() {
  command -v javac >/dev/null 2>&1 || return 1
  local v
  v=$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')
  [ "${v:-0}" -ge 17 ] 2>/dev/null
}
if ! java_ok; then
  apt_install openjdk-17-jdk-headless || die "a Java 17+ JDK is needed: install openjdk-17-jdk-headless (Debian/Ubuntu) as root, or put a JDK 17+ on PATH"
  java_ok || die "javac 17+ still not found after installing openjdk-17-jdk-headless"
fi

# -- Maven: fetches Hadoop's jars for the hadoop engine (on first use) -------------------
if ! command -v mvn >/dev/null 2>&1; then
  apt_install maven || say "warning: Maven (mvn) not found: the hadoop engine needs it to fetch Hadoop's jars (Debian: apt-get install maven)"
fi

# -- fio: measures the devices' ceilings (tierbench probe, probe = true, the quickstart) ----
if ! command -v fio >/dev/null 2>&1; then
  apt_install fio || say "warning: fio not found: device ceilings will be skipped (Debian: apt-get install fio)"
fi

# -- the virtual environment -------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $PY"
  "$PY" -m venv .venv || die "could not create a virtual environment (Debian: apt-get install python3-venv)"
fi
say "installing tierbench and pyspark 4.3.0 into .venv (first time: about a minute)"
# pip 21.3+ installs an editable pyproject package: upgrade only an older one (the upgrade costs a round trip)
.venv/bin/python -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))' 2>/dev/null ||
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
# pip byte-compiles one file at a time (16 of its 38 s here): compile on every core instead, leaving out the
# packages' own tests. Not compiling at all would cost each start ~2 s where PYTHONDONTWRITEBYTECODE is set (numpy,
# scipy and matplotlib compiled anew each time); a file that does not compile (Python 2 examples) is skipped.
if [ $want_test = 1 ]; then
  .venv/bin/python -m pip install -q --no-compile -e ".[test]"
else
  .venv/bin/python -m pip install -q --no-compile -e .
fi
.venv/bin/python -m compileall -q -j 0 -x '/(tests|testing)/' \
  "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null 2>&1 || true

say "building tierbench's Java Spark jobs"
.venv/bin/python -c 'from tierbench.engines.jobs_jar import jobs_jar; print("       ", jobs_jar())'

# (the quickstart runs Hadoop's own TeraSort where it can emulate devices, and the hadoop engine's tests need them)
say "fetching Apache Hadoop 3.4.2's jars from Maven Central (the hadoop engine's; once)"
.venv/bin/python -c 'from tierbench.toolchain import hadoop_lib; print("       ", hadoop_lib())'
if [ $want_test = 1 ] && ! command -v mkfs.ext4 >/dev/null 2>&1; then
  apt_install e2fsprogs || say "warning: mkfs.ext4 not found: the loop-device test will fail"
fi
if [ $want_test = 1 ] && { ! command -v ssh >/dev/null 2>&1 || [ ! -x /usr/sbin/sshd ]; }; then
  apt_install openssh-client openssh-server || say "warning: ssh/sshd not installed (needs root + apt); the ssh node agent test will fail"
fi
if [ $want_test = 1 ] && ! command -v haproxy >/dev/null 2>&1; then
  apt_install haproxy || say "warning: haproxy not installed (needs root + apt); the gateway tests will fail"
fi
if [ $want_test = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium || say "warning: chromium not installed (needs root + apt); the report rendering test will fail"
fi
say "done: .venv/bin/tierbench is ready (try: .venv/bin/tierbench --help)"
