/*
 * fdbench: the guest half of `make bench'.
 *
 * One static program, run inside QEMU on the patched and on the baseline
 * kernel.  Each subcommand measures two or more methods side by side in the
 * same guest and prints one line per figure:
 *
 *	@@@ R <figure> <value>
 *
 * bench/report.awk pairs the figures of the same repetition and kernel into
 * ratios.  Times come from clock_gettime(CLOCK_MONOTONIC); absolute values
 * under software emulation mean little, their ratios do.  A figure the
 * kernel cannot give (a call of the series on the baseline) is printed as
 * "unsupported".
 *
 *	fdbench fanout	kill()+epoll_wait()+read() round trip on one signalfd
 *			while N = 0, 64, 512 other signalfds wait in the epoll
 *	fdbench excl	signals/s through an SFD_EXCLUSIVE signalfd and
 *			through a plain one over a sigprocmask()-blocked set
 *	fdbench kill	kill() of a process with no signalfd (handler, ignored),
 *			and getppid() as a null system call
 *	fdbench tfdcycle	create+arm+close: timerfd() vs timerfd_create()+
 *			timerfd_settime()
 *	fdbench tfdmany	10 000 periodic timerfds in one epoll set: events and
 *			expirations handled per second
 *	fdbench batch	64 queued realtime signals: siginfos returned by one
 *			read() of a 64-entry buffer, read() calls per signal
 *
 * BENCH_MS (default 300) sets how long each timed loop runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long bench_ms = 300;

static void die(const char *what)
{
	fprintf(stderr, "fdbench: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void result(const char *figure, double value)
{
	printf("@@@ R %s %.6g\n", figure, value);
	fflush(stdout);
}

static void unsupported(const char *figure)
{
	printf("@@@ R %s unsupported\n", figure);
	fflush(stdout);
}

/*
 * Run op() in batches until bench_ms have passed; return ns per call.  A
 * short warm-up first, so that page faults and first-use allocations (a
 * signalfd's first poll) stay out of the figure.
 */
static double time_loop(void (*op)(void *), void *arg)
{
	long n = 0, batch = 16, i;
	double start, end, limit = bench_ms * 1e6;

	for (i = 0; i < 16; i++)
		op(arg);
	start = now_ns();
	do {
		for (i = 0; i < batch; i++)
			op(arg);
		n += batch;
		end = now_ns();
		if (batch < 4096)
			batch *= 2;
	} while (end - start < limit);
	return (end - start) / n;
}

static void block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		die("sigprocmask");
}

/* ------------------------------------------------------------------ */
/* fan-out */

struct roundtrip {
	int fd, ep;
	pid_t pid;
	int sig;
};

static void roundtrip_op(void *arg)
{
	struct roundtrip *rt = arg;
	struct epoll_event ev[8];
	struct signalfd_siginfo si;
	int n;

	if (kill(rt->pid, rt->sig))
		die("kill");
	n = epoll_wait(rt->ep, ev, 8, -1);
	if (n != 1 || ev[0].data.fd != rt->fd) {
		fprintf(stderr, "fdbench: epoll_wait gave %d events\n", n);
		exit(2);
	}
	if (read(rt->fd, &si, sizeof(si)) != sizeof(si))
		die("read");
	if (si.ssi_signo != (uint32_t)rt->sig) {
		fprintf(stderr, "fdbench: read signal %u\n", si.ssi_signo);
		exit(2);
	}
}

/* The other descriptors read one realtime signal each (never sent), so the
   masks differ from each other and from the target's.  */
