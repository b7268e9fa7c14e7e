/* Stress of signalfd, timerfd and the fdevents additions, for the QEMU
 * guest (-smp 2), run for FDEVENTS_STRESS_SECONDS (default 60).  All the
 * loads run at once; the kernel side (lockdep, debug objects, list and
 * slab debugging) is judged by the harness from the kernel log, this
 * program checks what user space can see and prints its counts:
 *
 *  A. threads reading one signalfd while others sigqueue() numbered
 *     realtime signals and kill() SIGUSR1: every realtime signal sigqueue()
 *     accepted is read exactly once; SIGUSR1 reads <= sends, > 0;
 *  B. threads reading a periodic timerfd_create() and a timerfd()
 *     descriptor while others re-arm both through timerfd_settime() and
 *     timerfd(): every read counts >= 1, the totals only grow;
 *  C. close() while another thread is blocked in read() on a signalfd
 *     (woken by the signal afterwards: close does not wake it) and while
 *     another is in epoll_wait() on a set holding a timerfd (a set
 *     closed before the wait began gives EBADF, or EINVAL once another
 *     thread's new descriptor took its number);
 *  D. SFD_EXCLUSIVE claims made and dropped in a loop by a process that a
 *     child floods with SIGUSR2: the claimer survives, its handler never
 *     runs while it claims, handler + reads <= sent, > 0;
 *  E. exec and exit of 3-thread processes that claim SIGTERM (or, without
 *     SFD_EXCLUSIVE, block it) while sending it to themselves: all exit 0;
 *     and a fork storm of children that read the signalfd and timerfd they
 *     inherit: all read their own signal and are reaped;
 *  F. an ABSTIME|CANCEL_ON_SET timer on CLOCK_REALTIME while a thread sets
 *     that clock to its own value: reads give ECANCELED.  Setting the
 *     clock needs CAP_SYS_TIME, and happens only on the patched kernel
 *     (the guest) or with FDEVENTS_STRESS_SETTIME=yes.
 *
 * Every wait is bounded; children have an alarm(); a watchdog thread
 * bails out rather than let the run hang.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define US 1000L
#define MS 1000000L
#define NS_PER_S 1000000000LL

typedef atomic_ulong counter;

static int seconds = 60;
static long long deadline;	/* CLOCK_MONOTONIC, when the loads stop */
static atomic_int stop;		/* the loads stop */
static atomic_int finished;	/* main is done: the watchdog stands down */
static const char *volatile stage = "start";
static int has_excl, has_timerfd;
static pid_t me;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * (long long)NS_PER_S + t.tv_nsec;
}

static void nap(long ns)
{
	struct timespec t = { ns / NS_PER_S, ns % NS_PER_S };

	nanosleep(&t, NULL);
}

static struct timespec ts_of(long long ns)
{
	struct timespec t = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };

	return t;
}

/* Per-thread random numbers (xorshift32): the same code in every thread. */
static unsigned int rnd(unsigned int *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static sigset_t set_of(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	return s;
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg) != 0)
		bail("pthread_create: %s", strerror(errno));
	return t;
}

/* Join within @s seconds; a thread that does not end is a failure.  */
static int join(pthread_t t, int s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += s;
	return pthread_timedjoin_np(t, NULL, &until) == 0;
}

