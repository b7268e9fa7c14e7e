#!/bin/sh
# Each library exports exactly the documented functions, all under its own
# version node (LIBSIGNALFD_1.0, LIBTIMERFD_1.0), and nothing else.
: "${top_builddir:=.}"
n=0
fail=0
nm_cmd=${NM:-nm}
nm_cmd=${nm_cmd%% -B*}

check() { # library node symbols...
	name=$1
	lib=$top_builddir/src/.libs/$name.so.1
	node=$2
	shift 2
	want=$(for s in "$@"; do echo "$s@@$node"; done | sort)
	n=$((n + 1))
	if [ ! -e "$lib" ]; then
		echo "not ok $n - $lib not built"
		fail=1
		return
	fi
	got=$($nm_cmd -D --defined-only --with-symbol-versions "$lib" |
		awk '{ print $NF }' | grep -v "^$node\$" | sort)
	if [ "$got" = "$want" ]; then
		echo "ok $n - $name exports exactly:" $want
	else
		echo "not ok $n - $name exports the wrong set"
		echo "$got" | sed 's/^/#   got:  /'
		echo "$want" | sed 's/^/#   want: /'
		fail=1
	fi
	n=$((n + 1))
	soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
	if [ "$soname" = "$name.so.1" ]; then
		echo "ok $n - $name has SONAME $soname"
	else
		echo "not ok $n - $name has SONAME '$soname', want $name.so.1"
		fail=1
	fi
}

check libsignalfd LIBSIGNALFD_1.0 signalfd
check libtimerfd LIBTIMERFD_1.0 timerfd timerfd_create timerfd_gettime timerfd_settime
echo "1..$n"
exit $fail
