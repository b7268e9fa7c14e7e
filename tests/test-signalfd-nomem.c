/* A failed allocation never costs a signalfd waiter its wake-up.
 *
 * On the patched kernel a signalfd waited on through poll(), epoll or a
 * blocking read() is watched from the waiting process, so that a signal
 * wakes only the descriptors that read it.  The first process to wait on
 * a descriptor uses the watch kept in the descriptor; any other allocates
 * one, and the first wait of a process allocates its hub.  When
 * that allocation fails, the waiter must still be woken by the next signal
 * and must not see an error: no POLLERR, no ENOMEM from read().  The
 * allocations are failed one after the other with fail-nth, which only the
 * guest's debugging kernel has; elsewhere the test says why it skips.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "failslab.h"

#define MAX_NTH 8	/* the allocations of one registration, and more */

static int fail_nth_fd = -1;

/* Arm fail-nth for the n-th allocation from now (0 disarms); the value
 * read back before disarming is > 0 while the n-th was not reached.  */
static int fail_nth(int n)
{
	int left = failslab_nth(fail_nth_fd, n);

	if (left < 0)
		bail("cannot write /proc/thread-self/fail-nth: %s", strerror(errno));
	return left;
}

static int new_signalfd(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int drain(int fd)
{
	struct signalfd_siginfo si;

	return read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
	       si.ssi_signo == SIGUSR1;
}

/* poll(): a blocking poll() registers its waiter, which allocates the
 * hub the first time in a process, and a watch if the descriptor's own
 * is taken; fail the n-th allocation while the signal comes from another
 * process 300 ms later.  (A poll() with a zero timeout registers
 * nothing.)  Runs in a child, as a fresh process has no hub yet, on @fd
 * or, if it is -1, a new descriptor, and reports back in *res.  */
struct poll_result {
	int woken, revents, drained, reached;
};

static void poll_case(int nth, int fd, struct poll_result *res)
{
	struct pollfd p;
	int own = fd < 0;

	if (own)
		fd = new_signalfd();
	pid_t parent = getpid(), killer;

	killer = fork();
	if (killer == 0) {
		usleep(300000);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	fail_nth(nth);
	res->woken = poll(&p, 1, 5000);
	res->reached = fail_nth(0) == 0;
	res->revents = p.revents;
	waitpid(killer, NULL, 0);
	res->drained = drain(fd);
	if (own)
		close(fd);
}

/* The poll() cases, each in a fresh child, failing allocations 1, 2, ...
 * until one is not reached.  */
static void poll_cases(int fd, const char *what)
{
	int nth;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		struct poll_result res;
		int p[2], status;
		pid_t pid;

		memset(&res, 0, sizeof(res));
		if (pipe(p))
			bail("pipe: %s", strerror(errno));
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			alarm(20);
			fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
			poll_case(nth, fd, &res);
			_exit(write(p[1], &res, sizeof(res)) != sizeof(res));
		}
		close(p[1]);
		if (read(p[0], &res, sizeof(res)) != sizeof(res))
			res.woken = -2;
		close(p[0]);
		waitpid(pid, &status, 0);
		ok(res.woken == 1 && res.revents == POLLIN && res.drained,
		   "%spoll(): allocation %d failed: the signal wakes it, POLLIN and no error (poll %d, revents 0x%x)",
		   what, nth, res.woken, (unsigned)res.revents);
		if (!res.reached)
			break;
	}
}

/* epoll: EPOLL_CTL_ADD allocates its epitem first; a failure there is
 * epoll_ctl()'s ENOMEM.  A failure in the signalfd's own ->poll must not
 * show, and the registration must still be woken.  */
static int epoll_case(int nth)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int fd = new_signalfd(), ep = epoll_create1(EPOLL_CLOEXEC), r, left;

	ev.data.fd = fd;
	fail_nth(nth);
	r = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	left = fail_nth(0);
	if (r == -1) {
		ok(errno == ENOMEM, "epoll_ctl(ADD): allocation %d failed: epoll's own ENOMEM", nth);
	} else {
		memset(&out, 0, sizeof(out));
		r = epoll_wait(ep, &out, 1, 0);
		ok(r == 0, "epoll: allocation %d failed: no event before the signal (%d, events 0x%x)",
		   nth, r, (unsigned)out.events);
		kill(getpid(), SIGUSR1);
		memset(&out, 0, sizeof(out));
		r = epoll_wait(ep, &out, 1, 5000);
		ok(r == 1 && out.events == EPOLLIN && drain(fd),
		   "epoll: allocation %d failed: the signal is reported (%d, events 0x%x)",
		   nth, r, (unsigned)out.events);
	}
	close(ep);
	close(fd);
	return left == 0;
}

/* A blocking read() in a fresh process (no watch, no hub yet) whose
 * allocation fails: the read still returns the signal the parent sends. */
static void read_case(int nth)
{
	struct signalfd_siginfo si;
	int status = 0, fd, flags;
	pid_t pid;
	ssize_t n;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(20);
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		fd = new_signalfd();
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
		fail_nth(nth);
		n = read(fd, &si, sizeof(si));
		fail_nth(0);
		_exit(n == (ssize_t)sizeof(si) && si.ssi_signo == SIGUSR1 ? 0 :
		      n == -1 ? 10 + (errno & 0x7f) % 100 : 1);
	}
	usleep(500000);
	kill(pid, SIGUSR1);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "blocking read(): allocation %d failed: the read returns the signal (status 0x%x)",
	   nth, status);
}

int main(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	const char *why = failslab_unready();
	int nth, reached, shared, ep;
	sigset_t mask;

	if (why) {
		skip(1, "%s", why);
		return done_testing();
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);	/* inherited by the children */

	/* Each poll() case in a fresh process, which has no hub yet, on a
	 * new descriptor: its own watch, the hub.  */
	poll_cases(-1, "");

	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0)
		bail("open /proc/thread-self/fail-nth: %s", strerror(errno));
	reached = 1;
	for (nth = 1; nth <= MAX_NTH && reached; nth++)
		reached = epoll_case(nth);
	for (nth = 1; nth <= 2; nth++)
		read_case(nth);

	/* Again on a descriptor this process waits on, so that the child
	 * allocates a watch as well as its hub.  */
	shared = new_signalfd();
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, shared, &ev))
		bail("epoll_ctl: %s", strerror(errno));
	poll_cases(shared, "inherited fd, waited on by the parent: ");
	close(ep);
	close(shared);
	return done_testing();
}