/* Reap @pid within @ms milliseconds, or kill it: its status, or -1.  */
static int reap(pid_t pid, int ms)
{
	int status, i;

	for (i = 0; i < ms; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		nap(MS);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* A. One signalfd, several readers, numbered realtime signals. *********/

static struct {
	int fd, rt;
	unsigned long cap;		/* sequence numbers available */
	unsigned char *accepted;	/* sigqueue() said yes */
	unsigned char *seen;		/* times read (atomic adds) */
	atomic_ulong next;
	counter accepted_n, eagain, send_err, rt_read, usr1_sent, usr1_read;
	counter bad_info, out_of_range, read_err;
	atomic_int done;		/* the readers stop (after the drain) */
} a;

static void *a_reader(void *arg)
{
	struct signalfd_siginfo si[16];
	ssize_t n, i;

	(void)arg;
	while (!atomic_load(&a.done)) {
		if (!readable(a.fd, 100))
			continue;
		n = read(a.fd, si, sizeof(si));
		if (n < 0) {
			if (errno != EAGAIN)	/* another reader was faster */
				atomic_fetch_add(&a.read_err, 1);
			continue;
		}
		if (n % sizeof(si[0]))
			atomic_fetch_add(&a.bad_info, 1);
		for (i = 0; i < n / (ssize_t)sizeof(si[0]); i++) {
			if (si[i].ssi_signo == (uint32_t)a.rt) {
				unsigned long seq = (unsigned int)si[i].ssi_int;

				if (si[i].ssi_code != SI_QUEUE || si[i].ssi_pid != (uint32_t)me)
					atomic_fetch_add(&a.bad_info, 1);
				if (seq < a.cap)
					__atomic_fetch_add(&a.seen[seq], 1, __ATOMIC_RELAXED);
				else
					atomic_fetch_add(&a.out_of_range, 1);
				atomic_fetch_add(&a.rt_read, 1);
			} else if (si[i].ssi_signo == SIGUSR1) {
				if (si[i].ssi_code != SI_USER || si[i].ssi_pid != (uint32_t)me)
					atomic_fetch_add(&a.bad_info, 1);
				atomic_fetch_add(&a.usr1_read, 1);
			} else {
				atomic_fetch_add(&a.bad_info, 1);
			}
		}
	}
	return NULL;
}

static void *a_rt_sender(void *arg)
{
	union sigval v;
	unsigned long seq;
	int i;

	(void)arg;
	while (!atomic_load(&stop)) {
		/* Keep the queue short, so the readers keep up on a slow
		 * guest and the sequence space lasts the run.  */
		if ((long)(atomic_load(&a.accepted_n) - atomic_load(&a.rt_read)) > 1024) {
			nap(MS);
			continue;
		}
		for (i = 0; i < 16; i++) {
			seq = atomic_fetch_add(&a.next, 1);
			if (seq >= a.cap)
				break;
			v.sival_int = (int)seq;
			if (sigqueue(me, a.rt, v) == 0) {
				a.accepted[seq] = 1;
				atomic_fetch_add(&a.accepted_n, 1);
			} else if (errno == EAGAIN) {
				/* RLIMIT_SIGPENDING: not sent */
				atomic_fetch_add(&a.eagain, 1);
			} else {
				atomic_fetch_add(&a.send_err, 1);
			}
		}
		nap(MS);
	}
	return NULL;
}

static void *a_usr1_sender(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (kill(me, SIGUSR1) == 0)
			atomic_fetch_add(&a.usr1_sent, 1);
		nap(500 * US);
	}
	return NULL;
}

/* B. Periodic timers read by several threads, re-armed by others. *****/

static struct {
	int tfd;	/* timerfd_create(): 8-byte reads */
	int cfd;	/* timerfd(): 4-byte reads, or -1 */
	atomic_ullong total8, total4;
	counter reads8, reads4, bad_reads, rearms, rearm_err;
} b;

static void b_read(int fd, size_t size)
{
	union {
		uint64_t u64;
		uint32_t u32;
	} v = { 0 };
	unsigned long long n, old;
	ssize_t got = read(fd, &v, size);

	if (got < 0) {
		if (errno != EAGAIN)
			atomic_fetch_add(&b.bad_reads, 1);
		return;
	}
	n = size == 8 ? v.u64 : v.u32;
	if (got != (ssize_t)size || n < 1 || (size == 8 && n > 1000000000ULL)) {
		atomic_fetch_add(&b.bad_reads, 1);
		return;
	}
	old = atomic_fetch_add(size == 8 ? &b.total8 : &b.total4, n);
	if (old + n <= old)	/* the running total must only grow */
		atomic_fetch_add(&b.bad_reads, 1);
	atomic_fetch_add(size == 8 ? &b.reads8 : &b.reads4, 1);
}

static void *b_reader(void *arg)
{
	struct pollfd p[2] = { { b.tfd, POLLIN, 0 }, { b.cfd, POLLIN, 0 } };

	(void)arg;
	while (!atomic_load(&stop)) {
		if (poll(p, b.cfd >= 0 ? 2 : 1, 100) <= 0)
			continue;
		if (p[0].revents & POLLIN)
			b_read(b.tfd, 8);
		if (b.cfd >= 0 && (p[1].revents & POLLIN))
			b_read(b.cfd, 4);
	}
	return NULL;
}

static void *b_rearmer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 2654435761u + 1;
	struct itimerspec its, old;
	long long first, period;
	int ret;

	while (!atomic_load(&stop)) {
		/* 200 us to 5 ms: the timers tick often, but the kernel
		 * re-arms a periodic timerfd only when it is read.  */
		first = 200 * US + rnd(&seed) % (2 * MS);
		period = 200 * US + rnd(&seed) % (5 * MS);
		switch (rnd(&seed) % (has_timerfd ? 7 : 3)) {
		case 0:
			its.it_value = ts_of(first);
			its.it_interval = ts_of(period);
			ret = timerfd_settime(b.tfd, 0, &its, &old);
			break;
		case 1:
			its.it_value = ts_of(now_ns() + first);
			its.it_interval = ts_of(period);
			ret = timerfd_settime(b.tfd, TFD_TIMER_ABSTIME, &its, NULL);
			break;
		case 2:
			ret = timerfd_gettime(b.tfd, &old);
			break;
		case 3:	/* timerfd() re-arms a timerfd_create() descriptor */
			its.it_value = ts_of(now_ns() + first);
			its.it_interval = ts_of(period);
			ret = timerfd(b.tfd, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
			ret = ret == b.tfd ? 0 : -1;
			break;
		case 4:
			its.it_value = ts_of(now_ns() + first);
			its.it_interval = ts_of(period);
			ret = timerfd(b.cfd, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
			ret = ret == b.cfd ? 0 : -1;
			break;
		case 5:
			its.it_value = ts_of(first);
			its.it_interval = ts_of(period);
			ret = timerfd_settime(b.cfd, 0, &its, &old);
			break;
		default:
			ret = timerfd_gettime(b.cfd, &old);
			break;
		}
		if (ret != 0 && atomic_fetch_add(&b.rearm_err, 1) < 3)
			diag("B: re-arm failed: %s", strerror(errno));
		atomic_fetch_add(&b.rearms, 1);
		nap(MS);
	}
	return NULL;
}

/* C. close() under a blocked read() and a blocked epoll_wait(). ********/

static struct {
	counter read_rounds, woken, ebadf_first, read_bad, stuck;
	counter epoll_rounds, epoll_ready, epoll_timeout, epoll_ebadf, epoll_bad;
	counter epoll_reused;
	atomic_int epoll_bad_errno;	/* the first wrong round's errno */
} c;

struct blocked {
	int fd;
	atomic_int tid;
	ssize_t n;
	int err;
	struct signalfd_siginfo si;
	struct epoll_event ev[4];
};

static void *c_blocked_read(void *arg)
{
	struct blocked *r = arg;

	atomic_store(&r->tid, tid());
	r->n = read(r->fd, &r->si, sizeof(r->si));
	r->err = errno;
	return NULL;
}

static void *c_blocked_epoll(void *arg)
{
	struct blocked *r = arg;

	atomic_store(&r->tid, tid());
	r->n = epoll_wait(r->fd, r->ev, 4, 50);
	r->err = errno;
	return NULL;
}

static void *c_closer(void *arg)
{
	unsigned int seed = 12345;
	int sig = SIGRTMIN + 6, i;

	/* On the heap: a thread that never returns keeps its copy (no
	 * pthread_cancel(), which loads libgcc_s, absent from the guest).  */
	struct blocked *rp = calloc(1, sizeof(*rp));

	(void)arg;
	while (rp && !atomic_load(&stop)) {
		sigset_t mask = set_of(sig);
		struct blocked r = { .fd = signalfd(-1, &mask, 0) };
		struct epoll_event ev = { .events = EPOLLIN };
		struct itimerspec its = { { 0, 0 }, { 0, 0 } };
		pthread_t t;
		int tfd, ep;

		/* A read blocked on a signalfd that another thread closes:
		 * close does not wake it, the signal does.  */
		if (r.fd < 0) {
			atomic_fetch_add(&c.read_bad, 1);
			nap(MS);
			continue;
		}
		*rp = r;
		t = start(c_blocked_read, rp);
		for (i = 0; i < 1000 && !atomic_load(&rp->tid); i++)
			nap(100 * US);
		nap((long)(rnd(&seed) % (2 * MS)));
		close(r.fd);
		syscall(SYS_tgkill, me, atomic_load(&rp->tid), sig);
		if (!join(t, 10)) {
			atomic_fetch_add(&c.stuck, 1);
			break;
		}
		r = *rp;
		if (r.n == (ssize_t)sizeof(r.si) && r.si.ssi_signo == (uint32_t)sig) {
			atomic_fetch_add(&c.woken, 1);
		} else if (r.n < 0 && r.err == EBADF) {
			atomic_fetch_add(&c.ebadf_first, 1);	/* closed before read */
		} else {
			atomic_fetch_add(&c.read_bad, 1);
		}
		atomic_fetch_add(&c.read_rounds, 1);

		/* epoll_wait() on a set whose timerfd, and sometimes the set
		 * itself, is closed meanwhile.  */
		ep = epoll_create1(0);
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		its.it_value = ts_of(rnd(&seed) % 2 ? 1 * MS : 10LL * NS_PER_S);
		its.it_interval = ts_of(1 * MS);
		if (ep < 0 || tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) != 0) {
			int zero = 0;

			atomic_compare_exchange_strong(&c.epoll_bad_errno,
						       &zero, errno);
			atomic_fetch_add(&c.epoll_bad, 1);
			close(ep);
			close(tfd);
			nap(MS);
			continue;
		}
		memset(rp, 0, sizeof(*rp));
		rp->fd = ep;
		t = start(c_blocked_epoll, rp);
		nap((long)(rnd(&seed) % (3 * MS)));
		close(tfd);
		if (rnd(&seed) % 2) {
			close(ep);
			ep = -1;
		}
		if (!join(t, 10)) {
			atomic_fetch_add(&c.stuck, 1);
			break;
		}
		r = *rp;
		if (r.n > 0) {
			atomic_fetch_add(&c.epoll_ready, 1);
		} else if (r.n == 0) {
			atomic_fetch_add(&c.epoll_timeout, 1);
		} else if (r.err == EBADF) {
			atomic_fetch_add(&c.epoll_ebadf, 1);	/* set closed first */
		} else if (ep < 0 && r.err == EINVAL) {
			/* Closed before the wait began, and the number given to
			 * another thread's new descriptor, not an epoll set. */
			atomic_fetch_add(&c.epoll_reused, 1);
		} else {
			int zero = 0;

			atomic_compare_exchange_strong(&c.epoll_bad_errno,
						       &zero, r.err);
			atomic_fetch_add(&c.epoll_bad, 1);
		}
		if (ep >= 0)
			close(ep);
		atomic_fetch_add(&c.epoll_rounds, 1);
	}
	if (!rp)
		atomic_fetch_add(&c.read_bad, 1);
	if (!atomic_load(&c.stuck))
		free(rp);
	return NULL;
}

/* D. SFD_EXCLUSIVE claims under a flood of SIGUSR2 (a child process). **/

struct d_result {
	unsigned long claims, sent, handled, read, violations, errors;
};

static volatile sig_atomic_t d_claimed;
static volatile unsigned long d_handled, d_violations;

static void d_on_usr2(int sig)
{
	(void)sig;
	d_handled++;
	if (d_claimed)	/* a claimed signal must never reach a handler */
		d_violations++;
}

static void claimer(int out)
{
	sigset_t usr2 = set_of(SIGUSR2);
	struct signalfd_siginfo si[8];
	struct sigaction sa;
	struct d_result r = { 0 };
	unsigned int seed = 777;
	pid_t flooder;
	int fp[2], fd, j, k;
	ssize_t n;

	alarm((unsigned int)seconds + 120);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = d_on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &usr2, NULL);
	if (pipe2(fp, O_CLOEXEC) != 0)
		_exit(2);
	flooder = fork();
	if (flooder == 0) {
		unsigned long sent = 0;
		pid_t target = getppid();

		alarm((unsigned int)seconds + 60);
		while (now_ns() < deadline) {
			for (j = 0; j < 16; j++)
				if (kill(target, SIGUSR2) == 0)
					sent++;
			nap(MS);
		}
		if (write(fp[1], &sent, sizeof(sent)) != (ssize_t)sizeof(sent))
			_exit(3);
		_exit(0);
	}
	close(fp[1]);
	while (now_ns() < deadline) {
		fd = signalfd(-1, &usr2, SFD_EXCLUSIVE | SFD_NONBLOCK);
		if (fd < 0) {
			r.errors++;
			nap(MS);
			continue;
		}
		d_claimed = 1;
		r.claims++;
		for (k = (int)(rnd(&seed) % 4); k > 0; k--) {
			if (!readable(fd, 1))
				continue;
			n = read(fd, si, sizeof(si));
			if (n < 0) {
				r.errors += errno != EAGAIN;
				continue;
			}
			for (j = 0; j < n / (ssize_t)sizeof(si[0]); j++) {
				r.read++;
				if (si[j].ssi_signo != SIGUSR2 ||
				    si[j].ssi_pid != (uint32_t)flooder)
					r.errors++;
			}
		}
		d_claimed = 0;
		close(fd);
		/* Unclaimed for a moment: the handler takes what comes.  */
		nap(rnd(&seed) % 2 ? 300 * US : 100 * US);
	}
	/* The flooder may still be sending: a handler run would cut the
	 * wait for its count short with EINTR.  What arrives from now on
	 * stays pending and is counted nowhere, so sent >= handled + read
	 * still holds.  */
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	if (!readable(fp[0], 30000) ||
	    read(fp[0], &r.sent, sizeof(r.sent)) != (ssize_t)sizeof(r.sent))
		r.errors++;
	if (reap(flooder, 10000) != 0)
		r.errors++;
	r.handled = d_handled;
	r.violations = d_violations;
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(4);
	_exit(0);
}

