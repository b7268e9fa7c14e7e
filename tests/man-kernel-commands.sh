#!/bin/sh
# The documented commands that apply the kernel series work (TAP).
#
# fdevents(7) shows how to apply kernel/patches by hand, and
# debian/linux-patch-fdevents.README.Debian shows it for the installed
# package (git am, and patch).  This test takes the commands from the
# documents themselves, as a reader sees them (the man page rendered
# by groff, the README's indented command lines), and runs them:
#
# 1. fdevents(7)'s commands with stubs for tar and git on PATH that
#    record their arguments: git am must be given exactly the patches
#    that series lists, in its order, and each file must exist.  This
#    needs nothing but the source tree.
# 2. The same commands, for real, against a small copy of the pristine
#    tree: /usr/src/linux-source-6.1.tar.xz reduced to the files the
#    patches change, plus the tarball's .gitignore that ignores
#    everything.  Every patch must apply with git am, one commit each,
#    with the patch's subject.
# 3. README.Debian's git am commands, then its patch loop, on fresh
#    copies of that small tree; both must give the tree of (2).
#
# Points 2 and 3 need linux-source-6.1 (and git, xz and patch) and are
# skipped, with the reason, without it.  Extracting the few files reads
# the whole 140 MB tarball: 20 to 30 seconds.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

: "${srcdir:=.}" "${GROFF:=groff}"
LC_ALL=C.UTF-8
export LC_ALL
. "$srcdir/tests/tap.sh" || exit 1

command -v "$GROFF" >/dev/null 2>&1 ||
	bail "groff not found: install it with: apt-get install groff"

src=$(cd "$srcdir" && pwd) || bail "no source tree at $srcdir"
page=$src/man/man7/fdevents.7
readme=$src/debian/linux-patch-fdevents.README.Debian
series=$src/kernel/patches/series
tarball=${FDEVENTS_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
for f in "$page" "$series"; do
	[ -f "$f" ] || bail "$f not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-kernel-commands.XXXXXX") || exit 1
# KEEP=1 keeps the scripts, the trees and the logs.
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' 0

# git with no configuration but an identity, as a reader who has set one.
HOME=$tmp/home
GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME=fdevents-test GIT_AUTHOR_EMAIL=test@fdevents.invalid
GIT_COMMITTER_NAME=fdevents-test GIT_COMMITTER_EMAIL=test@fdevents.invalid
export HOME GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
mkdir "$HOME"

# The patches of series, in order: what every documented method must
# apply.  quilt's format: "#" comments, options after the name.
while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	echo "$p"
done < "$series" > "$tmp/want"
[ -s "$tmp/want" ] || bail "$series lists no patch"

# fdevents(7)'s commands, as man(1) shows them: the example that follows
# "To apply it by hand", with its "$ " and "> " prompts removed.
"$GROFF" -man -Tutf8 -P-cbou "$page" 2>"$tmp/groff.err" |
	awk '/To apply it by hand/ { on = 1; next }
	     on && /^ *\$ / { sub(/^ *\$ /, ""); print; next }
	     on && /^ *> / { sub(/^ *> /, ""); print; next }
	     on && /where \$FDEVENTS/ { exit }' > "$tmp/page.sh"
if [ -s "$tmp/page.sh" ] && grep -q 'git am' "$tmp/page.sh"; then
	ok "fdevents(7) shows the commands that apply the series"
	diag < "$tmp/page.sh"
else
	not_ok "fdevents(7) shows the commands that apply the series (none found after \"To apply it by hand\")"
	diag < "$tmp/groff.err"
	done_testing
fi

# --- 1. stubs: which files does git am get? -------------------------------

mkdir "$tmp/bin" "$tmp/stub"
cat > "$tmp/bin/git" <<EOF
#!/bin/sh
# Record the call; "git am" gets its file arguments one a line.
echo "git \$*" >> "$tmp/stub/calls"
if [ "\$1" = am ]; then
	shift
	for a; do
		case \$a in -*) ;; *) echo "\$a" >> "$tmp/stub/am" ;; esac
	done
