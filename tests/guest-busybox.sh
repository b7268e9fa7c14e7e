#!/bin/sh
# A statically linked busybox for a guest of another architecture than
# this machine's (tests/guest.sh, GUEST_ARCH=arm64).  Debian's
# busybox-static:ARCH cannot be installed beside the host's own, so it is
# downloaded with apt-get download and unpacked once into
#   ${FDEVENTS_BUSYBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fdevents/busybox}/ARCH/
#
#   tests/guest-busybox.sh ARCH      ARCH: a Debian architecture (arm64)
#
# Prints the busybox's path; or one line naming the problem and its fix,
# and exits 1.
set -u
arch=${1:?ARCH}
cache=${FDEVENTS_BUSYBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fdevents/busybox}/$arch
busybox=$cache/busybox
if [ -f "$busybox" ]; then
	echo "$busybox"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fdevents-busybox.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download "busybox-static:$arch") > "$tmp/log" 2>&1; then
	echo "apt-get download busybox-static:$arch failed ($(tail -n 1 "$tmp/log")): as root, run: dpkg --add-architecture $arch && apt-get update"
	exit 1
fi
if ! dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/root" ||
	[ ! -f "$tmp/root/bin/busybox" ]; then
	echo "busybox-static:$arch holds no bin/busybox (see $(ls "$tmp"/*.deb))"
	exit 1
fi
mkdir -p "$cache" && cp "$tmp/root/bin/busybox" "$busybox.tmp" &&
	mv "$busybox.tmp" "$busybox" || exit 1
echo "$busybox"
