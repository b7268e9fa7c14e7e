#!/bin/sh
# /init of the fdevents test guest (busybox).  Runs every test program named
# in /etc/fdevents-guest.conf between @@@ markers that tests/guest-tap.awk
# reads back from the serial console, then dumps the kernel log and reboots
# (QEMU runs with -no-reboot, so that ends it).  With interactive=yes it
# gives a shell instead.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# /tmp stays the initramfs's own (already writable): under make distcheck
# the prefix, and so the installed library, lives below /tmp.
. /etc/fdevents-guest.conf
export LD_LIBRARY_PATH="$libdir" FDEVENTS_KERNEL=patched
export srcdir=/tests top_srcdir=/tests top_builddir=/tests abs_top_builddir=/tests

echo "@@@ KERNEL $(uname -r) CPUS $(grep -c ^processor /proc/cpuinfo)"
if [ "$interactive" = yes ]; then
	cat <<MSG

fdevents guest: $(uname -r) with the fdevents series, $(grep -c ^processor /proc/cpuinfo) CPUs.
The installed library is in $libdir (LD_LIBRARY_PATH is set); the test
programs are in /tests.  Leave with: reboot -f   (or Ctrl-A X)

MSG
	cd /tests
	setsid cttyhack sh -l
	reboot -f
fi

# Which libsignalfd the programs load: the installed one, not the build's.
for t in $tests; do
	case $t in *.sh) continue ;; esac
	echo "@@@ LOADS $t $("$ldso" --list /tests/$t 2>&1 | awk '/lib(signal|timer)fd/ { printf "%s ", $3 }')"
	break
done
for t in $tests; do
	echo "@@@ BEGIN $t"
	cd /tests
	case $t in
	*.sh) timeout "$timeout" sh "./$t" 2>/tmp/stderr ;;
	*) timeout "$timeout" "./$t" 2>/tmp/stderr ;;
	esac
	rc=$?
	sed 's/^/# stderr: /' /tmp/stderr
	echo "@@@ END $t $rc"
done
echo "@@@ BEGIN dmesg"
dmesg
echo "@@@ END dmesg"
reboot -f
