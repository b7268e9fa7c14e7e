# shellcheck shell=bash
# Sourced by kernel/check-cross.sh and kernel/check-series.sh: what both
# need to get a linux-source-6.1 (or -6.12) tree with (some of) its
# series on it.  The caller sets $me (its name, for messages) first, and
# calls set_tree V for a tree other than 6.1.
#
# SPDX-License-Identifier: GPL-2.0-only

kdir=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
failed=0

die() { echo "${me:-series-lib.sh}: $*" >&2; exit 1; }

# set_tree V: work on linux-source-V and its series, $patch_dir
# (6.1: kernel/patches, 6.12: kernel/patches-6.12).
set_tree() {
	kver=$1
	case $kver in
	6.1) patch_dir=$kdir/patches ;;
	6.12) patch_dir=$kdir/patches-6.12 ;;
	*) die "tree $kver: no series for that tree (6.1 or 6.12)" ;;
	esac
	tarball=${FDEVENTS_KERNEL_TARBALL:-/usr/src/linux-source-$kver.tar.xz}
}
set_tree 6.1

# need_tools TOOL...: each on PATH, or say which package installs it.
need_tools() {
	[ -f "$tarball" ] || die "$tarball not found; install it with: apt-get install linux-source-$kver"
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		case $tool in
		aarch64-linux-gnu-gcc) die "$tool not found; install it with: apt-get install gcc-aarch64-linux-gnu" ;;
		*) die "$tool not found; install it with: apt-get install $tool" ;;
		esac
	done
}

# The patches of $patch_dir/series, in order, into ${patches[@]}.
read_series() {
	mapfile -t patches < <(sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$patch_dir/series")
	[ ${#patches[@]} -gt 0 ] || die "no patches in $patch_dir/series"
}

# extract_tree DIR: a fresh, unpatched tree in DIR/linux.
extract_tree() {
	echo "${me:-series-lib.sh}: extracting $tarball into $1/linux"
	rm -rf "$1"
	mkdir -p "$1"
	tar -xf "$tarball" -C "$1" || die "cannot extract $tarball"
	mv "$1/linux-source-$kver" "$1/linux" || die "no linux-source-$kver/ in $tarball"
}

# apply_patch TREE PATCH: one patch of the series.
apply_patch() {
	patch -s -p1 -d "$1" <"$patch_dir/$2"
}

# check STATUS DESCRIPTION: a PASS or FAIL line; a FAIL sets $failed.
# shellcheck disable=SC2034
check() {
	if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; failed=1; fi
}