/* E. Exec and exit of multi-threaded claimers (a nursery process). *****/

struct e_result {
	unsigned long children, exit0, killed_by_term, other, stuck;
	unsigned long variant[4];
	int first_bad_status;
};

enum { E_EXEC_OTHER, E_EXEC_LEADER, E_EXIT_GROUP, E_LEADER_FIRST };
/* What the leader tells the reader thread to do.  */
enum { CMD_NONE, CMD_EXEC, CMD_EXIT, CMD_EXIT_LATER };

static struct {
	int fd;
	atomic_int stop_sending, cmd;
	char **argv, **envp;
} ec;

static void e_drain_and_exec(void)
{
	struct signalfd_siginfo si[8];
	char *argv[] = { ec.argv[0], "--exit0", NULL };

	/* Nothing sends SIGTERM any more: read what is pending, so the
	 * exec'd image, whose claim is gone, does not die of it.  */
	while (read(ec.fd, si, sizeof(si)) > 0)
		;
	execve("/proc/self/exe", argv, ec.envp);
	_exit(30);
}

static void *e_sender(void *arg)
{
	(void)arg;
	while (!atomic_load(&ec.stop_sending)) {
		kill(getpid(), SIGTERM);
		nap(200 * US);
	}
	return NULL;
}

static void *e_reader(void *arg)
{
	struct signalfd_siginfo si[8];

	(void)arg;
	for (;;) {
		switch (atomic_load(&ec.cmd)) {
		case CMD_EXEC:
			e_drain_and_exec();
			break;
		case CMD_EXIT:
			_exit(0);
		case CMD_EXIT_LATER:
			nap(5 * MS);	/* outlive the leader for a while */
			_exit(0);
		}
		if (readable(ec.fd, 2) && read(ec.fd, si, sizeof(si)) < 0 &&
		    errno != EAGAIN)
			_exit(31);
	}
	return NULL;
}

