#!/bin/sh
# Each overlay header compiles on its own, under C89..C17 and C++98..C++17,
# with gcc and clang, -Wall -Wextra -Werror -pedantic, alone, after the C
# library's own header and before it.  The include path is the one
# pkg-config gives (-isystem, as #include_next needs); one more pass with a
# plain -I drops -pedantic (#include_next is itself a GNU extension) but
# keeps every other warning on our own lines.
: "${srcdir:=.}" "${CC:=cc}" "${CXX:=c++}"
. "$srcdir/tests/tap.sh" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# One point per compile; a failure shows the start of what the compiler said.
compiled() { # status description
	point "$1" "$2" || sed 's/^/  /' "$tmp/err" | head -n 20 | diag
}

# The C library's header, found without ours on the path.
libc_header() {
	echo "#include <sys/$1.h>" | $CC -E -M -x c - 2>/dev/null |
		tr ' \\' '\n\n' | grep "/sys/$1\.h\$" | head -n 1
}

body_signalfd='
static int use(void)
{
	struct signalfd_siginfo si;
	sigset_t *mask = 0;

	si.ssi_signo = 0;
	return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK | SFD_EXCLUSIVE)
		+ (int)si.ssi_signo + (int)sizeof(si);
}
int (*use_signalfd)(void) = use;
'
body_timerfd='
static int use(void)
{
	const struct itimerspec *its = 0;

	return timerfd(-1, 1, TFD_TIMER_REL + TFD_TIMER_ABS + TFD_TIMER_SEQ, its)
		+ timerfd_create(1, TFD_CLOEXEC | TFD_NONBLOCK)
		+ timerfd_settime(-1, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, its, 0)
		+ timerfd_gettime(-1, 0);
}
int (*use_timerfd)(void) = use;
'

compilers="gcc:$CC:c89,c99,c11,c17 g++:$CXX:c++98,c++11,c++17"
if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1; then
	compilers="$compilers clang:$CLANG:c89,c99,c11,c17 clang++:$CLANG++:c++98,c++11,c++17"
else
	not_ok "clang not found: install it with: apt-get install clang"
fi

for h in signalfd timerfd; do
	libc=$(libc_header "$h")
	eval body=\$body_$h
	for order in alone libc-first ours-first; do
		case $order in
		alone) printf '#include <sys/%s.h>\n%s' "$h" "$body" ;;
		libc-first) printf '#include "%s"\n#include <sys/%s.h>\n%s' "$libc" "$h" "$body" ;;
		ours-first) printf '#include <sys/%s.h>\n#include "%s"\n%s' "$h" "$libc" "$body" ;;
		esac > "$tmp/$h-$order.c"
		cp "$tmp/$h-$order.c" "$tmp/$h-$order.cc"
		for entry in $compilers; do
			name=${entry%%:*}
			rest=${entry#*:}
			cc=${rest%%:*}
			stds=$(echo "${rest#*:}" | tr , ' ')
			case $name in *++) src=$tmp/$h-$order.cc ;; *) src=$tmp/$h-$order.c ;; esac
			for std in $stds; do
				$cc -std=$std -Wall -Wextra -Werror -pedantic \
					-isystem "$srcdir/include" -c "$src" \
					-o "$tmp/out.o" > "$tmp/err" 2>&1
				compiled $? "<sys/$h.h> $order: $name -std=$std -pedantic (-isystem)"
			done
			$cc -Wall -Wextra -Werror -I"$srcdir/include" -c "$src" \
				-o "$tmp/out.o" > "$tmp/err" 2>&1
			compiled $? "<sys/$h.h> $order: $name -Wall -Wextra -Werror (-I)"
		done
	done
done
done_testing
