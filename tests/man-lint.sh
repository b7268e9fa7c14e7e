#!/bin/sh
# Lint every man page under man/ (TAP).
#
# For each page, one point for `mandoc -Tlint -W warning' and
# `groff -man -ww -z' both saying nothing, and one for the man-pages
# project's section order (section 3 pages need all of NAME, LIBRARY,
# SYNOPSIS, DESCRIPTION, RETURN VALUE, ERRORS, VERSIONS, STANDARDS,
# HISTORY, NOTES, BUGS, EXAMPLES, SEE ALSO).
#
# A one-line `.so' page is checked through what it includes: mandoc warns
# about every .so request as such ("fragile, better use ln(1)"), while the
# man-pages project, and this package, use .so links on purpose.  Its
# point checks that it is exactly one .so line naming a page that exists,
# and lints the page with the .so resolved by soelim, as man(1) shows it.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

: "${srcdir:=.}"
: "${MANDOC:=mandoc}" "${GROFF:=groff}"
LC_ALL=C.UTF-8
export LC_ALL
. "$srcdir/tests/tap.sh" || exit 1

command -v "$MANDOC" >/dev/null 2>&1 ||
	bail "mandoc not found: install it with: apt-get install mandoc"
command -v "$GROFF" >/dev/null 2>&1 ||
	bail "groff not found: install it with: apt-get install groff"
command -v soelim >/dev/null 2>&1 ||
	bail "soelim not found: install it with: apt-get install groff-base"

mandir=$srcdir/man
pages=$(cd "$mandir" && ls man[1-9]/*.[1-9] 2>/dev/null)
[ -n "$pages" ] || bail "no man pages under $mandir"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-lint.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0

# The man-pages project's order of sections (man-pages(7)).
order='NAME
LIBRARY
SYNOPSIS
CONFIGURATION
DESCRIPTION
OPTIONS
EXIT STATUS
RETURN VALUE
ERRORS
ENVIRONMENT
FILES
ATTRIBUTES
VERSIONS
STANDARDS
HISTORY
NOTES
CAVEATS
BUGS
EXAMPLES
AUTHORS
REPORTING BUGS
COPYRIGHT
SEE ALSO'
section3='NAME LIBRARY SYNOPSIS DESCRIPTION RETURN_VALUE ERRORS VERSIONS STANDARDS HISTORY NOTES BUGS EXAMPLES SEE_ALSO'

for page in $pages; do
	# Keep the page's own name: mandoc checks the section in the file
	# name against .TH, and a temporary name such as man-lint.2ab/page
	# reads as section 2.
	copy=$tmp/${page##*/}
	# The text to lint: the page itself, or what its .so includes.
	if grep -q '^\.so ' "$mandir/$page"; then
		target=$(sed -n 's/^\.so  *//p' "$mandir/$page")
		lines=$(wc -l < "$mandir/$page")
		if [ "$lines" -ne 1 ] || [ ! -f "$mandir/$target" ]; then
			not_ok "$page: a .so page must be one line naming an existing page (got $lines lines, target '$target')"
			continue
		fi
		(cd "$mandir" && soelim -r "$page") > "$copy" 2> "$tmp/soelim"
		if [ -s "$tmp/soelim" ]; then
			not_ok "$page: soelim failed"
			diag < "$tmp/soelim"
			continue
		fi
		what="$page (.so $target)"
		so=yes
	else
		cp "$mandir/$page" "$copy"
		what=$page
		so=no
	fi

	# mandoc and groff must both be silent.
	"$MANDOC" -Tlint -W warning "$copy" > "$tmp/mandoc" 2>&1
	mrc=$?
	"$GROFF" -t -man -ww -z "$copy" > "$tmp/groff" 2>&1
	grc=$?
	if [ $mrc -eq 0 ] && [ $grc -eq 0 ] && [ ! -s "$tmp/mandoc" ] && [ ! -s "$tmp/groff" ]; then
		ok "$what: mandoc -Tlint -W warning and groff -man -ww -z are silent"
	else
		not_ok "$what: mandoc -Tlint -W warning (status $mrc) or groff -man -ww -z (status $grc) complained"
		sed -e "s|$copy|$page|g" -e 's/^/mandoc: /' "$tmp/mandoc" | diag
		sed -e "s|$copy|$page|g" -e 's/^/groff: /' "$tmp/groff" | diag
	fi

	# Section order (the .so target has its own point).
	[ $so = yes ] && continue
	sed -n 's/^\.SH  *//p' "$mandir/$page" | tr -d '"' > "$tmp/sections"
	bad=$(awk -v order="$order" '
		BEGIN { n = split(order, o, "\n"); for (i = 1; i <= n; i++) rank[o[i]] = i }
		!($0 in rank) { print "unknown section \"" $0 "\""; next }
		rank[$0] <= last { print "\"" $0 "\" is out of order"; next }
		{ last = rank[$0] }' "$tmp/sections")
	missing=
	case $page in
	man3/*)
		for s in $section3; do
			s=$(echo "$s" | tr _ ' ')
			grep -qx "$s" "$tmp/sections" || missing="$missing, $s"
		done ;;
	esac
	if [ -z "$bad$missing" ]; then
		ok "$page: sections in the man-pages order ($(tr '\n' ',' < "$tmp/sections" | sed 's/,$//; s/,/, /g'))"
	else
		not_ok "$page: sections: $(echo "$bad" | tr '\n' ';')${missing:+ missing${missing#,}}"
	fi
done

done_testing
