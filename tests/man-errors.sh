#!/bin/sh
# Every errno in a man page's ERRORS section is provoked by a test (TAP).
#
# For each section 3 page, and each E* name in its ERRORS section, one
# test point.  A C file tests/*.c provokes the errno for the page when
#
#   (a) it names the errno in code (not in a comment or a string) within
#       $window lines of a call of one of the functions that the page's
#       NAME line lists (directly, or through a thin wrapper of the same
#       file whose body returns that function's result, such as
#       "static int sfd(...) { ...; return signalfd(...); }"),
#       and that call is the nearest call of any
#       documented function (so the rows of a table that follow the
#       function making their call count for that function), and the
#       line is not part of a table row marked SKIP; or
#   (b) a row of a test table names it: an initializer that starts with
#       a string "FUNCTION(): ..." and names the errno in code, such as
#           { "signalfd(): fd -2", E(EBADF), .call = C_SIGNALFD, ... },
#       unless the row is marked SKIP (a cause the test cannot provoke).
#
# The point shows where.  An errno that no test provokes yet is a
# failure, not a skip: the page promises the error, so a test must show
# that the code returns it.
#
# One more point per page: the ERRORS entries are in alphabetical order
# within each group (groups are separated by a paragraph, as in
# timerfd_create(3): one group per function).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

: "${srcdir:=.}"
LC_ALL=C
export LC_ALL
. "$srcdir/tests/tap.sh" || exit 1
window=40

mandir=$srcdir/man
testdir=$srcdir/tests
pages=$(cd "$mandir" && ls man3/*.3 2>/dev/null)
[ -n "$pages" ] || bail "no man pages under $mandir"
sources=$(ls "$testdir"/*.c 2>/dev/null)
[ -n "$sources" ] || bail "no C test sources under $testdir"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-errors.XXXXXX") || exit 1
# KEEP=1 keeps the work files: the parsed sources, the calls, the rows.
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' 0

# Each test source as "file:line:code", comments removed, line numbers
# kept: in $tmp/code the contents of string and character literals are
# blanked too, in $tmp/text they are kept.
: > "$tmp/text"
for f in $sources; do
	awk -v name="tests/${f##*/}" -v text="$tmp/text" '
	{
		out = ""
		keep = ""
		i = 1
		len = length($0)
		while (i <= len) {
			c = substr($0, i, 1)
			two = substr($0, i, 2)
			if (incomment) {
				if (two == "*/") { incomment = 0; i += 2; out = out " "; keep = keep " " }
				else i++
				continue
			}
			if (two == "/*") { incomment = 1; i += 2; continue }
			if (two == "//") break
			if (c == "\"" || c == "\047") {
				q = c
				s = ""
				i++
				while (i <= len) {
					c = substr($0, i, 1)
					if (c == "\\") { s = s substr($0, i, 2); i += 2; continue }
					i++
					if (c == q) break
					s = s c
				}
				out = out q q
				keep = keep q s q
				continue
			}
			out = out c
			keep = keep c
			i++
		}
		print name ":" NR ":" out
		print name ":" NR ":" keep >> text
	}' "$f"
done > "$tmp/code"

# The functions each page documents: the names before "\-" on its NAME
# line(s).  A .so page documents nothing of its own.
page_funcs() {
	sed -n '/^\.SH NAME/,/^\.SH /p' "$1" | sed '1d;$d' | tr '\n' ' ' |
		sed 's/\\-.*//; s/,/ /g'
}
allfuncs=
for page in $pages; do
	grep -q '^\.so ' "$mandir/$page" && continue
	allfuncs="$allfuncs $(page_funcs "$mandir/$page")"
done

