/* What /proc shows of the series' descriptors, for checkpoint/restore
 * tools (CRIU reads fdinfo): a claiming signalfd says "exclusive: 1" in
 * /proc/PID/fdinfo/N, /proc/PID/status has "SigClm:", the group's claimed
 * set, and a timerfd() descriptor shows its type and its 4-byte reads.
 * "owner:" names the claiming group in the pid namespace of the procfs
 * instance read, as every pid in /proc is, not in the reader's.
 * On a kernel without the series each part says why it is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* The value after "key:" in file, into val; 0 if there is no such line. */
static int proc_field(const char *file, const char *key, char *val, size_t size)
{
	char line[256];
	size_t klen = strlen(key);
	int found = 0;
	FILE *f = fopen(file, "r");

	while (!found && f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			char *v = line + klen + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(val, size, "%s", v);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static int fdinfo(int fd, const char *key, char *val, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return proc_field(path, key, val, size);
}

/* A signal set as /proc prints it: 16 hex digits, signal n at bit n - 1. */
static void sigset_hex(const int *sigs, char *out)
{
	unsigned long long bits = 0;

	for (; *sigs; sigs++)
		bits |= 1ULL << (*sigs - 1);
	sprintf(out, "%016llx", bits);
}

static void signalfd_lines(void)
{
	static const int claimed[] = { SIGUSR1, SIGTERM, 0 }, none[] = { 0 };
	char val[64], want[32];
	sigset_t mask;
	int fd, plain, status;
	pid_t pid;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	fd = signalfd(-1, &mask, SFD_EXCLUSIVE | SFD_CLOEXEC);
	if (fd == -1 && errno == EINVAL && !kernel_is_patched()) {
		skip(6, "this kernel rejects SFD_EXCLUSIVE (EINVAL): claims are shown in the QEMU guest");
		return;
	}
	plain = signalfd(-1, &mask, SFD_CLOEXEC);
	ok(fdinfo(fd, "exclusive", val, sizeof(val)) && strcmp(val, "1") == 0,
	   "fdinfo of a claiming signalfd: exclusive: 1 (\"%s\")", val);
	ok(fdinfo(plain, "exclusive", val, sizeof(val)) && strcmp(val, "0") == 0,
	   "fdinfo of a plain signalfd: exclusive: 0 (\"%s\")", val);
	sigset_hex(claimed, want);
	ok(proc_field("/proc/self/status", "SigClm", val, sizeof(val)) &&
	   strcmp(val, want) == 0,
	   "/proc/self/status SigClm: %s, SIGUSR1 and SIGTERM (\"%s\")", want, val);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sigset_hex(none, want);
		_exit(!(proc_field("/proc/self/status", "SigClm", val, sizeof(val)) &&
			strcmp(val, want) == 0));
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a fork child's SigClm is empty: it inherits no claim");

	close(fd);
	sigset_hex(none, want);
	ok(proc_field("/proc/self/status", "SigClm", val, sizeof(val)) &&
	   strcmp(val, want) == 0, "SigClm is empty once the descriptor is closed (\"%s\")", val);
	ok(fdinfo(plain, "sigmask", val, sizeof(val)),
	   "the plain descriptor still shows its sigmask (\"%s\")", val);
	close(plain);
}

static void timerfd_lines(void)
{
	struct itimerspec its = { { 5, 0 }, { 5, 0 } };
	char val[64];
	int fd, cfd;

	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	if (fd == -1 && errno == ENOSYS && !kernel_is_patched()) {
		skip(5, "kernel without the fdevents series (timerfd() is ENOSYS): its fdinfo is shown in the QEMU guest");
		return;
	}
	ok(fdinfo(fd, "tfd_type", val, sizeof(val)) && strcmp(val, "1") == 0,
	   "fdinfo of a timerfd() descriptor: tfd_type: 1 (TFD_TIMER_REL) (\"%s\")", val);
	ok(fdinfo(fd, "tfd_read_size", val, sizeof(val)) && strcmp(val, "4") == 0,
	   "fdinfo of a timerfd() descriptor: tfd_read_size: 4 (\"%s\")", val);
	timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
	ok(fdinfo(fd, "tfd_type", val, sizeof(val)) && strcmp(val, "3") == 0,
	   "re-armed as TFD_TIMER_SEQ: tfd_type: 3 (\"%s\")", val);
	timerfd_settime(fd, 0, &its, NULL);
	ok(fdinfo(fd, "tfd_type", val, sizeof(val)) && strcmp(val, "0") == 0,
	   "re-armed by timerfd_settime(): tfd_type: 0 (\"%s\")", val);
	close(fd);

	cfd = timerfd_create(CLOCK_MONOTONIC, 0);
	ok(!fdinfo(cfd, "tfd_type", val, sizeof(val)) &&
	   !fdinfo(cfd, "tfd_read_size", val, sizeof(val)),
	   "a timerfd_create() descriptor (8-byte reads) has no tfd_ lines");
	close(cfd);
}

/* How owner_in_new_pidns()'s middle process ended the case.  */
struct owner_report {
	int skip;	/* 0; 1 no SFD_EXCLUSIVE; 2 no CLONE_NEWPID; 3 a step failed */
	int err;	/* errno of the step */
	long owner;	/* the "owner:" value the reader saw, -1 if none */
	long want;	/* the owner's TGID in the namespace of that /proc */
};

/* The value of "owner:" in <procfd>/<pid>/fdinfo/<fd>, or -1.  */
static long owner_at(int procfd, pid_t pid, int fd)
{
	char path[64], line[256];
	long owner = -1;
	FILE *f;
	int ffd;

	snprintf(path, sizeof(path), "%d/fdinfo/%d", (int)pid, fd);
	ffd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	f = ffd < 0 ? NULL : fdopen(ffd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "owner:", 6) == 0)
			owner = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	else if (ffd >= 0)
		close(ffd);
	return owner;
}

/* Like every pid under /proc, "owner:" must be the owner's pid in the
 * namespace of the procfs instance read: a reader in a child pid
 * namespace, in which the owner has no pid, reads the owner's TGID from
 * the initial namespace's /proc, not 0.  The case runs in a middle
 * process M, because unshare(CLONE_NEWPID) cannot be undone and M cannot
 * fork again once its first child (the new namespace's init) is gone.  */
static void owner_in_new_pidns(void)
{
	struct owner_report r = { .owner = -1, .want = -1 };
	const char *why = fork_broken();
	int p[2], status;
	pid_t m;

	if (why) {
		skip(1, "owner: seen from a child pid namespace: %s", why);
		return;
	}
	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));
	fflush(stdout);
	m = fork();
	if (m < 0)
		bail("fork: %s", strerror(errno));
	if (m == 0) {
		int sfd, procfd, q[2];
		sigset_t mask;
		pid_t c;

		close(p[0]);
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR2);
		sfd = signalfd(-1, &mask, SFD_EXCLUSIVE | SFD_CLOEXEC);
		if (sfd < 0)
			r.skip = errno == EINVAL && !kernel_is_patched() ? 1 : 3;
		r.err = errno;
		r.want = getpid();
		/* the initial namespace's procfs, opened before unshare */
		procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!r.skip && (procfd < 0 || pipe(q) != 0)) {
			r.skip = 3;
			r.err = errno;
		}
		if (!r.skip && unshare(CLONE_NEWPID) != 0) {
			r.skip = errno == EPERM || errno == EINVAL ? 2 : 3;
			r.err = errno;
		}
		if (r.skip)
			_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
		c = fork();		/* pid 1 of the new namespace */
		if (c == 0) {
			long owner = owner_at(procfd, (pid_t)r.want, sfd);

			_exit(write(q[1], &owner, sizeof(owner)) == sizeof(owner) ? 0 : 1);
		}
		close(q[1]);
		if (c < 0) {
			r.skip = 3;
			r.err = errno;
		} else if (read(q[0], &r.owner, sizeof(r.owner)) != sizeof(r.owner)) {
			r.owner = -1;
		}
		if (c > 0)
			waitpid(c, &status, 0);
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof(r)) != sizeof(r))
		r.skip = 3;
	close(p[0]);
	waitpid(m, &status, 0);
	if (r.skip == 1) {
		skip(1, "this kernel rejects SFD_EXCLUSIVE (EINVAL): owner: is shown in the QEMU guest");
		return;
	}
	if (r.skip == 2) {
		skip(1, "no new pid namespace here (unshare(CLONE_NEWPID): %s%s): owner: across namespaces is not tested",
		     strerror(r.err), r.err == EINVAL ? ", a kernel without CONFIG_PID_NS" : "");
		return;
	}
	if (r.skip)
		diag("the case could not be set up (status %#x): %s",
		     (unsigned int)status, strerror(r.err));
	ok(!r.skip && r.owner == r.want,
	   "a reader in a child pid namespace, reading the initial namespace's /proc, sees owner: %ld, the owner's TGID there (got %ld)",
	   r.want, r.owner);
}

int main(void)
{
	signalfd_lines();
	owner_in_new_pidns();
	timerfd_lines();
	return done_testing();
}
