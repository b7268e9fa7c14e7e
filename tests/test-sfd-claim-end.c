/* What an SFD_EXCLUSIVE claim held when it ends (test-sfd-lifetime has
 * when it ends).
 *
 * - A pending signal whose disposition is to ignore it (SIG_IGN, or a
 *   default-ignore such as SIGCHLD) when the claim ends is discarded, as
 *   sigaction(SIG_IGN) discards one: it wakes nobody, and a thread asleep
 *   in epoll_wait() keeps sleeping (no EINTR), even when it is the only
 *   thread that does not block the signal.
 * - A periodic POSIX timer whose signal was pending under the claim keeps
 *   running after the claim ends, whether the signal was discarded then
 *   (ignored: the timer's preallocated entry goes with it) or delivered
 *   (handled), on CLOCK_MONOTONIC and on the process CPU clock.
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

#define SLEEPER_MS 1500
#define TIMER_PERIOD_MS 5
/* The most wall time a timer case waits for its clock to advance.  */
#define RUN_LIMIT_MS 5000

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

static volatile sig_atomic_t ticks;

static void count_tick(int sig)
{
	(void)sig;
	ticks++;
}

static long long clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Count SIGUSR1 in ticks; SA_RESTART, as a program that counts would.  */
static void handle_ticks(void)
{
	struct sigaction sa = { .sa_handler = count_tick, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	ticks = 0;
	sigaction(SIGUSR1, &sa, NULL);
}

/* A timer on CLOCK that sends SIGUSR1 every TIMER_PERIOD_MS.  */
static int start_timer(clockid_t clock)
{
	struct sigevent ev;
	struct itimerspec its = {
		{ 0, TIMER_PERIOD_MS * 1000000L }, { 0, TIMER_PERIOD_MS * 1000000L }
	};
	timer_t timer;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	if (timer_create(clock, &ev, &timer) != 0)
		return -1;
	return timer_settime(timer, 0, &its, NULL);
}

/* Let CLOCK advance MS ms: sleep for CLOCK_MONOTONIC (a handler's EINTR
 * does not make the sleep longer), burn CPU for a CPU clock.  Return
 * early once the handler has run UNTIL times (0: never), and after
 * RUN_LIMIT_MS of wall time whatever the clock says.  */
static void let_run(clockid_t clock, int ms, int until)
{
	long long end = clock_ms(clock) + ms;
	long long limit = clock_ms(CLOCK_MONOTONIC) + RUN_LIMIT_MS;
	long long left;

	while ((left = end - clock_ms(clock)) > 0 &&
	       (!until || ticks < until) && clock_ms(CLOCK_MONOTONIC) < limit) {
		if (clock == CLOCK_MONOTONIC) {
			struct timespec ts = { left / 1000, (left % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

/* What the child of a timer case saw.  */
struct timer_report {
	int setup;	/* 0, or the failed step: 1 claim, 2 timer, -1 no report */
	int err;	/* its errno */
	int held;	/* the signal was pending under the claim, no handler ran */
	int ticks;	/* handler runs after the claim ended */
};

/* Run FN(CLOCK) in a fork child, so that its timer and its dispositions
 * end with it; its report comes back through a pipe.  */
static struct timer_report in_child(void (*fn)(clockid_t, struct timer_report *),
				    clockid_t clock)
{
	struct timer_report r;
	int p[2], status;
	pid_t pid;

	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		memset(&r, 0, sizeof(r));
		fn(clock, &r);
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	memset(&r, 0, sizeof(r));
	if (read(p[0], &r, sizeof(r)) != sizeof(r))
		r.setup = -1;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (r.setup)
		diag("the child could not set up the case (step %d, status %#x): %s",
		     r.setup, (unsigned int)status, strerror(r.err));
	return r;
}

/* Claim SIGUSR1, start the timer on CLOCK and let it send for 50 ms:
 * r->held says whether its signal is pending under the claim.  The
 * claiming descriptor, or -1 with r->setup and r->err set.  */
static int claim_timer(clockid_t clock, struct timer_report *r)
{
	int sfd = claim(SIGUSR1);

	if (sfd < 0) {
		r->setup = 1;
		r->err = errno;
		return -1;
	}
	if (start_timer(clock) != 0) {
		r->setup = 2;
		r->err = errno;
		close(sfd);
		return -1;
	}
	let_run(clock, 50, 0);
	r->held = is_pending(SIGUSR1);
	return sfd;
}

/* Child: SIGUSR1 ignored and claimed, the timer's signal pending under
 * the claim; the claim ends (the signal is discarded), then a handler is
 * installed: the timer must still be running.  */
static void ignored_then_handled(clockid_t clock, struct timer_report *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int sfd;

	sigaction(SIGUSR1, &ign, NULL);
	sfd = claim_timer(clock, r);
	if (sfd < 0)
		return;
	close(sfd);
	handle_ticks();
	let_run(clock, 300, 1);
	r->ticks = ticks;
}

/* Child: as ignored_then_handled(), with a thread asleep in epoll_wait()
 * when the claim ends: re-arming the timer must not wake it (no EINTR),
 * as the discard of any ignored signal does not.  r->ticks is 1 if the
 * sleeper slept through.  */
static void ignored_quietly(clockid_t clock, struct timer_report *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sleeper s;
	int sfd;

	sigaction(SIGUSR1, &ign, NULL);
	sfd = claim_timer(clock, r);
	if (sfd < 0)
		return;
	if (pthread_create(&s.thread, NULL, sleep_in_epoll, &s) != 0) {
		r->setup = 3;
		r->err = errno;
		return;
	}
	pause_ms(300);			/* the thread is asleep by now */
	close(sfd);
	pthread_join(s.thread, NULL);
	r->ticks = s.ret == 0;
	if (s.ret != 0)
		r->err = s.err;
}

/* Child: SIGUSR1 handled and claimed, the timer's signal pending under
 * the claim; the claim ends (the signal is delivered): the timer must
 * keep sending it.  */
static void handled_throughout(clockid_t clock, struct timer_report *r)
{
	int sfd;

	handle_ticks();
	sfd = claim_timer(clock, r);
	if (sfd < 0)
		return;
	r->held = r->held && ticks == 0;
	ticks = 0;
	close(sfd);
	let_run(clock, 300, 2);
	r->ticks = ticks;
}

/* The claim held the timer's signal while it was ignored, and discarded
 * it when it ended: the timer's preallocated entry went with it, so the
 * timer must have been re-armed then, or it never sends again.  */
static void monotonic_timer_after_ignored_claim(void)
{
	struct timer_report r = in_child(ignored_then_handled, CLOCK_MONOTONIC);

	ok(!r.setup && r.held && r.ticks >= 1,
	   "a periodic CLOCK_MONOTONIC timer whose ignored SIGUSR1 was discarded when the claim ended keeps running: a handler installed later runs (held %d, %d runs)",
	   r.held, r.ticks);
}

/* Taking the timer's entry at the claim's end wakes nobody.  */
static void timer_claim_end_wakes_nobody(void)
{
	struct timer_report r = in_child(ignored_quietly, CLOCK_MONOTONIC);

	ok(!r.setup && r.held && r.ticks == 1,
	   "when a claim on a periodic timer's ignored SIGUSR1 ends, a thread asleep in epoll_wait() sleeps on (held %d%s%s)",
	   r.held, r.ticks == 1 ? "" : ", woken: ",
	   r.ticks == 1 ? "" : strerror(r.err));
}

/* The same with a CPU-time timer, which posix-cpu-timers re-arms by
 * another path.  */
static void cpu_timer_after_ignored_claim(void)
{
	struct timer_report r = in_child(ignored_then_handled,
					 CLOCK_PROCESS_CPUTIME_ID);

	ok(!r.setup && r.held && r.ticks >= 1,
	   "a periodic CLOCK_PROCESS_CPUTIME_ID timer whose ignored SIGUSR1 was discarded when the claim ended keeps running: a handler installed later runs (held %d, %d runs)",
	   r.held, r.ticks);
}

/* A handled signal released by the claim is delivered: its dequeue must
 * re-arm the timer, which then keeps sending.  */
static void monotonic_timer_after_handled_claim(void)
{
	struct timer_report r = in_child(handled_throughout, CLOCK_MONOTONIC);

	ok(!r.setup && r.held && r.ticks >= 2,
	   "a periodic CLOCK_MONOTONIC timer whose handled SIGUSR1 was held by the claim keeps running after the claim ends: the handler runs more than once (held %d, %d runs)",
	   r.held, r.ticks);
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

	monotonic_timer_after_ignored_claim();
	timer_claim_end_wakes_nobody();
	cpu_timer_after_ignored_claim();
	monotonic_timer_after_handled_claim();
	return done_testing();
}
