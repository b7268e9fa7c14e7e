/* How long an SFD_EXCLUSIVE claim lasts: one case per path by which a
 * descriptor leaves a descriptor table, and per way another process can
 * hold one.
 *
 * A claim lasts as long as its file: it ends when the file's last
 * reference goes, wherever that was, at the owner's execve() and at the
 * group's exit.  fork() does not copy a claiming descriptor, so no child
 * keeps a claim; a copy the owner passes on (SCM_RIGHTS, a CLONE_FILES
 * process, an io_uring's registered files) or a ptracer takes
 * (pidfd_getfd()) keeps it until closed; a fork() of a process that got
 * such a copy leaves it out as well.
 *
 * Each case runs in a process Q that claims SIGTERM, forks a child that
 * sleeps through the case (a kernel that copied the descriptor into it
 * would let that copy keep the claim), sends itself SIGTERM (held: still
 * pending) and takes its path.  Just before the step that must end the
 * claim, Q tells the parent so; it must then die of SIGTERM, and not
 * before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "scm-rights.h"

/* How long Q waits for a claim to end: the last reference of an exiting
 * thread or process goes a little after it can be waited for.  */
#define END_WAIT_MS 3000
#define SETTLE_MS 200

static int sfd;			/* Q's claiming descriptor of SIGTERM */
static int report;		/* Q's end of the pipe to the parent */
static const char *self_exe;	/* argv[0], for the execve() cases */

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int claim(int flags)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	return signalfd(-1, &set, SFD_EXCLUSIVE | flags);
}

static int term_pending(void)
{
	sigset_t set;

	sigpending(&set);
	return sigismember(&set, SIGTERM);
}

/* In Q: the claim must still hold after STEP.  Had it ended, the pending
 * SIGTERM would have killed Q already.  */
static void still_held(const char *step)
{
	pause_ms(SETTLE_MS);
	if (!term_pending()) {
		diag("SIGTERM is no longer pending after %s", step);
		_exit(3);
	}
}

/* In Q: the next step is the one that must end the claim.  */
static void last_step(void)
{
	if (write(report, "F", 1) != 1)
		_exit(4);
}

/* In Q, after the last step: SIGTERM must kill it now.  */
static void __attribute__((noreturn)) expect_end(void)
{
	pause_ms(END_WAIT_MS);
	diag("the claim outlived the last reference: SIGTERM still pending");
	_exit(1);
}

/* In a helper process Q forks: die with Q, so that none is left waiting
 * for a go-ahead that will never come.  */
static void die_with_q(pid_t q)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != q)
		_exit(0);
}

/* A one-byte go-ahead between two threads or processes.  */
struct gate { int fd[2]; };

static void gate_open(struct gate *g)
{
	if (pipe(g->fd) != 0)
		_exit(5);
}

static void gate_pass(struct gate *g)
{
	if (write(g->fd[1], "g", 1) != 1)
		_exit(5);
}

static void gate_wait(struct gate *g)
{
	char c;

	if (read(g->fd[0], &c, 1) != 1)
		_exit(5);
}

/* ---- the cases: each runs in Q with SIGTERM claimed and pending ---- */

static void by_close(void)
{
	last_step();
	close(sfd);
	expect_end();
}

static void by_closing_dups(void)
{
	int copy = dup(sfd);

	close(sfd);
	still_held("closing one of two dup'd descriptors");
	last_step();
	close(copy);
	expect_end();
}

static void by_dup2_over(void)
{
	int null = open("/dev/null", O_RDONLY);

	last_step();
	dup2(null, sfd);
	expect_end();
}

static void by_dup3_over(void)
{
	int null = open("/dev/null", O_RDONLY);

	last_step();
	dup3(null, sfd, O_CLOEXEC);
	expect_end();
}

static void by_close_range(void)
{
	last_step();
	close_range(sfd, sfd, 0);
	expect_end();
}

/* close_range(CLOSE_RANGE_CLOEXEC) closes nothing until execve().  */
static void by_close_range_cloexec(void)
{
	close_range(sfd, sfd, CLOSE_RANGE_CLOEXEC);
	still_held("close_range(CLOSE_RANGE_CLOEXEC), before execve()");
	last_step();
	execl(self_exe, self_exe, "--outlived", (char *)NULL);
	_exit(6);
}

