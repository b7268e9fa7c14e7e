/* A forced signal escapes a claim even when it has no queue entry.
 *
 * The kernel marks the synchronous signals it forces on a thread (here
 * seccomp's SIGSYS) so that an SFD_EXCLUSIVE claim of the same signal
 * never holds them.  When the siginfo's allocation fails, the signal is
 * pending without an entry to carry the mark; it must still be delivered
 * as it would be without the claim:
 *
 * - SECCOMP_RET_TRAP: the SIGSYS handler runs (with the siginfo lost,
 *   si_code SI_USER, as when the allocation fails without a claim), and
 *   the claiming signalfd has nothing to read;
 * - the same behind a claimed SIGSYS already pending from tgkill();
 * - SECCOMP_RET_KILL_PROCESS: the process dies of SIGSYS at that call.
 *   Surviving would let it make another call, which the kernel answers
 *   with a warning and SIGKILL;
 * - the same trap under ptrace, the tracer resuming the child with the
 *   SIGSYS it stopped for: the signal is still the fault, delivered, and
 *   not queued again for the claim;
 * - the trap with nothing claimed, then a claim of SIGSYS and a SIGSYS
 *   from tgkill(): the claim holds it.  A fault that lost its entry
 *   leaves nothing behind once taken, whether or not the process claimed
 *   anything when it was forced.
 *
 * Each case runs in a child, once without fault injection and once with
 * fail-nth failing the first allocation of the call (the siginfo's);
 * fail-nth exists on the guest's debugging kernel only: elsewhere the
 * injected cases say why they skip.
 *
 * Then SECCOMP_RET_KILL_PROCESS once more, with SIGSYS and SIGTRAP
 * claimed and a claimed SIGTRAP pending from tgkill(), whose handler's
 * sa_mask holds SIGSYS or not, traced or not, with each of the first 16
 * allocations of the call failing in turn: whatever the order in which
 * the signals are taken, and whatever a handler blocks meanwhile, the
 * forced SIGSYS must kill.
 *
 * Last, a fault queued behind a claimed instance does not hide that
 * instance from the group's other threads: a thread's SIGSYS from
 * tgkill() is held, its seccomp SIGSYS is queued behind it, and its
 * tracer blocks SIGSYS and resumes it with the fault, which is queued
 * again, blocked.  Another thread's claiming signalfd still reads the
 * SIGSYS that was sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "failslab.h"
#include "seccomp-enosys.h"

/* What a child saw, sent back through a pipe.  */
struct report {
	int handled;		/* SIGSYS handler runs */
	int code;		/* si_code of the last one */
	int read_signo;		/* what the claiming signalfd read, or 0 */
	int injected;		/* fail-nth was reached (-1: not armed) */
	int handled_later;	/* CLAIM_AFTER_TRAP: handler runs for tgkill() */
	char err[120];		/* why the child could not run the case */
};

static volatile sig_atomic_t handled, handled_code;

static void on_sigsys(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)uc;
	handled++;
	handled_code = info->si_code;
}

/* An SFD_EXCLUSIVE signalfd for *set, or -1 with the reason in r->err.  */
static int claim_sigsys(const sigset_t *set, struct report *r)
{
	int sfd = signalfd(-1, set, SFD_EXCLUSIVE | SFD_NONBLOCK | SFD_CLOEXEC);

	if (sfd < 0)
		snprintf(r->err, sizeof(r->err), "signalfd(SFD_EXCLUSIVE): %s",
			 strerror(errno));
	return sfd;
}

enum forced_case {
	TRAP, TRAP_BEHIND_CLAIMED, KILL_PROCESS, TRAP_TRACED, CLAIM_AFTER_TRAP
};

/* The child: claim SIGSYS, filter getppid() with the case's action, arm
 * fail-nth if asked to, call getppid(), report.  CLAIM_AFTER_TRAP claims
 * SIGSYS after the call, and then sends itself one.  */