fi
exit 0
EOF
cat > "$tmp/bin/tar" <<EOF
#!/bin/sh
echo "tar \$*" >> "$tmp/stub/calls"
mkdir -p linux-source-6.1
EOF
chmod +x "$tmp/bin/git" "$tmp/bin/tar"
: > "$tmp/stub/am"
(cd "$tmp/stub" && PATH=$tmp/bin:$PATH FDEVENTS=$src sh -e "$tmp/page.sh") \
	> "$tmp/stub/log" 2>&1
rc=$?
sed "s|^$src/kernel/patches/||" "$tmp/stub/am" > "$tmp/stub/got"
missing=
while read -r f; do
	[ -f "$f" ] || missing="$missing $f"
done < "$tmp/stub/am"
if [ $rc -eq 0 ] && cmp -s "$tmp/want" "$tmp/stub/got" && [ -z "$missing" ]; then
	ok "fdevents(7): git am gets the $(wc -l < "$tmp/want") patches of series, in order, and nothing else"
else
	not_ok "fdevents(7): git am gets the patches of series, in order, and nothing else (status $rc${missing:+, missing:$missing})"
	diff "$tmp/want" "$tmp/stub/got" | diag
	diag < "$tmp/stub/log"
fi

# --- 2. the real thing on a small tree ------------------------------------

if [ ! -f "$tarball" ]; then
	skip 3 "$tarball not found (apt-get install linux-source-6.1): the documented commands are not run against a tree"
	done_testing
fi
for c in git:git xz:xz-utils patch:patch; do
	command -v "${c%%:*}" >/dev/null 2>&1 && continue
	skip 3 "${c%%:*} not found (apt-get install ${c#*:}): the documented commands are not run against a tree"
	done_testing
done

# The files the patches change (new files come from the patches).
while read -r p; do
	sed -n 's|^--- a/||p' "$src/kernel/patches/$p"
done < "$tmp/want" | sort -u > "$tmp/files"
mkdir "$tmp/extract"
# shellcheck disable=SC2046 # one argument per path, none with spaces
if (cd "$tmp/extract" && xz -dc "$tarball" |
	tar -x linux-source-6.1/.gitignore $(sed 's|^|linux-source-6.1/|' "$tmp/files")) \
	2> "$tmp/extract.err" &&
	tar -C "$tmp/extract" -cJf "$tmp/small.tar.xz" linux-source-6.1 2>> "$tmp/extract.err"; then
	:
else
	not_ok "a small pristine tree: the $(wc -l < "$tmp/files") files the series changes, from $tarball"
	diag < "$tmp/extract.err"
	done_testing
fi

# Run a document's commands in a fresh folder, with the small tarball in
# place of the real one.  $1: name, $2: script, then VAR=VALUE settings.
run_doc() {
	name=$1 script=$2
	shift 2
	mkdir "$tmp/$name"
	sed "s|/usr/src/linux-source-6.1.tar.xz|$tmp/small.tar.xz|g" "$script" > "$tmp/$name.run.sh"
	(cd "$tmp/$name" && env "$@" sh -e "$tmp/$name.run.sh") > "$tmp/$name.log" 2>&1
}

# The subjects git am must have committed: one per patch, in order.
# (A long Subject: header is folded onto indented lines; unfold it.)
while read -r p; do
	awk '/^$/ { exit }
	     subj && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	     subj { exit }
	     /^Subject: / { subj = 1; s = substr($0, 10) }
	     END { sub(/^\[PATCH[^]]*\] /, "", s); print s }' "$src/kernel/patches/$p"
done < "$tmp/want" > "$tmp/subjects"

# The tree that a method which works gives, to compare the others with.
ref=
run_doc page "$tmp/page.sh" FDEVENTS="$src"
rc=$?
tree=$tmp/page/linux-source-6.1
git -C "$tree" log --reverse --format=%s 2>/dev/null | sed 1d > "$tmp/page.subjects"
if [ $rc -eq 0 ] && cmp -s "$tmp/subjects" "$tmp/page.subjects" &&
	[ -z "$(git -C "$tree" status --porcelain --ignored 2>&1)" ]; then
	ok "fdevents(7): the commands apply every patch with git am, one commit each, on a pristine tree"
	ref=$tree
