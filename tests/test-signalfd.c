/* signalfd() behaviour through libsignalfd: what a reader gets back. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "tap.h"

static void block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static sigset_t only(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return set;
}

/* Wait up to 5 s for the descriptor to become readable.  */
static int readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 5000) == 1 && (p.revents & POLLIN);
}

int main(void)
{
	struct signalfd_siginfo si[8];
	sigset_t mask;
	ssize_t n;
	int fd, i;

	/* The creation flags are the open flags, with no <fcntl.h> in the
	 * header.  */
	is(SFD_CLOEXEC, O_CLOEXEC, "SFD_CLOEXEC is O_CLOEXEC (%#o)", (unsigned int)O_CLOEXEC);
	is(SFD_NONBLOCK, O_NONBLOCK, "SFD_NONBLOCK is O_NONBLOCK (%#o)", (unsigned int)O_NONBLOCK);

	/* A blocked standard signal reads back with its sender.  */
	block(SIGUSR1);
	mask = only(SIGUSR1);
	fd = signalfd(-1, &mask, 0);
	ok(fd >= 0, "signalfd(-1, {SIGUSR1}, 0) creates a descriptor");
	kill(getpid(), SIGUSR1);
	ok(readable(fd), "a pending SIGUSR1 makes it readable");
	n = read(fd, si, sizeof(si));
	is(n, sizeof(si[0]), "read() returns one siginfo of 128 bytes");
	is(si[0].ssi_signo, SIGUSR1, "ssi_signo is SIGUSR1");
	is(si[0].ssi_pid, getpid(), "ssi_pid is the sender");
	is(si[0].ssi_uid, getuid(), "ssi_uid is the sender's uid");
	is(si[0].ssi_code, SI_USER, "ssi_code is SI_USER for kill()");

	/* Standard signals coalesce: two kills, one siginfo.  */
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	n = read(fd, si, sizeof(si));
	is(n, sizeof(si[0]), "two pending SIGUSR1 coalesce into one siginfo");
	n = read(fd, si, sizeof(si));
	ok(n == -1 && errno == EAGAIN, "then O_NONBLOCK read gives EAGAIN");
	close(fd);

	/* Realtime signals queue, keep their values and order; one read()
	 * returns several.  */
	{
		int rt = SIGRTMIN + 1;
		union sigval v;

		block(rt);
		mask = only(rt);
		fd = signalfd(-1, &mask, SFD_NONBLOCK);
		for (i = 0; i < 5; i++) {
			v.sival_int = 100 + i;
			sigqueue(getpid(), rt, v);
		}
		n = read(fd, si, sizeof(si));
		is(n, 5 * sizeof(si[0]), "five queued realtime signals in one read()");
		for (i = 0; i < 5; i++) {
			ok(si[i].ssi_signo == (uint32_t)rt &&
			   si[i].ssi_code == SI_QUEUE &&
			   si[i].ssi_int == 100 + i,
			   "siginfo %d: SI_QUEUE with ssi_int %d (got %d)", i,
			   100 + i, si[i].ssi_int);
		}
		close(fd);
	}

	/* SFD_NONBLOCK: EAGAIN with nothing pending.  SFD_CLOEXEC sets
	 * FD_CLOEXEC.  */
	mask = only(SIGUSR2);
	block(SIGUSR2);
	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ok(fcntl(fd, F_GETFL) & O_NONBLOCK, "SFD_NONBLOCK sets O_NONBLOCK");
	ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "SFD_CLOEXEC sets FD_CLOEXEC");
	n = read(fd, si, sizeof(si));
	ok(n == -1 && errno == EAGAIN, "SFD_NONBLOCK read with nothing pending gives EAGAIN");
	close(fd);
	fd = signalfd(-1, &mask, 0);
	ok(!(fcntl(fd, F_GETFD) & FD_CLOEXEC) &&
	   !(fcntl(fd, F_GETFL) & O_NONBLOCK), "flags 0 sets neither");

	/* Passing the descriptor back replaces the mask.  */
	{
		sigset_t m1 = only(SIGUSR1);
		int again;

		again = signalfd(fd, &m1, 0);
		is(again, fd, "signalfd(fd, ...) returns the same descriptor");
		kill(getpid(), SIGUSR2);
		kill(getpid(), SIGUSR1);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		n = read(fd, si, sizeof(si));
		ok(n == (ssize_t)sizeof(si[0]) && si[0].ssi_signo == SIGUSR1,
		   "after replacing the mask only SIGUSR1 is read");
		n = read(fd, si, sizeof(si));
		ok(n == -1 && errno == EAGAIN, "SIGUSR2 is no longer in the mask");
		/* Leave nothing pending for the rest of the test.  */
		m1 = only(SIGUSR2);
		signalfd(fd, &m1, 0);
		n = read(fd, si, sizeof(si));
		is(si[0].ssi_signo, SIGUSR2, "SIGUSR2 was still pending");
	}

	/* A buffer under 128 bytes is EINVAL, even with a signal pending.  */
	kill(getpid(), SIGUSR2);
	errno = 0;
	n = read(fd, si, sizeof(si[0]) - 1);
	ok(n == -1 && errno == EINVAL, "read() of 127 bytes gives EINVAL");
	n = read(fd, si, sizeof(si[0]));
	is(n, sizeof(si[0]), "the signal was not consumed by the short read");

	/* epoll reports readiness.  */
	{
		struct epoll_event ev = { .events = EPOLLIN }, out;
		int ep = epoll_create1(EPOLL_CLOEXEC);

		ev.data.fd = fd;
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		is(epoll_wait(ep, &out, 1, 0), 0, "epoll: nothing pending, not ready");
		kill(getpid(), SIGUSR2);
		ok(epoll_wait(ep, &out, 1, 5000) == 1 && out.data.fd == fd &&
		   (out.events & EPOLLIN), "epoll: pending SIGUSR2 reports EPOLLIN");
		is(read(fd, si, sizeof(si)), sizeof(si[0]), "epoll: the signal reads back");
		is(epoll_wait(ep, &out, 1, 0), 0, "epoll: not ready once read");
		close(ep);
	}
	close(fd);

	/* Errors the man page lists.  */
	errno = 0;
	ok(signalfd(-2, &mask, 0) == -1 && errno == EBADF, "fd -2 gives EBADF");
	{
		int p[2];

		if (pipe(p) != 0)
			bail("pipe: %s", strerror(errno));
		errno = 0;
		ok(signalfd(p[0], &mask, 0) == -1 && errno == EINVAL,
		   "an fd that is not a signalfd gives EINVAL");
		close(p[0]);
		close(p[1]);
	}
	errno = 0;
	ok(signalfd(-1, &mask, 0x4) == -1 && errno == EINVAL,
	   "unknown flags give EINVAL");
	{
		const sigset_t *volatile bad = (const sigset_t *)8;

		errno = 0;
		ok(signalfd(-1, bad, 0) == -1 && errno == EFAULT,
		   "an unmapped mask gives EFAULT");
	}
	return done_testing();
}
