/* A signalfd shared between processes (fork) wakes only the waiters of
 * the process signalled, as a kernel without the series does, where
 * every signalfd waiter sits on the queue of its own process's sighand:
 *
 * - EPOLLEXCLUSIVE: P and its child C each add the one descriptor to
 *   their own epoll set with EPOLLEXCLUSIVE, C first; a third process
 *   signals P.  P's epoll_wait() must report it: C's exclusive waiter
 *   must not take P's wake-up.
 * - No herd: while C and P both wait on the descriptor (each in its own
 *   epoll set), signals sent to P and read there must not wake C (C's
 *   voluntary context switches, from /proc/C/status, stay put but for a
 *   margin).
 * - fdinfo names the owner of a claim (SFD_EXCLUSIVE): "owner:" is the
 *   owning group's TGID, in the owner as in another process that holds a
 *   copy (one received over SCM_RIGHTS: fork() does not copy a claiming
 *   descriptor), and 0 for a plain signalfd.
 * - io_uring: a child arms a poll of its signalfd on its parent's ring
 *   and exits; when the parent reaps it, the request completes with
 *   ECANCELED (the POLLFREE wake-up of the freed sighand's waiters), as
 *   on a kernel without the series, rather than never.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "scm-rights.h"

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int epoll_on(int fd, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
		bail("epoll: %s", strerror(errno));
	return ep;
}

/* A process that sends SIG to PID after MS milliseconds, then exits.  */
static pid_t kill_later(pid_t pid, int sig, int ms)
{
	pid_t k = fork();

	if (k == 0) {
		pause_ms(ms);
		_exit(kill(pid, sig) == 0 ? 0 : 1);
	}
	if (k < 0)
		bail("fork: %s", strerror(errno));
	return k;
}

static long voluntary_switches(pid_t pid)
{
	char path[64], line[256];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* C waits in epoll_wait() (with EVENTS) on SFD for WAIT_MS and reports
 * the count through the pipe.  Returns C's pid; *PIPE_RD reads the count,
 * after one byte that says C's epoll set is in place.  */
static pid_t child_waits(int sfd, unsigned int events, int wait_ms,
			 int *pipe_rd)
{
	int p[2];
	pid_t c;

	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));
	c = fork();
	if (c < 0)
		bail("fork: %s", strerror(errno));
	if (c == 0) {
		struct epoll_event ev;
		int ep = epoll_on(sfd, events), n;

		close(p[0]);
		if (write(p[1], "r", 1) != 1)
			_exit(2);
		n = epoll_wait(ep, &ev, 1, wait_ms);
		_exit(write(p[1], &n, sizeof(n)) == sizeof(n) ? 0 : 2);
	}
	close(p[1]);
	*pipe_rd = p[0];
	{
		char r;

		if (read(p[0], &r, 1) != 1)
			bail("the waiting child died");
	}
	return c;
}

