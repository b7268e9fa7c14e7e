#!/bin/bash
# Build the fdevents guest kernel: Debian's linux-source-6.1 (or -6.12)
# tarball with the tree's series applied (kernel/patches/series, or
# kernel/patches-6.12/series), configured from tinyconfig plus the
# kernel/config/*.config fragments, the architecture's part of each
# (kernel/config/ARCH/NAME.config) and the tree's own (kernel/patches-6.12/
# config/*.config: one named as a common fragment replaces it, any other
# is added).  Prints the absolute path of the kernel image (x86_64:
# bzImage, arm64: Image) as the last line of standard output; progress
# goes to standard error.
#
#   kernel/build-kernel.sh [--tree 6.1|6.12] [--arch x86_64|arm64]
#                          [--baseline] [--config-dir DIR]
#
#   --tree V          the kernel tree: linux-source-V (default 6.1)
#   --arch A          the guest's architecture: x86_64 (default) or arm64,
#                     cross-compiled with gcc-aarch64-linux-gnu
#   --baseline        the same tree and configuration without the series
#   --config-dir DIR  take the common fragments from DIR/*.config
#
# Results are cached under
#   ${FDEVENTS_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fdevents/kernel}/KEY/
# where KEY names arm64 (not x86_64) and the tree, and hashes the
# architecture, this script, the series and every patch it lists, every
# fragment, the compiler's version and the tree's version.  A cached KEY
# prints its path at once.  See kernel/README.md.
#
# SPDX-License-Identifier: GPL-2.0-only

# Functions run through step() and trap look unreachable to shellcheck.
# shellcheck disable=SC2317

# make check runs this with $(SHELL), which may be a POSIX sh.
if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

