#!/bin/bash
# make check-series: every patch of the series builds on its own.
#
#   kernel/check-series.sh [--tree 6.1|6.12] [WORKDIR]
#                                        (default: 6.1, ./series-check)
#
# Extracts linux-source-V (6.1 by default), builds an x86_64 tinyconfig
# kernel with what the series touches switched on (signalfd, timerfd,
# epoll, /proc, POSIX timers, the tty layer, i386 and x32 entry), then
# applies the patches of the tree's series (kernel/patches/series or
# kernel/patches-6.12/series) one at a time and rebuilds vmlinux after
# each, in the same tree: make recompiles only what a patch changed, so
# the whole check costs a kernel build and a few incremental ones.  A
# patch that touches only tools/ (the kselftests) is applied and checked
# to leave the kernel alone; build-kernel.sh builds the selftests
# themselves.
# Booting each step is not checked here.
#
# SPDX-License-Identifier: GPL-2.0-only
set -uo pipefail
me=check-series.sh
# shellcheck source=kernel/series-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/series-lib.sh"
case ${1:-} in
--tree) [ $# -ge 2 ] || die "--tree needs a version"; set_tree "$2"; shift 2 ;;
--tree=*) set_tree "${1#*=}"; shift ;;
esac
work=$(readlink -f "${1:-series-check}")
need_tools gcc make flex bison bc patch
read_series
extract_tree "$work"
src=$work/linux

kmake=(make -s -C "$src" O="$work/build" ARCH=x86_64 -j"$(nproc)")
"${kmake[@]}" tinyconfig >"$work/config.log" 2>&1 || die "tinyconfig failed (see $work/config.log)"
"$src/scripts/config" --file "$work/build/.config" -e 64BIT -e EXPERT -e MULTIUSER \
	-e SIGNALFD -e TIMERFD -e EPOLL -e PROC_FS -e POSIX_TIMERS -e TTY -e PRINTK \
	-e IA32_EMULATION -e X86_X32_ABI -e COMPAT_32BIT_TIME -e BINFMT_ELF
"${kmake[@]}" olddefconfig >>"$work/config.log" 2>&1 || die "olddefconfig failed (see $work/config.log)"
for opt in SIGNALFD TIMERFD IA32_EMULATION X86_X32_ABI; do
	grep -q "^CONFIG_$opt=y" "$work/build/.config" || die "tinyconfig could not enable CONFIG_$opt"
done

start=$(date +%s)
"${kmake[@]}" vmlinux >"$work/build-0000.log" 2>&1
check $? "the unpatched tree builds ($(($(date +%s) - start)) s; log: $work/build-0000.log)"
[ $failed = 0 ] || exit 1

for p in "${patches[@]}"; do
	n=${p%%-*}
	apply_patch "$src" "$p" || { check 1 "$p applies"; exit 1; }
	if ! grep -E '^\+\+\+ b/' "$patch_dir/$p" | grep -qvE '^\+\+\+ b/(tools/|MAINTAINERS$)'; then
		check 0 "$p touches only tools/ and MAINTAINERS (the kselftests: build-kernel.sh builds them)"
		continue
	fi
	start=$(date +%s)
	"${kmake[@]}" vmlinux >"$work/build-$n.log" 2>&1
	status=$?
	check $status "$p: vmlinux builds ($(($(date +%s) - start)) s; log: $work/build-$n.log)"
	[ $status = 0 ] || exit 1
	# Only what the patch changed was recompiled (and vmlinux relinked):
	# a warning the unpatched build did not print is the patch's.
	warn=$(grep 'warning:' "$work/build-$n.log" |
		grep -cvxFf <(grep 'warning:' "$work/build-0000.log"))
	[ "$warn" = 0 ]
	check $? "$p: no compiler warning in what it rebuilt ($warn found)"
done
exit $failed
