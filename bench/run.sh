#!/bin/sh
# make bench: the fdevents benchmarks, side by side.
#
# Boots the patched kernel (kernel/patches/series) and the baseline kernel
# (the same tree and configuration without the series) in QEMU under
# software emulation, runs the same static benchmark program in both,
# counts the wrappers' instructions on the host with callgrind, and prints
# one table of ratios: median and min-max over BENCH_REPS repetitions.
# Ratios are of two kernels booted in this run, or of two methods in the
# same guest; nothing here passes or fails on a time.  See bench/README.md.
#
# Environment:
#   BENCH_REPS=5       repetitions of every measurement (at least 5)
#   BENCH_MS=300       how long each timed loop runs, in the guest's ms
#   BENCH_SMP=1        guest CPUs (every benchmark is one thread at a time;
#                      one emulated CPU competes less with the host's jobs)
#   BENCH_TIMEOUT=1500 seconds before a guest is killed
#   BENCH_ICOUNT=1     run the guests with -icount shift=0,sleep=off: the
#                      guest's clock counts executed instructions (1 ns
#                      each), so a figure is a count of instructions, alike
#                      from boot to boot whatever else the host runs; 0
#                      times emulated wall-clock time instead (noisy)
#   BENCH_CONFIG_DIR   kernel configuration fragments (default kernel/config),
#                      used less debug.config (the checkers of make check's
#                      kernel, KASAN above all, would weigh more than the
#                      code measured) and plus bench/kernel.config (-O2)
#   BENCH_DEBUG=1      keep debug.config: measure make check's own kernel
#                      (cached by make check, so nothing more to build)
#   KBUILD_LOCK        a file to flock(1) around each kernel build and
#                      each guest run (a machine shared with other
#                      builders: no kernel build runs while we measure;
#                      a guest waits BENCH_LOCK_WAIT=120 s for it at most)
#   BENCH_KERNEL_PATCHED, BENCH_KERNEL_BASELINE
#                      use these bzImages instead of building them
#   BENCH_ONLY         some of the benchmarks, by name (default: all of
#                      "$all_benchmarks" below), for a quick look at a
#                      few rows; the table then has only theirs
#   KERNEL=6.1         the tree, passed to build-kernel.sh --tree: 6.1
#                      (kernel/patches) or 6.12 (kernel/patches-6.12)
#   QEMU, BUSYBOX, CC  tools (default qemu-system-x86_64, /bin/busybox, cc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${srcdir:=$(dirname "$here")}" "${top_builddir:=.}"
: "${QEMU:=qemu-system-x86_64}" "${BUSYBOX:=/bin/busybox}" "${CC:=cc}"
: "${BENCH_REPS:=5}" "${BENCH_MS:=300}" "${BENCH_SMP:=1}"
: "${BENCH_TIMEOUT:=1500}" "${BENCH_CONFIG_DIR:=$srcdir/kernel/config}"
: "${BENCH_ICOUNT:=1}"
: "${KBUILD_LOCK:=}" "${BENCH_LOCK_WAIT:=120}" "${KERNEL:=6.1}"
all_benchmarks="fanout excl kill tfdcycle tfdmany batch threads memory idle teardown reap fork"
benchmarks=${BENCH_ONLY:-$all_benchmarks}
wrapped_calls="signalfd timerfd_settime timerfd_gettime"

fail() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

[ "$BENCH_REPS" -ge 5 ] 2>/dev/null || fail "BENCH_REPS must be 5 or more"
for b in $benchmarks; do
	case " $all_benchmarks " in
	*" $b "*) ;;
	*) fail "BENCH_ONLY: no benchmark '$b' (there are: $all_benchmarks)" ;;
	esac
done
case $BENCH_ICOUNT in
1) clock="-icount shift=0,sleep=off" ;;
0) clock= ;;
*) fail "BENCH_ICOUNT must be 1 (count instructions) or 0 (time)" ;;
esac
command -v "$QEMU" >/dev/null 2>&1 ||
	fail "qemu-system-x86_64 not found: install it with: apt-get install qemu-system-x86"
[ -x "$BUSYBOX" ] && ! LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP ||
	fail "no statically linked busybox at $BUSYBOX: install it with: apt-get install busybox-static"
command -v cpio >/dev/null 2>&1 || fail "cpio not found: install it with: apt-get install cpio"
command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1 ||
	fail "valgrind not found: install it with: apt-get install valgrind"