static void child(enum forced_case c, int inject, int out)
{
	struct report r = { .injected = -1 };
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };
	struct signalfd_siginfo si;
	sigset_t set;
	int sfd = -1, nth = -1;

	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigaction(SIGSYS, &sa, NULL);
	if (c == TRAP_TRACED && ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) {
		snprintf(r.err, sizeof(r.err), "PTRACE_TRACEME: %s",
			 strerror(errno));
		goto report;
	}
	if (c != CLAIM_AFTER_TRAP && (sfd = claim_sigsys(&set, &r)) < 0)
		goto report;
	if (inject &&
	    (nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(r.err, sizeof(r.err), "/proc/thread-self/fail-nth: %s",
			 strerror(errno));
		goto report;
	}
	if (c == TRAP_BEHIND_CLAIMED)
		syscall(SYS_tgkill, getpid(), gettid(), SIGSYS);
	if (seccomp_filter_calls(SYS_getppid, SYS_getppid,
				 c == KILL_PROCESS ? SECCOMP_RET_KILL_PROCESS :
						     SECCOMP_RET_TRAP) != 0) {
		snprintf(r.err, sizeof(r.err), "seccomp filter: %s",
			 strerror(errno));
		goto report;
	}
	if (nth >= 0 && failslab_nth(nth, 1) < 0) {
		snprintf(r.err, sizeof(r.err), "arming fail-nth: %s",
			 strerror(errno));
		goto report;
	}
	syscall(SYS_getppid);
	if (nth >= 0)
		r.injected = failslab_nth(nth, 0) == 0;
	r.handled = handled;
	r.code = handled_code;
	if (c == CLAIM_AFTER_TRAP) {
		if ((sfd = claim_sigsys(&set, &r)) < 0)
			goto report;
		syscall(SYS_tgkill, getpid(), gettid(), SIGSYS);
		r.handled_later = handled - r.handled;
	}
	if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		r.read_signo = (int)si.ssi_signo;
report:
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(0);
}

/* Wait for the child PID to end, resuming it with the signal of each
 * ptrace stop; *sigsys_stops counts its stops for SIGSYS.  Its wait
 * status.  */
static int reap(pid_t pid, int *sigsys_stops)
{
	int status;

	*sigsys_stops = 0;
	for (;;) {
		if (waitpid(pid, &status, 0) != pid)
			bail("waitpid: %s", strerror(errno));
		if (!WIFSTOPPED(status))
			return status;
		*sigsys_stops += WSTOPSIG(status) == SIGSYS;
		if (ptrace(PTRACE_CONT, pid, NULL,
			   (void *)(long)WSTOPSIG(status)) != 0)
			bail("PTRACE_CONT: %s", strerror(errno));
	}
}

/* Run the case in a child; its report in *r, its wait status returned.
 * A traced child is resumed with the signal of each stop; *sigsys_stops
 * counts its stops for SIGSYS.  */
static int run(enum forced_case c, int inject, struct report *r,
	       int *sigsys_stops)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(p, O_CLOEXEC) != 0)
		bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		child(c, inject, p[1]);
	}
	close(p[1]);
	/* The report is small: the pipe holds it until the child is gone. */
	status = reap(pid, sigsys_stops);
	n = read(p[0], r, sizeof(*r));
	close(p[0]);
	if (n != (ssize_t)sizeof(*r) && c != KILL_PROCESS)
		diag("the child sent no report (wait status %#x)", status);
	return status;
}

static const char *how(int inject)
{
	return inject ? "its siginfo's allocation failed" : "no failure";
}

static void trap_case(enum forced_case c, int inject, const char *what)
{
	struct report r;
	int stops, status = run(c, inject, &r, &stops);

	if (r.err[0]) {
		ok(0, "%s, %s: %s", what, how(inject), r.err);
		return;
	}
	if (c == TRAP_TRACED)
		ok(stops == 1, "%s, %s: the tracer saw the SIGSYS (%d stops)",
		   what, how(inject), stops);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "%s, %s: the process lives (wait status %#x)", what, how(inject),
	   status);
	if (inject)
		ok(r.injected == 1, "%s: fail-nth was reached in the call", what);
	ok(r.handled >= 1,
	   "%s, %s: the SIGSYS handler runs (%d times, si_code %d)", what,
	   how(inject), r.handled, r.code);
	if (c == CLAIM_AFTER_TRAP) {
		is(r.handled_later, 0,
		   "%s, %s: the SIGSYS from tgkill() after the claim is not delivered",
		   what, how(inject));
		is(r.read_signo, SIGSYS,
		   "%s, %s: the claiming signalfd reads it", what, how(inject));
	} else if (c != TRAP_BEHIND_CLAIMED)
		is(r.read_signo, 0,
		   "%s, %s: the claiming signalfd holds no SIGSYS", what,
		   how(inject));
	else if (!inject)
		is(r.read_signo, SIGSYS,
		   "%s: the claimed SIGSYS stays for the signalfd", what);
	else
		/* Without an entry of its own, the fault made the instance
		 * pending the fault: delivered, not left for the claim.  */
		is(r.read_signo, 0,
		   "%s, %s: the instance pending was taken for the fault",
		   what, how(inject));
}

