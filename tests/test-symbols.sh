#!/bin/sh
# Each library exports exactly the documented functions, all under its own
# version node (LIBSIGNALFD_1.0, LIBTIMERFD_1.0), and nothing else.
: "${srcdir:=.}" "${top_builddir:=.}"
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
	soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
	if [ "$soname" = "$name.so.1" ]; then
		ok "$name has SONAME $soname"
	else
		not_ok "$name has SONAME '$soname', want $name.so.1"
	fi
}

check libsignalfd LIBSIGNALFD_1.0 signalfd
check libtimerfd LIBTIMERFD_1.0 timerfd timerfd_create timerfd_gettime timerfd_settime
done_testing
