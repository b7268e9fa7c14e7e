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
 *			while N = 0, 64, 512 other signalfds wait in the epoll,
 *			each reading one realtime signal; and while 512 wait
 *			that each read several (SIGUSR2 and a realtime signal)
 *	fdbench idle	kill()+read() of SIGUSR1 on one signalfd, beside 0
 *			and 4000 other signalfds that read SIGUSR1 and SIGUSR2
 *			(or SIGUSR1 alone), each waited on once and no longer
 *	fdbench teardown	close() of 4000 and of 16000 signalfds reading
 *			SIGUSR1 and SIGUSR2, each waited on once: the whole
 *			loop's time, median of 5 alternating rounds each
 *			(a fixed amount of work: BENCH_MS does not apply)
 *	fdbench reap	the wait4() that reaps a zombie whose 65536 signalfds
 *			wait in an epoll set that its child keeps, and one
 *			whose child keeps none: median of 5 alternating rounds
 *			each (a fixed amount of work: BENCH_MS does not apply)
 *	fdbench fork	fork() of a process holding 65536 open files, and of
 *			one holding none: median of 5 alternating rounds each
 *			(a fixed amount of work: BENCH_MS does not apply)
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
 *	fdbench threads	poll()+read() of an SFD_EXCLUSIVE signalfd in a
 *			process of 1 and of 64 threads: nothing pending, one
 *			signal sent to the process, one sent to another thread;
 *			and of a plain signalfd with nothing pending
 *	fdbench memory	slab memory per signalfd, over 32 000 of them:
 *			created, added to an epoll set, and added to a second
 *			process's epoll set
 *
 * BENCH_MS (default 300) sets how long each method is timed, in chunks
 * of 20 ms alternating between the methods compared (see measure()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

static void block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		die("sigprocmask");
}

static void raise_nofile(rlim_t n)
{
	struct rlimit rl = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE)");
}

/*
 * Methods compared side by side each run in a child process of their own
 * (their signal masks, claims and descriptors never meet), set up once,
 * then timed in short alternating chunks: A for CHUNK_MS, B for CHUNK_MS,
 * ..., round after round until each had bench_ms.  A slow phase of the
 * host then falls on all methods alike, which a long run of A followed
 * by a long run of B would not give.
 *
 * A method's setup() returns 0 when the kernel lacks what it measures;
 * op() does one unit of work and returns how many events it handled
 * (1 for a round trip) and adds to *aux what else it counts.
 */
#define CHUNK_MS 20

struct method {
	const char *name;
	int (*setup)(int arg);
	long (*op)(double *aux);
	int arg;
	/* filled by measure() */
	int supported;
	double ns, units, aux;
};

struct chunk {
	double ns, units, aux;
};

static void child(struct method *m, int cmd, int rep)
{
	struct chunk c;
	long batch = 1, i;
	char x;
	int ok = m->setup(m->arg);
	double aux = 0, t, end;

	if (write(rep, &ok, sizeof(ok)) != sizeof(ok) || !ok)
		_exit(0);
	for (i = 0; i < 8; i++)		/* warm-up */
		m->op(&aux);
	while (read(cmd, &x, 1) == 1 && x == 'r') {
		c.units = 0;
		aux = 0;
		t = now_ns();
		end = t + CHUNK_MS * 1e6;
		do {
			for (i = 0; i < batch; i++)
				c.units += m->op(&aux);
			c.ns = now_ns() - t;
			if (c.ns < CHUNK_MS * 1e6 / 8)
				batch *= 2;
		} while (t + c.ns < end);
		c.aux = aux;
		if (write(rep, &c, sizeof(c)) != sizeof(c))
			_exit(2);
	}
	_exit(0);
}

