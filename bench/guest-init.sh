#!/bin/sh
# /init of the fdevents benchmark guest (busybox).  Runs every benchmark of
# /etc/bench.conf BENCH_REPS times, interleaved (rep 1 of each, then rep 2
# of each, ...) so that a slow phase of the host spreads over all figures,
# between @@@ markers that bench/report.awk reads back from the serial
# console.  Then it prints the kernel log and powers off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp
mount -t tmpfs tmpfs /tmp
. /etc/bench.conf
export BENCH_MS

echo "@@@ KERNEL $label $(uname -r) CPUS $(grep -c ^processor /proc/cpuinfo)"
echo "@@@ VERSION $(cat /proc/version)"
# First, that signalfd wake-ups still reach every waiter they should.
echo "@@@ CHECK BEGIN"
timeout "$timeout" /bench/signalfd-wakeups 2>&1
echo "@@@ CHECK END $?"
rep=1
while [ "$rep" -le "$reps" ]; do
	for t in $benchmarks; do
		echo "@@@ REP $rep $t"
		timeout "$timeout" /bench/fdbench "$t" 2>/tmp/stderr
		rc=$?
		sed 's/^/# stderr: /' /tmp/stderr
		echo "@@@ RC $rep $t $rc"
	done
	rep=$((rep + 1))
done
echo "@@@ BEGIN dmesg"
dmesg
echo "@@@ END dmesg"
echo "@@@ DONE"
reboot -f