out=$(mkdir -p "$top_builddir/bench/out" && cd "$top_builddir/bench/out" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
srcdir=$(cd "$srcdir" && pwd)
started=$(date +%s)
if [ "${BENCH_DEBUG:-0}" != 1 ]; then
	# the same fragments less the debugging ones
	rm -rf "$out/config-nodebug"
	mkdir -p "$out/config-nodebug"
	for f in "$BENCH_CONFIG_DIR"/*.config; do
		case ${f##*/} in debug.config) continue ;; esac
		cp "$f" "$out/config-nodebug/"
	done
	# -O2, as distribution kernels are built
	cp "$srcdir/bench/kernel.config" "$out/config-nodebug/zz-bench.config"
	BENCH_CONFIG_DIR=$out/config-nodebug
fi

# --- the two kernels ---------------------------------------------------------
build_kernel() { # label [--baseline]
	say "kernel ($1): kernel/build-kernel.sh --tree $KERNEL $2 (cached; a first build takes several minutes)"
	# A cached kernel prints its path at once: take it without waiting
	# for the lock (a build that starts instead is stopped and cleans up).
	if [ -n "$KBUILD_LOCK" ] &&
		timeout 15 "$srcdir/kernel/build-kernel.sh" --tree "$KERNEL" $2 \
			--config-dir "$BENCH_CONFIG_DIR" > "$out/kernel-$1.path" 2>/dev/null &&
		[ -f "$(tail -n 1 "$out/kernel-$1.path")" ]; then
		:
	elif [ -n "$KBUILD_LOCK" ]; then
		flock "$KBUILD_LOCK" "$srcdir/kernel/build-kernel.sh" --tree "$KERNEL" $2 \
			--config-dir "$BENCH_CONFIG_DIR" > "$out/kernel-$1.path"
	else
		"$srcdir/kernel/build-kernel.sh" --tree "$KERNEL" $2 \
			--config-dir "$BENCH_CONFIG_DIR" > "$out/kernel-$1.path"
	fi || fail "building the $1 kernel failed"
	tail -n 1 "$out/kernel-$1.path"
}
patched=${BENCH_KERNEL_PATCHED:-$(build_kernel patched "")} || exit 1
baseline=${BENCH_KERNEL_BASELINE:-$(build_kernel baseline --baseline)} || exit 1
[ -f "$patched" ] && [ -f "$baseline" ] || fail "no kernel image"

# --- the guest's program: static, with the library's own sources ----------
say "compiling bench/fdbench (static)"
"$CC" -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread -isystem "$srcdir/include" \
	-o "$out/fdbench" "$srcdir/bench/fdbench.c" \
	"$srcdir/src/signalfd.c" "$srcdir/src/timerfd.c" 2> "$out/fdbench.log" ||
	{ cat "$out/fdbench.log" >&2
	  fail "compiling fdbench failed (a static link needs libc6-dev's libc.a)"; }

"$CC" -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
	-o "$out/signalfd-wakeups" "$srcdir/bench/signalfd-wakeups.c" 2>> "$out/fdbench.log" ||
	{ cat "$out/fdbench.log" >&2; fail "compiling signalfd-wakeups failed"; }

# --- the initramfs: busybox, fdbench, the init script --------------------
root=$out/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/etc" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/bench"
cp "$BUSYBOX" "$root/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$out/fdbench" "$out/signalfd-wakeups" "$root/bench/"
cp "$srcdir/bench/guest-init.sh" "$root/init"
chmod +x "$root/init"