static void by_close_on_exec(void)
{
	fcntl(sfd, F_SETFD, FD_CLOEXEC);
	last_step();
	execl(self_exe, self_exe, "--outlived", (char *)NULL);
	_exit(6);
}

/* execve() ends the claim even when the descriptor survives it.  */
static void by_exec_keeping_it(void)
{
	last_step();
	execl(self_exe, self_exe, "--outlived", (char *)NULL);
	_exit(6);
}

struct sharer {
	pthread_t thread;
	struct gate go, done;
	int unshare_first;	/* the thread takes a table of its own */
};

/* A thread of Q: optionally unshares its table, then waits, closes SFD
 * in the table it has and exits.  */
static void *sharer_thread(void *arg)
{
	struct sharer *s = arg;

	if (s->unshare_first && unshare(CLONE_FILES) != 0)
		_exit(7);
	gate_pass(&s->done);
	gate_wait(&s->go);
	close(sfd);
	return NULL;
}

static void start_sharer(struct sharer *s, int unshare_first)
{
	gate_open(&s->go);
	gate_open(&s->done);
	s->unshare_first = unshare_first;
	if (pthread_create(&s->thread, NULL, sharer_thread, s) != 0)
		_exit(7);
	gate_wait(&s->done);
}

/* A thread that shares Q's table closes it there.  */
static void by_thread_closing(void)
{
	struct sharer s;

	start_sharer(&s, 0);
	last_step();
	gate_pass(&s.go);
	pthread_join(s.thread, NULL);
	expect_end();
}

/* The main thread leaves the shared table with close_range(UNSHARE),
 * which copies it without the descriptor; the thread that still has the
 * old table then closes it there.  */
static void by_close_range_unshare(void)
{
	struct sharer s;

	start_sharer(&s, 0);
	close_range(sfd, sfd, CLOSE_RANGE_UNSHARE);
	still_held("close_range(CLOSE_RANGE_UNSHARE) while a thread shares the table");
	last_step();
	gate_pass(&s.go);
	pthread_join(s.thread, NULL);
	expect_end();
}

/* The same, but the thread with the old table exits instead: the table,
 * and the last reference, go with it.  */
static void *idle_thread(void *arg)
{
	gate_wait(arg);
	return NULL;
}

static void by_close_range_unshare_then_exit(void)
{
	struct gate go;
	pthread_t t;

	gate_open(&go);
	if (pthread_create(&t, NULL, idle_thread, &go) != 0)
		_exit(7);
	close_range(sfd, sfd, CLOSE_RANGE_UNSHARE);
	still_held("close_range(CLOSE_RANGE_UNSHARE) while a thread shares the table");
	last_step();
	gate_pass(&go);
	pthread_join(t, NULL);
	expect_end();
}

/* unshare(CLONE_FILES) gives the main thread a copy: the thread's close
 * in the old table leaves the claim to that copy.  */
static void by_unshare_files(void)
{
	struct sharer s;

	start_sharer(&s, 0);
	if (unshare(CLONE_FILES) != 0)
		_exit(7);
	gate_pass(&s.go);
	pthread_join(s.thread, NULL);
	still_held("a thread closed it in the table the main thread unshared from");
	last_step();
	close(sfd);
	expect_end();
}

/* A thread of the group with a table of its own (as clone(CLONE_THREAD)
 * without CLONE_FILES gives) keeps the claim after the main thread
 * closes its descriptor, until it closes its own.  */
static void by_thread_with_own_table(void)
{
	struct sharer s;

	start_sharer(&s, 1);
	close(sfd);
	still_held("the main thread closed it while a thread has its own copy");
	last_step();
	gate_pass(&s.go);
	pthread_join(s.thread, NULL);
	expect_end();
}

/* A process of another thread group that shares Q's table closes it.  */
static void by_clone_files_process(void)
{
	struct gate go;
	pid_t p, q = getpid();

	gate_open(&go);
	p = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (p < 0)
		_exit(8);
	if (p == 0) {
		die_with_q(q);
		gate_wait(&go);
		close(sfd);
		_exit(0);
	}
	last_step();
	gate_pass(&go);
	waitpid(p, NULL, 0);
	expect_end();
}