static void measure(struct method *m, int n)
{
	int cmd[8][2], rep[8][2], i, live = 0;
	pid_t pid[8];
	double done = 0;
	struct chunk c;

	for (i = 0; i < n; i++) {
		if (pipe(cmd[i]) || pipe(rep[i]))
			die("pipe");
		pid[i] = fork();
		if (pid[i] < 0)
			die("fork");
		if (pid[i] == 0) {
			int j;

			/* only its own pipes: the others must see EOF */
			for (j = 0; j < i; j++) {
				close(cmd[j][1]);
				close(rep[j][0]);
			}
			close(cmd[i][1]);
			close(rep[i][0]);
			child(&m[i], cmd[i][0], rep[i][1]);
		}
		close(cmd[i][0]);
		close(rep[i][1]);
		m[i].ns = m[i].units = m[i].aux = 0;
		if (read(rep[i][0], &m[i].supported, sizeof(int)) != sizeof(int)) {
			fprintf(stderr, "fdbench: %s: setup failed\n", m[i].name);
			exit(2);
		}
		live += m[i].supported;
	}
	while (live && done < bench_ms * 1e6) {
		for (i = 0; i < n; i++) {
			if (!m[i].supported)
				continue;
			if (write(cmd[i][1], "r", 1) != 1 ||
			    read(rep[i][0], &c, sizeof(c)) != sizeof(c)) {
				fprintf(stderr, "fdbench: %s died\n", m[i].name);
				exit(2);
			}
			m[i].ns += c.ns;
			m[i].units += c.units;
			m[i].aux += c.aux;
		}
		for (done = 1e18, i = 0; i < n; i++)
			if (m[i].supported && m[i].ns < done)
				done = m[i].ns;
	}
	for (i = 0; i < n; i++) {
		close(cmd[i][1]);	/* EOF: the child leaves */
		close(rep[i][0]);
		waitpid(pid[i], NULL, 0);
	}
}

/* ns per unit */
static void report_time(struct method *m)
{
	if (m->supported)
		result(m->name, m->ns / m->units);
	else
		unsupported(m->name);
}

/* units per second */
static void report_rate(struct method *m)
{
	if (m->supported)
		result(m->name, m->units / (m->ns / 1e9));
	else
		unsupported(m->name);
}

/* ------------------------------------------------------------------ */
/* fan-out */

static int fo_fd, fo_ep;

/* kill(self) + epoll_wait() + read() on the SIGUSR1 signalfd */
static long roundtrip_op(double *aux)
{
	struct epoll_event ev[8];
	struct signalfd_siginfo si;
	int n;

	(void)aux;
	if (kill(getpid(), SIGUSR1))
		die("kill");
	n = epoll_wait(fo_ep, ev, 8, -1);
	if (n != 1 || ev[0].data.fd != fo_fd) {
		fprintf(stderr, "fdbench: epoll_wait gave %d events\n", n);
		exit(2);
	}
	if (read(fo_fd, &si, sizeof(si)) != sizeof(si))
		die("read");
	if (si.ssi_signo != SIGUSR1) {
		fprintf(stderr, "fdbench: read signal %u\n", si.ssi_signo);
		exit(2);
	}
	return 1;
}

/* The others read one realtime signal each (never sent), so the masks
   differ from each other and from the target's.  With SEVERAL or'ed
   into the argument, each reads SIGUSR2 as well (never sent either): a
   descriptor that reads several signals, which the patched kernel files
   apart from those that read one.  */
#define SEVERAL 0x10000
static int fanout_setup(int arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int others = arg & ~SEVERAL, i, fd;
	sigset_t set;

	raise_nofile(4096);
	block(SIGUSR1);
	block(SIGUSR2);
	for (i = SIGRTMIN; i <= SIGRTMAX; i++)
		block(i);
	fo_ep = epoll_create1(0);
	if (fo_ep < 0)
		die("epoll_create1");
	for (i = 0; i < others; i++) {
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN + i % (SIGRTMAX - SIGRTMIN));
		if (arg & SEVERAL)
			sigaddset(&set, SIGUSR2);
		fd = signalfd(-1, &set, SFD_NONBLOCK);
		if (fd < 0)
			die("signalfd");
		ev.data.fd = fd;
		if (epoll_ctl(fo_ep, EPOLL_CTL_ADD, fd, &ev))
			die("epoll_ctl");
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	fo_fd = signalfd(-1, &set, SFD_NONBLOCK);
	if (fo_fd < 0)
		die("signalfd");
	ev.data.fd = fo_fd;
	if (epoll_ctl(fo_ep, EPOLL_CTL_ADD, fo_fd, &ev))
		die("epoll_ctl");
	return 1;
}

