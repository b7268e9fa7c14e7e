#!/bin/sh
# Check that a kernel tree with the fdevents series wires timerfd() to
# sys_timerfd in every system call table: number 900 everywhere, and the
# 2.6.22 slot where it survives (alpha 477, ia64 284, mips n32 281, n64
# 277, o32 318, s390 317); also the asm-generic list and arm64's compat
# list, with their table sizes raised.  On trees where those lists are
# generated from tables (6.11 and later: scripts/syscall.tbl and
# arch/arm64/tools/syscall_32.tbl, sized from their highest number), the
# tables are checked instead.  One line per table; exits 1 if any is
# wrong.  build-kernel.sh runs it on the patched tree.
#
#   kernel/check-syscall-tables.sh TREE
#
# SPDX-License-Identifier: GPL-2.0-only
set -u
tree=${1:?usage: check-syscall-tables.sh TREE}
bad=0
checked=0

report() { # status text
	if [ "$1" = 0 ]; then
		echo "ok: $2"
	else
		echo "WRONG: $2"
		bad=1
	fi
	checked=$((checked + 1))
}

# The number a table must give timerfd().
want_nr() {
	case $1 in
	arch/alpha/*) echo 477 ;;
	arch/ia64/*) echo 284 ;;
	arch/mips/*_n32.tbl) echo 281 ;;
	arch/mips/*_n64.tbl) echo 277 ;;
	arch/mips/*_o32.tbl) echo 318 ;;
	arch/s390/*) echo 317 ;;
	*) echo 900 ;;
	esac
}

cd "$tree" || exit 1
tables=$(find arch -name 'syscall*.tbl' | sort)
# the asm-generic architectures' table (6.11 and later)
[ -f scripts/syscall.tbl ] && tables="$tables scripts/syscall.tbl"
[ -n "$tables" ] || { echo "WRONG: no syscall tables under $tree/arch"; exit 1; }
for t in $tables; do
	want=$(want_nr "$t")
	# "NR ABI timerfd ENTRY [COMPAT]": every entry point is sys_timerfd.
	got=$(awk '$1 !~ /^#/ && $3 == "timerfd" {
			ok = 1
			for (i = 4; i <= NF; i++)
				if ($i != "sys_timerfd")
					ok = 0
			print $1 (ok ? "" : " (entry " $4 ")")
		}' "$t")
	[ "$got" = "$want" ]
	report $? "$t: timerfd is ${got:-missing}, want $want wired to sys_timerfd"
done

# The lists that are not generated from a table.  Since 6.11 arm64's
# compat list is generated from arch/arm64/tools/syscall_32.tbl (above).
headers=include/uapi/asm-generic/unistd.h
arm64_list=0
if [ ! -f arch/arm64/tools/syscall_32.tbl ]; then
	headers="$headers arch/arm64/include/asm/unistd32.h"
	arm64_list=1
fi
for h in $headers; do
	grep -q '^#define __NR_timerfd 900$' "$h" &&
		grep -q '^__SYSCALL(__NR_timerfd, sys_timerfd)$' "$h"
	report $? "$h: __NR_timerfd 900 and its __SYSCALL() line"
done
size=$(sed -n 's/^#define __NR_syscalls \([0-9]*\)$/\1/p' include/uapi/asm-generic/unistd.h)
[ "${size:-0}" -gt 900 ]
report $? "include/uapi/asm-generic/unistd.h: __NR_syscalls ${size:-missing} > 900"
if [ $arm64_list = 1 ]; then
	size=$(sed -n 's/^#define __NR_compat_syscalls[[:space:]]*\([0-9]*\)$/\1/p' arch/arm64/include/asm/unistd.h)
	[ "${size:-0}" -gt 900 ]
	report $? "arch/arm64/include/asm/unistd.h: __NR_compat_syscalls ${size:-missing} > 900"
fi

echo "$checked checked, $([ $bad = 0 ] && echo "all right" || echo "some WRONG")"
exit $bad