# Thin wrappers: a function of a test file whose body returns the result
# of a documented function, such as
#     static int sfd(int fd, int flags, ...) { ...; return signalfd(fd, &mask, flags); }
# A call of the wrapper is a call of that function.  "file wrapper name".
awk -v names="$allfuncs" '
	BEGIN { nn = split(names, fn, " ") }
	{
		f = $0; sub(/:.*/, "", f)
		code = $0; sub(/^[^:]*:[^:]*:/, "", code)
		# A definition starts at column 0 with its type and name.
		if (code ~ /^[A-Za-z_][A-Za-z0-9_ \t*]*[ \t*][A-Za-z_][A-Za-z0-9_]*\(/ &&
		    code !~ /;[ \t]*$/) {
			d = code; sub(/\(.*/, "", d); sub(/.*[ \t*]/, "", d)
			cur = d; curf = f
			next
		}
		if (code ~ /^}/) { cur = ""; next }
		if (cur == "" || f != curf) next
		for (i = 1; i <= nn; i++)
			if (match(code, "(^|[^A-Za-z0-9_])return[ \t(]*" fn[i] "[ \t]*\\(") && cur != fn[i])
				print f, cur, fn[i]
	}' "$tmp/code" | sort -u > "$tmp/wrappers"

# (a) Every call of a documented function, or of a wrapper of one in the
# same file (not its definition): "file line name".
awk -v names="$allfuncs" '
	BEGIN { nn = split(names, fn, " ") }
	FNR == NR { wf[++nw] = $1; wn[nw] = $2; wt[nw] = $3; next }
	{
		f = $0; sub(/:.*/, "", f)
		l = $0; sub(/^[^:]*:/, "", l); sub(/:.*/, "", l)
		code = $0; sub(/^[^:]*:[^:]*:/, "", code)
		for (i = 1; i <= nn; i++)
			if (match(code, "(^|[^A-Za-z0-9_])" fn[i] "[ \t]*\\("))
				print f, l, fn[i]
		if (code ~ /^[A-Za-z_]/)
			next
		for (i = 1; i <= nw; i++)
			if (wf[i] == f && match(code, "(^|[^A-Za-z0-9_])" wn[i] "[ \t]*\\("))
				print f, l, wt[i]
	}' "$tmp/wrappers" "$tmp/code" > "$tmp/calls"

# (b) Every table row: "file line name E1 E2 ..." for a row whose string
# starts with "name()", with the E* names of its code; SKIP rows left out.
awk -v names="$allfuncs" '
	BEGIN { nn = split(names, fn, " ") }
	FNR == NR {
		k = $0; sub(/^[^:]*:[^:]*:/, "", k); code[FNR] = k
		next
	}
	{
		f = $0; sub(/:.*/, "", f)
		l = $0; sub(/^[^:]*:/, "", l); sub(/:.*/, "", l)
		t = $0; sub(/^[^:]*:[^:]*:/, "", t)
		if (!inrow) {
			for (i = 1; i <= nn; i++)
				if (match(t, "\\{[ \t]*\"" fn[i] "\\(\\)")) {
					inrow = 1; rf = f; rl = l; rn = fn[i]; row = ""
					break
				}
			if (!inrow) next
		}
		row = row " " code[FNR]
		if (code[FNR] !~ /\}[ \t]*,?[ \t]*$/) next
		inrow = 0
		if (row ~ /(^|[^A-Za-z0-9_])SKIP([^A-Za-z0-9_]|$)/) next
		errs = ""
		r = row
		while (match(r, /(^|[^A-Za-z0-9_])E[A-Z0-9]+([^A-Za-z0-9_]|$)/)) {
			e = substr(r, RSTART, RLENGTH)
			gsub(/[^A-Z0-9]/, "", e)
			if (e ~ /^E[A-Z0-9]+$/) errs = errs " " e
			r = substr(r, RSTART + RLENGTH - 1)
		}
		if (errs != "") print rf, rl, rn errs
	}' "$tmp/code" "$tmp/text" > "$tmp/rows"