static int cmd_fanout(void)
{
	struct method m[] = {
		{ .name = "fanout.0", .setup = fanout_setup, .op = roundtrip_op, .arg = 0 },
		{ .name = "fanout.64", .setup = fanout_setup, .op = roundtrip_op, .arg = 64 },
		{ .name = "fanout.512", .setup = fanout_setup, .op = roundtrip_op, .arg = 512 },
		{ .name = "fanout.several.512", .setup = fanout_setup, .op = roundtrip_op, .arg = 512 | SEVERAL },
	};
	int i;

	measure(m, 4);
	for (i = 0; i < 4; i++)
		report_time(&m[i]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* descriptors waited on once and no longer: idle signals, teardown */

static int new_sfd(int a, int b)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, a);
	if (b)
		sigaddset(&set, b);
	fd = signalfd(-1, &set, SFD_NONBLOCK);
	if (fd < 0)
		die("signalfd");
	return fd;
}

/* N new signalfds reading A (and B unless 0) into fds[], each waited on
   once and no longer, in the three ways a waiter goes: a third added to
   an epoll set that is then closed, a third added to another and taken
   out with EPOLL_CTL_DEL, a third given to one poll() that times out.
   Nothing is pending (A and B are blocked and not sent).  */
static void make_idle(int *fds, int n, int a, int b)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd *p = calloc(n / 3 + 1, sizeof(*p));
	int closed = epoll_create1(0), del = epoll_create1(0), np = 0, i, r;

	if (closed < 0 || del < 0 || !p)
		die("epoll_create1/calloc");
	for (i = 0; i < n; i++) {
		fds[i] = new_sfd(a, b);
		ev.data.fd = fds[i];
		if (i % 3 == 2) {
			p[np].fd = fds[i];
			p[np++].events = POLLIN;
		} else if (epoll_ctl(i % 3 ? del : closed, EPOLL_CTL_ADD,
				     fds[i], &ev)) {
			die("epoll_ctl(EPOLL_CTL_ADD)");
		}
	}
	for (i = 1; i < n; i += 3)
		if (epoll_ctl(del, EPOLL_CTL_DEL, fds[i], NULL))
			die("epoll_ctl(EPOLL_CTL_DEL)");
	r = np ? poll(p, np, 1) : 0;
	if (r) {
		fprintf(stderr, "fdbench: poll() of idle signalfds gave %d\n", r);
		exit(2);
	}
	close(closed);
	close(del);
	free(p);
}

#define IDLE_N 4000
static int idle_fds[IDLE_N], idle_reader;

/* kill(self, SIGUSR1) + read() of it on the reader */
static long idle_kill_op(double *aux)
{
	struct signalfd_siginfo si;

	(void)aux;
	if (kill(getpid(), SIGUSR1))
		die("kill");
	if (read(idle_reader, &si, sizeof(si)) != sizeof(si))
		die("read");
	if (si.ssi_signo != SIGUSR1) {
		fprintf(stderr, "fdbench: read signal %u\n", si.ssi_signo);
		exit(2);
	}
	return 1;
}

/* arg: how many idle descriptors, and the second signal they read (0:
   SIGUSR1 alone) in the bits above IDLE_SIG.  */
#define IDLE_SIG 16
static int idle_setup(int arg)
{
	int n = arg & ((1 << IDLE_SIG) - 1);

	raise_nofile(IDLE_N + 64);
	block(SIGUSR1);
	block(SIGUSR2);
	make_idle(idle_fds, n, SIGUSR1, arg >> IDLE_SIG);
	idle_reader = new_sfd(SIGUSR1, 0);
	return 1;
}