static double fanout(int others)
{
	struct roundtrip rt = { .pid = getpid(), .sig = SIGUSR1 };
	struct epoll_event ev = { .events = EPOLLIN };
	int *fds = calloc(others + 1, sizeof(int));
	sigset_t set;
	double ns;
	int i;

	rt.ep = epoll_create1(0);
	if (rt.ep < 0 || !fds)
		die("epoll_create1");
	for (i = 0; i < others; i++) {
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN + i % (SIGRTMAX - SIGRTMIN));
		fds[i] = signalfd(-1, &set, SFD_NONBLOCK);
		if (fds[i] < 0)
			die("signalfd");
		ev.data.fd = fds[i];
		if (epoll_ctl(rt.ep, EPOLL_CTL_ADD, fds[i], &ev))
			die("epoll_ctl");
	}
	sigemptyset(&set);
	sigaddset(&set, rt.sig);
	rt.fd = signalfd(-1, &set, SFD_NONBLOCK);
	if (rt.fd < 0)
		die("signalfd");
	ev.data.fd = rt.fd;
	if (epoll_ctl(rt.ep, EPOLL_CTL_ADD, rt.fd, &ev))
		die("epoll_ctl");

	ns = time_loop(roundtrip_op, &rt);

	for (i = 0; i < others; i++)
		close(fds[i]);
	close(rt.fd);
	close(rt.ep);
	free(fds);
	return ns;
}

static void raise_nofile(rlim_t n)
{
	struct rlimit rl = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE)");
}

static int cmd_fanout(void)
{
	static const int ns[] = { 0, 64, 512 };
	char name[64];
	unsigned i;

	raise_nofile(4096);
	block(SIGUSR1);
	block(SIGRTMIN);	/* and every signal the others read: */
	for (i = SIGRTMIN; i <= (unsigned)SIGRTMAX; i++)
		block(i);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(name, sizeof(name), "fanout.%d", ns[i]);
		result(name, fanout(ns[i]));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* SFD_EXCLUSIVE vs a plain signalfd over a blocked set */

struct sigread {
	int fd;
	pid_t pid;
};

static void sigread_op(void *arg)
{
	struct sigread *sr = arg;
	struct signalfd_siginfo si;

	if (kill(sr->pid, SIGUSR1))
		die("kill");
	if (read(sr->fd, &si, sizeof(si)) != sizeof(si))
		die("read");
}

/* In a child, so the parent's mask and claims never leak into the next
   measurement.  Returns signals per second, 0 if the flag is unsupported. */
static double sigrate(int exclusive)
{
	int pfd[2];
	double rate = -1;
	pid_t pid;

	if (pipe(pfd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct sigread sr = { .pid = getpid() };
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (exclusive) {
			sr.fd = signalfd(-1, &set, SFD_EXCLUSIVE);
		} else {
			block(SIGUSR1);
			sr.fd = signalfd(-1, &set, 0);
		}
		if (sr.fd < 0)
			rate = 0;
		else
			rate = 1e9 / time_loop(sigread_op, &sr);
		if (write(pfd[1], &rate, sizeof(rate)) != sizeof(rate))
			_exit(2);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &rate, sizeof(rate)) != sizeof(rate))
		rate = -1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	if (rate < 0) {
		fprintf(stderr, "fdbench: the child measuring signalfd died\n");
		exit(2);
	}
	return rate;
}

static int cmd_excl(void)
{
	double plain = sigrate(0), excl = sigrate(1);

	result("excl.plain", plain);
	if (excl > 0)
		result("excl.exclusive", excl);
	else
		unsupported("excl.exclusive");
	return 0;
}

/* ------------------------------------------------------------------ */
/* kill() of a process that has no signalfd */

static volatile sig_atomic_t handled;

static void handler(int sig)
{
	(void)sig;
	handled++;
}

static void kill_op(void *arg)
{
	if (kill(getpid(), *(int *)arg))
		die("kill");
}

static void getppid_op(void *arg)
{
	(void)arg;
	getppid();
}

static int cmd_kill(void)
{
	struct sigaction sa = { .sa_handler = handler };
	int sig;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		die("sigaction");
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGUSR2, &sa, NULL))
		die("sigaction");

	result("null.getppid", time_loop(getppid_op, NULL));
	sig = SIGUSR1;
	result("kill.handler", time_loop(kill_op, &sig));
	sig = SIGUSR2;
	result("kill.ignored", time_loop(kill_op, &sig));
	if (!handled) {
		fprintf(stderr, "fdbench: the handler never ran\n");
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* timerfd(): create+arm+close */

static void cycle_call(void *arg)
{
	struct itimerspec its = { .it_interval = { 1, 0 } };
	int fd;

	(void)arg;
	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	if (fd < 0)
		die("timerfd");
	close(fd);
}

static void cycle_create(void *arg)
{
	struct itimerspec its = { .it_value = { 1, 0 } };
	int fd;

	(void)arg;
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, 0, &its, NULL))
		die("timerfd_settime");
	close(fd);
}

