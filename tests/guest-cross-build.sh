#!/bin/sh
# The library and the guest's test programs cross-compiled for a guest of
# another architecture than this machine's (tests/guest.sh,
# GUEST_ARCH=arm64): the release tree (make distdir; a tree configured in
# place rules out a second, VPATH, build from it) configured in
# OUTDIR/build with --host=HOST and this build's prefix and libdir, so
# that make install DESTDIR=... there installs what a user of that
# architecture installs.
#
#   tests/guest-cross-build.sh HOST OUTDIR PROGRAM...
#
# Rebuilt from scratch each time (about a minute).  The output of every
# step goes to OUTDIR/build.log.  Exits 0 when the library and every
# PROGRAM were built, else prints one line naming the problem and exits 1.
set -u
: "${top_builddir:=.}" "${MAKE:=make}" "${prefix:=/usr/local}" "${libdir:=$prefix/lib}"
host=${1:?HOST}
out=${2:?OUTDIR}
shift 2
command -v "$host-gcc" >/dev/null 2>&1 || {
	echo "$host-gcc not found (the guest's programs): install it with: apt-get install gcc-$host"
	exit 1
}
# make check exports this build's compilers and flags (CC=gcc, ...), and a
# calling make its command-line variables: none of them is the target's.
unset CC CXX CPP CFLAGS CPPFLAGS LDFLAGS LIBS NM CLANG TEST_EMULATOR \
	MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
rm -rf "$out/src" "$out/build"
mkdir -p "$out/build" || exit 1
out=$(cd "$out" && pwd)
log=$out/build.log
{
	"$MAKE" -C "$top_builddir" distdir distdir="$out/src" top_distdir="$out/src" &&
	cd "$out/build" &&
	../src/configure -q --host="$host" CC="$host-gcc" --prefix="$prefix" --libdir="$libdir" &&
	"$MAKE" -j"$(nproc)" &&
	"$MAKE" -j"$(nproc)" "$@"
} > "$log" 2>&1 || {
	echo "building the library and the test programs for $host failed: see $log"
	exit 1
}
