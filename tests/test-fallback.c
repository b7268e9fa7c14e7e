/* The signalfd4 -> signalfd fallback, exercised for real: in a child, a
 * seccomp filter makes signalfd4 (and, in a second child, signalfd as well)
 * fail with ENOSYS, as on a kernel older than 2.6.27.  The children report
 * what the wrapper answered through a pipe; the parent checks it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "seccomp-enosys.h"

/* What one child saw.  */
struct report {
	int flags0_fd, flags0_errno;	/* signalfd(-1, mask, 0) */
	int read_signo;			/* what that fd read back */
	int cloexec_ret, cloexec_errno;	/* signalfd(-1, mask, SFD_CLOEXEC) */
};

#ifdef SECCOMP_ENOSYS_ARCH
static int run_child(int also_old_signalfd, struct report *r)
{
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct report me = { -1, 0, 0, 0, 0 };
		struct signalfd_siginfo si;
		sigset_t mask;

		close(pfd[0]);
		alarm(30);
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		sigprocmask(SIG_BLOCK, &mask, NULL);
		if (deny_with_enosys(SYS_signalfd4, also_old_signalfd ?
				     SYS_signalfd : SYS_signalfd4) != 0)
			_exit(2);
		/* The filter must really be in place.  */
		if (syscall(SYS_signalfd4, -1, &mask, 8, 0) != -1 ||
		    errno != ENOSYS)
			_exit(3);
		errno = 0;
		me.flags0_fd = signalfd(-1, &mask, 0);
		me.flags0_errno = errno;
		if (me.flags0_fd >= 0) {
			kill(getpid(), SIGUSR1);
			if (read(me.flags0_fd, &si, sizeof(si)) == sizeof(si))
				me.read_signo = si.ssi_signo;
		}
		errno = 0;
		me.cloexec_ret = signalfd(-1, &mask, SFD_CLOEXEC);
		me.cloexec_errno = errno;
		if (write(pfd[1], &me, sizeof(me)) != sizeof(me))
			_exit(4);
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], r, sizeof(*r)) != sizeof(*r)) {
		close(pfd[0]);
		waitpid(pid, &status, 0);
		diag("child exit status %d", WEXITSTATUS(status));
		return -1;
	}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return 0;
}
#endif

int main(void)
{
#ifdef SECCOMP_ENOSYS_ARCH
	struct report r;

	if (!ok(run_child(0, &r) == 0, "child with signalfd4 denied ran")) {
		skip(3, "no report from the child");
	} else {
		ok(r.flags0_fd >= 0, "flags 0: falls back to signalfd() (errno %s)",
		   strerror(r.flags0_errno));
		is(r.read_signo, SIGUSR1, "flags 0: the fallback descriptor reads SIGUSR1");
		ok(r.cloexec_ret == -1 && r.cloexec_errno == EINVAL,
		   "SFD_CLOEXEC without signalfd4 fails with EINVAL (no racy fcntl emulation)");
	}
	if (!ok(run_child(1, &r) == 0, "child with signalfd4 and signalfd denied ran")) {
		skip(1, "no report from the child");
	} else {
		ok(r.flags0_fd == -1 && r.flags0_errno == ENOSYS,
		   "flags 0 without either call: ENOSYS");
	}
#else
	skip(1, "the seccomp filter is written for x86_64 only");
#endif
	return done_testing();
}
