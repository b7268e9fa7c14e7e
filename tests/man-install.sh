#!/bin/sh
# The man pages install where man(1) finds them (TAP).
#
# `make install-man DESTDIR=$tmp' (the man page half of `make install',
# same rules, same layout) from $top_builddir; then, with the installed
# man directory first on MANPATH and the system's after it, `man -w NAME'
# must resolve every page name to the installed page.  For signalfd this
# is the point: Debian's manpages-dev has signalfd(2), and man-db searches
# section 3 before section 2.  The .so pages must render through man(1).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

: "${srcdir:=.}" "${top_builddir:=.}" "${MAKE:=make}"
LC_ALL=C.UTF-8
export LC_ALL
. "$srcdir/tests/tap.sh" || exit 1

command -v man >/dev/null 2>&1 ||
	bail "man not found: install it with: apt-get install man-db"
if [ -z "${mandir:-}" ]; then
	mandir=$(MAKEFLAGS= "$MAKE" -s -C "$top_builddir" man-print-mandir 2>/dev/null)
fi
case ${mandir:-} in
/*) ;;
*) bail "mandir is not known (got '${mandir:-}'): run this test through make check" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0

# Only this test's variables: MAKEFLAGS of the make check that runs us
# would hand the child make a jobserver it cannot reach.
if MAKEFLAGS= "$MAKE" -C "$top_builddir" install-man DESTDIR="$tmp/dest" > "$tmp/install.log" 2>&1; then
	ok "make install-man DESTDIR=... installs the pages"
else
	not_ok "make install-man DESTDIR=... failed"
	diag < "$tmp/install.log"
	# Nothing to look up without the installed pages.
	done_testing
fi

installed=$tmp/dest$mandir
MANPATH=$installed:$(manpath -g 2>/dev/null || echo /usr/share/man)
export MANPATH

# Every page of the source tree, by the name a user types.
for page in $(cd "$srcdir/man" && ls man[1-9]/*.[1-9]); do
	name=${page##*/}
	sect=${name##*.}
	name=${name%.*}
	want=$installed/$page
	if [ ! -f "$want" ]; then
		not_ok "$page is installed as $want"
		continue
	fi
	# man -w follows a .so link to the page it names.
	link=$(sed -n 's|^\.so  *||p' "$want")
	[ -n "$link" ] && want=$installed/$link
	got=$(man -w "$name" 2>&1)
	if [ "$got" = "$want" ]; then
		ok "man -w $name finds the installed ${name}($sect)${link:+ (.so $link)}"
	else
		not_ok "man -w $name finds the installed ${name}($sect)${link:+ (.so $link)} (got: $got)"
	fi
	# A .so page must render the page it points to.
	if [ -n "$link" ]; then
		target=${link##*/}
		target=${target%.*}
		if MANWIDTH=80 man -P cat "$sect" "$name" 2>"$tmp/err" |
			grep -q "^ *$target, .*$name"; then
			ok "man $sect $name shows ${target}($sect) through its .so link"
		else
			not_ok "man $sect $name shows ${target}($sect) through its .so link"
			diag < "$tmp/err"
		fi
	fi
done

done_testing