/* A copy in flight over SCM_RIGHTS keeps the claim until the socket goes. */
static void by_message_in_flight(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || send_fd(sv[0], sfd))
		_exit(8);
	close(sfd);
	still_held("closing it with a copy in flight over SCM_RIGHTS");
	last_step();
	close(sv[0]);
	close(sv[1]);
	expect_end();
}

/* A process that received a copy keeps the claim until it closes it.  */
static void by_receiver(void)
{
	struct gate go;
	int sv[2];
	pid_t r, q = getpid();

	gate_open(&go);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		_exit(8);
	r = fork();
	if (r < 0)
		_exit(8);
	if (r == 0) {
		int copy;

		die_with_q(q);
		copy = recv_fd(sv[1]);
		gate_wait(&go);
		_exit(copy < 0 ? 1 : 0);
	}
	if (send_fd(sv[0], sfd))
		_exit(8);
	close(sv[0]);
	close(sv[1]);
	close(sfd);
	still_held("closing it while a process that received it holds it");
	last_step();
	gate_pass(&go);
	waitpid(r, NULL, 0);
	expect_end();
}

/* A process that took a copy with pidfd_getfd() keeps the claim until it
 * closes it.  Q exits 9 (the parent skips) where that is not allowed.  */
static void by_pidfd_getfd(void)
{
	struct gate go, got;
	pid_t r, q = getpid();
	int status;
	char c;

	gate_open(&go);
	gate_open(&got);
	r = fork();
	if (r < 0)
		_exit(8);
	if (r == 0) {
		int pidfd, copy;

		die_with_q(q);
		pidfd = syscall(SYS_pidfd_open, q, 0);
		copy = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, sfd, 0);
		if (copy < 0)
			_exit(errno == EPERM || errno == ENOSYS ? 9 : 12);
		gate_pass(&got);
		gate_wait(&go);
		_exit(0);
	}
	close(got.fd[1]);
	if (read(got.fd[0], &c, 1) != 1) {
		waitpid(r, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 9)
			_exit(9);
		diag("pidfd_getfd() of Q's descriptor failed (status %#x)",
		     (unsigned int)status);
		_exit(12);
	}
	close(sfd);
	still_held("closing it while a process that took it with pidfd_getfd() holds it");
	last_step();
	gate_pass(&go);
	waitpid(r, NULL, 0);
	expect_end();
}

/* An io_uring's registered file is held by the ring, which a fork child
 * inherits: the child keeps the claim until the ring goes (a kworker
 * drops the ring's files, a little later).  Q exits 13 (the parent
 * skips) where io_uring is not available.  */
static void by_io_uring_registered(void)
{
	struct io_uring_params params;
	struct gate go;
	pid_t c, q = getpid();
	int ring;

	memset(&params, 0, sizeof(params));
	ring = syscall(__NR_io_uring_setup, 4, &params);
	if (ring < 0) {
		diag("io_uring_setup: %s", strerror(errno));
		_exit(13);
	}
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES, &sfd, 1) != 0) {
		diag("IORING_REGISTER_FILES: %s", strerror(errno));
		_exit(12);
	}
	gate_open(&go);
	c = fork();
	if (c < 0)
		_exit(8);
	if (c == 0) {
		die_with_q(q);
		gate_wait(&go);
		_exit(0);
	}
	close(ring);
	close(sfd);
	still_held("closing it and the ring, which a fork child inherited");
	last_step();
	gate_pass(&go);
	waitpid(c, NULL, 0);
	expect_end();
}

/* fork() leaves the claiming descriptor out of the child's table (a
 * plain signalfd is inherited as ever).  */
static void fork_leaves_it_out(void)
{
	sigset_t set;
	int plain, status;
	pid_t c;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	plain = signalfd(-1, &set, 0);
	c = fork();
	if (c < 0)
		_exit(8);
	if (c == 0) {
		if (fcntl(plain, F_GETFD) < 0)
			_exit(1);
		if (fcntl(sfd, F_GETFD) != -1 || errno != EBADF)
			_exit(2);
		_exit(0);
	}
	waitpid(c, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		diag(WIFEXITED(status) && WEXITSTATUS(status) == 2 ?
		     "the fork child has the claiming descriptor" :
		     "the fork child lacks the plain signalfd (status %#x)",
		     (unsigned int)status);
		_exit(10);
	}
	last_step();
	close(sfd);
	expect_end();
}