static void e_child(int variant, int claim, unsigned int seed)
{
	sigset_t term = set_of(SIGTERM);
	pthread_t sender, reader;

	alarm(20);
	if (!claim)
		sigprocmask(SIG_BLOCK, &term, NULL);
	ec.fd = signalfd(-1, &term, (claim ? SFD_EXCLUSIVE : 0) | SFD_NONBLOCK |
			 (seed % 2 ? SFD_CLOEXEC : 0));
	if (ec.fd < 0)
		_exit(20);
	sender = start(e_sender, NULL);
	reader = start(e_reader, NULL);
	nap(2 * MS + (long)(seed % (20 * MS)));
	switch (variant) {
	case E_EXEC_OTHER:
		atomic_store(&ec.stop_sending, 1);
		pthread_join(sender, NULL);
		atomic_store(&ec.cmd, CMD_EXEC);
		for (;;)
			pause();	/* de_thread() ends this thread */
	case E_EXEC_LEADER:
		atomic_store(&ec.stop_sending, 1);
		pthread_join(sender, NULL);
		e_drain_and_exec();
		break;
	case E_EXIT_GROUP:	/* with SIGTERM still coming */
		atomic_store(&ec.cmd, CMD_EXIT);
		for (;;)
			pause();
	case E_LEADER_FIRST:	/* the claim outlives its creating thread */
		atomic_store(&ec.cmd, CMD_EXIT_LATER);
		syscall(SYS_exit, 0);
	}
	(void)reader;
	_exit(21);
}

static void nursery(int out, char **argv, char **envp)
{
	struct e_result r = { .first_bad_status = 0 };
	unsigned int seed = 4242;
	int status;
	pid_t pid;

	alarm((unsigned int)seconds + 120);
	ec.argv = argv;
	ec.envp = envp;
	while (now_ns() < deadline) {
		int variant = (int)(r.children % 4);

		pid = fork();
		if (pid == 0)
			e_child(variant, has_excl, rnd(&seed));
		rnd(&seed);
		if (pid < 0) {
			r.other++;
			nap(10 * MS);
			continue;
		}
		r.children++;
		r.variant[variant]++;
		status = reap(pid, 15000);
		if (status == -1)
			r.stuck++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			r.exit0++;
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
			r.killed_by_term++;
		else
			r.other++;
		if (status != 0 && !r.first_bad_status)
			r.first_bad_status = status;
		nap(MS);
	}
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(4);
	_exit(0);
}

