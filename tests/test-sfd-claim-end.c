/* When an SFD_EXCLUSIVE claim ends, and what it held then.
 *
 * - The claim lasts while the owning group holds a descriptor for it:
 *   dup'd copies count, but a copy held by a fork child or in flight over
 *   SCM_RIGHTS does not.  Each case runs in a child Q that claims SIGTERM
 *   and then sends itself SIGTERM: it must die of it exactly when it no
 *   longer holds a descriptor of the claim.
 * - A pending signal whose disposition is to ignore it (SIG_IGN, or a
 *   default-ignore such as SIGCHLD) when the claim ends is discarded, as
 *   sigaction(SIG_IGN) discards one: it wakes nobody, and a thread asleep
 *   in epoll_wait() keeps sleeping (no EINTR), even when it is the only
 *   thread that does not block the signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define SLEEPER_MS 1500

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

struct sleeper {
	pthread_t thread;
	int ret, err;
};

/* epoll_wait() on an empty set for SLEEPER_MS: 0, or -1 and EINTR if a
 * signal interrupted it.  */
static void *sleep_in_epoll(void *arg)
{
	struct sleeper *s = arg;
	struct epoll_event ev;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	s->ret = epoll_wait(ep, &ev, 1, SLEEPER_MS);
	s->err = errno;
	close(ep);
	return NULL;
}

static int claim(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return signalfd(-1, &set, SFD_EXCLUSIVE | SFD_CLOEXEC);
}

static int is_pending(int sig)
{
	sigset_t set;

	sigpending(&set);
	return sigismember(&set, sig);
}

/* With SIG pending under the claim SFD, a thread sleeps in epoll_wait()
 * and the claim ends: the signal must be gone, the thread undisturbed.  */
static void end_claim(int sfd, int sig, const char *what)
{
	struct sleeper s;

	sigset_t only;

	ok(is_pending(sig), "%s: pending while claimed", what);
	if (pthread_create(&s.thread, NULL, sleep_in_epoll, &s) != 0)
		bail("pthread_create");
	pause_ms(300);			/* the thread is asleep by now */
	/* This thread blocks it, so a delivery would go to the sleeper.  */
	sigemptyset(&only);
	sigaddset(&only, sig);
	pthread_sigmask(SIG_BLOCK, &only, NULL);
	close(sfd);
	pthread_join(s.thread, NULL);
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
	ok(s.ret == 0, "%s: when the claim ends, a thread in epoll_wait() is not interrupted (returned %d%s%s)",
	   what, s.ret, s.ret < 0 ? ", " : "", s.ret < 0 ? strerror(s.err) : "");
	ok(!is_pending(sig), "%s: and the signal, ignored now, is discarded", what);
}

/* Send FD over the socket SOCK, and leave it in flight.  */
static void send_fd(int sock, int fd)
{
	char byte = 0, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		_exit(3);
}

enum copy { FORK_CHILD, IN_FLIGHT, DUP };

/* Q claims SIGTERM, makes a second reference of kind HOW, closes its
 * descriptor and sends itself SIGTERM; for DUP it then closes the copy.
 * Q's wait status: killed by SIGTERM, or exit 0 if it survived.  */
static int owner_closes(enum copy how)
{
	int status;
	pid_t q;

	fflush(stdout);
	q = fork();
	if (q < 0)
		bail("fork: %s", strerror(errno));
	if (q == 0) {
		int sfd = claim(SIGTERM), copy = -1, sv[2];
		pid_t c = -1;

		if (sfd < 0)
			_exit(2);
		switch (how) {
		case FORK_CHILD:
			c = fork();
			if (c == 0) {
				pause_ms(5000);	/* holds its copy */
				_exit(0);
			}
			break;
		case IN_FLIGHT:
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
				_exit(3);
			send_fd(sv[0], sfd);
			break;
		case DUP:
			copy = dup(sfd);
			break;
		}
		close(sfd);
		kill(getpid(), SIGTERM);
		pause_ms(200);
		if (how == DUP) {
			/* still claimed: pending, not delivered */
			if (!is_pending(SIGTERM))
				_exit(4);
			close(copy);
			pause_ms(200);
		}
		if (c > 0)
			kill(c, SIGKILL);
		_exit(0);
	}
	waitpid(q, &status, 0);
	return status;
}

static void claim_lifetime(void)
{
	int st;

	st = owner_closes(FORK_CHILD);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	   "the owner closes its descriptor while a fork child holds a copy: the claim ends, SIGTERM kills (status %#x)",
	   (unsigned int)st);
	st = owner_closes(IN_FLIGHT);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	   "the owner closes its descriptor while a copy is in flight over SCM_RIGHTS: the claim ends, SIGTERM kills (status %#x)",
	   (unsigned int)st);
	st = owner_closes(DUP);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	   "the owner closes one of two dup'd descriptors: still claimed; then the other: the pending SIGTERM kills (status %#x)",
	   (unsigned int)st);
}

int main(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int sfd, status;
	pid_t c;

	sfd = claim(SIGCHLD);
	if (sfd < 0 && errno == EINVAL && !kernel_is_patched())
		skip_all("this kernel rejects SFD_EXCLUSIVE (EINVAL): claims are tested in the QEMU guest");
	if (sfd < 0)
		bail("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));

	/* SIGCHLD at its default action, which ignores it.  */
	c = fork();
	if (c == 0)
		_exit(0);
	if (c < 0)
		bail("fork: %s", strerror(errno));
	waitpid(c, &status, 0);
	end_claim(sfd, SIGCHLD, "claimed SIGCHLD at SIG_DFL");

	/* SIGUSR1 set to SIG_IGN while pending and claimed.  */
	sfd = claim(SIGUSR1);
	if (sfd < 0)
		bail("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));
	kill(getpid(), SIGUSR1);
	sigaction(SIGUSR1, &ign, NULL);
	end_claim(sfd, SIGUSR1, "claimed SIGUSR1 set to SIG_IGN");

	claim_lifetime();
	return done_testing();
}