else
	not_ok "fdevents(7): the commands apply every patch with git am, one commit each, on a pristine tree (status $rc)"
	diff "$tmp/subjects" "$tmp/page.subjects" | diag
	diag < "$tmp/page.log"
fi

# --- 3. README.Debian -------------------------------------------------------

if [ ! -f "$readme" ]; then
	skip 2 "$readme not found (not in this tree)"
	done_testing
fi

# The command lines of a README.Debian section: its lines indented by
# two spaces (prose is not indented).  A section ends at the next title,
# which is underlined with dashes.  $1: the section title.
readme_cmds() {
	awk -v title="$1" '
		$0 == title { on = 1; getline; next }
		on && /^-+$/ { exit }
		on && /^  / { sub(/^  /, ""); print }' "$readme"
}
# The package's folder is the source tree's kernel/: patches/ and config/
# have the same layout there.
pkgdir=/usr/src/kernel-patches/fdevents
readme_cmds "Apply the series with git am" |
	sed "s|$pkgdir|$src/kernel|g" > "$tmp/readme-am.src"
readme_cmds "Or with patch" |
	sed "s|$pkgdir|$src/kernel|g" > "$tmp/readme-patch.src"
readme_cmds "By hand: unpack the tree" > "$tmp/unpack.sh"
cat "$tmp/unpack.sh" "$tmp/readme-am.src" > "$tmp/readme-am.sh.in"
{ cat "$tmp/unpack.sh"; cat "$tmp/readme-patch.src"; } > "$tmp/readme-patch.sh.in"

if grep -q 'git am' "$tmp/readme-am.src" && grep -q 'tar ' "$tmp/unpack.sh"; then
	run_doc readme-am "$tmp/readme-am.sh.in"
	rc=$?
	tree=$tmp/readme-am/linux-source-6.1
	git -C "$tree" log --reverse --format=%s 2>/dev/null | sed 1d > "$tmp/readme-am.subjects"
	: > "$tmp/readme-am.diff"
	if [ $rc -eq 0 ] && cmp -s "$tmp/subjects" "$tmp/readme-am.subjects" &&
		{ [ -z "$ref" ] || diff -r -x .git "$ref" "$tree" > "$tmp/readme-am.diff" 2>&1; }; then
		ok "README.Debian: git am applies every patch, one commit each${ref:+, to the tree of fdevents(7)}"
		[ -n "$ref" ] || ref=$tree
	else
		not_ok "README.Debian: git am applies every patch, one commit each${ref:+, to the tree of fdevents(7)} (status $rc)"
		diff "$tmp/subjects" "$tmp/readme-am.subjects" | diag
		diag < "$tmp/readme-am.log"
		head -n 40 "$tmp/readme-am.diff" | diag
	fi
else
	not_ok "README.Debian: a section \"Apply the series with git am\" with the commands (none found)"
fi

if grep -q 'patch ' "$tmp/readme-patch.src"; then
	run_doc readme-patch "$tmp/readme-patch.sh.in"
	rc=$?
	tree=$tmp/readme-patch/linux-source-6.1
	if [ -z "$ref" ]; then
		not_ok "README.Debian: the patch loop (not checked: no other method gave a tree to compare with)"
	elif [ $rc -eq 0 ] &&
		diff -r -x .git "$ref" "$tree" > "$tmp/readme-patch.diff" 2>&1; then
		ok "README.Debian: the patch loop gives the same tree as git am"
	else
		not_ok "README.Debian: the patch loop gives the same tree as git am (status $rc)"
		diag < "$tmp/readme-patch.log"
		head -n 40 "$tmp/readme-patch.diff" | diag
	fi
else
	not_ok "README.Debian: a section \"Or with patch\" with the commands (none found)"
fi

done_testing
