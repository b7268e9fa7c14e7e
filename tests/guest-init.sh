#!/bin/sh
# /init of the fdevents test guest (busybox).  Runs every test program named
# in /etc/fdevents-guest.conf between @@@ markers that tests/guest-tap.awk
# reads back from the serial console, then (on a kernel with kmemleak)
# scans for leaks, dumps the kernel log and reboots (QEMU runs with
# -no-reboot, so that ends it).  With interactive=yes it gives a shell
# instead.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
# busybox's applets, as links in /bin (the harness put only /bin/sh there)
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# debugfs, where kmemleak's control file lives (CONFIG_DEBUG_FS)
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug
# /tmp stays the initramfs's own (already writable): under make distcheck
# the prefix, and so the installed library, lives below /tmp.
. /etc/fdevents-guest.conf
export LD_LIBRARY_PATH="$libdir" FDEVENTS_KERNEL=patched
export srcdir=/tests top_srcdir=/tests top_builddir=/tests abs_top_builddir=/tests

# Seconds since boot, so the log shows how long each step took.
uptime_s() { cut -d' ' -f1 /proc/uptime; }

echo "@@@ KERNEL $(uname -r) CPUS $(grep -c ^processor /proc/cpuinfo) UPTIME $(uptime_s)"
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

# kmemleak (CONFIG_DEBUG_KMEMLEAK, found by its symbols, so a kernel that
# has it but lost debugfs is noticed).  Built without the automatic scan
# thread: it scans only when told to, here.
kmemleak=/sys/kernel/debug/kmemleak
if grep -q ' kmemleak_alloc$' /proc/kallsyms; then
	echo "@@@ KMEMLEAK yes"
	# Only leaks made while the tests run count.  What boot allocated is not
	# the tests' doing, and boot leaves a few false positives (objects whose
	# only reference kmemleak cannot see).  "clear" alone would do nothing
	# here: it marks as "not a leak" only the objects a scan has reported.
	# So: let boot's last objects age past kmemleak's 5 s minimum, scan,
	# count what it reports, then clear those.
	sleep 5
	if echo scan > "$kmemleak"; then
		echo "@@@ KMEMLEAK boot: $(grep -c '^unreferenced object' "$kmemleak") suspects before the tests, cleared"
		echo clear > "$kmemleak"
	else
		echo "@@@ KMEMLEAK boot: scan failed"
	fi
else
	echo "@@@ KMEMLEAK no"
fi

# Which libsignalfd the programs load: the installed one, not the build's.
for t in $tests; do
	case $t in *.sh) continue ;; esac
	echo "@@@ LOADS $t $("$ldso" --list /tests/$t 2>&1 | awk '/lib(signal|timer)fd/ { printf "%s ", $3 }')"
	break
done
# Then the same tests built static for the other ABIs (abi/ABI/PROGRAM),
# and the kselftests of the series (kselftest/NAME).
for t in $tests $abi_tests $kselftests; do
	echo "@@@ BEGIN $t $(uptime_s)"
	cd /tests
	case $t in
	*.sh) timeout "$timeout" sh "./$t" 2>/tmp/stderr ;;
	*) timeout "$timeout" "./$t" 2>/tmp/stderr ;;
	esac
	rc=$?
	sed 's/^/# stderr: /' /tmp/stderr
	echo "@@@ END $t $rc $(uptime_s)"
done

# After every program: scan twice, a few seconds apart, as kmemleak's
# documentation advises, so an object that was only in flight (between a
# free and its RCU grace period, in a pointer kmemleak had not scanned yet)
# at the first scan is not reported.  kmemleak reports no object younger
# than 5 s: the pause also lets the last program's objects age.  The report
# lists every object still unreferenced; guest-tap.awk fails on any.
if [ -e "$kmemleak" ]; then
	echo "@@@ BEGIN kmemleak $(uptime_s)"
	scans=0
	echo scan > "$kmemleak" && scans=$((scans + 1))
	sleep 5
	echo scan > "$kmemleak" && scans=$((scans + 1))
	cat "$kmemleak"
	echo "@@@ END kmemleak $scans $(uptime_s)"
fi
echo "@@@ BEGIN dmesg"
dmesg
echo "@@@ END dmesg"
reboot -f