static int cmd_idle(void)
{
	struct method m[] = {
		{ .name = "idle.0", .setup = idle_setup, .op = idle_kill_op, .arg = 0 },
		{ .name = "idle.4000.two", .setup = idle_setup, .op = idle_kill_op,
		  .arg = IDLE_N | SIGUSR2 << IDLE_SIG },
		{ .name = "idle.4000.one", .setup = idle_setup, .op = idle_kill_op, .arg = IDLE_N },
	};
	int i;

	measure(m, 3);
	for (i = 0; i < 3; i++)
		report_time(&m[i]);
	return 0;
}

#define TEARDOWN_SMALL 4000
#define TEARDOWN_BIG 16000
static int td_fds[TEARDOWN_BIG];

/* ns to close N descriptors reading SIGUSR1 and SIGUSR2, each waited on
   once (made and left idle before the clock starts) */
static double close_time(int n)
{
	double t;
	int i;

	make_idle(td_fds, n, SIGUSR1, SIGUSR2);
	t = now_ns();
	for (i = 0; i < n; i++)
		if (close(td_fds[i]))
			die("close");
	return now_ns() - t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define SIZE_ROUNDS 5

/* A fixed amount of work at two sizes, SMALL and BIG: one round of each
   in turn, SIZE_ROUNDS times, after a warm-up round of BIG (which also
   grows the descriptor table); the median of each size's rounds is
   reported as figure SMALL_NAME, and BIG_NAME.  */
static void median_of_sizes(double (*timed)(int), int small,
			    const char *small_name, int big,
			    const char *big_name)
{
	double s[SIZE_ROUNDS], b[SIZE_ROUNDS];
	int i;

	timed(big);
	for (i = 0; i < SIZE_ROUNDS; i++) {
		s[i] = timed(small);
		b[i] = timed(big);
	}
	qsort(s, SIZE_ROUNDS, sizeof(double), cmp_double);
	qsort(b, SIZE_ROUNDS, sizeof(double), cmp_double);
	result(small_name, s[SIZE_ROUNDS / 2]);
	result(big_name, b[SIZE_ROUNDS / 2]);
}

static int cmd_teardown(void)
{
	raise_nofile(TEARDOWN_BIG + 64);
	block(SIGUSR1);
	block(SIGUSR2);
	median_of_sizes(close_time, TEARDOWN_SMALL, "teardown.4000",
			TEARDOWN_BIG, "teardown.16000");
	return 0;
}

/* ------------------------------------------------------------------ */
/* reaping a zombie whose signalfds wait in an epoll set its child keeps */

#define REAP_N 65536

/* The process to reap: N signalfds reading SIGUSR1 in an epoll set,
   kept by a child that exits when HOLD reads end-of-file.  */
static void reap_zombie(int n, int hold)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), i;
	pid_t child;
	char c;

	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		ev.data.fd = new_sfd(SIGUSR1, 0);
		if (epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
			die("epoll_ctl(EPOLL_CTL_ADD) (raise fs.epoll.max_user_watches)");
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0)
		_exit(read(hold, &c, 1) != 0);
	_exit(0);
}

/* ns of the wait4() that reaps the zombie: the kernel frees its sighand
   there, with the task list write-locked */
static double reap_time(int n)
{
	int hold[2], status;
	siginfo_t si;
	pid_t zombie;
	double t;

	if (pipe(hold))
		die("pipe");
	zombie = fork();
	if (zombie < 0)
		die("fork");
	if (zombie == 0) {
		close(hold[1]);
		reap_zombie(n, hold[0]);
	}
	close(hold[0]);
	if (waitid(P_PID, zombie, &si, WEXITED | WNOWAIT))
		die("waitid");
	t = now_ns();
	if (waitpid(zombie, &status, 0) != zombie)
		die("waitpid");
	t = now_ns() - t;
	close(hold[1]);		/* the child exits: this process reaps it */
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    waitpid(-1, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "fdbench: reap: a child failed (status %#x)\n",
			status);
		exit(2);
	}
	return t;
}

