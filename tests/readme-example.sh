#!/bin/sh
# README.md's example program, as a reader copies it out: it compiles
# without a warning under Debian's usual -O2 -D_FORTIFY_SOURCE=2 and
# -Wall -Wextra -Werror, links against the shared libraries and, with
# -static, against the archives; and the static program runs: once it
# has blocked SIGINT, a SIGINT makes it say so and exit 0.
: "${srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
. "$srcdir/tests/tap.sh" || exit 1

work=$top_builddir/tests/readme-example.d
rm -rf "$work" && mkdir -p "$work" || bail "cannot make $work"
# The first ```c block under the heading "## Use the library".
awk '/^## Use the library/ { section = 1; next }
     section && /^## / { exit }
     section && /^```c$/ { code = 1; next }
     code && /^```$/ { exit }
     code { print }' "$srcdir/README.md" > "$work/example.c"
[ -s "$work/example.c" ] ||
	bail "README.md has no \`\`\`c block under \"## Use the library\""

flags="-O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra -Werror"
libs="-L$top_builddir/src/.libs -lsignalfd -ltimerfd"
# shellcheck disable=SC2086 # the flags are words
$CC $flags -isystem "$srcdir/include" -o "$work/example" "$work/example.c" \
	$libs > "$work/shared.log" 2>&1
point $? "builds with $flags, shared libraries" || diag < "$work/shared.log"
# shellcheck disable=SC2086
$CC $flags -isystem "$srcdir/include" -static -o "$work/example-static" \
	"$work/example.c" $libs > "$work/static.log" 2>&1
point $? "builds with -static against libsignalfd.a and libtimerfd.a" ||
	diag < "$work/static.log"

if [ -n "${TEST_EMULATOR:-}" ]; then
	skip 1 "the run waits for SIGINT in the program's SigBlk, which under $TEST_EMULATOR shows the emulator's mask"
elif [ ! -x "$work/example-static" ]; then
	skip 1 "the static program was not built"
else
	"$work/example-static" > "$work/out" 2>&1 &
	pid=$!
	# SIGINT is signal 2: bit 1 of SigBlk once the program blocked it.
	tries=0
	until grep -q '^SigBlk:.*[2367abef]$' "/proc/$pid/status" 2>/dev/null ||
		[ $tries -ge 300 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	kill -INT "$pid" 2>/dev/null
	tries=0
	while kill -0 "$pid" 2>/dev/null && [ $tries -lt 300 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	status=$?
	grep -q '^SIGINT from pid [0-9]*, bye$' "$work/out" && [ "$status" = 0 ]
	point $? "the static program exits on SIGINT, saying so (exit status $status)" ||
		diag < "$work/out"
fi
done_testing
