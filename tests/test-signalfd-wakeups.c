/* A signal wakes every signalfd waiter that reads it: no lost wake-up.
 *
 * The patched kernel wakes only the descriptors that read the signal
 * sent (patch 0007): a descriptor that reads one signal is watched on
 * that signal's list, one that reads several on a list filtered by the
 * union of what they read, and the first process that waits on a
 * descriptor uses a watch kept in the descriptor itself.  Each case
 * below waits in epoll_wait() (5 s) while another thread or process
 * sends the signal after a pause, so a wake-up that went to the wrong
 * list, or none, shows as a timeout.  A signal sent before the wait
 * began is still seen (the readiness is level-triggered), so a slow
 * machine cannot make a case fail, only not exercise the wake-up.
 * Unpatched kernels wake every waiter: the cases pass there too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define PAUSE_MS 150

static sigset_t set_of(int a, int b)
{
	sigset_t set;

	sigemptyset(&set);
	if (a)
		sigaddset(&set, a);
	if (b)
		sigaddset(&set, b);
	return set;
}

static int new_sfd(int a, int b)
{
	sigset_t set = set_of(a, b);
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);

	if (fd < 0)
		bail("signalfd: %s", strerror(errno));
	return fd;
}

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

struct late {
	pid_t pid;
	int sig;
};

static void *send_late(void *arg)
{
	struct late *l = arg;

	pause_ms(PAUSE_MS);
	kill(l->pid, l->sig);
	return NULL;
}

/* The descriptor epoll_wait() reports while @sig comes in late from
 * another thread, -1 if none within 5 s.  */
static int woken_by(int ep, int sig)
{
	struct late l = { getpid(), sig };
	struct epoll_event ev;
	pthread_t t;
	int r;

	if (pthread_create(&t, NULL, send_late, &l))
		bail("pthread_create failed");
	r = epoll_wait(ep, &ev, 1, 5000);
	pthread_join(t, NULL);
	return r == 1 ? ev.data.fd : -1;
}

/* Read one siginfo: its signal number, 0 if none.  */
static int take(int fd)
{
	struct signalfd_siginfo si;

	return read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
}

static void watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		bail("epoll_ctl: %s", strerror(errno));
}

/* In a child: wait in a fresh epoll set on @fd, which the parent made
 * (and may have waited on), until the parent sends @sig.  */
static void child_waits(int fd, int sig, const char *what)
{
	int status = 0, ep;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		watch(ep, fd);
		alarm(20);
		_exit(epoll_wait(ep, &(struct epoll_event){ 0 }, 1, 5000) == 1 &&
		      take(fd) == sig ? 0 : 1);
	}
	pause_ms(PAUSE_MS);
	kill(pid, sig);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "%s (status %#x)", what, (unsigned int)status);
}

int main(void)
{
	int rt1 = SIGRTMIN + 1, rt2 = SIGRTMIN + 2, rt3 = SIGRTMIN + 3;
	int rt4 = SIGRTMIN + 4;
	int one, several, other, none, ep;
	const int used[] = { SIGUSR1, SIGUSR2, rt1, rt2, rt3, rt4 };
	sigset_t set;
	const char *why;
	size_t i;

	/* Every case needs a second thread or process.  */
	if (emulator())
		skip_all("under %s, pthread_create() hangs (qemu-user 7.2 on this host, as fork() does); the wake-ups are the kernel's, checked by native runs and in the guest",
			 emulator());

	/* Blocked before any thread or child exists: all inherit it.  */
	sigemptyset(&set);
	for (i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		sigaddset(&set, used[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);

	ep = epoll_create1(EPOLL_CLOEXEC);
	one = new_sfd(SIGUSR1, 0);
	several = new_sfd(SIGUSR1, SIGUSR2);
	other = new_sfd(SIGUSR2, rt1);
	none = new_sfd(0, 0);
	watch(ep, one);
	watch(ep, several);
	watch(ep, other);
	watch(ep, none);

	is(woken_by(ep, rt1), other, "a signal read by one descriptor of several signals wakes it");
	is(take(other), rt1, "it reads that signal");
	{
		int a = woken_by(ep, SIGUSR1), b;
		struct epoll_event ev[4];

		b = epoll_wait(ep, ev, 4, 0);
		ok((a == one || a == several) && b == 2,
		   "a signal read by a one-signal and a several-signal descriptor makes both ready (%d, then %d ready)",
		   a, b);
		ok(take(one) == SIGUSR1 && take(several) == 0,
		   "the first reader takes it, the other finds it gone");
	}

	/* Closing a several-signal descriptor must leave the union of the
	 * others whole: "other" still reads SIGUSR2.  */
	close(several);
	is(woken_by(ep, SIGUSR2), other, "after closing another several-signal descriptor, the rest still wake");
	is(take(other), SIGUSR2, "and read the signal");

	/* Re-programmed while in the epoll set: one signal -> several. */
	set = set_of(SIGUSR1, rt2);
	if (signalfd(one, &set, 0) != one)
		bail("signalfd re-program: %s", strerror(errno));
	is(woken_by(ep, rt2), one, "re-programmed from one signal to several, it wakes for a new one");
	is(take(one), rt2, "and reads it");
	/* ... and several -> one. */
	set = set_of(rt3, 0);
	if (signalfd(other, &set, 0) != other)
		bail("signalfd re-program: %s", strerror(errno));
	is(woken_by(ep, rt3), other, "re-programmed from several signals to one, it wakes for it");
	is(take(other), rt3, "and reads it");

	/* A descriptor that reads nothing stays quiet, whatever comes. */
	kill(getpid(), SIGUSR2);
	{
		struct epoll_event ev[4];
		int i, n = epoll_wait(ep, ev, 4, 200), quiet = 1;

		for (i = 0; i < n; i++)
			quiet &= ev[i].data.fd != none;
		ok(quiet && take(none) == 0, "a descriptor with an empty mask is never ready");
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 });	/* drop it */

	/* ... until it is re-programmed, still in the epoll set: it then
	 * wakes for the signal it reads now, and only it reads rt4.  */
	set = set_of(rt4, 0);
	if (signalfd(none, &set, 0) != none)
		bail("signalfd re-program: %s", strerror(errno));
	is(woken_by(ep, rt4), none, "re-programmed from an empty mask to a signal, it wakes for it");
	is(take(none), rt4, "and reads it");

	/* Other processes: the parent's descriptor is watched from its own
	 * sighand already; a child waits on it through its own.  */
	why = fork_broken();
	if (why) {
		skip(4, "%s", why);
	} else {
		int fresh = new_sfd(rt1, 0);

		child_waits(one, SIGUSR1,
			    "a child waiting on a descriptor its parent waits on wakes on its own signal");
		child_waits(fresh, rt1,
			    "a child that first waits on a descriptor wakes");
		child_waits(fresh, rt1,
			    "after that child exited, the next one does too");
		watch(ep, fresh);
		is(woken_by(ep, rt1), fresh, "and then the parent");
		take(fresh);
		close(fresh);
	}

	close(one);
	close(other);
	close(none);
	close(ep);
	return done_testing();
}
