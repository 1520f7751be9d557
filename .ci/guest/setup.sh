#!/usr/bin/env bash
# The cgroup-v2 guest layer's parts (issue 57), installed by the project itself, as root: QEMU, busybox and kmod
# (Debian packages), Debian 12's 6.1 kernel (`apt-get download`, unpacked under the cache) and virtme-ng (PyPI, in a
# venv under the cache). Everything lands in $TIERBENCH_CACHE/guest except the kernel's modules: virtme-ng's
# initramfs loads 9p, virtio and overlay from /lib/modules/<guest version> of the root it shares into the guest,
# which is this machine's own. That is harmless only where this machine's kernel is not that version and nothing
# else put modules there, so the script refuses (one line, exit 3) anywhere else, and marks the folder as its own.
# Prints the guest kernel's version on its last line.
set -euo pipefail
CACHE="${TIERBENCH_CACHE:-$HOME/.cache/tierbench}/guest"
MARK=".tierbench-guest-modules"   # in /lib/modules/<version>: the folder is this script's, safe to refresh
mkdir -p "$CACHE"
cd "$CACHE"
[ "$(id -u)" = 0 ] || { echo "guest layer: needs root (apt-get, /lib/modules)" >&2; exit 3; }

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] || command -v busybox >/dev/null || need+=(busybox-static)
command -v depmod >/dev/null || need+=(kmod)
if [ ${#need[@]} -gt 0 ]; then
  echo "guest layer: apt-get install ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2 || {
    apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2; }
fi

# the kernel package linux-image-amd64 depends on now (Debian 12's 6.1 series)
if ! ls kernel/boot/vmlinuz-* >/dev/null 2>&1; then
  pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$pkg" ] || { echo "guest layer: apt-cache names no linux-image for linux-image-amd64" >&2; exit 3; }
  rm -rf deb kernel && mkdir -p deb && (cd deb && apt-get download "$pkg" >&2)
  dpkg -x deb/"$pkg"_*.deb kernel
fi
K=$(ls kernel/lib/modules | head -1)

if [ "$(uname -r)" = "$K" ]; then
  echo "guest layer: this machine runs the guest's kernel $K itself; its /lib/modules/$K is in use: refusing" >&2
  exit 3
fi
if [ -d "/lib/modules/$K" ] && [ ! -e "/lib/modules/$K/$MARK" ]; then
  echo "guest layer: /lib/modules/$K exists and is not this layer's (no $MARK): refusing to write into it; run the" \
       "layer on a machine without it (the guest needs its modules there: virtme-ng shares this machine's root)" >&2
  exit 3
fi
if [ ! -e "/lib/modules/$K/$MARK" ]; then
  mkdir -p "/lib/modules/$K"
  cp -r "kernel/lib/modules/$K/." "/lib/modules/$K/"
  depmod -a "$K"
  echo "copied by tierbench's .ci/guest/setup.sh for the cgroup-v2 guest layer" > "/lib/modules/$K/$MARK"
fi

if [ ! -x vng/bin/vng ]; then
  python3 -m venv vng >&2 && vng/bin/pip install -q virtme-ng >&2
fi
echo "$K"