static int have_timerfd_call(void)
{
	struct itimerspec its = { .it_interval = { 1, 0 } };
	int fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int cmd_tfdcycle(void)
{
	result("tfd.cycle.create", time_loop(cycle_create, NULL));
	if (have_timerfd_call())
		result("tfd.cycle.call", time_loop(cycle_call, NULL));
	else
		unsupported("tfd.cycle.call");
	return 0;
}

/* ------------------------------------------------------------------ */
/* 10 000 periodic timerfds in one epoll set */

#define MANY 10000
#define PERIOD_NS 1000000	/* 1 ms: every timer is due again by the time
				   the loop comes back to it */

static void many(int use_call, double *events, double *expirations)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[256];
	struct itimerspec its;
	double start, end, limit = bench_ms * 1e6 * 2;
	unsigned long nev = 0, nexp = 0;
	int *fds = calloc(MANY, sizeof(int));
	int ep = epoll_create1(0), i, n;
	struct timespec t0;

	if (ep < 0 || !fds)
		die("epoll_create1");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < MANY; i++) {
		if (use_call) {
			/* SEQ: first tick at the absolute it_value, then every
			   it_interval */
			its.it_value.tv_sec = t0.tv_sec + 1;
			its.it_value.tv_nsec = t0.tv_nsec;
			its.it_interval.tv_sec = 0;
			its.it_interval.tv_nsec = PERIOD_NS;
			fds[i] = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ,
					 &its);
			if (fds[i] < 0)
				die("timerfd");
		} else {
			its.it_value.tv_sec = t0.tv_sec + 1;
			its.it_value.tv_nsec = t0.tv_nsec;
			its.it_interval.tv_sec = 0;
			its.it_interval.tv_nsec = PERIOD_NS;
			fds[i] = timerfd_create(CLOCK_MONOTONIC, 0);
			if (fds[i] < 0)
				die("timerfd_create");
			if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its,
					    NULL))
				die("timerfd_settime");
		}
		ev.data.fd = fds[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev))
			die("epoll_ctl");
	}
	/* Let every timer pass its first tick, so the loop starts saturated */
	t0.tv_sec += 1;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t0, NULL) ==
	       EINTR)
		;

	/* One pass over every timer first, so the count below is of the
	   steady state, not of the backlog since the first tick */
	for (nev = 0; nev < MANY; nev += n) {
		n = epoll_wait(ep, evs, 256, -1);
		if (n < 0)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			uint64_t ticks;

			if (read(evs[i].data.fd, &ticks, sizeof(ticks)) < 0 &&
			    errno != EAGAIN)
				die("read");
		}
	}
	nev = 0;
	start = now_ns();
	do {
		n = epoll_wait(ep, evs, 256, -1);
		if (n < 0)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			uint64_t ticks = 0;
			ssize_t r = read(evs[i].data.fd, &ticks, sizeof(ticks));

			if (r == 4)
				nexp += (uint32_t)ticks;
			else if (r == 8)
				nexp += ticks;
			else if (!(r < 0 && errno == EAGAIN))
				die("read");
			nev++;
		}
		end = now_ns();
	} while (end - start < limit);

	*events = nev / ((end - start) / 1e9);
	*expirations = nexp / ((end - start) / 1e9);
	for (i = 0; i < MANY; i++)
		close(fds[i]);
	close(ep);
	free(fds);
}