/* E'. A fork storm: children read and close inherited descriptors. ****/

static struct {
	int sfd, tfd, sig;
	counter forks, exit0, bad, fork_err;
} s;

static void storm_child(void)
{
	struct signalfd_siginfo si;
	uint64_t ticks;
	int got = 0;

	alarm(10);
	/* Its own signal, read through the descriptor it inherited.  */
	kill(getpid(), s.sig);
	if (readable(s.sfd, 5000) && read(s.sfd, &si, sizeof(si)) == sizeof(si) &&
	    si.ssi_signo == (uint32_t)s.sig && si.ssi_pid == (uint32_t)getpid())
		got = 1;
	/* The parent's timer: ticks may go to a sibling; either is fine.  */
	if (readable(s.tfd, 20) && read(s.tfd, &ticks, sizeof(ticks)) < 0 &&
	    errno != EAGAIN)
		got = 0;
	close(s.sfd);
	close(s.tfd);
	_exit(got ? 0 : 3);
}

static void *storm(void *arg)
{
	pid_t live[4] = { 0 };
	int i, status;

	(void)arg;
	while (!atomic_load(&stop)) {
		for (i = 0; i < 4; i++) {
			if (live[i] && waitpid(live[i], &status, WNOHANG) == live[i]) {
				if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
					atomic_fetch_add(&s.exit0, 1);
				else
					atomic_fetch_add(&s.bad, 1);
				live[i] = 0;
			}
			if (!live[i]) {
				live[i] = fork();
				if (live[i] == 0)
					storm_child();
				if (live[i] < 0) {
					live[i] = 0;
					atomic_fetch_add(&s.fork_err, 1);
				} else {
					atomic_fetch_add(&s.forks, 1);
				}
			}
		}
		nap(2 * MS);
	}
	for (i = 0; i < 4; i++) {
		if (!live[i])
			continue;
		status = reap(live[i], 15000);
		if (status == 0)
			atomic_fetch_add(&s.exit0, 1);
		else
			atomic_fetch_add(&s.bad, 1);
	}
	return NULL;
}

/* F. CANCEL_ON_SET while CLOCK_REALTIME is set. ***********************/

static struct {
	int fd;
	const char *why;	/* why the clock is not set, or NULL */
	counter sets, set_err, canceled, settime_canceled, ticks, bad;
} f;

/* Set CLOCK_REALTIME to where it would be had nobody set it since the
 * start (so the sets never drift it), less 1 ns every other time (so the
 * realtime-monotonic offset changes even on a coarse clocksource).  */
static void *f_setter(void *arg)
{
	struct timespec real0, t;
	long long mono0 = now_ns(), i;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &real0);
	for (i = 0; !atomic_load(&stop); i++) {
		long long ns = real0.tv_sec * (long long)NS_PER_S + real0.tv_nsec +
			       (now_ns() - mono0) - (i & 1);

		t = ts_of(ns);
		if (clock_settime(CLOCK_REALTIME, &t) == 0)
			atomic_fetch_add(&f.sets, 1);
		else
			atomic_fetch_add(&f.set_err, 1);
		nap(20 * MS);
	}
	return NULL;
}

static int f_arm(void)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	clock_gettime(CLOCK_REALTIME, &its.it_value);
	its.it_value.tv_sec += 24 * 3600;
	return timerfd_settime(f.fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			       &its, NULL);
}

static void *f_reader(void *arg)
{
	uint64_t ticks;
	ssize_t n;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (!readable(f.fd, 200))
			continue;
		n = read(f.fd, &ticks, sizeof(ticks));
		if (n == (ssize_t)sizeof(ticks)) {
			atomic_fetch_add(&f.ticks, 1);	/* a day early */
		} else if (n < 0 && errno == ECANCELED) {
			atomic_fetch_add(&f.canceled, 1);
			/* Re-arm now and then; that may report a cancel too.  */
			if (atomic_load(&f.canceled) % 4 == 0 && f_arm() != 0) {
				if (errno == ECANCELED)
					atomic_fetch_add(&f.settime_canceled, 1);
				else
					atomic_fetch_add(&f.bad, 1);
			}
		} else if (!(n < 0 && errno == EAGAIN)) {
			atomic_fetch_add(&f.bad, 1);
		}
	}
	return NULL;
}

/* The run. ************************************************************/

static void *watchdog(void *arg)
{
	long long limit = deadline + (seconds + 120LL) * NS_PER_S;

	(void)arg;
	while (now_ns() < limit) {
		if (atomic_load(&finished))
			return NULL;
		nap(100 * MS);
	}
	printf("Bail out! watchdog: still running %d s after the load stopped (stage: %s)\n",
	       seconds + 120, stage);
	fflush(stdout);
	_exit(1);
}

static void progress(long long t0)
{
	diag("%3lld s: A rt %lu/%lu usr1 %lu/%lu | B reads %lu+%lu rearms %lu | C rounds %lu+%lu | storm %lu | F cancels %lu",
	     (now_ns() - t0) / NS_PER_S,
	     atomic_load(&a.rt_read), atomic_load(&a.accepted_n),
	     atomic_load(&a.usr1_read), atomic_load(&a.usr1_sent),
	     atomic_load(&b.reads8), atomic_load(&b.reads4), atomic_load(&b.rearms),
	     atomic_load(&c.read_rounds), atomic_load(&c.epoll_rounds),
	     atomic_load(&s.forks), atomic_load(&f.canceled));
}