for page in $pages; do
	p=$mandir/$page
	grep -q '^\.so ' "$p" && continue
	funcs=$(page_funcs "$p")
	[ -n "$(echo $funcs)" ] || { not_ok "$page: no function names on the NAME line"; continue; }

	# The ERRORS section: "group" for a paragraph break, else the errno
	# of each entry (the .B line right after .TP).
	sed -n '/^\.SH ERRORS/,/^\.SH /p' "$p" | sed '1d;$d' | awk '
		/^\.(PP|P|LP)$/ { print "group"; next }
		prev == ".TP" && /^\.B E[A-Z0-9]+$/ { print $2 }
		{ prev = $0 }' > "$tmp/entries"
	if [ ! -s "$tmp/entries" ]; then
		not_ok "$page: no entries found in its ERRORS section"
		continue
	fi

	# Alphabetical within each group.
	unsorted=$(awk '
		$0 == "group" { last = ""; next }
		last != "" && $0 < last { print last " before " $0 }
		{ last = $0 }' "$tmp/entries" | tr '\n' ';')
	if [ -z "$unsorted" ]; then
		ok "$page: ERRORS entries are in alphabetical order"
	else
		not_ok "$page: ERRORS entries out of alphabetical order: $unsorted"
	fi

	for e in $(grep -v '^group$' "$tmp/entries" | sort -u); do
		# (b) a table row of one of the page's functions.
		where=$(awk -v e="$e" -v funcs="$funcs" '
			index(" " funcs " ", " " $3 " ") {
				for (i = 4; i <= NF; i++)
					if ($i == e) { print $1 ":" $2 " (a " $3 "() row)"; exit }
			}' "$tmp/rows")
		# (a) each line that names the errno is attributed to the
		# nearest call(s) of a documented function in the same file;
		# it counts if one of those, within $window lines, is one of
		# this page's functions.  The closest one is shown.
		[ -n "$where" ] || where=$(awk -v e="$e" -v funcs="$funcs" -v w="$window" '
			FNR == NR { cf[NR] = $1; cl[NR] = $2; cn[NR] = $3; nc = NR; next }
			{
				f = $0; sub(/:.*/, "", f)
				l = $0; sub(/^[^:]*:/, "", l); sub(/:.*/, "", l)
				code = $0; sub(/^[^:]*:[^:]*:/, "", code)
				src[f, l + 0] = code
				if (match(code, "(^|[^A-Za-z0-9_])" e "([^A-Za-z0-9_]|$)"))
					hits[++nh] = f SUBSEP l
			}
			# A table row marked SKIP names an errno it does not provoke:
			# the lines from the nearest "{" before to the nearest "}"
			# after (a few lines each way) must not hold the word SKIP.
			function skipped(f, l,    s, t, i) {
				for (s = l; s >= l - 6 && !((f, s) in src && src[f, s] ~ /\{/); s--)
					;
				for (t = l; t <= l + 6 && !((f, t) in src && src[f, t] ~ /\}/); t++)
					;
				if (s < l - 6 || t > l + 6)
					return 0
				for (i = s; i <= t; i++)
					if (src[f, i] ~ /(^|[^A-Za-z0-9_])SKIP([^A-Za-z0-9_]|$)/)
						return 1
				return 0
			}
			END {
				foundd = w + 1
				for (h = 1; h <= nh; h++) {
					split(hits[h], hl, SUBSEP)
					f = hl[1]; l = hl[2] + 0
					if (skipped(f, l))
						continue
					best = -1
					for (i = 1; i <= nc; i++) {
						if (cf[i] != f) continue
						d = cl[i] - l; if (d < 0) d = -d
						if (best < 0 || d < best) best = d
					}
					if (best < 0 || best > w) continue
					for (i = 1; i <= nc; i++) {
						if (cf[i] != f) continue
						d = cl[i] - l; if (d < 0) d = -d
						if (d == best && index(" " funcs " ", " " cn[i] " ") &&
						    best < foundd) {
							found = f ":" l " near " cn[i] "() at line " cl[i]
							foundd = best
						}
					}
				}
				print found
			}' "$tmp/calls" "$tmp/code")
		if [ -n "$where" ]; then
			ok "$page: $e is provoked and checked by a test ($where)"
		else
			not_ok "$page: $e: no test under tests/ provokes it (no $e next to a call or in a table row of $(echo $funcs | sed 's/ /(), /g')())"
		fi
	done
done

done_testing