# The whole script is one compound command, read before it runs: editing
# the file during a build cannot change what a running build does.
{
set -euo pipefail

me=build-kernel.sh
die() { echo "$me: $*" >&2; exit 1; }
say() { echo "$me: $*" >&2; }

usage() {
	cat <<EOF
usage: $me [--tree 6.1|6.12] [--arch x86_64|arm64] [--baseline] [--config-dir DIR]

Builds linux-source-V + its series (6.1: kernel/patches/series, 6.12:
kernel/patches-6.12/series) with the configuration tinyconfig +
DIR/*.config (default: kernel/config) + kernel/config/ARCH/NAME.config
for each DIR/NAME.config + the series' config/*.config (a fragment named as one in DIR replaces
it), caches it, and prints the absolute path of the image (bzImage or
Image) as the last line.

  --tree V          the tree: 6.1 (default) or 6.12
  --arch A          x86_64 (default) or arm64 (cross-compiled)
  --baseline        build without the patch series (for benchmarks)
  --config-dir DIR  read the common configuration fragments from DIR

Environment:
  FDEVENTS_KERNEL_CACHE    cache folder
                           (default \${XDG_CACHE_HOME:-\$HOME/.cache}/fdevents/kernel)
  FDEVENTS_KERNEL_TARBALL  source tarball (default /usr/src/linux-source-V.tar.xz)
  FDEVENTS_KERNEL_KEEP_TREE=0  delete the built tree, keep only the results
  FDEVENTS_KERNEL_KEEP_TREES=N keep the build trees of the N newest keys (default 2)
EOF
}

script=$(readlink -f "${BASH_SOURCE[0]}")
kdir=$(dirname "$script")
baseline=0
config_dir=$kdir/config
kver=6.1
arch=x86_64
while [ $# -gt 0 ]; do
	case $1 in
	--tree)
		[ $# -ge 2 ] || die "--tree needs a version (6.1 or 6.12)"
		kver=$2; shift 2 ;;
	--tree=*) kver=${1#*=}; shift ;;
	--arch)
		[ $# -ge 2 ] || die "--arch needs an architecture (x86_64 or arm64)"
		arch=$2; shift 2 ;;
	--arch=*) arch=${1#*=}; shift ;;
	--baseline) baseline=1; shift ;;
	--config-dir)
		[ $# -ge 2 ] || die "--config-dir needs a folder"
		config_dir=$2; shift 2 ;;
	--config-dir=*) config_dir=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

# Each tree has its series; what its configuration needs beyond the
# common fragments lives beside the series, in config/.
case $kver in
6.1) patch_dir=$kdir/patches ;;
6.12) patch_dir=$kdir/patches-6.12 ;;
*) die "--tree $kver: no series for that tree (6.1 or 6.12)" ;;
esac

# The guest's architecture: the kernel's ARCH, the compiler prefix, the
# image make builds and where it lands, and the cache key's prefix.
case $arch in
x86_64) karch=x86_64 cross='' image=bzImage image_path=arch/x86/boot/bzImage key_arch= ;;
arm64) karch=arm64 cross=aarch64-linux-gnu- image=Image image_path=arch/arm64/boot/Image key_arch=arm64- ;;
*) die "--arch $arch: not a guest architecture (x86_64 or arm64)" ;;
esac

# --- prerequisites: one line naming the Debian package ---------------------

tarball=${FDEVENTS_KERNEL_TARBALL:-/usr/src/linux-source-$kver.tar.xz}
[ -f "$tarball" ] ||
	die "$tarball not found; install it with: apt-get install linux-source-$kver"

[ "$(uname -m)" = x86_64 ] || die "the guest kernels are built on an x86_64 host"

need_cmd() { # command package
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found; install it with: apt-get install $2"
}
need_cmd make make
need_cmd gcc gcc
[ -z "$cross" ] || need_cmd "${cross}gcc" "gcc-${cross%-}"
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc
need_cmd perl perl
need_cmd git git
need_cmd xz xz-utils
need_cmd tar tar
need_cmd flock util-linux
need_cmd sha256sum coreutils
need_header() { # header package
	printf '#include <%s>\n' "$1" | gcc -E -x c - >/dev/null 2>&1 ||
		die "<$1> not found; install it with: apt-get install $2"
}
need_header libelf.h libelf-dev
need_header openssl/opensslv.h libssl-dev

[ -d "$config_dir" ] || die "configuration folder $config_dir not found"
config_dir=$(readlink -f "$config_dir")
fragments=()
for f in "$config_dir"/*.config; do
	[ -f "$f" ] || continue
	# the tree's fragment of the same name replaces the common one
	[ -f "$patch_dir/config/${f##*/}" ] && f=$patch_dir/config/${f##*/}
	fragments+=("$f")
done
[ ${#fragments[@]} -gt 0 ] || die "no *.config fragment in $config_dir"
for f in "$patch_dir"/config/*.config; do
	[ -f "$f" ] && [ ! -f "$config_dir/${f##*/}" ] && fragments+=("$f")
done
# What only this architecture needs (its console, its compat ABI):
# kernel/config/ARCH/NAME.config extends the NAME.config of DIR, and only
# when DIR has one (a DIR without debug.config gets no ARCH/debug.config).
for f in "$kdir/config/$arch"/*.config; do
	[ -f "$f" ] && [ -f "$config_dir/${f##*/}" ] && fragments+=("$f")
done

# --- a snapshot of the inputs ------------------------------------------------
# The key is computed from these copies and the build uses them, so a file
# edited while this call waits or builds cannot end up in a kernel cached
# under a key that does not describe it.

snap=$(mktemp -d "${TMPDIR:-/tmp}/fdevents-kernel.XXXXXX")
tmp=
keep_tmp=0
child=
cleanup() {
	rm -rf "$snap"
	if [ -n "$tmp" ] && [ "$keep_tmp" = 0 ]; then
		rm -rf "$tmp"
	fi
}
# Killed: stop the running step (make passes the signal on to its jobs),
# then the EXIT trap removes the half-made build.
stop() { # exit status
	trap - INT TERM HUP
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'stop 130' INT
trap 'stop 143' TERM
trap 'stop 129' HUP

mkdir "$snap/config" "$snap/patches"
cp "$script" "$snap/build-kernel.sh"
cp "$kdir/check-syscall-tables.sh" "$snap/check-syscall-tables.sh"
for f in "${fragments[@]}"; do
	case $f in "$kdir/config/$arch"/*) cp "$f" "$snap/config/$arch-${f##*/}" ;; *) cp "$f" "$snap/config/" ;; esac
done
fragments=("$snap"/config/*.config)

series=$patch_dir/series
patches=()
if [ $baseline = 0 ]; then
	[ -f "$series" ] || die "$series not found"
	cp "$series" "$snap/series"
	# quilt's format: one patch a line, "#" comments, options after the name
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$patch_dir/$p" ] || die "$p is listed in $series but missing"
		mkdir -p "$(dirname "$snap/patches/$p")"
		cp "$patch_dir/$p" "$snap/patches/$p"
		patches+=("$snap/patches/$p")
	done <"$snap/series"
fi

# --- cache key ---------------------------------------------------------------

if [ "$tarball" = "/usr/src/linux-source-$kver.tar.xz" ] &&
	tree_version=$(dpkg-query -W -f='${Version}' "linux-source-$kver" 2>/dev/null) &&
	[ -n "$tree_version" ]; then
	tree_version="linux-source-$kver $tree_version"
else
	tree_version="tarball $(sha256sum <"$tarball" | cut -d' ' -f1)"
fi

hash_inputs() {
	echo "mode $([ $baseline = 1 ] && echo baseline || echo patched)"
	echo "series-of $kver"
	echo "arch $arch"
	echo "tree $tree_version"
	echo "compiler $("${cross}gcc" --version | head -n 1)"
	echo "script $(sha256sum <"$snap/build-kernel.sh" | cut -d' ' -f1)"
	echo "check $(sha256sum <"$snap/check-syscall-tables.sh" | cut -d' ' -f1)"
	if [ $baseline = 0 ]; then
		echo "series $(sha256sum <"$snap/series" | cut -d' ' -f1)"
		for p in "${patches[@]}"; do
			echo "patch $(basename "$p") $(sha256sum <"$p" | cut -d' ' -f1)"
		done
	fi
	for f in "${fragments[@]}"; do
		echo "fragment $(basename "$f") $(sha256sum <"$f" | cut -d' ' -f1)"
	done
}
inputs=$(hash_inputs)
hash=$(printf '%s\n' "$inputs" | sha256sum | cut -c1-16)
key=$([ $baseline = 1 ] && echo baseline || echo patched)-$key_arch$kver-$hash

cache=${FDEVENTS_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fdevents/kernel}
mkdir -p "$cache" || die "cannot create the cache folder $cache"
cache=$(readlink -f "$cache")
final=$cache/$key

# A key's folder appears only by rename once its build is complete, so its
# image is never half-made.
if [ -f "$final/$image" ]; then
	echo "$final/$image"
	exit 0
fi

# One build at a time per cache: a second caller waits, then finds the
# kernel built.  (On a small machine two builds at once are no faster.)
exec 9>"$cache/.lock"
if ! flock -n 9; then
	say "another build is running in $cache; waiting for it"
	# in the background, so that a signal ends the wait
	flock 9 &
	child=$!
	wait "$child"
	child=
fi
if [ -f "$final/$image" ]; then
	echo "$final/$image"
	exit 0
fi

# Left over by a build that was killed: nobody else is building now.
rm -rf "$cache"/.tmp-*

tmp=$cache/.tmp-$key-$$
mkdir -p "$tmp"
log=$tmp/build.log
: >"$log"

# Run one external command with its output in the log, in the background
# so that a signal interrupts the wait; on failure show the log's end and
# keep the folder for a look (the next build removes it).
step() { # description command...
	local what=$1 rc=0
	shift
	echo "### $what" >>"$log"
	"$@" >>"$log" 2>&1 </dev/null &
	child=$!
	wait "$child" || rc=$?
	child=
	if [ $rc != 0 ]; then
		say "$what failed; the end of $log:"
		tail -n 40 "$log" >&2
		keep_tmp=1
		die "$what failed (the whole log is in $log)"
	fi
}

# The environment of a calling make (make check) must not leak in.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS \
	KBUILD_OUTPUT O ARCH SUBARCH CROSS_COMPILE LLVM CC LD HOSTCC \
	KCONFIG_CONFIG KBUILD_EXTMOD W V C M
export KBUILD_BUILD_USER=fdevents KBUILD_BUILD_HOST=build

jobs=$(nproc)
say "building $key in $tmp (${#patches[@]} patch(es), fragments: ${fragments[*]##*/})"
say "the first build takes several minutes (about 10 with -j2); later calls use the cache"
start=$(date +%s)