static int cmd_reap(void)
{
	raise_nofile(REAP_N + 64);
	block(SIGUSR1);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("prctl(PR_SET_CHILD_SUBREAPER)");
	median_of_sizes(reap_time, 0, "reap.0", REAP_N, "reap.65536");
	return 0;
}

/* ------------------------------------------------------------------ */
/* fork() of a process holding many open files */

#define FORK_N 65536
static int fork_fds[FORK_N];

/* ns of the fork() that copies a table of N open files, each its own
   struct file (/dev/null opened N times): the series makes dup_fd() read
   each one's f_mode, to leave SFD_EXCLUSIVE descriptors out */
static double fork_time(int n)
{
	int i, status;
	pid_t pid;
	double t;

	for (i = 0; i < n; i++) {
		fork_fds[i] = open("/dev/null", O_RDONLY);
		if (fork_fds[i] < 0)
			die("open /dev/null");
	}
	t = now_ns();
	pid = fork();
	if (pid == 0)
		_exit(0);
	t = now_ns() - t;
	if (pid < 0)
		die("fork");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("waitpid");
	for (i = 0; i < n; i++)
		close(fork_fds[i]);
	return t;
}

static int cmd_fork(void)
{
	raise_nofile(FORK_N + 64);
	median_of_sizes(fork_time, 0, "fork.0", FORK_N, "fork.65536");
	return 0;
}

/* ------------------------------------------------------------------ */
/* SFD_EXCLUSIVE vs a plain signalfd over a blocked set */

static int sr_fd;

static long sigread_op(double *aux)
{
	struct signalfd_siginfo si;

	(void)aux;
	if (kill(getpid(), SIGUSR1))
		die("kill");
	if (read(sr_fd, &si, sizeof(si)) != sizeof(si))
		die("read");
	return 1;
}

static int sigread_setup(int exclusive)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (exclusive) {
		sr_fd = signalfd(-1, &set, SFD_EXCLUSIVE);
	} else {
		block(SIGUSR1);
		sr_fd = signalfd(-1, &set, 0);
	}
	return sr_fd >= 0;
}