struct lifetime_case {
	void (*run)(void);
	const char *what;
};

static const struct lifetime_case cases[] = {
	{ by_close, "close() of its only descriptor" },
	{ by_closing_dups, "close() of the last of two dup'd descriptors" },
	{ by_dup2_over, "dup2() of another file over it" },
	{ by_dup3_over, "dup3(O_CLOEXEC) of another file over it" },
	{ by_close_range, "close_range() over it" },
	{ by_close_range_cloexec, "close_range(CLOSE_RANGE_CLOEXEC), then execve()" },
	{ by_close_on_exec, "FD_CLOEXEC, then execve()" },
	{ by_exec_keeping_it, "execve() with the descriptor kept open" },
	{ by_thread_closing, "close() by a thread that shares the table" },
	{ by_close_range_unshare, "close_range(CLOSE_RANGE_UNSHARE), then close() by the thread that kept the old table" },
	{ by_close_range_unshare_then_exit, "close_range(CLOSE_RANGE_UNSHARE), then the exit of the thread that kept the old table" },
	{ by_unshare_files, "unshare(CLONE_FILES) keeps a copy; close() of it after the old table's" },
	{ by_thread_with_own_table, "a thread with its own table: its close() after the main thread's" },
	{ by_clone_files_process, "close() by a clone(CLONE_FILES) process of another group" },
	{ by_message_in_flight, "a copy in flight over SCM_RIGHTS keeps it until the socket is closed" },
	{ by_receiver, "a process that received a copy keeps it until it exits" },
	{ by_pidfd_getfd, "a copy taken with pidfd_getfd() keeps it until its holder exits" },
	{ by_io_uring_registered, "an io_uring's registered file keeps it while a fork child holds the ring" },
	{ fork_leaves_it_out, "fork() does not copy it into the child; close() then ends it" },
};

