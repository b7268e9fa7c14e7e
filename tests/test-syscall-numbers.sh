#!/bin/sh
# The library and the kernel series share one number per new system call:
# src/syscall-numbers.h must say what the series adds to syscall_64.tbl,
# and the uapi constants of the series must equal the library header's.
: "${srcdir:=.}" "${CC:=cc}"
. "$srcdir/tests/tap.sh" || exit 1

patches=$srcdir/kernel/patches
# The number the series gives each call ("+548	64	timerfd	sys_timerfd").
tbl=$(cat "$patches"/*.patch 2>/dev/null |
	awk '/^\+\+\+ .*syscall_64\.tbl/ { on = 1; next }
	     /^diff / { on = 0 }
	     on && /^\+[0-9]/ { sub(/^\+/, ""); print $1, $3 }')
if [ -z "$tbl" ]; then
	not_ok "the series adds entries to syscall_64.tbl (none found in $patches)"
fi
while read -r nr name; do
	[ -n "$nr" ] || continue
	lib=$(printf '#include "syscall-numbers.h"\nFDEVENTS_NR_%s\n' "$name" |
		$CC -E -P -I"$srcdir/src" -x c - | tail -n 1)
	[ "$lib" = "$nr" ]
	point $? "$name is $nr in the series and '$lib' in src/syscall-numbers.h"
done <<EOF
$tbl
EOF

# Constants the series adds to include/uapi/linux/{timerfd,signalfd}.h.
for c in TFD_TIMER_REL TFD_TIMER_ABS TFD_TIMER_SEQ SFD_EXCLUSIVE; do
	k=$(cat "$patches"/*.patch 2>/dev/null |
		sed -n "s/^+#define[[:space:]]*$c[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p" | head -n 1)
	case $c in SFD*) h=signalfd ;; *) h=timerfd ;; esac
	ours=$(printf '#include <sys/%s.h>\n%s\n' "$h" "$c" |
		$CC -E -P -isystem "$srcdir/include" -x c - | tail -n 1)
	if [ -z "$k" ]; then
		not_ok "$c: not defined by the series in $patches"
	else
		kv=$(($k))
		ov=$(($ours))
		[ "$kv" = "$ov" ]
		point $? "$c is $kv in the series and $ov in <sys/$h.h>"
	fi
done
done_testing