/* Fork a helper process before any thread exists; its result comes back
 * through a pipe.  */
static pid_t helper(void (*fn)(int), int *in)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		bail("pipe2: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fn(p[1]);
		_exit(5);
	}
	close(p[1]);
	*in = p[0];
	return pid;
}

static char **main_argv, **main_envp;

static void run_nursery(int out)
{
	nursery(out, main_argv, main_envp);
}

/* Read a helper's result within 60 s and reap it: its exit status.  */
static int collect(pid_t pid, int in, void *res, size_t size)
{
	int got = readable(in, 60000) && read(in, res, size) == (ssize_t)size;

	close(in);
	return got ? reap(pid, 10000) : (kill(pid, SIGKILL), reap(pid, 1000), -1);
}

int main(int argc, char **argv, char **envp)
{
	pthread_t ta[3], tas[2], tau, tb[2], tbr[2], tc, tst, tf[2], tw;
	struct d_result dr = { 0 };
	struct e_result er = { 0 };
	pid_t dpid = -1, epid;
	int din = -1, ein, i, f_running = 0, dstatus, estatus;
	long long t0, next_progress;
	const char *env;
	sigset_t blocked;

	memset(tf, 0, sizeof(tf));	/* started only if the clock may be set */

	/* The image a multi-threaded claimer exec's: done at once.  */
	if (argc > 1 && strcmp(argv[1], "--exit0") == 0)
		_exit(0);
	main_argv = argv;
	main_envp = envp;
	env = getenv("FDEVENTS_STRESS_SECONDS");
	if (env && atoi(env) > 0)
		seconds = atoi(env);
	me = getpid();
	t0 = now_ns();
	deadline = t0 + seconds * (long long)NS_PER_S;
	setvbuf(stdout, NULL, _IOLBF, 0);

	{
		sigset_t usr2 = set_of(SIGUSR2);
		struct itimerspec zero = { { 0, 0 }, { 0, 0 } };
		int x;

		sigprocmask(SIG_BLOCK, &usr2, NULL);	/* only for the probe */
		x = signalfd(-1, &usr2, SFD_EXCLUSIVE);
		has_excl = x >= 0;
		close(x);
		sigprocmask(SIG_UNBLOCK, &usr2, NULL);
		x = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &zero);
		has_timerfd = x >= 0;
		close(x);
	}
	diag("%d s on %ld CPUs; SFD_EXCLUSIVE %s, timerfd() %s%s", seconds,
	     sysconf(_SC_NPROCESSORS_ONLN), has_excl ? "present" : "absent",
	     has_timerfd ? "present" : "absent",
	     kernel_is_patched() ? " (FDEVENTS_KERNEL=patched)" : "");

	/* Helper processes first, while this one has a single thread.  */
	if (has_excl)
		dpid = helper(claimer, &din);
	epid = helper(run_nursery, &ein);

	/* Every thread inherits this mask: the signals the signalfds read
	 * are blocked everywhere.  */
	a.rt = SIGRTMIN + 2;
	s.sig = SIGRTMIN + 7;
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGUSR1);
	sigaddset(&blocked, a.rt);
	sigaddset(&blocked, SIGRTMIN + 6);
	sigaddset(&blocked, s.sig);
	sigprocmask(SIG_BLOCK, &blocked, NULL);

	tw = start(watchdog, NULL);

	/* A */
	a.cap = (unsigned long)seconds * 40000 + 100000;
	a.accepted = calloc(a.cap, 1);
	a.seen = calloc(a.cap, 1);
	if (!a.accepted || !a.seen)
		bail("calloc: %s", strerror(errno));
	{
		sigset_t mask;

		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		sigaddset(&mask, a.rt);
		a.fd = signalfd(-1, &mask, SFD_NONBLOCK);
		if (a.fd < 0)
			bail("signalfd: %s", strerror(errno));
	}
	for (i = 0; i < 3; i++)
		ta[i] = start(a_reader, NULL);
	for (i = 0; i < 2; i++)
		tas[i] = start(a_rt_sender, NULL);
	tau = start(a_usr1_sender, NULL);

	/* B */
	{
		struct itimerspec its = { { 0, 500 * US }, { 0, 1 * MS } };

		b.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (b.tfd < 0 || timerfd_settime(b.tfd, 0, &its, NULL) != 0)
			bail("timerfd_create: %s", strerror(errno));
		b.cfd = -1;
		if (has_timerfd) {
			its.it_value = ts_of(now_ns() + MS);
			b.cfd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
			if (b.cfd < 0)
				bail("timerfd: %s", strerror(errno));
			fcntl(b.cfd, F_SETFL, O_NONBLOCK);
		}
	}
	for (i = 0; i < 2; i++) {
		tb[i] = start(b_reader, NULL);
		tbr[i] = start(b_rearmer, (void *)(uintptr_t)(i + 1));
	}

	/* C */
	tc = start(c_closer, NULL);

	/* Fork storm */
	{
		sigset_t mask = set_of(s.sig);
		struct itimerspec its = { { 0, 1 * MS }, { 0, 1 * MS } };

		s.sfd = signalfd(-1, &mask, SFD_NONBLOCK);
		s.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (s.sfd < 0 || s.tfd < 0 || timerfd_settime(s.tfd, 0, &its, NULL) != 0)
			bail("fork storm descriptors: %s", strerror(errno));
	}
	tst = start(storm, NULL);

	/* F */
	env = getenv("FDEVENTS_STRESS_SETTIME");
	f.fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	if (!kernel_is_patched() && !(env && strcmp(env, "yes") == 0)) {
		f.why = "setting CLOCK_REALTIME would disturb this machine: done on the patched kernel (the guest) or with FDEVENTS_STRESS_SETTIME=yes";
	} else {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		if (clock_settime(CLOCK_REALTIME, &t) != 0)
			f.why = errno == EPERM ?
				"clock_settime(CLOCK_REALTIME) gives EPERM: needs CAP_SYS_TIME (root)" :
				"clock_settime(CLOCK_REALTIME) fails";
	}
	if (!f.why) {
		if (f.fd < 0 || f_arm() != 0)
			bail("CANCEL_ON_SET timer: %s", strerror(errno));
		tf[0] = start(f_setter, NULL);
		tf[1] = start(f_reader, NULL);
		f_running = 1;
	}

	/* The load runs; a line of counts every 10 s.  */
	stage = "load";
	next_progress = t0 + 10 * NS_PER_S;
	while (now_ns() < deadline) {
		nap(100 * MS);
		if (now_ns() >= next_progress && now_ns() < deadline) {
			progress(t0);
			next_progress += 10 * NS_PER_S;
		}
	}
	atomic_store(&stop, 1);

	stage = "joining the load threads";
	{
		int stuck = 0;

		for (i = 0; i < 2; i++) {
			stuck += !join(tas[i], 30);
			stuck += !join(tb[i], 30);
			stuck += !join(tbr[i], 30);
		}
		stuck += !join(tau, 30);
		stuck += !join(tc, 60);
		stuck += !join(tst, 60);
		if (f_running) {
			stuck += !join(tf[0], 30);
			stuck += !join(tf[1], 30);
		}

		/* A: drain, until everything sigqueue() accepted is read and
		 * the descriptor stays quiet, or 60 s pass.  */
		stage = "draining A";
		{
			long long until = now_ns() + 60 * NS_PER_S;

			while (now_ns() < until) {
				if (atomic_load(&a.rt_read) >= atomic_load(&a.accepted_n) &&
				    !readable(a.fd, 500))
					break;
				nap(10 * MS);
			}
		}
		atomic_store(&a.done, 1);
		for (i = 0; i < 3; i++)
			stuck += !join(ta[i], 30);

		stage = "collecting the helper processes";
		dstatus = has_excl ? collect(dpid, din, &dr, sizeof(dr)) : 0;
		estatus = collect(epid, ein, &er, sizeof(er));
		ok(stuck == 0 && dstatus == 0 && estatus == 0,
		   "every thread and helper process ended within its bound (%d threads stuck; claimer status %#x, nursery status %#x)",
		   stuck, dstatus, estatus);
	}
	stage = "report";
	progress(t0);

	/* A */
	{
		unsigned long used = atomic_load(&a.next), seq, lost = 0, dup = 0,
			      phantom = 0;

		if (used > a.cap)
			used = a.cap;
		for (seq = 0; seq < used; seq++) {
			if (a.accepted[seq] && a.seen[seq] == 0)
				lost++;
			else if (a.seen[seq] > 1)
				dup++;
			else if (!a.accepted[seq] && a.seen[seq])
				phantom++;
		}
		diag("A: realtime: %lu sent, %lu accepted, %lu EAGAIN, %lu read; lost %lu, duplicated %lu, never sent %lu, out of range %lu%s",
		     used, atomic_load(&a.accepted_n), atomic_load(&a.eagain),
		     atomic_load(&a.rt_read), lost, dup, phantom,
		     atomic_load(&a.out_of_range),
		     used == a.cap ? " (sequence space used up)" : "");
		diag("A: SIGUSR1: %lu sent, %lu read; %lu siginfo anomalies, %lu read errors, %lu send errors",
		     atomic_load(&a.usr1_sent), atomic_load(&a.usr1_read),
		     atomic_load(&a.bad_info), atomic_load(&a.read_err),
		     atomic_load(&a.send_err));
		ok(atomic_load(&a.accepted_n) > 0 && lost == 0 && dup == 0 &&
		   phantom == 0 && atomic_load(&a.out_of_range) == 0 &&
		   atomic_load(&a.rt_read) == atomic_load(&a.accepted_n),
		   "A: every realtime signal sigqueue() accepted was read exactly once (%lu)",
		   atomic_load(&a.accepted_n));
		ok(atomic_load(&a.usr1_read) > 0 &&
		   atomic_load(&a.usr1_read) <= atomic_load(&a.usr1_sent),
		   "A: SIGUSR1 reads (%lu) <= sends (%lu), and > 0",
		   atomic_load(&a.usr1_read), atomic_load(&a.usr1_sent));
		ok(atomic_load(&a.bad_info) == 0 && atomic_load(&a.read_err) == 0 &&
		   atomic_load(&a.send_err) == 0,
		   "A: every read siginfo had the right signo, code and pid; no read or send errors");
	}

	/* B */
	diag("B: timerfd_create(): %lu reads, %llu ticks; timerfd(): %lu reads, %llu ticks; %lu re-arms, %lu failed; %lu bad reads",
	     atomic_load(&b.reads8), (unsigned long long)atomic_load(&b.total8),
	     atomic_load(&b.reads4), (unsigned long long)atomic_load(&b.total4),
	     atomic_load(&b.rearms), atomic_load(&b.rearm_err),
	     atomic_load(&b.bad_reads));
	ok(atomic_load(&b.reads8) > 0 && atomic_load(&b.bad_reads) == 0,
	   "B: every read of the timerfd_create() descriptor counted >= 1 and the total only grew");
	if (has_timerfd)
		ok(atomic_load(&b.reads4) > 0 && atomic_load(&b.bad_reads) == 0,
		   "B: every 4-byte read of the timerfd() descriptor counted >= 1");
	else if (kernel_is_patched())
		ok(0, "B: timerfd() exists on the patched kernel");
	else
		skip(1, "kernel without the fdevents series: no timerfd() (run in the QEMU guest)");
	ok(atomic_load(&b.rearms) > 0 && atomic_load(&b.rearm_err) == 0,
	   "B: every re-arm and gettime succeeded (timerfd_settime%s)",
	   has_timerfd ? " and timerfd()" : " only");

	/* C */
	diag("C: read rounds %lu: woken by the signal %lu, closed before the read %lu, wrong %lu; epoll rounds %lu: ready %lu, timed out %lu, set closed first %lu (its number reused %lu), wrong %lu (first errno %d); stuck %lu",
	     atomic_load(&c.read_rounds), atomic_load(&c.woken),
	     atomic_load(&c.ebadf_first), atomic_load(&c.read_bad),
	     atomic_load(&c.epoll_rounds), atomic_load(&c.epoll_ready),
	     atomic_load(&c.epoll_timeout), atomic_load(&c.epoll_ebadf),
	     atomic_load(&c.epoll_reused), atomic_load(&c.epoll_bad),
	     atomic_load(&c.epoll_bad_errno), atomic_load(&c.stuck));
	ok(atomic_load(&c.read_rounds) > 0 && atomic_load(&c.woken) > 0 &&
	   atomic_load(&c.read_bad) == 0 && atomic_load(&c.stuck) == 0,
	   "C: close() under a blocked signalfd read(): each read returned the signal or EBADF");
	ok(atomic_load(&c.epoll_rounds) > 0 && atomic_load(&c.epoll_bad) == 0 &&
	   atomic_load(&c.stuck) == 0,
	   "C: close() under epoll_wait() on a timerfd: each wait returned in time, no error");

	/* D */
	if (has_excl) {
		diag("D: %lu claims; %lu SIGUSR2 sent, %lu handled, %lu read; %lu handled while claimed; %lu errors",
		     dr.claims, dr.sent, dr.handled, dr.read, dr.violations, dr.errors);
		ok(dstatus == 0 && dr.errors == 0 && dr.claims > 0,
		   "D: the claimer survived the flood and exited 0 (status %#x)", dstatus);
		ok(dr.handled + dr.read <= dr.sent && dr.handled + dr.read > 0,
		   "D: handled + read (%lu) <= sent (%lu), and > 0",
		   dr.handled + dr.read, dr.sent);
		ok(dr.violations == 0, "D: the handler never ran while the signal was claimed");
	} else if (kernel_is_patched()) {
		ok(0, "D: SFD_EXCLUSIVE exists on the patched kernel");
		skip(2, "no SFD_EXCLUSIVE");
	} else {
		skip(3, "kernel without the fdevents series: no SFD_EXCLUSIVE (run in the QEMU guest)");
	}

	/* E */
	diag("E: %lu children (%lu exec from another thread, %lu exec from the leader, %lu exit_group, %lu leader first): %lu exit 0, %lu killed by SIGTERM, %lu other, %lu stuck; first bad status %#x; SIGTERM %s",
	     er.children, er.variant[0], er.variant[1], er.variant[2],
	     er.variant[3], er.exit0, er.killed_by_term, er.other, er.stuck,
	     er.first_bad_status, has_excl ? "claimed" : "blocked (no SFD_EXCLUSIVE)");
	ok(er.children > 0 && er.exit0 == er.children,
	   "E: every exec'ing or exiting 3-thread child exited 0 (%lu of %lu)",
	   er.exit0, er.children);
	if (has_excl)
		ok(er.killed_by_term == 0,
		   "E: a claimed SIGTERM never killed a child (%lu)", er.killed_by_term);
	else if (kernel_is_patched())
		ok(0, "E: SFD_EXCLUSIVE exists on the patched kernel");
	else
		skip(1, "kernel without the fdevents series: SIGTERM blocked, not claimed (run in the QEMU guest)");
	diag("E: fork storm: %lu children, %lu exit 0, %lu bad, %lu fork errors",
	     atomic_load(&s.forks), atomic_load(&s.exit0), atomic_load(&s.bad),
	     atomic_load(&s.fork_err));
	ok(atomic_load(&s.forks) > 0 && atomic_load(&s.exit0) == atomic_load(&s.forks),
	   "E: fork storm: every child read its own signal through the inherited signalfd and was reaped");

	/* F */
	if (f.why) {
		skip(1, "%s", f.why);
	} else {
		diag("F: %lu clock sets (%lu failed), %lu reads gave ECANCELED, %lu re-arms gave ECANCELED, %lu early ticks, %lu errors",
		     atomic_load(&f.sets), atomic_load(&f.set_err),
		     atomic_load(&f.canceled), atomic_load(&f.settime_canceled),
		     atomic_load(&f.ticks), atomic_load(&f.bad));
		ok(atomic_load(&f.canceled) > 0 && atomic_load(&f.ticks) == 0 &&
		   atomic_load(&f.bad) == 0 && atomic_load(&f.set_err) == 0,
		   "F: CANCEL_ON_SET reads gave ECANCELED while the clock was set, nothing else");
	}

	atomic_store(&finished, 1);
	pthread_join(tw, NULL);
	return done_testing();
}