static void kill_case(int inject)
{
	struct report r;
	int stops, status = run(KILL_PROCESS, inject, &r, &stops);

	if (r.err[0]) {
		ok(0, "SECCOMP_RET_KILL_PROCESS, %s: %s", how(inject), r.err);
		return;
	}
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	   "SECCOMP_RET_KILL_PROCESS with SIGSYS claimed, %s: killed by SIGSYS (wait status %#x%s)",
	   how(inject), status,
	   WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ?
	   ": SIGKILL means it survived the call" : "");
}

static void on_sigtrap(int sig)
{
	(void)sig;
}

/* The child of kill_order(): exits 0 if it survives the call, 10 and up
 * if it could not set the case up.  */
static void kill_order_child(int nth, int masked, int traced)
{
	struct sigaction sa = { .sa_handler = on_sigtrap };
	sigset_t set;
	int fd;

	sigemptyset(&sa.sa_mask);
	if (masked)
		sigaddset(&sa.sa_mask, SIGSYS);
	sigaction(SIGTRAP, &sa, NULL);
	if (traced && ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
		_exit(10);
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	sigaddset(&set, SIGTRAP);
	if (signalfd(-1, &set, SFD_EXCLUSIVE | SFD_CLOEXEC) < 0)
		_exit(11);
	syscall(SYS_tgkill, getpid(), gettid(), SIGTRAP);  /* held */
	fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(12);
	if (seccomp_filter_calls(SYS_getppid, SYS_getppid,
				 SECCOMP_RET_KILL_PROCESS) != 0)
		_exit(13);
	if (failslab_nth(fd, nth) < 0)
		_exit(14);
	syscall(SYS_getppid);
	_exit(0);
}

/* The forced SIGSYS of SECCOMP_RET_KILL_PROCESS kills, whichever
 * allocation of the call fails and whatever is taken first.  */
static void kill_order(int masked, int traced)
{
	int nth, status, stops;
	pid_t pid;

	for (nth = 1; nth <= 16; nth++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			bail("fork: %s", strerror(errno));
		if (pid == 0)
			kill_order_child(nth, masked, traced);
		status = reap(pid, &stops);
		ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		   "SECCOMP_RET_KILL_PROCESS, SIGSYS and SIGTRAP claimed, a claimed SIGTRAP pending%s%s, allocation %d of the call failing: killed by SIGSYS (wait status %#x%s)",
		   masked ? " (its handler masks SIGSYS)" : "",
		   traced ? ", traced" : "", nth, status,
		   WIFEXITED(status) && WEXITSTATUS(status) == 0 ?
		   ": it survived the call" :
		   WIFEXITED(status) ? ": the case could not be set up" : "");
	}
}

/* The faulting thread of behind_fault(): it sends its id, waits for its
 * go, makes the trapped call (its tracer stops it there), and says when
 * it is back.  */
static int bf_go[2], bf_back[2];

static void *bf_thread(void *arg)
{
	pid_t me = gettid();
	char c;

	(void)arg;
	if (write(bf_back[1], &me, sizeof(me)) != sizeof(me) ||
	    read(bf_go[0], &c, 1) != 1 ||
	    seccomp_filter_calls(SYS_getppid, SYS_getppid,
				 SECCOMP_RET_TRAP) != 0)
		c = 'E';
	else
		syscall(SYS_getppid);
	if (write(bf_back[1], &c, 1) != 1)
		_exit(3);
	for (;;)
		pause();
	return NULL;
}

/* The traced process of behind_fault(): it sends its second thread's id
 * through OUT, waits for the tracer's byte on IN, then claims SIGSYS,
 * sends the thread one, lets it fault, reads the claiming signalfd and
 * reports.  */