say "extracting $tarball"
step "extracting $tarball" tar -xf "$tarball" -C "$tmp"
top=
for d in "$tmp"/linux-source-*; do
	[ -d "$d" ] && top=$d && break
done
[ -n "$top" ] || die "$tarball holds no linux-source-* folder"
mv "$top" "$tmp/linux"
tree=$tmp/linux

# A git tree, so the series applies with git am and the result can be
# inspected (git log, scripts/checkpatch.pl).  The tarball's .gitignore
# ignores everything ("/*"): hence add -f.
say "making a git tree of it"
tgit() { git -C "$tree" "$@"; }
step "git init" git -C "$tree" init -q
tgit config user.name "fdevents build-kernel.sh"
tgit config user.email "build-kernel@fdevents.invalid"
tgit config core.autocrlf false
tgit config gc.auto 0
# uncompressed loose objects: twice the disk, a fraction of the time
tgit config core.loosecompression 0
step "git add" git -C "$tree" add -f -A
step "git commit" git -C "$tree" commit -q --no-verify -m "pristine $tree_version"
for p in "${patches[@]}"; do
	say "applying $(basename "$p")"
	step "git am $(basename "$p")" git -C "$tree" am -q --whitespace=nowarn "$p"
done
# timerfd() in every architecture's system call table, not only x86's.
if [ $baseline = 0 ]; then
	step "checking the system call tables" sh "$snap/check-syscall-tables.sh" "$tree"
