#!/bin/sh
# The guest half of make check: boot the patched kernel in QEMU (software
# emulation, 2 CPUs) with a busybox initramfs that holds the library as
# `make install DESTDIR=...' installs it and the test programs, run the
# programs of GUEST_TESTS there, and print their results as one TAP stream.
#
#   tests/guest.sh                 run the suite (make check)
#   tests/guest.sh --interactive   a shell in the same guest (make boot)
#
# The kernel's path comes from tests/guest-kernel.path, which make check
# writes first (kernel/build-kernel.sh, cached).  Set GUEST_SUITE=no to
# skip the guest (the Debian build does: it has no QEMU); it says so.
# FDEVENTS_STRESS_SECONDS (60), FDEVENTS_FUZZ_CALLS (1000000),
# FDEVENTS_FUZZ_SEED (random, printed) and FDEVENTS_SCALE_EXIT_N (100000)
# reach the guest's programs.
# GUEST_ABI_TESTS are built again, static, for each ABI of
# FDEVENTS_GUEST_ABIS (i386 i386-time64 x32; tests/abi-build.sh) and run
# after GUEST_TESTS; their TAP lines start with the ABI ("x32: ...").
# An entry PROGRAM@ABI,ABI of GUEST_ABI_TESTS is built for those ABIs only.
set -u
: "${srcdir:=.}" "${top_builddir:=.}" "${abs_top_builddir:=$(pwd)}"
: "${QEMU:=qemu-system-x86_64}" "${BUSYBOX:=/bin/busybox}" "${MAKE:=make}"
: "${libdir:=/usr/local/lib}" "${GUEST_TESTS:=}" "${GUEST_SUITE:=yes}"
: "${GUEST_ABI_TESTS:=}" "${FDEVENTS_GUEST_ABIS=i386 i386-time64 x32}"
: "${FDEVENTS_GUEST_TIMEOUT:=2400}" "${FDEVENTS_TEST_TIMEOUT:=900}"
interactive=no
[ "${1:-}" = --interactive ] && interactive=yes

# One line naming the problem and the Debian package that solves it.
fail() {
	if [ $interactive = yes ]; then echo "guest.sh: $*" >&2; else echo "Bail out! $*"; fi
	exit 1
}

if [ "$GUEST_SUITE" = no ]; then
	echo "1..0 # SKIP guest suite turned off (GUEST_SUITE=no): the QEMU tests did not run"
	exit 0
fi
command -v "$QEMU" >/dev/null 2>&1 ||
	fail "qemu-system-x86_64 not found: install it with: apt-get install qemu-system-x86"
[ -x "$BUSYBOX" ] && ! LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP ||
	fail "no statically linked busybox at $BUSYBOX: install it with: apt-get install busybox-static"
command -v cpio >/dev/null 2>&1 || fail "cpio not found: install it with: apt-get install cpio"
kernel=$(cat "$top_builddir/tests/guest-kernel.path" 2>/dev/null)
# make wrote why the kernel could not be built (its install hint).
case $kernel in "error: "*) fail "${kernel#error: }" ;; esac
[ -f "$kernel" ] ||
	fail "no kernel in tests/guest-kernel.path: run make check (it runs kernel/build-kernel.sh)"
# The cross compilers of the i386 and x32 programs, and their C libraries.
if [ -n "$GUEST_ABI_TESTS" ]; then
	for abi in $FDEVENTS_GUEST_ABIS; do
		problem=$(sh "$srcdir/tests/abi-build.sh" --check "$abi") || fail "$problem"
	done
fi

work=$abs_top_builddir/tests/guest
root=$work/root
rm -rf "$work"
mkdir -p "$root/bin" "$root/etc" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/tests"

# The library, installed exactly as a user installs it.
"$MAKE" -C "$top_builddir" install DESTDIR="$root" > "$work/install.log" 2>&1 ||
	fail "make install DESTDIR=$root failed: see $work/install.log"

# busybox and its applets.
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# The test programs, and the C library files they load (not our libraries:
# those come from the installation above).
ldso=
for t in $GUEST_TESTS; do
	mkdir -p "$root/tests/$(dirname "$t")"
	cp "$top_builddir/$t" "$root/tests/$t" || fail "test program $t was not built"
	LC_ALL=C readelf -l "$top_builddir/$t" 2>/dev/null | grep -q INTERP || continue
	for lib in $(ldd "$top_builddir/$t" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		case $lib in */libsignalfd.so*|*/libtimerfd.so*) continue ;; esac
		case $lib in */ld-linux*) ldso=$lib ;; esac
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
done
# The loader is also reached through the canonical /lib64 path.
if [ -n "$ldso" ] && [ ! -e "$root/lib64/ld-linux-x86-64.so.2" ]; then
	mkdir -p "$root/lib64"
	cp -L "$ldso" "$root/lib64/ld-linux-x86-64.so.2"
