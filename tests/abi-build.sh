#!/bin/sh
# Build the guest's test programs again for another ABI of the guest's
# kernel (x86_64's i386 and x32, arm64's AArch32), statically, with
# Debian's cross compilers (not gcc-multilib, which conflicts with
# gcc-aarch64-linux-gnu), so tests/guest.sh runs them beside the 64-bit
# ones on the same kernel: every entry point of the series (compat
# signalfd4 with SFD_EXCLUSIVE, timerfd() at 900 or __X32_SYSCALL_BIT|900,
# the timerfd_* calls, 4- and 8-byte reads) under every ABI.
#
#   tests/abi-build.sh --check ABI           can this ABI be built here?
#   tests/abi-build.sh ABI OUTDIR PROGRAM... build tests/PROGRAM for ABI
#
# ABI is one of
#   i386         i686-linux-gnu-gcc, the C library's default 32-bit time_t
#   i386-time64  the same with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64
#   x32          x86_64-linux-gnux32-gcc
#   armhf        arm-linux-gnueabihf-gcc (AArch32 on an arm64 kernel),
#                32-bit time_t
#   armhf-time64 the same with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64
# (I386_CC, X32_CC and ARMHF_CC name other compilers.)
#
# The library is compiled for the target and linked into each program as
# objects, src/signalfd.c and src/timerfd.c, so its definitions win over
# the C library's libc.a members of the same names.  PROGRAM is a path
# like tests/test-timerfd; the program goes to OUTDIR/test-timerfd, and is
# rebuilt only when a source is newer.  Compiler output goes to
# OUTDIR/PROGRAM.log.
#
# --check prints nothing and exits 0 when the compiler and its static C
# library work, else prints one line naming the Debian package and exits 1.
# A build exits 0 when every program was built, else prints the names of
# those that were not, one a line, and exits 1.
set -u
: "${srcdir:=.}" "${I386_CC:=i686-linux-gnu-gcc}" "${X32_CC:=x86_64-linux-gnux32-gcc}"
: "${ARMHF_CC:=arm-linux-gnueabihf-gcc}"

abi_setup() {
	case $1 in
	i386) cc=$I386_CC; abi_flags= ;;
	i386-time64) cc=$I386_CC; abi_flags="-D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64" ;;
	x32) cc=$X32_CC; abi_flags= ;;
	armhf) cc=$ARMHF_CC; abi_flags= ;;
	armhf-time64) cc=$ARMHF_CC; abi_flags="-D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64" ;;
	*) echo "unknown ABI $1 (i386, i386-time64, x32, armhf or armhf-time64)"; exit 1 ;;
	esac
	case $1 in
	x32) gcc_pkg=gcc-x86-64-linux-gnux32 libc_pkg=libc6-dev-x32-cross ;;
	armhf*) gcc_pkg=gcc-arm-linux-gnueabihf libc_pkg=libc6-dev-armhf-cross ;;
	*) gcc_pkg=gcc-i686-linux-gnu libc_pkg=libc6-dev-i386-cross ;;
	esac
}

if [ "${1:-}" = --check ]; then
	abi_setup "${2:?ABI}"
	command -v "$cc" >/dev/null 2>&1 || {
		echo "$cc not found (the $2 guest tests): install it with: apt-get install $gcc_pkg"
		exit 1
	}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/fdevents-abi.XXXXXX") || exit 1
	printf '#include <stdio.h>\nint main(void) { return puts("") == EOF; }\n' > "$tmp/t.c"
	if ! "$cc" $abi_flags -static -pthread -o "$tmp/t" "$tmp/t.c" > "$tmp/log" 2>&1; then
		rm -rf "$tmp"
		echo "$cc cannot link a static program (the $2 guest tests): install it with: apt-get install $libc_pkg"
		exit 1
	fi
	rm -rf "$tmp"
	exit 0
fi

abi_setup "${1:?ABI}"
out=${2:?OUTDIR}
shift 2
mkdir -p "$out" || exit 1
# The host build's warnings, which make a test's ABI bug (a time_t or
# tv_nsec printed with %ld) an error here too.
cflags="-std=gnu11 -O2 -Wall -Wextra -Werror $abi_flags -I$srcdir/include"

# newer OUT FILE...: OUT is missing or older than one of FILE.
newer() {
	target=$1
	shift
	[ -e "$target" ] || return 0
	for f; do [ "$f" -nt "$target" ] && return 0; done
	return 1
}

# The library, once per ABI.
lib_headers="$srcdir/src/syscall.h $srcdir/src/syscall-numbers.h $srcdir/include/sys/signalfd.h $srcdir/include/sys/timerfd.h $0"
for lib in signalfd timerfd; do
	if newer "$out/lib$lib.o" "$srcdir/src/$lib.c" $lib_headers; then
		rm -f "$out/lib$lib.o"
		"$cc" $cflags -c -o "$out/lib$lib.o" "$srcdir/src/$lib.c" > "$out/lib$lib.log" 2>&1 ||
			{ rm -f "$out/lib$lib.o"; lib_failed=yes; }
	fi
done

failed=
for t; do
	name=${t##*/}
	# Extra sources, as Makefile.am's tests_*_SOURCES list them.
	case $name in
	test-siginfo-layout)
		extra="$srcdir/tests/siginfo-layout-kernel.c $srcdir/tests/siginfo-layout-header.c"
		# The structure cut out of our header, as Makefile.am makes
		# tests/siginfo-layout-header.h for the host build.
		mkdir -p "$out/tests"
		{ echo '/* Generated from include/sys/signalfd.h: do not edit.  */'
		  sed -n '/^struct signalfd_siginfo$/,/^};$/p' "$srcdir/include/sys/signalfd.h"
		} > "$out/tests/siginfo-layout-header.h" ;;
	test-timerfd) extra=$srcdir/tests/tfd-ioc-kernel.c ;;
	*) extra= ;;
	esac
	if [ -n "${lib_failed:-}" ]; then
		cat "$out"/lib*.log > "$out/$name.log"
		failed="$failed $t"
		continue
	fi
	if newer "$out/$name" "$srcdir/$t.c" $extra "$srcdir"/tests/*.h \
		"$out/libsignalfd.o" "$out/libtimerfd.o"; then
		rm -f "$out/$name"
		"$cc" $cflags -I"$out" -static -pthread -o "$out/$name" "$srcdir/$t.c" $extra \
			"$out/libsignalfd.o" "$out/libtimerfd.o" > "$out/$name.log" 2>&1 ||
			{ rm -f "$out/$name"; failed="$failed $t"; }
	fi
done
[ -z "$failed" ] && exit 0
for t in $failed; do echo "$t"; done
exit 1
