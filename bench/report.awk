# bench/report.awk: turn the benchmark logs into one table of ratios.
#
#   awk -v reps=5 -f report.awk label=baseline console-baseline.log \
#       label=patched console-patched.log label=host host.log
#
# Reads "@@@ REP <n> <benchmark>" and "@@@ R <figure> <value>" lines; a
# ratio is taken per repetition (figures of the same repetition, or the
# same repetition number on the two kernels), then summarised as median
# and min-max over the repetitions.  Goals are judged on the median.
function fmt(x) {
	if (x == "") return "-"
	if (x == int(x) && x < 1e6 && x > -1e6) return sprintf("%d", x)
	if (x >= 1e6) return sprintf("%.3g", x)
	return sprintf("%.3g", x)
}
function unit(x, u) {
	if (x == "") return "-"
	if (u == "ns") {
		if (x >= 1e6) return sprintf("%.3g ms", x / 1e6)
		if (x >= 1e3) return sprintf("%.3g us", x / 1e3)
		return sprintf("%.3g ns", x)
	}
	if (u == "/s") {
		if (x >= 1e6) return sprintf("%.3gM/s", x / 1e6)
		if (x >= 1e3) return sprintf("%.3gk/s", x / 1e3)
		return sprintf("%.3g/s", x)
	}
	return fmt(x) u
}
# Fill s[1..n] sorted from the n values of v[1..n]; set med, lo, hi.
function summarise(v, n,    i, j, t, s) {
	for (i = 1; i <= n; i++) s[i] = v[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && s[j - 1] > s[j]; j--) {
			t = s[j]; s[j] = s[j - 1]; s[j - 1] = t
		}
	lo = s[1]; hi = s[n]
	med = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}