static int cmd_tfdmany(void)
{
	double ev, exp;

	raise_nofile(MANY + 64);
	many(0, &ev, &exp);
	result("tfd.many.create.events", ev);
	result("tfd.many.create.expirations", exp);
	if (have_timerfd_call()) {
		many(1, &ev, &exp);
		result("tfd.many.call.events", ev);
		result("tfd.many.call.expirations", exp);
	} else {
		unsupported("tfd.many.call.events");
		unsupported("tfd.many.call.expirations");
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* batching */

#define QUEUED 64

/* Queue 64 realtime signals, then drain them with reads of `entries'
   siginfos.  Gives the count of the first read and the number of reads;
   checks the values come back in order. */
static int drain(int fd, int entries, int *first, int *reads)
{
	struct signalfd_siginfo si[QUEUED];
	union sigval v;
	int got = 0, i, ok = 1;
	ssize_t r;

	for (i = 0; i < QUEUED; i++) {
		v.sival_int = i;
		if (sigqueue(getpid(), SIGRTMIN, v))
			die("sigqueue");
	}
	*reads = 0;
	*first = -1;
	while (got < QUEUED) {
		r = read(fd, si, entries * sizeof(si[0]));
		if (r < 0) {
			if (errno == EAGAIN)
				break;
			die("read");
		}
		r /= sizeof(si[0]);
		if (*first < 0)
			*first = r;
		for (i = 0; i < r; i++)
			ok &= si[i].ssi_int == got + i &&
			      si[i].ssi_signo == (uint32_t)SIGRTMIN;
		got += r;
		++*reads;
	}
	if (got != QUEUED) {
		fprintf(stderr, "fdbench: read %d of %d signals\n", got, QUEUED);
		ok = 0;
	}
	return ok;
}

static void batch_method(const char *name, int fd)
{
	int first, reads, ok;
	char fig[64];

	ok = drain(fd, QUEUED, &first, &reads);
	snprintf(fig, sizeof(fig), "batch.%s.first_read", name);
	result(fig, first);
	snprintf(fig, sizeof(fig), "batch.%s.reads_per_signal", name);
	result(fig, (double)reads / QUEUED);
	snprintf(fig, sizeof(fig), "batch.%s.in_order", name);
	result(fig, ok);
}

static int cmd_batch(void)
{
	sigset_t set;
	pid_t pid;
	int fd, status;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);

	/* a plain signalfd over the blocked signal */
	pid = fork();
	if (pid == 0) {
		block(SIGRTMIN);
		fd = signalfd(-1, &set, SFD_NONBLOCK);
		if (fd < 0)
			die("signalfd");
		batch_method("plain", fd);
		_exit(0);
	}
	waitpid(pid, &status, 0);

	/* SFD_EXCLUSIVE, nothing blocked */
	pid = fork();
	if (pid == 0) {
		fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_EXCLUSIVE);
		if (fd < 0) {
			unsupported("batch.exclusive.first_read");
			unsupported("batch.exclusive.reads_per_signal");
			unsupported("batch.exclusive.in_order");
			_exit(0);
		}
		batch_method("exclusive", fd);
		_exit(0);
	}
	waitpid(pid, &status, 0);

	/* for reference: one siginfo per read(), and sigwaitinfo() */
	pid = fork();
	if (pid == 0) {
		int first, reads, i;
		union sigval v;

		block(SIGRTMIN);
		fd = signalfd(-1, &set, SFD_NONBLOCK);
		if (fd < 0)
			die("signalfd");
		drain(fd, 1, &first, &reads);
		result("batch.one_entry.reads_per_signal",
		       (double)reads / QUEUED);
		for (i = 0; i < QUEUED; i++) {
			v.sival_int = i;
			if (sigqueue(getpid(), SIGRTMIN, v))
				die("sigqueue");
		}
		for (i = 0; i < QUEUED; i++)
			if (sigwaitinfo(&set, NULL) != SIGRTMIN)
				die("sigwaitinfo");
		result("batch.sigwaitinfo.calls_per_signal", 1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ms = getenv("BENCH_MS");

	if (ms && atol(ms) > 0)
		bench_ms = atol(ms);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "fanout"))
		return cmd_fanout();
	if (argc == 2 && !strcmp(argv[1], "excl"))
		return cmd_excl();
	if (argc == 2 && !strcmp(argv[1], "kill"))
		return cmd_kill();
	if (argc == 2 && !strcmp(argv[1], "tfdcycle"))
		return cmd_tfdcycle();
	if (argc == 2 && !strcmp(argv[1], "tfdmany"))
		return cmd_tfdmany();
	if (argc == 2 && !strcmp(argv[1], "batch"))
		return cmd_batch();
	fprintf(stderr,
		"usage: fdbench fanout|excl|kill|tfdcycle|tfdmany|batch\n");
	return 2;
}
