/* A successful call leaves errno as it was, as glibc's wrappers do, and a
 * failed one sets the errno glibc's would: with every system call present,
 * and on the fallback paths, where the first call answers ENOSYS and the
 * wrapper tries an older one (the 32-bit-time timerfd calls on 32-bit
 * targets, signalfd() without signalfd4).  errno holds a sentinel before
 * each call and is compared after.
 *
 * The kernel without a call is played by a seccomp filter in a child
 * (tests/seccomp-enosys.h) or, where the library calls the C library's
 * syscall() and no filter can be installed (qemu-user refuses them), in
 * process by tests/libc-syscall-deny.c.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "libc-syscall-deny.h"
#include "seccomp-enosys.h"
#include "tap.h"

/* No call sets it: any other value after a success is the wrapper's.  */
#define SENTINEL 24301

/* The library reaches the kernel through the C library's syscall().  */
#if !(defined(__x86_64__) && !defined(__ILP32__))
# define LIBRARY_USES_LIBC_SYSCALL 1
#endif

struct record {
	char what[72];
	int want;		/* 0: success, else the errno of the failure */
	long ret;
	int err;
};

struct results {
	int n;
	struct record r[16];
};

/* Call EXPR with errno at the sentinel and keep what it left.  */
#define RECORD(res, want_, label, expr)					\
	do {								\
		struct record *r_ = &(res)->r[(res)->n++];		\
									\
		snprintf(r_->what, sizeof(r_->what), "%s", label);	\
		r_->want = (want_);					\
		errno = SENTINEL;					\
		r_->ret = (expr);					\
		r_->err = errno;					\
	} while (0)

static void run_calls(struct results *res, int signalfd4_denied)
{
	const struct itimerspec one_second = { { 0, 0 }, { 1, 0 } };
	struct itimerspec old, cur;
	sigset_t usr1, usr2;
	int tfd, sfd;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	res->n = 0;

	RECORD(res, 0, "timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)",
	       tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
	RECORD(res, 0, "timerfd_settime(tfd, 0, 1 s, NULL)",
	       timerfd_settime(tfd, 0, &one_second, NULL));
	RECORD(res, 0, "timerfd_settime(tfd, 0, 1 s, &old)",
	       timerfd_settime(tfd, 0, &one_second, &old));
	RECORD(res, 0, "timerfd_gettime(tfd, &cur)",
	       timerfd_gettime(tfd, &cur));
	RECORD(res, EBADF, "timerfd_settime(-1, ...)",
	       timerfd_settime(-1, 0, &one_second, NULL));
	RECORD(res, EBADF, "timerfd_gettime(-1, ...)",
	       timerfd_gettime(-1, &cur));
	RECORD(res, kernel_is_patched() ? 0 : ENOSYS,
	       "timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, 1 s)",
	       timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &one_second));
	RECORD(res, 0, "signalfd(-1, {USR1}, 0)",
	       sfd = signalfd(-1, &usr1, 0));
	RECORD(res, 0, "signalfd(sfd, {USR2}, 0)", signalfd(sfd, &usr2, 0));
	/* Without signalfd4 no flag can be set atomically: EINVAL.  */
	RECORD(res, signalfd4_denied ? EINVAL : 0,
	       "signalfd(-1, {USR1}, SFD_CLOEXEC)",
	       signalfd(-1, &usr1, SFD_CLOEXEC));
	RECORD(res, EBADF, "signalfd(-2, {USR1}, 0)", signalfd(-2, &usr1, 0));
}

static void report(const char *regime, const struct results *res)
{
	int i;

	for (i = 0; i < res->n; i++) {
		const struct record *r = &res->r[i];

		if (r->want == 0)
			ok(r->ret >= 0 && r->err == SENTINEL,
			   "%s: %s succeeds, errno untouched (returned %ld, errno %d %s)",
			   regime, r->what, r->ret, r->err,
			   r->err == SENTINEL ? "(sentinel)" : strerror(r->err));
		else
			ok(r->ret == -1 && r->err == r->want,
			   "%s: %s fails with %s (returned %ld, errno %s)",
			   regime, r->what, strerror(r->want), r->ret,
			   r->err == SENTINEL ? "untouched" : strerror(r->err));
	}
}

/* Where the wrappers have a fallback to play: not arm64's, for one.  */
#if defined SYS_timerfd_settime64 || defined SYS_signalfd
# define HAVE_FALLBACK 1
#endif

#ifdef HAVE_FALLBACK
/* The calls of run_calls() with NR1 and NR2 answering ENOSYS.  Returns
 * 0, or -1 with WHY set when this build and platform cannot play it.  */
static int run_denied(long nr1, long nr2, int signalfd4_denied,
		      struct results *res, char *why, size_t whylen)
{
	int p[2], status;
	ssize_t got;
	pid_t pid;

#ifdef LIBRARY_USES_LIBC_SYSCALL
	if (libc_syscall_deny) {
		libc_syscall_deny(nr1, nr2);
		if (syscall(nr1, -1, 0, 0, 0) != -1 || errno != ENOSYS)
			bail("libc_syscall_deny(%ld) did not take", nr1);
		run_calls(res, signalfd4_denied);
		libc_syscall_deny(-1, -1);
		return 0;
	}
#endif
	if (fork_broken()) {
		snprintf(why, whylen, "the seccomp filter needs a child: %s",
			 fork_broken());
		return -1;
	}
	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		alarm(30);
		if (deny_with_enosys(nr1, nr2) != 0) {
			res->n = -errno;
		} else {
			if (syscall(nr1, -1, 0, 0, 0) != -1 || errno != ENOSYS)
				_exit(3);
			run_calls(res, signalfd4_denied);
		}
		_exit(write(p[1], res, sizeof(*res)) == sizeof(*res) ? 0 : 4);
	}
	close(p[1]);
	got = read(p[0], res, sizeof(*res));
	close(p[0]);
	waitpid(pid, &status, 0);
	if (got != sizeof(*res))
		bail("the child with the filter sent no report (status %#x)",
		     (unsigned int)status);
	if (res->n < 0) {
		snprintf(why, whylen, "no seccomp filter could be installed (%s)%s%s",
			 strerror(-res->n), emulator() ? " under " : "",
			 emulator() ? emulator() : "");
		return -1;
	}
	return 0;
}
#endif

int main(void)
{
	struct results res;
#ifdef HAVE_FALLBACK
	char why[200];
#endif

	run_calls(&res, 0);
	report("all calls present", &res);

#ifdef SYS_timerfd_settime64
	/* A kernel before 5.1, or a filter that denies the time64 calls.  */
	if (run_denied(SYS_timerfd_settime64, SYS_timerfd_gettime64, 0, &res,
		       why, sizeof(why)) == 0)
		report("time64 calls ENOSYS", &res);
	else
		skip(11, "%s", why);
#else
	skip(1, "no 32-bit-time fallback here: the timerfd calls take a 64-bit time_t from the start");
#endif

#ifdef SYS_signalfd
	/* A kernel before 2.6.27: signalfd() without flags.  */
	if (run_denied(SYS_signalfd4, SYS_signalfd4, 1, &res, why,
		       sizeof(why)) == 0)
		report("signalfd4 ENOSYS", &res);
	else
		skip(11, "%s", why);
#else
	skip(1, "no signalfd() fallback here: this architecture has signalfd4 only");
#endif
	return done_testing();
}