fi

# The same tests for i386 and x32, static: built in tests/guest-abi/ABI
# (kept between runs; only what changed is rebuilt), one ABI per job.  A
# program that does not build is a failed test point (guest-tap.awk reads
# abi-build.status before the console log).
abi_tests=
: > "$work/abi-build.status"
# The programs of GUEST_ABI_TESTS for ABI $1.
abi_programs() {
	for t in $GUEST_ABI_TESTS; do
		case $t in
		*@*) case ",${t#*@}," in *",$1,"*) echo "${t%@*}" ;; esac ;;
		*) echo "$t" ;;
		esac
	done
}
if [ -n "$GUEST_ABI_TESTS" ] && [ -n "$FDEVENTS_GUEST_ABIS" ]; then
	start=$(date +%s)
	for abi in $FDEVENTS_GUEST_ABIS; do
		sh "$srcdir/tests/abi-build.sh" "$abi" "$abs_top_builddir/tests/guest-abi/$abi" \
			$(abi_programs "$abi") > "$work/abi-$abi.failed" &
	done
	wait
	echo "# built GUEST_ABI_TESTS for $FDEVENTS_GUEST_ABIS in $(($(date +%s) - start)) s"
	for abi in $FDEVENTS_GUEST_ABIS; do
		mkdir -p "$root/tests/abi/$abi"
		for t in $(abi_programs "$abi"); do
			name=${t##*/}
			built=$abs_top_builddir/tests/guest-abi/$abi/$name
			if grep -qx "$t" "$work/abi-$abi.failed" || [ ! -f "$built" ]; then
				echo "@@@ NOTBUILT abi/$abi/$name tests/guest-abi/$abi/$name.log"
				sed -n 's/^/@@@ BUILDLOG /; 1,8p' "$built.log" 2>/dev/null
				continue
			fi
			cp "$built" "$root/tests/abi/$abi/$name"
			abi_tests="$abi_tests abi/$abi/$name"
		done
	done >> "$work/abi-build.status"
fi

# The kselftests of the series, built static with the kernel
# (kernel/build-kernel.sh puts them in selftests/ beside bzImage): they run
# last, as kselftest/NAME.  A kernel without them is a failed point.
kselftests=
for k in "$(dirname "$kernel")"/selftests/*; do
	[ -f "$k" ] || continue
	mkdir -p "$root/tests/kselftest"
	cp "$k" "$root/tests/kselftest/"
	kselftests="$kselftests kselftest/${k##*/}"
done
[ -n "$kselftests" ] ||
	echo "@@@ NOTBUILT kselftest/* $(dirname "$kernel")/selftests" >> "$work/abi-build.status"

cp "$srcdir/tests/guest-init.sh" "$root/init"
chmod +x "$root/init"
cat > "$root/etc/fdevents-guest.conf" <<CONF
tests="$GUEST_TESTS"
abi_tests="$abi_tests"
kselftests="$kselftests"
libdir="$libdir"
ldso="${ldso:-/lib64/ld-linux-x86-64.so.2}"
timeout="$FDEVENTS_TEST_TIMEOUT"
interactive="$interactive"
export FDEVENTS_STRESS_SECONDS="${FDEVENTS_STRESS_SECONDS:-60}"
export FDEVENTS_FUZZ_CALLS="${FDEVENTS_FUZZ_CALLS:-1000000}"
${FDEVENTS_FUZZ_SEED:+export FDEVENTS_FUZZ_SEED="$FDEVENTS_FUZZ_SEED"}
${FDEVENTS_SCALE_EXIT_N:+export FDEVENTS_SCALE_EXIT_N="$FDEVENTS_SCALE_EXIT_N"}
CONF
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.cpio.gz" ||
	fail "could not pack the initramfs"

# Software emulation: KVM does not work on the machines this runs on.
set -- -accel tcg -smp 2 -m 1024 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$work/initramfs.cpio.gz"
if [ $interactive = yes ]; then
	exec "$QEMU" "$@" -append "console=ttyS0 panic=-1 loglevel=4"
fi
echo "# booting $kernel in QEMU (software emulation, 2 CPUs); console log: $work/console.log"
timeout "$FDEVENTS_GUEST_TIMEOUT" "$QEMU" "$@" \
	-append "console=ttyS0 panic=-1 loglevel=1" < /dev/null > "$work/console.log" 2>&1
rc=$?
[ $rc = 124 ] && echo "# QEMU killed after $FDEVENTS_GUEST_TIMEOUT s"
awk -v libdir="$libdir" -f "$srcdir/tests/guest-tap.awk" "$work/abi-build.status" "$work/console.log"