boot() { # label kernel
	rm -f "$out/lock-$1.note"
	cat > "$root/etc/bench.conf" <<CONF
label=$1
reps=$BENCH_REPS
BENCH_MS=$BENCH_MS
benchmarks="$benchmarks"
timeout=600
CONF
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs-$1.cpio.gz" ||
		fail "could not pack the initramfs"
	say "booting the $1 kernel in QEMU (software emulation, $BENCH_SMP CPUs): $BENCH_REPS x ($benchmarks); log: $out/console-$1.log"
	t0=$(date +%s)
	(
		# Hold the build lock while measuring, if it comes within
		# BENCH_LOCK_WAIT seconds; otherwise measure anyway, and say so.
		if [ -n "$KBUILD_LOCK" ] && ! flock -w "$BENCH_LOCK_WAIT" 9; then
			say "$KBUILD_LOCK still busy after $BENCH_LOCK_WAIT s: measuring the $1 kernel while another job runs"
			echo "lock busy" > "$out/lock-$1.note"
		fi
		# shellcheck disable=SC2086 # $clock is empty or several words
		exec timeout "$BENCH_TIMEOUT" "$QEMU" -accel tcg $clock -smp "$BENCH_SMP" -m 1024 \
			-nographic -no-reboot -kernel "$2" -initrd "$out/initramfs-$1.cpio.gz" \
			-append "console=ttyS0 panic=-1 loglevel=1" \
			< /dev/null > "$out/console-$1.log" 2>&1
	) 9>>"${KBUILD_LOCK:-/dev/null}"
	[ $? = 124 ] && say "QEMU ($1) killed after $BENCH_TIMEOUT s"
	grep -q '^@@@ DONE' "$out/console-$1.log" ||
		say "the $1 guest did not finish: see $out/console-$1.log"
	say "the $1 guest took $(( $(date +%s) - t0 )) s"
}
boot baseline "$baseline"
boot patched "$patched"

# --- the wrappers' instructions, on the host -------------------------------
lib=$top_builddir/src/.libs
[ -f "$lib/libsignalfd.so" ] && [ -f "$lib/libtimerfd.so" ] ||
	fail "$lib/libsignalfd.so and libtimerfd.so not found: run make first (make bench does)"
say "counting the wrappers' instructions with callgrind"
"$CC" -std=gnu11 -O2 -Wall -Wextra -Werror -isystem "$srcdir/include" \
	-o "$out/wrapcost" "$srcdir/bench/wrapcost.c" -L"$lib" -lsignalfd -ltimerfd -ldl \
	-Wl,-rpath,"$lib" 2> "$out/wrapcost.log" ||
	{ cat "$out/wrapcost.log" >&2; fail "compiling wrapcost failed"; }
# Instructions executed inside the wrapper (and whatever it calls), per
# call: callgrind collects only while the function runs (--toggle-collect),
# and the difference of a run with 2N calls and one with N cancels the
# setup's calls.  LD_BIND_NOW keeps the lazy binder out.
ir() { # impl call calls
	LD_BIND_NOW=1 valgrind --tool=callgrind --toggle-collect="$2" \
		--callgrind-out-file="$out/cg.out" \
		"$out/wrapcost" "$1" "$2" "$3" > /dev/null 2>&1 || return 1
	awk '/^summary:/ { print $2 }' "$out/cg.out"
}
{
	echo "@@@ KERNEL host $(uname -r) CPUS $(nproc)"
	rep=1
	while [ "$rep" -le "$BENCH_REPS" ]; do
		echo "@@@ REP $rep wrap"
		for call in $wrapped_calls; do
			for impl in ours glibc; do
				a=$(ir $impl $call 10000) && b=$(ir $impl $call 20000) &&
					[ -n "$a" ] && [ -n "$b" ] &&
					echo "@@@ R wrap.$impl.$call $(( (b - a) / 10000 ))" ||
					echo "@@@ R wrap.$impl.$call failed"
			done
		done
		rep=$((rep + 1))
	done
} > "$out/host.log"

# --- the table ---------------------------------------------------------------
{
	echo "fdevents benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), host $(uname -n): $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guests: $QEMU -accel tcg${clock:+ $clock} -smp $BENCH_SMP ($([ -n "$clock" ] && echo "times are instruction counts, 1 ns each" || echo "times are emulated wall-clock time")); kernels: baseline $(dirname "$baseline" | xargs basename), patched $(dirname "$patched" | xargs basename)"
	for k in baseline patched; do
		if [ -z "$KBUILD_LOCK" ]; then echo "$k guest: measured with no build lock (KBUILD_LOCK unset)"
		elif [ -f "$out/lock-$k.note" ]; then echo "$k guest: measured while another job held $KBUILD_LOCK (noisier)"
		else echo "$k guest: measured holding $KBUILD_LOCK (no kernel build ran meanwhile)"; fi
	done
	awk -v reps="$BENCH_REPS" -f "$srcdir/bench/report.awk" \
		label=baseline "$out/console-baseline.log" \
		label=patched "$out/console-patched.log" \
		label=host "$out/host.log"
	echo "(make bench took $(( $(date +%s) - started )) s; raw logs in $out)"
} > "$out/table.txt"
cat "$out/table.txt"
