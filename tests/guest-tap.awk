# Turn the guest's serial console log into one TAP stream for Automake's
# driver: each program's test points are renumbered and prefixed with its
# name; each program adds a point for its exit status and plan; the kernel
# log adds a point that fails on any warning, BUG, Oops, soft lockup, RCU
# stall, lockdep, KASAN, kmemleak or debug-objects report.  On a kernel
# with kmemleak, two more points: the final scan ran, and it found no
# unreferenced object.
# The programs built for another ABI (abi/ABI/PROGRAM in the guest) are
# named "ABI: PROGRAM"; guest.sh's abi-build.status, read first, adds a
# failed point for each one that did not build.
function point(good, text) {
	n++
	print (good ? "ok " : "not ok ") n " - " text
	if (!good)
		failed = 1
}
function test_name(path,    p) {
	sub(/^tests\//, "", path)
	if (path ~ /^abi\/[^\/]+\//) {
		split(path, p, "/")
		return p[2] ": " p[3]
	}
	return path
}
function finish_test(rc) {
	if (!planned)
		point(0, name ": no TAP plan (the program crashed or was killed)")
	else
		point(rc == 0 && points == plan && !bad,
		      name ": exit status " rc ", " points " of " plan " planned tests run")
	in_test = 0
}
BEGIN {
	n = 0; in_test = 0; in_dmesg = 0; saw_dmesg = 0; kernel_bad = 0
	has_kmemleak = ""; in_kmemleak = 0; kmemleak_scans = -1; leaks = 0
}
{ sub(/\r$/, "") }
/@@@ KERNEL / {
	# The BIOS's escape sequences may share this first line.
	split(substr($0, index($0, "@@@ KERNEL ")), f, " ")
	point(f[5] == 2, "guest booted " f[3] " and sees " f[5] " CPUs (want 2)")
	if (f[6] == "UPTIME")
		printf "# the kernel booted in %.0f s\n", f[7]
	next
}
/^@@@ LOADS / {
	want = libdir "/libsignalfd.so.1"
	point(index($0, want) > 0, "test programs load the installed library from " libdir \
	      " (" $4 ")")
	next
}
/^@@@ NOTBUILT / { point(0, test_name($3) ": did not build, see " $4); next }
/^@@@ BUILDLOG / { print "# " substr($0, 14); next }
/^@@@ KMEMLEAK (yes|no)$/ { has_kmemleak = $3; next }
/^@@@ KMEMLEAK / { print "# " substr($0, 5); next }
/^@@@ BEGIN kmemleak/ { in_kmemleak = 1; kmemleak_start = $4; next }
/^@@@ END kmemleak/ {
	in_kmemleak = 0
	kmemleak_scans = $4 + 0
	if ($5 != "" && kmemleak_start != "")
		printf "# kmemleak: two scans took %.0f s\n", $5 - kmemleak_start
	next
}
in_kmemleak {
	if ($0 ~ /unreferenced object/)
		leaks++
	print "# kmemleak: " $0
	next
}
/^@@@ BEGIN dmesg/ { in_dmesg = 1; saw_dmesg = 1; next }
/^@@@ END dmesg/ { in_dmesg = 0; next }
/^@@@ BEGIN / {
	name = test_name($3)
	in_test = 1; planned = 0; plan = 0; points = 0; bad = 0
	test_start = $4
	next
}
/^@@@ END / {
	if (in_test) {
		if ($5 != "" && test_start != "")
			printf "# %s: ran %.0f s\n", name, $5 - test_start
		finish_test($4 + 0)
	}
	next
}
in_dmesg {
	# kmemleak's banner, and its count after a scan: the boot scan's suspects
	# are cleared on purpose, and the final scans' are the kmemleak points'.
	if ($0 ~ /kmemleak: (Kernel memory leak detector initialized|[0-9]+ new suspected memory leaks)/)
		next
	if ($0 ~ /(WARNING:|BUG:|BUG |Oops|lockdep is turned off|DEBUG_LOCKS_WARN_ON|suspicious RCU|KASAN|kmemleak|ODEBUG|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|Call Trace|corruption|general protection fault|Kernel panic|INFO: task .* blocked|soft lockup|rcu_.*stall|detected stalls)/) {
		kernel_bad++
		print "# kernel: " $0
	}
	next
}
in_test && /^(not )?ok( |$)/ {
	good = ($1 == "ok")
	rest = $0
	sub(/^(not )?ok *[0-9]* *-? */, "", rest)
	points++
	if (!good && rest !~ /# *TODO/)
		bad = 1
	if (rest ~ /^#/)
		text = name " " rest
	else
		text = name ": " rest
	n++
	print (good ? "ok " : "not ok ") n " - " text
	if (!good && rest !~ /# *TODO/)
		failed = 1
	next
}
in_test && /^1\.\.[0-9]+/ {
	planned = 1
	plan = substr($1, 4) + 0
	if ($0 ~ /# *SKIP/) {
		reason = $0
		sub(/^1\.\.[0-9]+ *# *SKIP */, "", reason)
		n++
		print "ok " n " - " name " # SKIP " reason
	}
	next
}
in_test && /^Bail out!/ { bad = 1; print "# " name ": " $0; next }
in_test { print "# " name ": " $0; next }
{ print "# console: " $0 }
END {
	if (in_test)
		point(0, name ": did not finish (timeout, hang or guest crash)")
	point(saw_dmesg, "the guest ran every test program and reached the end")
	point(saw_dmesg && kernel_bad == 0, "kernel log clean: " kernel_bad \
	      " warning/BUG/Oops/lockup/stall/lockdep/KASAN/kmemleak lines")
	if (has_kmemleak == "yes") {
		point(kmemleak_scans == 2, "kmemleak: the final scans ran (" \
		      (kmemleak_scans < 0 ? "no report" : kmemleak_scans " of 2") ")")
		point(kmemleak_scans >= 1 && leaks == 0, "kmemleak: " leaks \
		      " unreferenced objects after the tests")
	} else {
		n++
		print "ok " n " - kmemleak # SKIP " \
		      (has_kmemleak == "no" ? "the kernel has no kmemleak" : "the guest did not say")
	}
	print "1.." n
	exit failed
}
