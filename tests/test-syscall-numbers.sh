#!/bin/sh
# The library and the kernel series share one number per new system call,
# on every architecture: src/syscall-numbers.h must give each ABI the
# number the series adds to that ABI's system call table (plus the ABI's
# offset), or, for the asm-generic architectures, to
# include/uapi/asm-generic/unistd.h; where the series adds nothing the
# library must define no number.  Each ABI is checked with the compiler
# for it where one is installed (the number as a real build sees it), and
# otherwise by preprocessing the header with that compiler's arch macros
# alone (-undef).  Last, the uapi constants of the series must equal the
# library header's.
: "${srcdir:=.}" "${CC:=cc}"
. "$srcdir/tests/tap.sh" || exit 1

patches=$srcdir/kernel/patches
series=$(cat "$patches"/*.patch 2>/dev/null)
if [ -z "$series" ]; then
	bail "no kernel series in $patches"
fi

# timerfd's number in one table of the series: the lines it adds to the
# file ending in $1 whose ABI is one of $2 (a |-list) and whose entry is
# sys_timerfd ("+900	common	timerfd	sys_timerfd",
# "+477 common timerfd sys_timerfd"), or, for a uapi header, its
# "+#define __NR_timerfd N".
series_nr() { # file abis
	printf '%s\n' "$series" | awk -v file="$1" -v abis="|$2|" '
		/^diff / { on = 0 }
		/^\+\+\+ / { on = substr($2, length($2) - length(file) + 1) == file; next }
		!on { next }
		/^\+#define[ \t]+__NR_timerfd[ \t]/ { print $3; exit }
		/^\+[0-9]/ && $3 == "timerfd" && $4 != "sys_ni_syscall" &&
		    index(abis, "|" $2 "|") { sub(/^\+/, "", $1); print $1; exit }'
}

# The library's number as compiler $1 (a command) sees it with flags $2.
library_nr() { # cc flags
	# shellcheck disable=SC2086 # the flags are words
	printf '#include "syscall-numbers.h"\n#ifdef FDEVENTS_NR_timerfd\nFDEVENTS_NR_timerfd\n#else\nnone\n#endif\n' |
		$1 -E -P $2 -I"$srcdir/src" -x c - 2>/dev/null | awk 'NF { l = $0 } END { print l }'
}

# One ABI: name, how to compile for it, the table and its ABI column, and
# the offset of its numbers.  "cc:" names a cross compiler that is used
# when installed (else the arch macros are used); "host:" means $CC when
# it targets this ABI.
abis='
x86_64|host:__x86_64__ __LP64__|-D__x86_64__ -D__LP64__|arch/x86/entry/syscalls/syscall_64.tbl|common|64|0
x32|cc:x86_64-linux-gnux32-gcc|-D__x86_64__ -D__ILP32__|arch/x86/entry/syscalls/syscall_64.tbl|common|x32|0x40000000
i386|cc:i686-linux-gnu-gcc|-D__i386__|arch/x86/entry/syscalls/syscall_32.tbl|i386|0
aarch64|cc:aarch64-linux-gnu-gcc|-D__aarch64__|include/uapi/asm-generic/unistd.h|-|0
arm (EABI)|cc:arm-linux-gnueabihf-gcc|-D__arm__ -D__ARM_EABI__|arch/arm/tools/syscall.tbl|common|eabi|0
arm (EABI, arm64 compat)|cc:arm-linux-gnueabihf-gcc|-D__arm__ -D__ARM_EABI__|arch/arm64/include/asm/unistd32.h|-|0
riscv64|cc:riscv64-linux-gnu-gcc|-D__riscv -D__riscv_xlen=64|include/uapi/asm-generic/unistd.h|-|0
loongarch64|cc:loongarch64-linux-gnu-gcc|-D__loongarch__ -D__loongarch64|include/uapi/asm-generic/unistd.h|-|0
powerpc|cc:powerpc-linux-gnu-gcc|-D__powerpc__|arch/powerpc/kernel/syscalls/syscall.tbl|common|32|nospu|0
powerpc64|cc:powerpc64le-linux-gnu-gcc|-D__powerpc__ -D__powerpc64__|arch/powerpc/kernel/syscalls/syscall.tbl|common|64|nospu|0
sparc64|cc:sparc64-linux-gnu-gcc|-D__sparc__ -D__arch64__|arch/sparc/kernel/syscalls/syscall.tbl|common|64|0
sparc|-|-D__sparc__|arch/sparc/kernel/syscalls/syscall.tbl|common|32|0
m68k|cc:m68k-linux-gnu-gcc|-D__m68k__|arch/m68k/kernel/syscalls/syscall.tbl|common|0
microblaze|-|-D__microblaze__|arch/microblaze/kernel/syscalls/syscall.tbl|common|0
parisc|cc:hppa-linux-gnu-gcc|-D__hppa__|arch/parisc/kernel/syscalls/syscall.tbl|common|32|0
sh|cc:sh4-linux-gnu-gcc|-D__sh__|arch/sh/kernel/syscalls/syscall.tbl|common|0
xtensa|-|-D__xtensa__|arch/xtensa/kernel/syscalls/syscall.tbl|common|0
alpha|cc:alpha-linux-gnu-gcc|-D__alpha__|arch/alpha/kernel/syscalls/syscall.tbl|common|0
ia64|-|-D__ia64__|arch/ia64/kernel/syscalls/syscall.tbl|common|1024
mips o32|cc:mipsel-linux-gnu-gcc|-D__mips__ -D_ABIO32=1 -D_ABIN32=2 -D_ABI64=3 -D_MIPS_SIM=_ABIO32|arch/mips/kernel/syscalls/syscall_o32.tbl|o32|4000
mips n64|cc:mips64el-linux-gnuabi64-gcc|-D__mips__ -D_ABIO32=1 -D_ABIN32=2 -D_ABI64=3 -D_MIPS_SIM=_ABI64|arch/mips/kernel/syscalls/syscall_n64.tbl|common|n64|5000
mips n32|-|-D__mips__ -D_ABIO32=1 -D_ABIN32=2 -D_ABI64=3 -D_MIPS_SIM=_ABIN32|arch/mips/kernel/syscalls/syscall_n32.tbl|n32|6000
s390 (31-bit)|-|-D__s390__|arch/s390/kernel/syscalls/syscall.tbl|common|32|0
s390x|cc:s390x-linux-gnu-gcc|-D__s390__ -D__s390x__|arch/s390/kernel/syscalls/syscall.tbl|common|64|0
'

host_macros=$(echo | $CC -dM -E -x c - 2>/dev/null)
host_defines() { # macros: all of them defined by $CC
	for m in "$@"; do
		printf '%s\n' "$host_macros" | grep -q "^#define $m " || return 1
	done
}

compiled=
printf '%s\n' "$abis" > "${TMPDIR:-/tmp}/fdevents-abis.$$"
trap 'rm -f "${TMPDIR:-/tmp}/fdevents-abis.$$"' EXIT
while IFS='|' read -r name how macros table rest; do
	[ -n "$name" ] || continue
	offset=${rest##*|}
	abicol=${rest%|*}
	nr=$(series_nr "$table" "$abicol")
	if [ -n "$nr" ]; then
		want=$((nr + offset))
		what="$name: the series has $nr in $table"
		[ "$offset" = 0 ] || what="$what, +$offset"
	else
		want=none
		what="$name: the series adds nothing to $table, so no number"
	fi
	# The compiler that decides.
	cc=
	case $how in
	host:*)
		# shellcheck disable=SC2086 # a list of macros
		if host_defines ${how#host:}; then
			cc=$CC
		fi ;;
	cc:*)
		if command -v "${how#cc:}" >/dev/null 2>&1; then
			cc=${how#cc:}
		fi ;;
	esac
	if [ -n "$cc" ]; then
		got=$(library_nr "$cc" "")
		via="$cc"
		compiled="$compiled $name"
	else
		got=$(library_nr "$CC" "-undef $macros")
		via="$macros"
	fi
	[ "$got" = none ] || got=$(($got))
	[ "$got" = "$want" ]
	point $? "$what; src/syscall-numbers.h gives $got ($via)"
done < "${TMPDIR:-/tmp}/fdevents-abis.$$"
diag "checked with a real compiler:${compiled:- none}"

# A compiler for none of the ABIs above gets no number, whatever it is.
got=$(library_nr "$CC" "-undef")
point "$([ "$got" = none ]; echo $?)" \
	"an unknown architecture gets no number (src/syscall-numbers.h gives $got)"

# Constants the series adds to include/uapi/linux/{timerfd,signalfd}.h.
for c in TFD_TIMER_REL TFD_TIMER_ABS TFD_TIMER_SEQ SFD_EXCLUSIVE; do
	k=$(printf '%s\n' "$series" |
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
