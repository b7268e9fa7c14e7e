#!/bin/sh
# The guest half of make check: boot the patched kernel in QEMU (software
# emulation, 2 CPUs) with a busybox initramfs that holds the library as
# `make install DESTDIR=...' installs it and the test programs, run the
# programs of GUEST_TESTS there, and print their results as one TAP stream.
# GUEST_ARCH=x86_64 (the default) boots qemu-system-x86_64 with this
# build's programs; GUEST_ARCH=arm64 boots qemu-system-aarch64 (-M virt)
# with the library and the programs cross-compiled for aarch64
# (tests/guest-cross-build.sh) and Debian's arm64 busybox
# (tests/guest-busybox.sh).
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
# FDEVENTS_GUEST_ABIS (x86_64: i386 i386-time64 x32; arm64: armhf
# armhf-time64; tests/abi-build.sh) and run after GUEST_TESTS; their TAP
# lines start with the ABI ("x32: ...").
# An entry PROGRAM@ABI,ABI of GUEST_ABI_TESTS is built for those ABIs only.
set -u
: "${srcdir:=.}" "${top_builddir:=.}" "${abs_top_builddir:=$(pwd)}"
: "${BUSYBOX:=/bin/busybox}" "${MAKE:=make}" "${GUEST_ARCH:=x86_64}"
: "${prefix:=/usr/local}" "${libdir:=/usr/local/lib}" "${GUEST_TESTS:=}" "${GUEST_SUITE:=yes}"
: "${GUEST_ABI_TESTS:=}"
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
# What differs between the guest architectures: QEMU and its machine, the
# serial console, the other ABIs of the kernel, and where the programs
# and their C library come from (cross: the GNU triplet they are
# cross-compiled for, empty for this machine's own; sysroot: that
# triplet's C library).  Each has its own time limits: arm64's emulation
# is slower.
case $GUEST_ARCH in
x86_64)
	: "${QEMU:=qemu-system-x86_64}" "${FDEVENTS_GUEST_ABIS=i386 i386-time64 x32}"
	# A slower machine ran the 100 000-waiter reap of test-signalfd-scale
	# past 900 s, and the whole suite to 2156 s.
	: "${FDEVENTS_TEST_TIMEOUT:=1800}" "${FDEVENTS_GUEST_TIMEOUT:=4800}"
	qemu_pkg=qemu-system-x86 machine='' console=ttyS0 cross='' ;;
arm64)
	# -cpu max: every AArch64 feature QEMU has, and AArch32 at EL0;
	# pauth-impdef: its fast pointer-authentication hash, not QARMA,
	# which would spend much of the emulation on every function return.
	# (QEMU, which configure sets, names the x86_64 one: QEMU_ARM64.)
	QEMU=${QEMU_ARM64:-qemu-system-aarch64}
	: "${FDEVENTS_GUEST_ABIS=armhf armhf-time64}"
	# The 100 000-waiter reap of test-signalfd-scale ran past 900 s here
	# under arm64 emulation with a kernel build beside it.
	: "${FDEVENTS_TEST_TIMEOUT:=1800}" "${FDEVENTS_GUEST_TIMEOUT:=4800}"
	qemu_pkg=qemu-system-arm machine="-M virt -cpu max,pauth-impdef=on"
	console=ttyAMA0 cross=aarch64-linux-gnu sysroot=/usr/aarch64-linux-gnu ;;
*) fail "GUEST_ARCH=$GUEST_ARCH: not a guest architecture (x86_64 or arm64)" ;;
esac
command -v "$QEMU" >/dev/null 2>&1 ||
	fail "$QEMU not found: install it with: apt-get install $qemu_pkg"
if [ -n "$cross" ]; then
	BUSYBOX=$(sh "$srcdir/tests/guest-busybox.sh" "$GUEST_ARCH") || fail "$BUSYBOX"
fi
[ -f "$BUSYBOX" ] && ! LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP ||
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

