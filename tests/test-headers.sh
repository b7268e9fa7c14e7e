#!/bin/sh
# Each overlay header compiles on its own, under C89..C17 and C++98..C++17,
# with gcc and clang, -Wall -Wextra -Werror -pedantic, alone, after the C
# library's own header and before it.  The include path is the one
# pkg-config gives (-isystem, as #include_next needs); one more pass with a
# plain -I drops -pedantic (#include_next is itself a GNU extension) but
# keeps every other warning on our own lines.
#
# Then the branch for a C library without <sys/signalfd.h> and
# <sys/timerfd.h>: every standard again against a sysroot-like copy of the
# compiler's include directories (a tree of symbolic links) that lacks
# those two files, and tests/headers-nolibc.c built that way, linked with
# the libraries and run (under TEST_EMULATOR in a cross build).
#
# Then a C library header that defines one of our constants or declares
# timerfd(): with our value it compiles, with another the build fails.
#
# Last, what the headers add: no <fcntl.h> names, and flag values equal to
# O_CLOEXEC and O_NONBLOCK.  The build's CPPFLAGS (BUILD_CPPFLAGS, say
# -D_TIME_BITS=64) apply to every compile.
: "${srcdir:=.}" "${CC:=cc}" "${CXX:=c++}" "${BUILD_CPPFLAGS:=}"
: "${top_builddir:=.}"
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

