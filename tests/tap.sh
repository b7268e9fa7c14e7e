# Minimal TAP producer for the fdevents shell tests (read by Automake's TAP
# driver); the shell half of tests/tap.h.  Source it: . "$srcdir/tests/tap.sh"
#
# ok DESCRIPTION...            a passing test point
# not_ok DESCRIPTION...        a failing one
# point STATUS DESCRIPTION...  ok if STATUS (an exit status, as $?) is 0,
#                              else not ok; returns 0 or 1 to match
# skip N REASON...             N test points skipped, with the reason
# diag [TEXT...]               TEXT, or each line of stdin, as comment lines
# bail REASON...               abort the whole run (Bail out!)
# done_testing                 prints the plan and exits: 1 if a point failed
#
# The count is kept in this shell's variables: call these from the script
# itself, not from a pipeline or $(...), whose subshell would lose it.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh

tap_count=0
tap_failed=0

ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $*"
}

not_ok() {
	tap_count=$((tap_count + 1))
	tap_failed=1
	echo "not ok $tap_count - $*"
}

point() {
	tap_status=$1
	shift
	if [ "$tap_status" = 0 ]; then
		ok "$@"
	else
		not_ok "$@"
		return 1
	fi
}

skip() {
	tap_n=$1
	shift
	while [ "$tap_n" -gt 0 ]; do
		tap_count=$((tap_count + 1))
		echo "ok $tap_count # SKIP $*"
		tap_n=$((tap_n - 1))
	done
}

# awk, not sed: a last line without its newline still ends one, so the
# next test point starts on a line of its own.  No arguments means stdin,
# on purpose: shellcheck would take it for a slip (SC2120, SC2119).
# shellcheck disable=SC2120
diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*"
	else
		cat
	fi | awk '{ print "# " $0 }'
}

bail() {
	echo "Bail out! $*"
	exit 1
}

done_testing() {
	echo "1..$tap_count"
	exit $tap_failed
}