# Another architecture's library and programs: built in their own tree
# (kept in tests/guest-ARCH/ for a look), which the rest then reads.
programs=$top_builddir
if [ -n "$cross" ]; then
	programs=$abs_top_builddir/tests/guest-$GUEST_ARCH/build
	echo "# cross-compiling the library and GUEST_TESTS for $cross in tests/guest-$GUEST_ARCH"
	why=$(prefix=$prefix libdir=$libdir sh "$srcdir/tests/guest-cross-build.sh" "$cross" \
		"$abs_top_builddir/tests/guest-$GUEST_ARCH" $GUEST_TESTS) || fail "$why"
fi

# The library, installed exactly as a user installs it.
"$MAKE" -C "$programs" install DESTDIR="$root" > "$work/install.log" 2>&1 ||
	fail "make install DESTDIR=$root failed: see $work/install.log"

# busybox; its applets' links are made by /init (busybox --install), which
# a busybox of another architecture than this machine's can run there.
cp "$BUSYBOX" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"

# The C library files a program loads (not our libraries: those come from
# the installation above): ldd's list for this machine's programs; for
# another architecture's, the NEEDED entries, followed, in the cross
# compiler's C library.  Sets ldso to the loader.
ldso=
copy_libs() { # program
	LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q INTERP || return 0
	if [ -z "$cross" ]; then
		libs=$(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
	else
		interp=$(LC_ALL=C readelf -l "$1" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
		libs=$interp
		needed=$1
		while [ -n "$needed" ]; do
			next=
			for n in $(LC_ALL=C readelf -d $needed | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
				case " $libs " in *"/$cross/$n "*) continue ;; esac
				[ -f "$sysroot/lib/$n" ] || continue # ours, or missing: ldd would say
				libs="$libs /lib/$cross/$n"
				next="$next $sysroot/lib/$n"
			done
			needed=$next
		done
	fi
	for lib in $libs; do
		case $lib in */libsignalfd.so*|*/libtimerfd.so*) continue ;; esac
		case $lib in */ld-linux*) ldso=$lib ;; esac
		mkdir -p "$root$(dirname "$lib")"
		src=$lib
		[ -z "$cross" ] || src=$sysroot/lib/${lib##*/}
		[ -e "$root$lib" ] || cp -L "$src" "$root$lib"
	done
}

# The test programs, and the C library files they load.
for t in $GUEST_TESTS; do
	mkdir -p "$root/tests/$(dirname "$t")"
	cp "$programs/$t" "$root/tests/$t" || fail "test program $t was not built"
	copy_libs "$programs/$t"
done
# x86_64's loader is also reached through the canonical /lib64 path.
if [ -z "$cross" ] && [ -n "$ldso" ] && [ ! -e "$root/lib64/ld-linux-x86-64.so.2" ]; then
	mkdir -p "$root/lib64"
	cp -L "$ldso" "$root/lib64/ld-linux-x86-64.so.2"
fi

# The same tests for the kernel's other ABIs (i386 and x32, or armhf),
# static: built in tests/guest-abi/ABI (kept between runs; only what
# changed is rebuilt), one ABI per job.  A
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
set -- $machine -accel tcg -smp 2 -m 1024 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$work/initramfs.cpio.gz"
if [ $interactive = yes ]; then
	exec "$QEMU" "$@" -append "console=$console panic=-1 loglevel=4"
fi
echo "# booting $kernel in $QEMU (software emulation, 2 CPUs); console log: $work/console.log"
timeout "$FDEVENTS_GUEST_TIMEOUT" "$QEMU" "$@" \
	-append "console=$console panic=-1 loglevel=1" < /dev/null > "$work/console.log" 2>&1
rc=$?
[ $rc = 124 ] && echo "# QEMU killed after $FDEVENTS_GUEST_TIMEOUT s"
awk -v libdir="$libdir" -f "$srcdir/tests/guest-tap.awk" "$work/abi-build.status" "$work/console.log"
