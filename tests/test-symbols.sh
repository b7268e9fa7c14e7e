#!/bin/sh
# Each library exports exactly the documented functions, all under its own
# version node (LIBSIGNALFD_1.0, LIBTIMERFD_1.0), and nothing else; on
# targets whose time_t has a 32-bit and a 64-bit width, libtimerfd also
# exports the 64-bit-time entry points (__timerfd_settime64, ...).
: "${srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
. "$srcdir/tests/tap.sh" || exit 1
nm_cmd=${NM:-nm}
nm_cmd=${nm_cmd%% -B*}

check() { # library node symbols...
	name=$1
	lib=$top_builddir/src/.libs/$name.so.1
	node=$2
	shift 2
	want=$(for s in "$@"; do echo "$s@@$node"; done | sort)
	if [ ! -e "$lib" ]; then
		not_ok "$lib not built"
		return
	fi
	got=$($nm_cmd -D --defined-only --with-symbol-versions "$lib" |
		awk '{ print $NF }' | grep -v "^$node\$" | sort)
	if [ "$got" = "$want" ]; then
		# Unquoted: the symbols on one line.
		ok "$name exports exactly:" $want
	else
		not_ok "$name exports the wrong set"
		echo "$got" | sed 's/^/  got:  /' | diag
		echo "$want" | sed 's/^/  want: /' | diag
	fi
	# readelf reads every architecture's ELF files; objdump only its own.
	soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
	if [ "$soname" = "$name.so.1" ]; then
		ok "$name has SONAME $soname"
	else
		not_ok "$name has SONAME '$soname', want $name.so.1"
	fi
}

check libsignalfd LIBSIGNALFD_1.0 signalfd
timesize=$(printf '#include <time.h>\n__TIMESIZE\n' | $CC -E -P -x c - 2>/dev/null | tail -n 1)
if [ "$timesize" = 32 ]; then
	diag "time_t: 32 bits, and 64 with _TIME_BITS=64"
	check libtimerfd LIBTIMERFD_1.0 timerfd timerfd_create timerfd_gettime \
		timerfd_settime __timerfd64 __timerfd_gettime64 __timerfd_settime64
else
	diag "time_t: one width (__TIMESIZE is '$timesize')"
	check libtimerfd LIBTIMERFD_1.0 timerfd timerfd_create timerfd_gettime timerfd_settime
fi
done_testing