static void bf_child(int in, int out)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };
	struct report r = { .injected = -1 };
	struct signalfd_siginfo si;
	pthread_t thread;
	sigset_t set;
	pid_t tid;
	char c;
	int sfd;

	sigaction(SIGSYS, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	if (pipe(bf_go) || pipe(bf_back) ||
	    pthread_create(&thread, NULL, bf_thread, NULL))
		_exit(10);
	if (read(bf_back[0], &tid, sizeof(tid)) != sizeof(tid) ||
	    write(out, &tid, sizeof(tid)) != sizeof(tid) ||
	    read(in, &c, 1) != 1)
		_exit(11);
	if ((sfd = claim_sigsys(&set, &r)) < 0)
		goto report;
	syscall(SYS_tgkill, getpid(), tid, SIGSYS);	/* held */
	if (write(bf_go[1], "g", 1) != 1 || read(bf_back[0], &c, 1) != 1)
		_exit(12);
	if (c == 'E') {
		snprintf(r.err, sizeof(r.err), "seccomp filter in the thread");
		goto report;
	}
	if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		r.read_signo = (int)si.ssi_signo;
		r.code = si.ssi_code;
	}
	r.handled = handled;
report:
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(0);
}

static void behind_fault(void)
{
	int to[2], from[2], status, stopped = -1;
	uint64_t blocked = 1ULL << (SIGSYS - 1);	/* the kernel's sigset */
	struct report r = { .err = "no report" };
	pid_t pid, tid, w;

	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		bf_child(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (read(from[0], &tid, sizeof(tid)) != sizeof(tid))
		bail("behind_fault: the child sent no thread id");
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0)
		bail("PTRACE_SEIZE: %s", strerror(errno));
	if (write(to[1], "s", 1) != 1)
		bail("write: %s", strerror(errno));
	/* The thread stops for its fault: block SIGSYS, resume it with it. */
	if (waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status)) {
		stopped = WSTOPSIG(status);
		if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(blocked),
			   &blocked) != 0 ||
		    ptrace(PTRACE_CONT, tid, NULL, (void *)(long)stopped) != 0)
			bail("PTRACE_SETSIGMASK, PTRACE_CONT: %s",
			     strerror(errno));
	}
	if (read(from[0], &r, sizeof(r)) != sizeof(r))
		r.err[0] = 'n';
	close(from[0]);
	close(to[1]);
	/* The traced thread is reaped by its tracer, then the process. */
	while ((w = waitpid(-1, &status, __WALL)) > 0 && w != pid)
		;
	is(stopped, SIGSYS,
	   "a thread's seccomp SIGSYS queued behind a claimed SIGSYS from tgkill(): its tracer stops it for the fault");
	if (r.err[0]) {
		ok(0, "the fault behind a claimed instance: %s", r.err);
		ok(0, "the fault behind a claimed instance: no handler (no report)");
		return;
	}
	ok(r.read_signo == SIGSYS && r.code == SI_TKILL,
	   "with the fault requeued behind it, blocked by the tracer, another thread's claiming signalfd reads the SIGSYS sent (signal %d, code %d)",
	   r.read_signo, r.code);
	is(r.handled, 0, "the blocked fault runs no handler meanwhile");
}

int main(void)
{
	const char *why;
	sigset_t set;
	int fd, inject;

	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	fd = signalfd(-1, &set, SFD_EXCLUSIVE | SFD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && !kernel_is_patched())
		skip_all("this kernel rejects SFD_EXCLUSIVE (EINVAL): claims are tested in the QEMU guest");
	if (fd < 0)
		bail("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));
	close(fd);
#ifndef SECCOMP_FILTER_ARCH
	skip_all("no seccomp filter for this architecture in tests/seccomp-enosys.h");
#endif
	why = fork_broken();
	if (why)
		skip_all("%s", why);
	why = failslab_unready();

	for (inject = 0; inject <= 1; inject++) {
		if (inject && why) {
			/* TRAP 4, TRAP_BEHIND_CLAIMED 4, KILL_PROCESS 1,
			 * TRAP_TRACED 5, CLAIM_AFTER_TRAP 5 */
			skip(19, "%s", why);
			break;
		}
		trap_case(TRAP, inject, "SECCOMP_RET_TRAP with SIGSYS claimed");
		trap_case(TRAP_BEHIND_CLAIMED, inject,
			  "SECCOMP_RET_TRAP behind a claimed SIGSYS from tgkill()");
		kill_case(inject);
		trap_case(TRAP_TRACED, inject,
			  "SECCOMP_RET_TRAP with SIGSYS claimed, traced");
		trap_case(CLAIM_AFTER_TRAP, inject,
			  "SECCOMP_RET_TRAP with nothing claimed, then a claim");
	}
	if (why) {
		skip(4 * 16, "%s", why);
	} else {
		kill_order(0, 0);
		kill_order(1, 0);
		kill_order(0, 1);
		kill_order(1, 1);
	}
	behind_fault();
	return done_testing();
}
