#!/bin/sh
# Extract the C program of a man page's EXAMPLES section.
#
#   extract-examples.sh PAGE                   print the program as is
#   extract-examples.sh --tap MARKER PAGE      print it wrapped as a TAP test
#
# The program is the text between the man-pages project's markers
#     .\" SRC BEGIN (name.c)
#     .EX
#     ...
#     .EE
#     .\" SRC END
# with the roff escapes used in .EX blocks turned back into C.
#
# With --tap, main() is renamed and man/run-example.h supplies a main()
# that runs the program in a child and reports it as TAP.  MARKER is the
# text the program prints when it takes its fallback path on a kernel
# without the fdevents series; under FDEVENTS_KERNEL=patched that is a
# failure.  #line directives point compiler messages at the page.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

tap=
marker=
if [ "${1-}" = --tap ]; then
	tap=1
	marker=$2
	shift 2
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--tap MARKER] PAGE" >&2
	exit 2
fi
page=$1
name=$(basename "$page")

# The line of the first .EX after the SRC BEGIN marker: for #line.
begin=$(sed -n '/^\.\\" SRC BEGIN/=' "$page" | head -n 1)
if [ -z "$begin" ]; then
	echo "$0: $page: no .\\\" SRC BEGIN marker" >&2
	exit 1
fi
if [ "$(sed -n '/^\.\\" SRC BEGIN/=' "$page" | wc -l)" -ne 1 ]; then
	echo "$0: $page: more than one SRC BEGIN marker" >&2
	exit 1
fi

# The program text (from the line after .EX up to .EE), unescaped.
# \e last, so that "\e-" stays a backslash and a minus.
program=$(sed -n '/^\.\\" SRC BEGIN/,/^\.\\" SRC END/p' "$page" |
	sed -e '1,/^\.EX$/d' -e '/^\.EE$/,$d' |
	sed -e 's/\\-/-/g' \
	    -e 's/\\(aq/'"'"'/g' -e "s/\\\\\\[aq\\]/'/g" \
	    -e 's/\\(dq/"/g' -e 's/\\\[dq\]/"/g' \
	    -e 's/\\(ti/~/g' -e 's/\\(ha/^/g' \
	    -e 's/\\&//g' \
	    -e 's/\\e/\\/g')
if [ -z "$program" ]; then
	echo "$0: $page: empty program between the SRC markers" >&2
	exit 1
fi
case $program in
*'\f'[BIRP]*)
	echo "$0: $page: font escapes inside the program" >&2
	exit 1 ;;
esac

# The first program line is the line after .EX, which follows SRC BEGIN.
first=$((begin + 2))

if [ -z "$tap" ]; then
	printf '/* Extracted from %s by extract-examples.sh.  */\n' "$name"
	printf '#line %d "%s"\n' "$first" "$name"
	printf '%s\n' "$program"
	exit 0
fi

# C string literal of the marker.
cmarker=$(printf '%s' "$marker" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
cat <<EOF
/* Generated from $name by extract-examples.sh: the EXAMPLES program,
   with main() renamed, run as a TAP test by man/run-example.h.  */
#define main fdevents_example_main
#line $first "$name"
$program
#line 1 "run-example.h"
#undef main
#define EXAMPLE_PAGE "$name"
#define EXAMPLE_FALLBACK "$cmarker"
#include "man/run-example.h"
EOF