function get(k, f, r) {
	return ((k, f, r) in val) ? val[k, f, r] : ""
}
function numeric(x) { return x != "" && x ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ }
# Per-repetition values of a row into v[]; returns how many.
#   kind "ratio": k:a / k:b      kind "cross": patched:a / baseline:a
#   kind "value": k:a            kind "diff": patched:a - baseline:a
function collect(kind, k, a, b, v,    r, n, x, y) {
	n = 0
	for (r = 1; r <= maxrep; r++) {
		if (kind == "value") {
			x = get(k, a, r)
			if (!numeric(x)) continue
			v[++n] = x
		} else {
			x = kind ~ /cross|diff/ ? get("patched", a, r) : get(k, a, r)
			y = kind ~ /cross|diff/ ? get("baseline", a, r) : get(k, b, r)
			if (!numeric(x) || !numeric(y)) continue
			if (kind == "diff") { v[++n] = x - y; continue }
			if (y == 0) continue
			v[++n] = x / y
		}
	}
	return n
}
# Median of a raw figure, for the note column.
function raw(k, f,    r, n, w) {
	n = 0
	for (r = 1; r <= maxrep; r++)
		if (numeric(get(k, f, r))) w[++n] = get(k, f, r)
	if (!n) return ""
	summarise(w, n)
	return med
}
function why(k, f,    r) {
	for (r = 1; r <= maxrep; r++)
		if (get(k, f, r) == "unsupported") return "unsupported by the " k " kernel"
	if (!(k in seen)) return "no " k " log"
	return "no result (see the " k " log)"
}
# Why a row has no value: the first of its figures that is missing.
function whyrow(kind, k, a, b) {
	if (kind ~ /cross|diff/)
		return !numeric(get("patched", a, 1)) ? why("patched", a) : why("baseline", a)
	if (kind == "ratio" && numeric(get(k, a, 1)))
		return why(k, b)
	return why(k, a)
}
# Median over the repetitions of k:a / k:b, or "" when there is none.
function ratio_median(k, a, b,    v, n) {
	n = collect("ratio", k, a, b, v)
	if (!n) return ""
	summarise(v, n)
	return med
}
# A row whose goal is derived from measured figures passes goal "" when
# they are missing, and gwhy: why there is no goal.
# The baseline's ratio a / b, then the patched kernel's against a goal of
# at most the baseline's median ratio of the same run times FACTOR.
function against_baseline(text, a, b, factor,    g, name) {
	g = ratio_median("baseline", a, b)
	name = factor == 1 ? "baseline's" : "baseline's x " factor
	row(text, "ratio", "baseline", a, b, "", "", "ns")
	row(text " (goal: " name ")", "ratio", "patched", a, b, "<=",
	    g == "" ? "" : sprintf("%.3g", g * factor) + 0, "ns", "",
	    "the goal needs the baseline's ratio: " whyrow("ratio", "baseline", a, b))
}
function row(text, kind, k, a, b, op, goal, u, note, gwhy,    n, v, verdict, kk, m, l, h) {
	kk = kind == "cross" ? "patched/baseline" : kind == "diff" ? "patched-baseline" : k
	n = collect(kind, k, a, b, v)
	if (n == 0) {
		printf "%-54s %-16s %4s  %-22s %-8s %s\n", text, kk, 0, "-",
		       op == "" ? "-" : op " " (goal == "" ? "?" : goal), "n/a: " whyrow(kind, k, a, b)
		return
	}
	summarise(v, n)
	m = med; l = lo; h = hi
	if (op == "") verdict = "-"
	else if (goal == "") verdict = "no goal"
	else if (op == "<=") {
		verdict = med <= goal ? "met" : sprintf("MISSED by %.0f%%", (med / goal - 1) * 100)
	} else if (op == ">=") {
		verdict = med >= goal ? "met" : sprintf("MISSED by %.0f%%", (1 - med / goal) * 100)
	} else if (op == "=") {
		verdict = (lo == goal && hi == goal) ? "met" : "MISSED"
	}
	if (n < reps) verdict = verdict " (only " n " reps)"
	if (note == "") {
		if (kind == "ratio")
			note = unit(raw(k, a), u) " vs " unit(raw(k, b), u)
		else if (kind ~ /cross|diff/)
			note = unit(raw("patched", a), u) " vs " unit(raw("baseline", a), u)
	}
	if (op != "" && goal == "") note = note "; " gwhy
	printf "%-54s %-16s %4d  %-22s %-8s %-16s %s\n", text, kk, n,
	       fmt(m) " [" fmt(l) "-" fmt(h) "]",
	       op == "" ? "-" : op " " (goal == "" ? "?" : goal), verdict, note
}
BEGIN { maxrep = 0 }
{ sub(/\r$/, "") }
# (the console may prefix the first line with terminal escapes)
/@@@ KERNEL / {
	split(substr($0, index($0, "@@@ KERNEL ")), kf, " ")
	seen[label] = 1; version[label] = kf[4]; next
}
/^@@@ REP / { rep = $3; if (rep > maxrep) maxrep = rep; next }
/^@@@ R / { val[label, $3, rep] = $4; next }
/^@@@ RC / && $5 != 0 { failed[label] = failed[label] " " $4 "(rc " $5 ", rep " $3 ")"; next }
/^@@@ CHECK BEGIN/ { in_check = 1; next }
/^@@@ CHECK END/ { in_check = 0; check_rc[label] = $4; next }
in_check && /^ok / { check_ok[label]++ }
in_check && /^not ok / { check_bad[label]++; if (!(label in firstcheck)) firstcheck[label] = $0 }
/^@@@ BEGIN dmesg/ { in_dmesg = 1; next }
/^@@@ END dmesg/ { in_dmesg = 0; next }
in_dmesg && /WARNING:|BUG:|Oops|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN|ODEBUG|INFO: task .* blocked|general protection|Call Trace|corruption/ {
	bad[label]++
	if (!(label in firstbad)) firstbad[label] = $0
}
END {
	printf "%-54s %-16s %4s  %-22s %-8s %-16s %s\n", "figure (ratio unless noted)", "kernel",
	       "reps", "median [min-max]", "goal", "verdict", "medians compared"
	print "-- fan-out: kill()+epoll_wait()+read() on one signalfd, N others in the epoll set"
	row("round trip N=64 / N=0", "ratio", "baseline", "fanout.64", "fanout.0", "", "", "ns")
	row("round trip N=64 / N=0", "ratio", "patched", "fanout.64", "fanout.0", "", "", "ns")
	row("round trip N=512 / N=0", "ratio", "baseline", "fanout.512", "fanout.0", "", "", "ns")
	row("round trip N=512 / N=0", "ratio", "patched", "fanout.512", "fanout.0", "<=", 1.2, "ns")
	row("round trip N=0, patched / baseline", "cross", "", "fanout.0", "", "", "", "ns")
	row("round trip N=512, patched / baseline", "cross", "", "fanout.512", "", "", "", "ns")
	row("round trip N=512 reading several, all waited / N=0", "ratio", "baseline", "fanout.several.512", "fanout.0", "", "", "ns")
	row("round trip N=512 reading several, all waited / N=0", "ratio", "patched", "fanout.several.512", "fanout.0", "<=", 1.2, "ns")
	print "-- idle signalfds: kill()+read() of SIGUSR1 beside N fds each waited on once, no longer"
	row("idle signalfds N=4000 / N=0, reading SIGUSR1+SIGUSR2", "ratio", "baseline", "idle.4000.two", "idle.0", "", "", "ns")
	row("idle signalfds N=4000 / N=0, reading SIGUSR1+SIGUSR2", "ratio", "patched", "idle.4000.two", "idle.0", "<=", 1.05, "ns")
	row("idle signalfds N=4000 / N=0, reading SIGUSR1 alone", "ratio", "baseline", "idle.4000.one", "idle.0", "", "", "ns")
	row("idle signalfds N=4000 / N=0, reading SIGUSR1 alone", "ratio", "patched", "idle.4000.one", "idle.0", "<=", 1.05, "ns")
	print "-- teardown: close() of signalfds reading SIGUSR1+SIGUSR2, each waited on once (linear: 4)"
	against_baseline("teardown 16000 / 4000", "teardown.16000", "teardown.4000", 1.1)
	print "-- reap: wait4() of a zombie whose 65536 signalfds wait in an epoll set its child keeps"
	against_baseline("reap, 65536 waiters / none", "reap.65536", "reap.0", 1)
	row("reap, 65536 waiters, patched / baseline", "cross", "", "reap.65536", "", "", "", "ns")
	print "-- fork: fork() of a process holding 65536 open files (a table that never held a claiming fd)"
	against_baseline("fork, 65536 files / none", "fork.65536", "fork.0", 1.05)
	row("fork, 65536 files, patched / baseline", "cross", "", "fork.65536", "", "", "", "ns")
	print "-- SFD_EXCLUSIVE cost"
	row("signals/s: SFD_EXCLUSIVE fd / plain fd, blocked set", "ratio", "patched", "excl.exclusive", "excl.plain", ">=", 0.95, "/s")
	row("signals/s through a plain signalfd", "cross", "", "excl.plain", "", ">=", 0.99, "/s")
	row("kill() to self, handler, no signalfd: time", "cross", "", "kill.handler", "", "<=", 1.02, "ns")
	row("kill() to self, ignored signal, no signalfd: time", "cross", "", "kill.ignored", "", "<=", 1.02, "ns")
	row("getppid(): null syscall, the boots' noise floor", "cross", "", "null.getppid", "", "", "", "ns")
	print "-- SFD_EXCLUSIVE: poll()+read() of a claiming fd, 64 threads / 1 thread"
	row("nothing pending", "ratio", "patched", "threads.64.idle", "threads.1.idle", "<=", 1.1, "ns")
	row("one signal sent to the process (kill)", "ratio", "patched", "threads.64.kill", "threads.1.kill", "<=", 1.1, "ns")
	row("one signal sent to another thread (tgkill)", "ratio", "patched", "threads.64.tgkill", "threads.1.tgkill", "<=", 1.35, "ns")
	row("plain signalfd, nothing pending (the VFS's own cost)", "ratio", "baseline", "threads.64.plain.idle", "threads.1.plain.idle", "", "", "ns")
	row("plain signalfd, nothing pending (the VFS's own cost)", "ratio", "patched", "threads.64.plain.idle", "threads.1.plain.idle", "", "", "ns")
	print "-- memory: slab bytes per signalfd, 32 000 of them (/proc/meminfo Slab), patched - baseline"
	row("created and added to an epoll set (watched)", "diff", "", "memory.watched", "", "<=", 128, " B")
	row("added to a second process's epoll set", "diff", "", "memory.epoll2", "", "<=", 128, " B")
	row("created only", "diff", "", "memory.create", "", "", "", " B")
	row("added to an epoll set only", "diff", "", "memory.epoll", "", "", "", " B")
	print "-- timerfd()"
	row("create+arm+close: timerfd() / timerfd_create+settime", "ratio", "patched", "tfd.cycle.call", "tfd.cycle.create", "<=", 0.7, "ns")
	row("10000 timerfds: expirations handled/s, call / create", "ratio", "patched", "tfd.many.call.events", "tfd.many.create.events", ">=", 0.98, "/s")
	print "-- batching: 64 queued realtime signals (counts, not ratios)"
	row("siginfos from one read() of 64 entries, plain fd", "value", "baseline", "batch.plain.first_read", "", "=", 64, "")
	row("siginfos from one read() of 64 entries, plain fd", "value", "patched", "batch.plain.first_read", "", "=", 64, "")
	row("siginfos from one read() of 64 entries, SFD_EXCLUSIVE", "value", "patched", "batch.exclusive.first_read", "", "=", 64, "")
	row("read() calls per signal, 64 entries, plain fd", "value", "patched", "batch.plain.reads_per_signal", "", "", "", "")
	row("read() calls per signal, 64 entries, SFD_EXCLUSIVE", "value", "patched", "batch.exclusive.reads_per_signal", "", "", "", "")
	row("read() calls per signal, 1-entry buffer", "value", "patched", "batch.one_entry.reads_per_signal", "", "", "", "")
	row("sigwaitinfo() calls per signal", "value", "patched", "batch.sigwaitinfo.calls_per_signal", "", "", "", "")
	row("siginfos in queue order with their values (1 = yes)", "value", "patched", "batch.exclusive.in_order", "", "=", 1, "")
	print "-- wrappers: instructions per call in user space (callgrind, host)"
	row("signalfd(): ours / glibc", "ratio", "host", "wrap.ours.signalfd", "wrap.glibc.signalfd", "<=", 1, " instr")
	row("timerfd_settime(): ours / glibc", "ratio", "host", "wrap.ours.timerfd_settime", "wrap.glibc.timerfd_settime", "<=", 1, " instr")
	row("timerfd_gettime(): ours / glibc", "ratio", "host", "wrap.ours.timerfd_gettime", "wrap.glibc.timerfd_gettime", "<=", 1, " instr")
	print "-- guests"
	split("baseline patched", ks, " ")
	for (i = 1; i <= 2; i++) {
		k = ks[i]
		printf "%-8s kernel %s: %s; wake-up semantics (bench/signalfd-wakeups): %s; benchmark failures:%s; kernel log: %s\n", k,
		       (k in seen) ? version[k] : "(no log)",
		       (k in seen) ? "booted" : "did not boot",
		       (k in check_bad) ? check_bad[k] " failed, first: " firstcheck[k] \
				    : (k in check_rc) ? (check_ok[k] + 0) " ok" (check_rc[k] ? ", exit " check_rc[k] : "") \
						     : "did not run",
		       (k in failed) ? failed[k] : " none",
		       (k in bad) ? bad[k] " suspicious line(s), first: " firstbad[k] : "clean"
	}
}