static void exclusive_waiters(void)
{
	sigset_t usr1;
	struct epoll_event ev;
	int sfd, ep, rd, n, child_n = -2, status;
	pid_t c, k;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sfd = signalfd(-1, &usr1, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		bail("signalfd: %s", strerror(errno));

	/* C's exclusive waiter comes first on any queue the two share.  */
	c = child_waits(sfd, EPOLLIN | EPOLLEXCLUSIVE, 3000, &rd);
	pause_ms(300);		/* C is in epoll_wait() by now, or soon */
	ep = epoll_on(sfd, EPOLLIN | EPOLLEXCLUSIVE);
	k = kill_later(getpid(), SIGUSR1, 200);
	n = epoll_wait(ep, &ev, 1, 10000);
	is(n, 1, "EPOLLEXCLUSIVE in two processes: the signalled one's epoll_wait() reports its signal");
	if (read(rd, &child_n, sizeof(child_n)) != sizeof(child_n))
		child_n = -2;
	is(child_n, 0, "  and the other's (the fork child's) reports nothing");
	waitpid(c, &status, 0);
	waitpid(k, &status, 0);
	{
		struct signalfd_siginfo si;

		ok(read(sfd, &si, sizeof(si)) == sizeof(si) &&
		   si.ssi_signo == SIGUSR1, "  the signal reads back in the signalled process");
	}
	close(ep);
	close(rd);
	close(sfd);
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

/* 20 signals to P, each read there, while C waits on the descriptor.  */
static void no_herd(void)
{
	const int rounds = 20;
	struct signalfd_siginfo si;
	sigset_t usr2;
	long before, after;
	int sfd, rd, ep, i, n, status, got = 0;
	pid_t c;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	sfd = signalfd(-1, &usr2, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		bail("signalfd: %s", strerror(errno));
	c = child_waits(sfd, EPOLLIN, 30000, &rd);
	/* P waits on the descriptor too (its own epoll set), so that a
	 * signal to P has waiters to wake: only P's.  */
	ep = epoll_on(sfd, EPOLLIN);
	pause_ms(300);
	before = voluntary_switches(c);
	for (i = 0; i < rounds; i++) {
		kill(getpid(), SIGUSR2);
		got += read(sfd, &si, sizeof(si)) == sizeof(si);
		pause_ms(20);	/* let a woken child run and sleep again */
	}
	after = voluntary_switches(c);
	is(got, rounds, "no herd: the %d signals read back in the signalled process", rounds);
	ok(before >= 0 && after >= 0 && after - before < rounds / 4,
	   "  a fork child waiting on the descriptor is not woken by them (%ld voluntary context switches)",
	   after - before);
	kill(c, SIGKILL);
	waitpid(c, &status, 0);
	if (read(rd, &n, sizeof(n)) < 0)
		diag("read: %s", strerror(errno));
	close(rd);
	close(ep);
	close(sfd);
	sigprocmask(SIG_UNBLOCK, &usr2, NULL);
}

/* The "owner:" line of /proc/self/fdinfo/FD, or -1 if it has none.  */
static long fdinfo_owner(int fd)
{
	char path[64], line[256];
	long owner = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		bail("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "owner: %ld", &owner) == 1)
			break;
	fclose(f);
	return owner;
}

static void fdinfo_owner_line(void)
{
	sigset_t mask;
	int sfd, plain, p[2], sv[2], status;
	long in_child = -2;
	pid_t c;

	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	sfd = signalfd(-1, &mask, SFD_EXCLUSIVE | SFD_CLOEXEC);
	if (sfd < 0 && errno == EINVAL && !kernel_is_patched()) {
		skip(3, "this kernel rejects SFD_EXCLUSIVE (EINVAL): claims are shown in the QEMU guest");
		return;
	}
	if (sfd < 0)
		bail("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));
	plain = signalfd(-1, &mask, SFD_CLOEXEC);
	is(fdinfo_owner(sfd), getpid(), "fdinfo of a claiming signalfd: owner is the owning group's TGID");
	/* fork() leaves a claiming descriptor out of the child's table:
	 * the child gets its copy over a unix socket.  */
	if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		bail("pipe, socketpair: %s", strerror(errno));
	fflush(stdout);
	c = fork();
	if (c < 0)
		bail("fork: %s", strerror(errno));
	if (c == 0) {
		int f;
		long o = -3;	/* no descriptor came */

		close(sv[0]);
		f = recv_fd(sv[1]);
		if (f >= 0)
			o = fdinfo_owner(f);
		_exit(write(p[1], &o, sizeof(o)) == sizeof(o) ? 0 : 1);
	}
	close(p[1]);
	close(sv[1]);
	if (send_fd(sv[0], sfd) != 0)
		diag("sendmsg(SCM_RIGHTS): %s", strerror(errno));
	close(sv[0]);
	if (read(p[0], &in_child, sizeof(in_child)) != sizeof(in_child))
		in_child = -2;
	close(p[0]);
	waitpid(c, &status, 0);
	is(in_child, getpid(), "  the same in another process that received a copy over SCM_RIGHTS (not its own TGID)");
	is(fdinfo_owner(plain), 0, "fdinfo of a plain signalfd: owner 0");
	close(plain);
	close(sfd);
}

/* An io_uring of 4 entries, mapped; raw system calls (no liburing).  */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
	unsigned int *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void *ring_map(int fd, size_t len, off_t what)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, what);

	if (p == MAP_FAILED)
		bail("mmap of the ring: %s", strerror(errno));
	return p;
}

/* 0, or the errno of io_uring_setup().  */
static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return errno;
	sq = ring_map(r->fd, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		      IORING_OFF_SQ_RING);
	cq = ring_map(r->fd, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		      IORING_OFF_CQ_RING);
	r->sqes = ring_map(r->fd, p.sq_entries * sizeof(struct io_uring_sqe),
			   IORING_OFF_SQES);
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit IORING_OP_POLL_ADD of FD for POLLIN: 1 if it was taken.  */
static int ring_poll_add(struct ring *r, int fd, __u64 data)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->fd = fd;
	sqe->poll32_events = POLLIN;
	sqe->user_data = data;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) == 1;
}

/* The next completion, waited for up to 20 s: 1, or 0 if none came.  */
static int ring_wait(struct ring *r, struct io_uring_cqe *cqe)
{
	int i;

	for (i = 0; i < 2000; i++) {
		unsigned int head = *r->cq_head;

		/* runs the ring's pending task work, if any */
		syscall(__NR_io_uring_enter, r->fd, 0, 0, IORING_ENTER_GETEVENTS,
			NULL, 0);
		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			*cqe = r->cqes[head & *r->cq_mask];
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return 1;
		}
		pause_ms(10);
	}
	return 0;
}

static void io_uring_poll_of_reaped(void)
{
	struct io_uring_cqe cqe;
	struct ring r = { .fd = -1 };
	int err = ring_setup(&r), status;
	pid_t c;

	if (err) {
		skip(1, "io_uring_setup: %s (a kernel or emulator without io_uring)",
		     strerror(err));
		return;
	}
	fflush(stdout);
	c = fork();
	if (c == 0) {
		sigset_t usr1;
		int sfd;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sfd = signalfd(-1, &usr1, SFD_NONBLOCK);
		_exit(sfd >= 0 && ring_poll_add(&r, sfd, 42) ? 0 : 1);
	}
	if (c < 0 || waitpid(c, &status, 0) != c)
		bail("fork/waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ok(0, "io_uring: the child armed a poll of its signalfd (status %#x)",
		   status);
		return;
	}
	if (!ring_wait(&r, &cqe)) {
		ok(0, "io_uring: a poll armed through a reaped child completes: none in 20 s");
		return;
	}
	ok(cqe.user_data == 42 && cqe.res == -ECANCELED,
	   "io_uring: a poll armed through a reaped child completes with ECANCELED (user_data %llu, res %d)",
	   (unsigned long long)cqe.user_data, cqe.res);
	close(r.fd);
}

int main(void)
{
	if (fork_broken())
		skip_all("%s", fork_broken());
	exclusive_waiters();
	no_herd();
	fdinfo_owner_line();
	io_uring_poll_of_reaped();
	return done_testing();
}
