# shellcheck shell=bash
# Sourced by kernel/check-cross.sh and kernel/check-series.sh: what both
# need to get a linux-source-6.1 tree with (some of) the series on it.
# The caller sets $me (its name, for messages) first.
#
# SPDX-License-Identifier: GPL-2.0-only

kdir=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
tarball=${FDEVENTS_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
failed=0

die() { echo "${me:-series-lib.sh}: $*" >&2; exit 1; }

# need_tools TOOL...: each on PATH, or say which package installs it.
need_tools() {
	[ -f "$tarball" ] || die "$tarball not found; install it with: apt-get install linux-source-6.1"
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		case $tool in
		aarch64-linux-gnu-gcc) die "$tool not found; install it with: apt-get install gcc-aarch64-linux-gnu" ;;
		*) die "$tool not found; install it with: apt-get install $tool" ;;
		esac
	done
}

# The patches of kernel/patches/series, in order, into ${patches[@]}.
read_series() {
	mapfile -t patches < <(sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$kdir/patches/series")
	[ ${#patches[@]} -gt 0 ] || die "no patches in $kdir/patches/series"
}

# extract_tree DIR: a fresh, unpatched tree in DIR/linux.
extract_tree() {
	echo "${me:-series-lib.sh}: extracting $tarball into $1/linux"
	rm -rf "$1"
	mkdir -p "$1"
	tar -xf "$tarball" -C "$1" || die "cannot extract $tarball"
	mv "$1"/linux-source-6.1 "$1/linux" || die "no linux-source-6.1/ in $tarball"
}

# apply_patch TREE PATCH: one patch of the series.
apply_patch() {
	patch -s -p1 -d "$1" <"$kdir/patches/$2"
}

# check STATUS DESCRIPTION: a PASS or FAIL line; a FAIL sets $failed.
# shellcheck disable=SC2034
check() {
	if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; failed=1; fi
}