fi

say "configuring: tinyconfig + ${fragments[*]##*/}"
kmake() { make -C "$tree" ARCH="$karch" CROSS_COMPILE="$cross" "$@"; }
step "make tinyconfig" kmake tinyconfig
step "merging the fragments" env -C "$tree" ./scripts/kconfig/merge_config.sh -m .config "${fragments[@]}"
step "make olddefconfig" kmake olddefconfig

# A fragment's option whose dependencies are not met is dropped without a
# word: check that every line of every fragment holds in the result.
missing=0
for f in "${fragments[@]}"; do
	fname=${f##*/}
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$tree/.config" && continue
			name=${line%%=*}
			got=$(grep -E "^($name=|# $name is not set)" "$tree/.config" || true)
			;;
		'# CONFIG_'*' is not set')
			name=${line#\# }
			name=${name%% *}
			grep -qE "^$name=" "$tree/.config" || continue
			got=$(grep -E "^$name=" "$tree/.config")
			;;
		*) continue ;;
		esac
		echo "$me: $fname: $line did not survive the merge (.config has: ${got:-nothing}): a dependency is missing or another option overrides it" >&2
		missing=1
	done <"$f"
done
[ $missing = 0 ] || die "configuration check failed; fix the fragments in $config_dir"

say "compiling $arch $image with make -j$jobs (log: $log)"
step "make $image" kmake -j"$jobs" "$image"

cp "$tree/$image_path" "$tree/.config" "$tree/System.map" "$tree/vmlinux" "$tmp/"

# The kselftests the series adds, built static against this tree's UAPI
# headers (as the selftests' own KHDR_INCLUDES does), into selftests/:
# make check runs them in the guest.  The baseline has none.
if [ $baseline = 0 ]; then
	step "make headers" kmake headers
	mkdir -p "$tmp/selftests"
	for t in timers/timerfd_call signal/signalfd_exclusive; do
		src=$tree/tools/testing/selftests/$t.c
		[ -f "$src" ] || die "$src: the series should add this kselftest"
		step "building the kselftest $t" "${cross}gcc" -static -O2 -Wall \
			-isystem "$tree/usr/include" -I "$tree/tools/testing/selftests" \
			-o "$tmp/selftests/${t##*/}" "$src" -lpthread
	done
fi
printf '%s\n' "$inputs" >"$tmp/inputs"
if [ "${FDEVENTS_KERNEL_KEEP_TREE:-1}" = 0 ]; then
	rm -rf "$tree"
fi

mv "$tmp" "$final"
tmp=

# Every key keeps its results (some 20 MB); only the newest few keep their
# build tree (some 3 GB each), so repeated builds cannot fill the disk.
keep=${FDEVENTS_KERNEL_KEEP_TREES:-2}
find "$cache" -mindepth 1 -maxdepth 1 -type d \( -name 'patched-*' -o -name 'baseline-*' \) \
	-printf '%T@ %p\n' | sort -rn | tail -n +"$((keep + 1))" |
	while read -r _ old; do
		if [ -d "$old/linux" ]; then
			say "removing the build tree of the older $(basename "$old")"
			rm -rf "$old/linux"
		fi
	done
say "built $key in $(( $(date +%s) - start )) s"
echo "$final/$image"
exit 0
}