# A copy of compiler $1's include directories for language $2 (c, c++),
# made of symbolic links, without sys/signalfd.h and sys/timerfd.h: prints
# the flags that put it in their place.
sysroot_without() { # compiler lang
	dirs=$(echo | $1 -x "$2" -E -v - 2>&1 >/dev/null |
		sed -n '/^#include <\.\.\.> search starts here:/,/^End of search list/p' |
		sed '1d;$d')
	[ -n "$dirs" ] || return 1
	root=$tmp/sysroot-$(echo "$1-$2" | tr -c 'A-Za-z0-9\n' _)
	printf ' -nostdinc'
	n=0
	for d in $dirs; do
		n=$((n + 1))
		mkdir -p "$root/$n"
		ln -s "$d"/* "$root/$n/" 2>/dev/null
		if [ -d "$d/sys" ]; then
			rm "$root/$n/sys"
			mkdir "$root/$n/sys"
			ln -s "$d"/sys/* "$root/$n/sys/"
			rm -f "$root/$n/sys/signalfd.h" "$root/$n/sys/timerfd.h"
		fi
		printf ' -isystem %s' "$root/$n"
	done
}

for entry in $compilers; do
	name=${entry%%:*}
	rest=${entry#*:}
	cc=${rest%%:*}
	case $name in *++) lang=c++ ;; *) lang=c ;; esac
	if flags=$(sysroot_without "$cc" "$lang"); then
		eval "nolibc_$(echo "$name" | tr + x)=\$flags"
	else
		not_ok "$name: no include directories in '$cc -E -v'"
	fi
done

# shellcheck disable=SC2086 # flag lists
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
					$BUILD_CPPFLAGS \
					-isystem "$srcdir/include" -c "$src" \
					-o "$tmp/out.o" > "$tmp/err" 2>&1
				compiled $? "<sys/$h.h> $order: $name -std=$std -pedantic (-isystem)"
			done
			$cc -Wall -Wextra -Werror $BUILD_CPPFLAGS \
				-I"$srcdir/include" -c "$src" \
				-o "$tmp/out.o" > "$tmp/err" 2>&1
			compiled $? "<sys/$h.h> $order: $name -Wall -Wextra -Werror (-I)"
			# Without the C library's header: once, alone.
			[ "$order" = alone ] || continue
			eval "nolibc=\${nolibc_$(echo "$name" | tr + x):-}"
			[ -n "$nolibc" ] || continue
			for std in $stds; do
				$cc -std=$std -Wall -Wextra -Werror -pedantic \
					$BUILD_CPPFLAGS -isystem "$srcdir/include" \
					$nolibc -c "$src" -o "$tmp/out.o" \
					> "$tmp/err" 2>&1
				compiled $? "<sys/$h.h> without the C library's: $name -std=$std -pedantic"
			done
		done
	done
	# The copy really lacks the C library's header: ours declares all
	# (the C library's _SYS_ guard stays undefined).
	guard=$(echo "$h" | tr a-z A-Z)
	printf '#include <sys/%s.h>\n#ifdef _SYS_%s_H\n#error the C library header came in\n#endif\n' "$h" "$guard" |
		$CC $BUILD_CPPFLAGS -isystem "$srcdir/include" ${nolibc_gcc:-} \
		-E -x c - -o /dev/null > "$tmp/err" 2>&1
	compiled $? "<sys/$h.h> without the C library's: ours is the only one"
done

# A C library header that already has one of our names: the same value
# or prototype compiles, another one fails the build.  The stand-in
# headers sit after ours on the path, where #include_next finds them.
fake=$tmp/fake-libc
mkdir -p "$fake/sys"
conflict() { # expect(ok|fail) header description text...
	want=$1 h=$2 what=$3
	shift 3
	{
		printf '#ifndef FAKE_%s_H\n#define FAKE_%s_H 1\n' "$h" "$h"
		printf '#include_next <sys/%s.h>\n' "$h"
		printf '%s\n' "$@"
		printf '#endif\n'
	} > "$fake/sys/$h.h"
	printf '#include <sys/%s.h>\n' "$h" > "$tmp/conflict.c"
	$CC $BUILD_CPPFLAGS -isystem "$srcdir/include" -isystem "$fake" \
		-c "$tmp/conflict.c" -o "$tmp/out.o" > "$tmp/err" 2>&1
	status=$?
	case $want in
	ok) compiled $status "a C library <sys/$h.h> with $what: compiles" ;;
	fail) # for the right reason: our check, or the two prototypes
	      [ $status != 0 ] && grep -q '__fdevents_\|conflicting types' "$tmp/err"
	      point $? "a C library <sys/$h.h> with $what: the build fails" ||
		sed 's/^/  /' "$tmp/err" | head -n 10 | diag ;;
	esac
}
conflict ok timerfd "TFD_TIMER_REL 1, TFD_TIMER_SEQ 3" \
	'#define TFD_TIMER_REL 1' '#define TFD_TIMER_SEQ 3'
conflict fail timerfd "TFD_TIMER_REL 5" '#define TFD_TIMER_REL 5'
conflict fail timerfd "TFD_TIMER_ABS 1" '#define TFD_TIMER_ABS 1'
conflict fail timerfd "TFD_TIMER_SEQ 0" '#define TFD_TIMER_SEQ 0'
conflict ok timerfd "our timerfd() prototype" \
	'extern int timerfd (int, int, int, const struct itimerspec *);'
conflict fail timerfd "another timerfd() prototype" \
	'extern int timerfd (int, int, int, const void *);'
conflict ok signalfd "SFD_EXCLUSIVE 1" '#define SFD_EXCLUSIVE 1'
conflict fail signalfd "SFD_EXCLUSIVE 2" '#define SFD_EXCLUSIVE 2'

# A program of the no-C-library-header branch, linked and run.
libs=$top_builddir/src/.libs
if [ ! -e "$libs/libtimerfd.so" ] || [ ! -e "$libs/libsignalfd.so" ]; then
	not_ok "a program without the C library's headers: $libs has no libraries"
else
	abslibs=$(cd "$libs" && pwd)
	$CC -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
		$BUILD_CPPFLAGS -isystem "$srcdir/include" ${nolibc_gcc:-} \
		"$srcdir/tests/headers-nolibc.c" -o "$tmp/nolibc" \
		-L"$abslibs" -Wl,-rpath,"$abslibs" -lsignalfd -ltimerfd \
		> "$tmp/err" 2>&1
	if compiled $? "tests/headers-nolibc.c without the C library's headers builds and links"; then
		out=$(${TEST_EMULATOR:-} "$tmp/nolibc" 2>&1)
		status=$?
		[ "$status" = 0 ] && [ "$out" = ok ]
		point $? "... and runs: signalfd() reads SIGUSR1, timerfd_settime() and timerfd_gettime() round-trip (exit $status)"
	fi
fi

# What the headers add to the includer's namespace, and their flags.
for h in signalfd timerfd; do
	for where in with without; do
		case $where in with) extra= ;; *) extra=${nolibc_gcc:-} ;; esac
		for f in O_NONBLOCK O_CLOEXEC F_GETFL; do
			printf '#include <sys/%s.h>\n#ifdef %s\n#error %s\n#endif\n' "$h" "$f" "$f" |
				$CC $BUILD_CPPFLAGS -isystem "$srcdir/include" \
				$extra -E -x c - -o /dev/null > "$tmp/err" 2>&1
			compiled $? "<sys/$h.h> $where the C library's adds no $f (no <fcntl.h>)"
		done
	done
done
printf '#include <sys/signalfd.h>\n#include <sys/timerfd.h>\n#include <fcntl.h>\n%s\n%s\n%s\n%s\n' \
	'typedef char c1[SFD_CLOEXEC == O_CLOEXEC ? 1 : -1];' \
	'typedef char c2[SFD_NONBLOCK == O_NONBLOCK ? 1 : -1];' \
	'typedef char c3[TFD_CLOEXEC == O_CLOEXEC ? 1 : -1];' \
	'typedef char c4[TFD_NONBLOCK == O_NONBLOCK ? 1 : -1];' > "$tmp/flags.c"
target=$($CC -dumpmachine)
for where in with without; do
	case $where in with) extra= ;; *) extra=${nolibc_gcc:-} ;; esac
	$CC -Wall -Wextra -Werror $BUILD_CPPFLAGS -isystem "$srcdir/include" \
		$extra -c "$tmp/flags.c" -o "$tmp/out.o" > "$tmp/err" 2>&1
	compiled $? "$where the C library's headers: SFD_/TFD_CLOEXEC are O_CLOEXEC and SFD_/TFD_NONBLOCK O_NONBLOCK ($target)"
done
done_testing
