/* What many signalfds cost a signal, a close and an exit: it must grow
 * with the waiters, never with the descriptors, and never quadratically.
 * Ratios of two timings taken side by side in one run, with wide margins
 * (emulation is noisy): the exact figures are make bench's.
 *
 * - Idle descriptors: N signalfds that read SIGUSR1 (with SIGUSR2, and
 *   alone), each waited on once through epoll and no longer: kill() +
 *   read() of SIGUSR1 with them must cost what it costs without them,
 *   within IDLE_MARGIN.
 * - Teardown: closing 4N such descriptors takes about 4 times as long as
 *   closing N, within TEARDOWN_MARGIN (quadratic would be 16; series v4
 *   took 7.5 here in the debugging guest).
 * - Exit: a process holding EXIT_N such descriptors exits (the guest
 *   harness fails the run on any soft-lockup or RCU-stall report).
 * - Reaping: a process whose EXIT_N signalfds wait in an epoll set that
 *   its fork child keeps exits, and is reaped.  The kernel frees its
 *   sighand there with the task list write-locked, where nothing may
 *   walk the waiters (the same reports fail it; make bench times it).
 *   Then the child waits on one of them through a set of its own.
 *
 * FDEVENTS_SCALE_EXIT_N overrides EXIT_N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define IDLE_N 4000
#define ROUNDS 2000
#define IDLE_MARGIN 3.0
#define TEARDOWN_N 8000
#define TEARDOWN_MARGIN 1.5	/* times the linear 4 */
#define EXIT_N 100000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int new_sfd(int a, int b)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, a);
	if (b)
		sigaddset(&set, b);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		bail("signalfd: %s", strerror(errno));
	return fd;
}

/* N descriptors reading A (and B), each added to one epoll set that is
 * then closed: waited on once, and no longer.  */
static void make_idle(int *fds, int n, int a, int b)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC), i;

	if (ep < 0)
		bail("epoll_create1: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		fds[i] = new_sfd(a, b);
		ev.data.fd = fds[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0)
			bail("epoll_ctl: %s", strerror(errno));
	}
	close(ep);
}

/* Seconds for ROUNDS of kill(self, SIGUSR1) + read() on READER.  */
static double signal_rounds(int reader)
{
	struct signalfd_siginfo si;
	double t = now();
	int i;

	for (i = 0; i < ROUNDS; i++) {
		kill(getpid(), SIGUSR1);
		if (read(reader, &si, sizeof(si)) != sizeof(si))
			bail("read: %s", strerror(errno));
	}
	return now() - t;
}

static void idle_descriptors(int b, const char *what)
{
	static int fds[IDLE_N];
	int reader = new_sfd(SIGUSR1, 0), i;
	double base, with;

	signal_rounds(reader);		/* warm up */
	base = signal_rounds(reader);
	make_idle(fds, IDLE_N, SIGUSR1, b);
	with = signal_rounds(reader);
	ok(with < base * IDLE_MARGIN,
	   "%d idle signalfds reading %s: kill()+read() of SIGUSR1 costs %.2f times as much (limit %.1f)",
	   IDLE_N, what, with / base, IDLE_MARGIN);
	for (i = 0; i < IDLE_N; i++)
		close(fds[i]);
	close(reader);
}

/* Seconds to close N descriptors reading SIGUSR1 and SIGUSR2, each
 * waited on once.  */
static double close_time(int n)
{
	int *fds = malloc(n * sizeof(*fds)), i;
	double t;

	if (!fds)
		bail("malloc");
	make_idle(fds, n, SIGUSR1, SIGUSR2);
	t = now();
	for (i = 0; i < n; i++)
		close(fds[i]);
	t = now() - t;
	free(fds);
	return t;
}

/* The lowest of three ratios: noise only ever makes one higher.  */
static void teardown(void)
{
	double ratio = 0;
	int i;

	close_time(TEARDOWN_N);		/* warm up */
	for (i = 0; i < 3; i++) {
		double small = close_time(TEARDOWN_N);
		double big = close_time(4 * TEARDOWN_N);

		if (i == 0 || big / small < ratio)
			ratio = big / small;
	}
	ok(ratio < 4 * TEARDOWN_MARGIN,
	   "closing %d signalfds takes %.1f times as long as closing %d (lowest of 3; linear: 4, limit %.1f)",
	   4 * TEARDOWN_N, ratio, TEARDOWN_N, 4 * TEARDOWN_MARGIN);
}

/* Wait for child C, at most 600 s: its wait status, or -1.  */
static int wait_bounded(pid_t c)
{
	int status, waited;

	for (waited = 0; waited < 6000; waited++) {
		struct timespec nap = { 0, 100 * 1000 * 1000 };

		if (waitpid(c, &status, WNOHANG) == c)
			return status;
		nanosleep(&nap, NULL);
	}
	return -1;
}