static int cmd_excl(void)
{
	struct method m[] = {
		{ .name = "excl.plain", .setup = sigread_setup, .op = sigread_op, .arg = 0 },
		{ .name = "excl.exclusive", .setup = sigread_setup, .op = sigread_op, .arg = 1 },
	};

	measure(m, 2);
	report_rate(&m[0]);
	report_rate(&m[1]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* kill() of a process that has no signalfd */

static volatile sig_atomic_t handled;
static int kill_sig;

static void handler(int sig)
{
	(void)sig;
	handled++;
}

static int kill_setup(int sig)
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	if (sig == SIGUSR2)
		sa.sa_handler = SIG_IGN;
	if (sig && sigaction(sig, &sa, NULL))
		die("sigaction");
	kill_sig = sig;
	return 1;
}

static long kill_op(double *aux)
{
	(void)aux;
	if (kill(getpid(), kill_sig))
		die("kill");
	if (kill_sig == SIGUSR1 && !handled) {
		fprintf(stderr, "fdbench: the handler never ran\n");
		exit(2);
	}
	return 1;
}

static long getppid_op(double *aux)
{
	(void)aux;
	getppid();
	return 1;
}

static int cmd_kill(void)
{
	struct method m[] = {
		{ .name = "null.getppid", .setup = kill_setup, .op = getppid_op, .arg = 0 },
		{ .name = "kill.handler", .setup = kill_setup, .op = kill_op, .arg = SIGUSR1 },
		{ .name = "kill.ignored", .setup = kill_setup, .op = kill_op, .arg = SIGUSR2 },
	};
	int i;

	measure(m, 3);
	for (i = 0; i < 3; i++)
		report_time(&m[i]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* timerfd(): create+arm+close */

static int have_timerfd_call(void)
{
	struct itimerspec its = { .it_interval = { 1, 0 } };
	int fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int cycle_setup(int use_call)
{
	return !use_call || have_timerfd_call();
}

static long cycle_call(double *aux)
{
	struct itimerspec its = { .it_interval = { 1, 0 } };
	int fd;

	(void)aux;
	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	if (fd < 0)
		die("timerfd");
	close(fd);
	return 1;
}

static long cycle_create(double *aux)
{
	struct itimerspec its = { .it_value = { 1, 0 } };
	int fd;

	(void)aux;
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, 0, &its, NULL))
		die("timerfd_settime");
	close(fd);
	return 1;
}

static int cmd_tfdcycle(void)
{
	struct method m[] = {
		{ .name = "tfd.cycle.create", .setup = cycle_setup, .op = cycle_create, .arg = 0 },
		{ .name = "tfd.cycle.call", .setup = cycle_setup, .op = cycle_call, .arg = 1 },
	};

	measure(m, 2);
	report_time(&m[0]);
	report_time(&m[1]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* 10 000 periodic timerfds in one epoll set */

#define MANY 10000
#define PERIOD_NS 1000000	/* 1 ms: every timer is due again by the time
				   the loop comes back to it */
static int many_ep;

/* One epoll_wait() of up to 256 ready timers and a read() of each:
   returns the events handled, adds the expirations they report. */
static long many_op(double *aux)
{
	struct epoll_event evs[256];
	int n, i;

	n = epoll_wait(many_ep, evs, 256, -1);
	if (n < 0)
		die("epoll_wait");
	for (i = 0; i < n; i++) {
		uint64_t ticks = 0;
		ssize_t r = read(evs[i].data.fd, &ticks, sizeof(ticks));

		if (r == 4)
			*aux += (uint32_t)ticks;
		else if (r == 8)
			*aux += ticks;
		else if (!(r < 0 && errno == EAGAIN))
			die("read");
	}
	return n;
}

static int many_setup(int use_call)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct itimerspec its;
	struct timespec t0;
	double aux = 0;
	long handled;
	int i, fd;

	if (use_call && !have_timerfd_call())
		return 0;
	raise_nofile(MANY + 64);
	many_ep = epoll_create1(0);
	if (many_ep < 0)
		die("epoll_create1");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* first tick at the absolute t0 + 1 s, then every PERIOD_NS */
	its.it_value.tv_sec = t0.tv_sec + 1;
	its.it_value.tv_nsec = t0.tv_nsec;
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = PERIOD_NS;
	for (i = 0; i < MANY; i++) {
		if (use_call) {
			fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
			if (fd < 0)
				die("timerfd");
		} else {
			fd = timerfd_create(CLOCK_MONOTONIC, 0);
			if (fd < 0)
				die("timerfd_create");
			if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
				die("timerfd_settime");
		}
		ev.data.fd = fd;
		if (epoll_ctl(many_ep, EPOLL_CTL_ADD, fd, &ev))
			die("epoll_ctl");
	}
	/* One pass over every timer, so that the counts are of the steady
	   state, not of the backlog since the first tick */
	for (handled = 0; handled < MANY;)
		handled += many_op(&aux);
	return 1;
}

static int cmd_tfdmany(void)
{
	struct method m[] = {
		{ .name = "tfd.many.create.events", .setup = many_setup, .op = many_op, .arg = 0 },
		{ .name = "tfd.many.call.events", .setup = many_setup, .op = many_op, .arg = 1 },
	};
	int i;

	measure(m, 2);
	for (i = 0; i < 2; i++) {
		char name[64];

		report_rate(&m[i]);
		snprintf(name, sizeof(name), "tfd.many.%s.expirations",
			 i ? "call" : "create");
		if (m[i].supported)
			result(name, m[i].aux / (m[i].ns / 1e9));
		else
			unsupported(name);
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

/* ------------------------------------------------------------------ */
/* a claiming signalfd's poll()+read() against the number of threads */

static int th_fd;
static pid_t th_other;		/* a thread that is not the reader */

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *other_thread(void *arg)
{
	th_other = syscall(SYS_gettid);
	return idle_thread(arg);
}

/* One SFD_EXCLUSIVE signalfd for SIGUSR1 and `threads' - 1 idle threads,
   the first of which is the target of "threads.*.tgkill".  With PLAIN
   or'ed into the argument, a plain signalfd over a blocked SIGUSR1
   instead: what any kernel costs with that many threads.  */
#define PLAIN 0x10000
static int threads_setup(int arg)
{
	int i, threads = arg & ~PLAIN;
	sigset_t set;
	pthread_t t;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (arg & PLAIN) {
		block(SIGUSR1);
		th_fd = signalfd(-1, &set, SFD_NONBLOCK);
	} else {
		th_fd = signalfd(-1, &set, SFD_EXCLUSIVE | SFD_NONBLOCK);
	}
	if (th_fd < 0)
		return 0;
	for (i = 1; i < threads; i++)
		if (pthread_create(&t, NULL, i == 1 ? other_thread : idle_thread,
				   NULL))
			die("pthread_create");
	while (threads > 1 && !__atomic_load_n(&th_other, __ATOMIC_ACQUIRE))
		sched_yield();
	return 1;
}

/* poll() and read() the descriptor; returns whether a signal was read */
static int poll_read(void)
{
	struct pollfd p = { .fd = th_fd, .events = POLLIN };
	struct signalfd_siginfo si;
	ssize_t r;

	if (poll(&p, 1, 0) < 0)
		die("poll");
	r = read(th_fd, &si, sizeof(si));
	if (r < 0 && errno != EAGAIN)
		die("read");
	if (r >= 0 && (r != sizeof(si) || si.ssi_signo != SIGUSR1)) {
		fprintf(stderr, "fdbench: read %zd bytes, signal %u\n", r,
			si.ssi_signo);
		exit(2);
	}
	return r > 0;
}

static long idle_op(double *aux)
{
	(void)aux;
	if (poll_read()) {
		fprintf(stderr, "fdbench: a signal nobody sent\n");
		exit(2);
	}
	return 1;
}

static long kill_read_op(double *aux)
{
	(void)aux;
	if (kill(getpid(), SIGUSR1))
		die("kill");
	if (!poll_read()) {
		fprintf(stderr, "fdbench: the signal sent was not read\n");
		exit(2);
	}
	return 1;
}

static long tgkill_read_op(double *aux)
{
	pid_t to = th_other ? th_other : (pid_t)syscall(SYS_gettid);

	(void)aux;
	if (syscall(SYS_tgkill, getpid(), to, SIGUSR1))
		die("tgkill");
	if (!poll_read()) {
		fprintf(stderr, "fdbench: the signal sent was not read\n");
		exit(2);
	}
	return 1;
}

static int cmd_threads(void)
{
	struct method m[] = {
		{ .name = "threads.1.idle", .setup = threads_setup, .op = idle_op, .arg = 1 },
		{ .name = "threads.64.idle", .setup = threads_setup, .op = idle_op, .arg = 64 },
		{ .name = "threads.1.kill", .setup = threads_setup, .op = kill_read_op, .arg = 1 },
		{ .name = "threads.64.kill", .setup = threads_setup, .op = kill_read_op, .arg = 64 },
		{ .name = "threads.1.tgkill", .setup = threads_setup, .op = tgkill_read_op, .arg = 1 },
		{ .name = "threads.64.tgkill", .setup = threads_setup, .op = tgkill_read_op, .arg = 64 },
		{ .name = "threads.1.plain.idle", .setup = threads_setup, .op = idle_op, .arg = 1 | PLAIN },
		{ .name = "threads.64.plain.idle", .setup = threads_setup, .op = idle_op, .arg = 64 | PLAIN },
	};
	int i;

	measure(m, 8);
	for (i = 0; i < 8; i++)
		report_time(&m[i]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* slab memory per signalfd */

/* 32 000 rather than the 1000 of the issue: /proc/meminfo counts whole
   pages, and SLUB keeps a few partly used ones per cache and CPU; over
   32 000 descriptors a page is 0.13 byte each.  */
#define MEM_FDS 32000

/* Slab memory in use, in bytes: /proc/meminfo's "Slab:" (kB).  */
static double slab_bytes(void)
{
	char line[128];
	double kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lf kB", &kb) != 1)
			kb = -1;
	fclose(f);
	if (kb < 0) {
		fprintf(stderr, "fdbench: no Slab: line in /proc/meminfo\n");
		exit(2);
	}
	return kb * 1024;
}

/* Slab memory once the frees of earlier benchmarks are done: files and
   dentries are freed after an RCU grace period, and a count that is
   still falling would be taken from this one's growth.  */
static double settled_slab_bytes(void)
{
	double before, now = slab_bytes();
	int i;

	for (i = 0; i < 50; i++) {
		before = now;
		usleep(100000);
		now = slab_bytes();
		if (now == before)
			break;
	}
	return now;
}

static void add_all(int ep, const int *fds)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i;

	for (i = 0; i < MEM_FDS; i++) {
		ev.data.fd = fds[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev))
			die("epoll_ctl");
	}
}

/* One signalfd per realtime signal in turn, never sent, as in fanout:
   the slab grown by creating MEM_FDS of them, by adding them to an epoll
   set (which waits on them, so that the patched kernel watches them),
   and by a second process adding them to its own epoll set (a second
   sighand).  Each epoll set exists before its measurement starts.  */
static int cmd_memory(void)
{
	static int fds[MEM_FDS];
	int ep, i, p[2], status;
	double s0, s1, s2, child_delta;
	sigset_t set;
	pid_t pid;

	raise_nofile(MEM_FDS + 64);
	ep = epoll_create1(0);
	if (ep < 0 || pipe(p))
		die("epoll_create1/pipe");
	s0 = settled_slab_bytes();
	for (i = 0; i < MEM_FDS; i++) {
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN + i % (SIGRTMAX - SIGRTMIN));
		fds[i] = signalfd(-1, &set, SFD_NONBLOCK);
		if (fds[i] < 0)
			die("signalfd");
	}
	s1 = slab_bytes();
	add_all(ep, fds);
	s2 = slab_bytes();

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		double before;
		int ep2 = epoll_create1(0);

		if (ep2 < 0)
			die("epoll_create1");
		before = settled_slab_bytes();
		add_all(ep2, fds);
		child_delta = slab_bytes() - before;
		_exit(write(p[1], &child_delta, sizeof(child_delta)) !=
		      sizeof(child_delta));
	}
	if (read(p[0], &child_delta, sizeof(child_delta)) != sizeof(child_delta))
		die("read from the child");
	waitpid(pid, &status, 0);

	result("memory.create", (s1 - s0) / MEM_FDS);
	result("memory.epoll", (s2 - s1) / MEM_FDS);
	result("memory.watched", (s2 - s0) / MEM_FDS);
	result("memory.epoll2", child_delta / MEM_FDS);
	for (i = 0; i < MEM_FDS; i++)
		close(fds[i]);
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
	if (argc == 2 && !strcmp(argv[1], "idle"))
		return cmd_idle();
	if (argc == 2 && !strcmp(argv[1], "teardown"))
		return cmd_teardown();
	if (argc == 2 && !strcmp(argv[1], "reap"))
		return cmd_reap();
	if (argc == 2 && !strcmp(argv[1], "fork"))
		return cmd_fork();
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
	if (argc == 2 && !strcmp(argv[1], "threads"))
		return cmd_threads();
	if (argc == 2 && !strcmp(argv[1], "memory"))
		return cmd_memory();
	fprintf(stderr,
		"usage: fdbench fanout|idle|teardown|reap|fork|excl|kill|tfdcycle|tfdmany|\n"
		"       batch|threads|memory\n");
	return 2;
}