/* Run C in Q (see the top of the file) and say how Q ended.  */
static void run_case(const struct lifetime_case *c)
{
	int pipefd[2], status, reached = 0;
	char buf[8];
	ssize_t n;
	pid_t q;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		bail("pipe2: %s", strerror(errno));
	fflush(stdout);
	q = fork();
	if (q < 0)
		bail("fork: %s", strerror(errno));
	if (q == 0) {
		pid_t sleeper, self = getpid();

		close(pipefd[0]);
		report = pipefd[1];
		sfd = claim(0);
		if (sfd < 0)
			_exit(2);
		sleeper = fork();
		if (sleeper == 0) {
			die_with_q(self);
			pause_ms(END_WAIT_MS * 3);
			_exit(0);
		}
		kill(getpid(), SIGTERM);
		still_held("claiming it");
		c->run();
		_exit(11);
	}
	close(pipefd[1]);
	waitpid(q, &status, 0);
	/* What Q wrote is there; a helper of Q may still hold the pipe.  */
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
		reached = buf[n - 1] == 'F';
	close(pipefd[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 9) {
		skip(1, "%s: pidfd_getfd() is not allowed here (EPERM or ENOSYS)", c->what);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 13) {
		skip(1, "%s: io_uring_setup() fails here", c->what);
		return;
	}
	ok(reached && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	   "%s: the claim ends there, and the held SIGTERM kills (%s, status %#x)",
	   c->what, reached ? "at the last step" : "before the last step",
	   (unsigned int)status);
}

/* The group's exit ends the claim: a copy another process received then
 * reads as a plain signalfd ("exclusive: 0" in its fdinfo).  */
static void group_exit_ends_it(void)
{
	char path[64], line[128];
	int sv[2], copy, status, exclusive = -1;
	FILE *f;
	pid_t q;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		bail("socketpair: %s", strerror(errno));
	q = fork();
	if (q < 0)
		bail("fork: %s", strerror(errno));
	if (q == 0) {
		sfd = claim(0);
		_exit(sfd < 0 || send_fd(sv[0], sfd) ? 1 : 0);
	}
	waitpid(q, &status, 0);
	copy = recv_fd(sv[1]);
	close(sv[0]);
	close(sv[1]);
	if (copy < 0) {
		ok(0, "the group's exit: could not receive its descriptor (status %#x)",
		   (unsigned int)status);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", copy);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "exclusive: %d", &exclusive);
	if (f)
		fclose(f);
	is(exclusive, 0, "the group's exit ends its claim: the copy a process received reads as a plain signalfd");
	close(copy);
}

/* In a new process: 1 if a fork child of it has descriptor FD, 0 if
 * not, 3 where the child could not be made.  */
static int fork_child_has(int fd)
{
	int status;
	pid_t c = fork();

	if (c < 0)
		return 3;
	if (c == 0)
		_exit(fcntl(fd, F_GETFD) >= 0);
	waitpid(c, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

/* Run HOW (fd) in a new process made by clone(FLAGS) and say how it
 * ended: HOW's own exit status, or 4 if it died.  */
static int in_child(int (*how)(int fd), int fd, unsigned long flags)
{
	int status;
	pid_t p = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (p < 0)
		bail("clone: %s", strerror(errno));
	if (p == 0)
		_exit(how(fd));
	waitpid(p, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 4;
}

static int received_copy(int sock)
{
	int copy = recv_fd(sock);

	return copy < 0 ? 5 : fork_child_has(copy);
}

static int pidfd_copy(int fd)
{
	int pidfd = syscall(SYS_pidfd_open, getppid(), 0);
	int copy = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	if (copy < 0)
		return errno == EPERM || errno == ENOSYS ? 9 : 5;
	return fork_child_has(copy);
}

static int dup2_copy(int fd)
{
	int r;

	if (dup2(fd, fd + 100) < 0)
		return 5;
	r = fork_child_has(fd + 100);
	close(fd + 100);	/* the table is the test's own */
	return r;
}

static int unshared_copy(int fd)
{
	return unshare(CLONE_FILES) != 0 ? 5 : fork_child_has(fd);
}

/* Closing a free number above every open one copies the whole table.  */
static int close_range_unshared_copy(int fd)
{
	if (syscall(SYS_close_range, fd + 200, fd + 200, CLOSE_RANGE_UNSHARE))
		return 5;
	return fork_child_has(fd);
}

/* fork() leaves a claiming descriptor out of the child whichever way it
 * came into the parent's table.  */
static void fork_leaves_out_every_copy(void)
{
	static const char *const said[] = {
		"the child lacks it", "the child has it", "",
		"fork() failed", "the process died", "could not get the copy",
	};
	int sv[2], fd = claim(0), r;

	if (fd < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		bail("claim or socketpair: %s", strerror(errno));
	if (send_fd(sv[0], fd))
		bail("send_fd: %s", strerror(errno));
	r = in_child(received_copy, sv[1], 0);
	ok(r == 0, "fork() in a process that received the claiming descriptor over SCM_RIGHTS: %s",
	   said[r]);
	r = in_child(pidfd_copy, fd, 0);
	if (r == 9)
		skip(1, "pidfd_getfd() is not allowed here (EPERM or ENOSYS)");
	else
		ok(r == 0, "fork() in a process that took it with pidfd_getfd(): %s", said[r]);
	r = in_child(dup2_copy, fd, CLONE_FILES);
	ok(r == 0, "fork() after dup2() of it, in a clone(CLONE_FILES) sharer: %s", said[r]);
	r = in_child(unshared_copy, fd, CLONE_FILES);
	ok(r == 0, "fork() after unshare(CLONE_FILES) copied the table: %s", said[r]);
	r = in_child(close_range_unshared_copy, fd, CLONE_FILES);
	ok(r == 0, "fork() after close_range(CLOSE_RANGE_UNSHARE) copied the table: %s",
	   said[r]);
	close(sv[0]);
	close(sv[1]);
	close(fd);
}

int main(int argc, char **argv)
{
	size_t i;
	int fd;

	if (argc > 1 && strcmp(argv[1], "--outlived") == 0) {
		/* Q after execve(): the claim should have ended there.  */
		pause_ms(END_WAIT_MS);
		diag("execve() did not end the claim: SIGTERM still pending");
		return 1;
	}
	self_exe = "/proc/self/exe";
	fd = claim(0);
	if (fd < 0 && errno == EINVAL && !kernel_is_patched())
		skip_all("this kernel rejects SFD_EXCLUSIVE (EINVAL): claims are tested in the QEMU guest");
	if (fd < 0)
		bail("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));
	close(fd);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	group_exit_ends_it();
	fork_leaves_out_every_copy();
	return done_testing();
}