static int exited_0(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void exit_with_many(int n)
{
	double t = now();
	pid_t c;

	fflush(stdout);
	c = fork();
	if (c < 0)
		bail("fork: %s", strerror(errno));
	if (c == 0) {
		int *fds = malloc(n * sizeof(*fds));

		if (!fds)
			_exit(2);
		make_idle(fds, n, SIGUSR1, SIGUSR2);
		_exit(0);	/* the kernel closes them all */
	}
	ok(exited_0(wait_bounded(c)),
	   "a process holding %d signalfds, each waited on once, exits (%.1f s)",
	   n, now() - t);
}

/*
 * The grandchild, once its parent was reaped: the old set (its entries
 * made through the dead process) reports nothing while nothing is
 * pending, and a descriptor added to a new set is woken by a signal.
 * (With a signal pending, the old set may report it once: freeing the
 * sighand wakes its entries with POLLFREE, which also queues them as
 * ready, on mainline at the reap, with the series just after it.)
 * Exit status: which check failed.
 */
static int after_reap(int old, int sfd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = sfd };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct signalfd_siginfo si;

	if (epoll_wait(old, &ev, 1, 0) != 0)
		return 3;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) != 0)
		return 4;
	kill(getpid(), SIGUSR1);
	if (epoll_wait(ep, &ev, 1, 0) != 1 || ev.data.fd != sfd)
		return 5;
	if (read(sfd, &si, sizeof(si)) != sizeof(si) || si.ssi_signo != SIGUSR1)
		return 6;
	if (epoll_wait(old, &ev, 1, 0) != 0 || epoll_wait(ep, &ev, 1, 0) != 0)
		return 7;
	return 0;	/* the kernel closes the sets and descriptors */
}

/* The process to reap: N signalfds in an epoll set its child keeps.  */
static void waited_on_by_child(int n, int go)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), first = -1, i;
	sigset_t usr1;
	char c;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (ep < 0)
		_exit(2);
	for (i = 0; i < n; i++) {
		int fd = signalfd(-1, &usr1, SFD_NONBLOCK);

		if (fd < 0)
			_exit(2);
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
			_exit(2);
		if (first < 0)
			first = fd;
	}
	switch (fork()) {
	case -1:
		_exit(2);
	case 0:		/* waits until its parent is reaped */
		if (read(go, &c, 1) != 1)
			_exit(2);
		_exit(after_reap(ep, first));
	}
	_exit(0);
}

static void reap_with_waiters(int n)
{
	const char *path = "/proc/sys/fs/epoll/max_user_watches";
	int go[2], status, child;
	long watches = 0;
	double t;
	FILE *f;
	pid_t c;

	f = fopen(path, "r+");
	if (f && fscanf(f, "%ld", &watches) == 1 && watches < n + 1000L) {
		rewind(f);
		fprintf(f, "%ld\n", n + 1000L);
		if (fflush(f) == 0)
			watches = n + 1000L;
	}
	if (f)
		fclose(f);
	if (watches < n + 1000L) {
		skip(2, "reaping a process with %d waiters: %s is %ld and cannot be raised (run as root, as the guest does)",
		     n, path, watches);
		return;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 || pipe(go) != 0)
		bail("prctl/pipe: %s", strerror(errno));
	fflush(stdout);
	c = fork();
	if (c < 0)
		bail("fork: %s", strerror(errno));
	if (c == 0) {
		close(go[1]);
		waited_on_by_child(n, go[0]);
	}
	close(go[0]);
	t = now();
	status = wait_bounded(c);	/* the reap under test */
	t = now() - t;
	ok(exited_0(status),
	   "a process whose %d signalfds wait in its child's epoll set is reaped (%.1f s from fork)",
	   n, t);
	if (write(go[1], "g", 1) != 1)
		bail("write: %s", strerror(errno));
	close(go[1]);
	child = wait_bounded(-1);
	ok(exited_0(child),
	   "then the child's old set reports nothing pending and a new set sees a signal (status %#x)",
	   child);
}

int main(void)
{
	const char *env = getenv("FDEVENTS_SCALE_EXIT_N");
	int exit_n = env ? atoi(env) : EXIT_N;
	int most = exit_n > 4 * TEARDOWN_N ? exit_n : 4 * TEARDOWN_N;
	struct rlimit nofile = { most + 64, most + 64 };
	sigset_t usr;

	if (emulator())
		skip_all("tens of thousands of descriptors under %s: run natively and in the QEMU guest", emulator());
	if (setrlimit(RLIMIT_NOFILE, &nofile) != 0)
		skip_all("RLIMIT_NOFILE cannot be raised to %d (%s): run as root, as the guest does",
			 most + 64, strerror(errno));
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr, NULL);

	idle_descriptors(SIGUSR2, "SIGUSR1 and SIGUSR2");
	idle_descriptors(0, "SIGUSR1 alone");
	teardown();
	exit_with_many(exit_n);
	reap_with_waiters(exit_n);
	return done_testing();
}
