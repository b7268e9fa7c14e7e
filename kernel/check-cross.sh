#!/bin/bash
# make check-cross: the series on an asm-generic architecture and without
# CONFIG_SIGNALFD, where the guest suite cannot look.
#
#   kernel/check-cross.sh [WORKDIR]     (default: ./cross)
#
# 1. arm64 (gcc-aarch64-linux-gnu), tinyconfig + the calls and COMPAT:
#    builds the objects the series touches, the native system call table
#    (asm-generic's list, arch/arm64/kernel/sys.c) and the compat one
#    (sys32.c), and checks that both give timerfd() number 900.
# 2. x86_64 with CONFIG_SIGNALFD=n: kernel/signal.o builds and holds none
#    of the claim helpers.
# Each build is a few objects, not a kernel: a few minutes in all.  The
# source tree is extracted and patched once per series (a stamp holds
# the series' checksum).
#
# SPDX-License-Identifier: GPL-2.0-only
set -uo pipefail
me=check-cross.sh
# shellcheck source=kernel/series-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/series-lib.sh"
work=$(readlink -f "${1:-cross}")
need_tools aarch64-linux-gnu-gcc flex bison bc patch

# --- the patched tree -------------------------------------------------------
read_series
sum=$(cd "$kdir/patches" && cat series "${patches[@]}" | sha256sum | cut -c1-16)
src=$work/linux
if [ "$(cat "$work/stamp" 2>/dev/null)" != "$sum" ]; then
	extract_tree "$work"
	for p in "${patches[@]}"; do
		apply_patch "$src" "$p" || die "$p does not apply"
	done
	echo "$sum" >"$work/stamp"
fi

# --- 1. arm64 ---------------------------------------------------------------
a64=(make -s -C "$src" O="$work/arm64" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- -j"$(nproc)")
"${a64[@]}" tinyconfig || die "arm64 tinyconfig failed"
"$src/scripts/config" --file "$work/arm64/.config" -e EXPERT -e COMPAT -e SIGNALFD \
	-e TIMERFD -e EPOLL -e PROC_FS -e MULTIUSER -e POSIX_TIMERS
"${a64[@]}" olddefconfig || die "arm64 olddefconfig failed"
grep -q '^CONFIG_COMPAT=y' "$work/arm64/.config"
check $? "arm64: tinyconfig with COMPAT, SIGNALFD, TIMERFD"
objs="kernel/signal.o kernel/exit.o kernel/fork.o kernel/sys_ni.o fs/signalfd.o fs/timerfd.o
	fs/exec.o fs/proc/array.o arch/arm64/kernel/sys.o arch/arm64/kernel/sys32.o"
# shellcheck disable=SC2086
"${a64[@]}" $objs
check $? "arm64: $(echo $objs | wc -w) objects the series touches build"
# The tables: entry 900 of the native and the compat table is timerfd().
"${a64[@]}" arch/arm64/kernel/sys.i arch/arm64/kernel/sys32.i || die "arm64: preprocessing the system call tables failed"
for t in sys:sys_call_table sys32:compat_sys_call_table; do
	n=$(tr -d ' \n' <"$work/arm64/arch/arm64/kernel/${t%%:*}.i" |
		grep -o '\[900\]=__arm64_sys_timerfd,' | wc -l)
	[ "$n" = 1 ]
	check $? "arm64: ${t#*:}[900] is __arm64_sys_timerfd"
done

# --- 2. x86_64 without CONFIG_SIGNALFD --------------------------------------
x86=(make -s -C "$src" O="$work/nosignalfd" ARCH=x86_64 -j"$(nproc)")
"${x86[@]}" tinyconfig || die "x86_64 tinyconfig failed"
"$src/scripts/config" --file "$work/nosignalfd/.config" -e 64BIT -d SIGNALFD -e TIMERFD -e PROC_FS
"${x86[@]}" olddefconfig || die "x86_64 olddefconfig failed"
grep -q '^CONFIG_SIGNALFD=y' "$work/nosignalfd/.config"
check $((!$?)) "x86_64: a configuration with CONFIG_SIGNALFD=n"
"${x86[@]}" kernel/signal.o kernel/exit.o fs/exec.o fs/proc/array.o fs/timerfd.o
check $? "x86_64, CONFIG_SIGNALFD=n: kernel/signal.o and the other objects build"
helpers=$(nm "$work/nosignalfd/kernel/signal.o" |
	grep -cE ' (claimed_signal|complete_unclaimed_signals|complete_unclaimed|rearm_unclaimed_timers|take_unclaimed_timers)$' || true)
[ "$helpers" = 0 ]
check $? "x86_64, CONFIG_SIGNALFD=n: no claim helper in kernel/signal.o ($helpers found)"

exit $failed
