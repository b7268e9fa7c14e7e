/* Differential test: libsignalfd/libtimerfd against glibc's wrappers.
 *
 * Each row of each table is called twice, once through our library and once
 * through the C library's function found with dlsym(), and must give the same
 * result (success or failure) and the same errno.  Descriptors created by a
 * call are closed straight away.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

typedef int (*signalfd_fn)(int, const sigset_t *, int);
typedef int (*create_fn)(int, int);
typedef int (*settime_fn)(int, int, const struct itimerspec *,
			  struct itimerspec *);
typedef int (*gettime_fn)(int, struct itimerspec *);

static signalfd_fn libc_signalfd;
static create_fn libc_timerfd_create;
static settime_fn libc_timerfd_settime;
static gettime_fn libc_timerfd_gettime;

/* A result as the caller sees it: -1 and errno, or "a descriptor/0".  */
struct outcome {
	int failed;
	int err;
	int value;
};

static struct outcome settle(int ret)
{
	struct outcome o = { ret == -1, ret == -1 ? errno : 0, ret };

	return o;
}

static int same(const char *what, struct outcome ours, struct outcome libc,
		int is_fd)
{
	int match = ours.failed == libc.failed && ours.err == libc.err;

	if (!is_fd && !ours.failed)
		match = match && ours.value == libc.value;
	ok(match, "%s: ours %d/%s, glibc %d/%s", what,
	   ours.failed ? -1 : ours.value, strerror(ours.err),
	   libc.failed ? -1 : libc.value, strerror(libc.err));
	if (is_fd && !ours.failed)
		close(ours.value);
	if (is_fd && !libc.failed)
		close(libc.value);
	return match;
}

static void *find_libc(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *sym = libc ? dlsym(libc, name) : NULL;
	Dl_info ours, theirs;

	if (!sym)
		bail("glibc's %s not found: %s", name, dlerror());
	/* Make sure the two really are different functions.  */
	if (dladdr(sym, &theirs) && dladdr(dlsym(RTLD_DEFAULT, name), &ours)
	    && strcmp(ours.dli_fname, theirs.dli_fname) == 0)
		bail("%s resolves to %s for both", name, ours.dli_fname);
	return sym;
}

int main(void)
{
	/* Volatile so the compiler neither warns about nor folds the bad
	 * pointers: the kernel must see them.  */
	const sigset_t *volatile null_mask = NULL;
	struct itimerspec *volatile null_its = NULL;
	sigset_t mask, full;
	int pipefd[2], sfd, tfd;
	void *unmapped, *readonly;
	long page = sysconf(_SC_PAGESIZE);
	size_t i, j;

	libc_signalfd = (signalfd_fn)find_libc("signalfd");
	libc_timerfd_create = (create_fn)find_libc("timerfd_create");
	libc_timerfd_settime = (settime_fn)find_libc("timerfd_settime");
	libc_timerfd_gettime = (gettime_fn)find_libc("timerfd_gettime");

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigfillset(&full);
	if (pipe(pipefd) != 0)
		bail("pipe: %s", strerror(errno));
	unmapped = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	readonly = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (unmapped == MAP_FAILED || readonly == MAP_FAILED)
		bail("mmap: %s", strerror(errno));
	munmap(unmapped, page);

	sfd = signalfd(-1, &mask, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (sfd < 0 || tfd < 0)
		bail("setup: %s", strerror(errno));

	/* signalfd(fd, mask, flags) */
	{
		const struct {
			const char *what;
			int fd;
			const sigset_t *mask;
			int flags;
		} rows[] = {
			{ "signalfd(-1, {USR1}, 0)", -1, &mask, 0 },
			{ "signalfd(-1, full, 0)", -1, &full, 0 },
			{ "signalfd(-1, mask, CLOEXEC|NONBLOCK)", -1, &mask,
			  SFD_CLOEXEC | SFD_NONBLOCK },
			{ "signalfd(-2, mask, 0)", -2, &mask, 0 },
			{ "signalfd(INT_MIN, mask, 0)", INT_MIN, &mask, 0 },
			{ "signalfd(unopened 1000, mask, 0)", 1000, &mask, 0 },
			{ "signalfd(pipe, mask, 0)", pipefd[0], &mask, 0 },
			{ "signalfd(timerfd, mask, 0)", tfd, &mask, 0 },
			{ "signalfd(signalfd, mask, 0) (replace mask)", sfd,
			  &mask, 0 },
			{ "signalfd(-1, mask, 0x4)", -1, &mask, 0x4 },
			{ "signalfd(-1, mask, SFD_EXCLUSIVE)", -1, &mask,
			  SFD_EXCLUSIVE },
			{ "signalfd(-1, mask, -1)", -1, &mask, -1 },
			{ "signalfd(-1, mask, O_RDONLY|O_APPEND)", -1, &mask,
			  O_APPEND },
			{ "signalfd(-1, NULL, 0)", -1, null_mask, 0 },
			{ "signalfd(-1, unmapped, 0)", -1, unmapped, 0 },
			{ "signalfd(-1, readonly page, 0)", -1, readonly, 0 },
			{ "signalfd(sfd, NULL, 0)", sfd, null_mask, 0 },
		};

		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			struct outcome a, b;
			int is_new = rows[i].fd == -1;

			errno = 0;
			a = settle(signalfd(rows[i].fd, rows[i].mask,
					    rows[i].flags));
			errno = 0;
			b = settle(libc_signalfd(rows[i].fd, rows[i].mask,
						 rows[i].flags));
			same(rows[i].what, a, b, is_new);
		}
	}

	/* timerfd_create(clockid, flags) for every clock id and some junk */
	{
		const int flags[] = { 0, TFD_CLOEXEC, TFD_NONBLOCK, 0x1, -1 };
		char what[96];
		int clock;

		for (clock = -2; clock <= 12; clock++) {
			for (j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
				struct outcome a, b;

				snprintf(what, sizeof(what),
					 "timerfd_create(%d, %#x)", clock,
					 flags[j]);
				errno = 0;
				a = settle(timerfd_create(clock, flags[j]));
				errno = 0;
				b = settle(libc_timerfd_create(clock,
							       flags[j]));
				same(what, a, b, 1);
			}
		}
		{
			clockid_t cpu;
			struct outcome a, b;

			/* Dynamic clocks: a CPU-time clock id is negative.  */
			clock_getcpuclockid(0, &cpu);
			a = settle(timerfd_create(cpu, 0));
			b = settle(libc_timerfd_create(cpu, 0));
			same("timerfd_create(process CPU clock, 0)", a, b, 1);
			a = settle(timerfd_create(INT_MAX, 0));
			b = settle(libc_timerfd_create(INT_MAX, 0));
			same("timerfd_create(INT_MAX, 0)", a, b, 1);
		}
	}

	/* timerfd_settime(fd, flags, new, old) and timerfd_gettime(fd, cur) */
	{
		const struct {
			const char *what;
			time_t vs;
			long vns;
			time_t is;
			long ins;
		} times[] = {
			{ "zero (disarm)", 0, 0, 0, 0 },
			{ "1 s one-shot", 1, 0, 0, 0 },
			{ "1 ms periodic", 0, 1000000, 0, 1000000 },
			{ "negative tv_sec", -1, 0, 0, 0 },
			{ "negative tv_nsec", 0, -1, 0, 0 },
			{ "tv_nsec = 1e9", 0, 1000000000, 0, 0 },
			{ "interval tv_nsec = 1e9", 1, 0, 0, 1000000000 },
			{ "negative interval", 1, 0, -1, 0 },
			{ "huge tv_sec", (time_t)INT64_MAX, 0, 0, 0 },
			{ "huge interval", 1, 0, (time_t)INT64_MAX, 999999999 },
		};
		const int flags[] = { 0, TFD_TIMER_ABSTIME,
				      TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
				      TFD_TIMER_CANCEL_ON_SET, 0x4, -1 };
		const int fds[] = { tfd, -1, 1000, pipefd[0], sfd };
		const char *fd_names[] = { "timerfd", "-1", "unopened",
					   "pipe", "signalfd" };
		char what[160];

		for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
			struct itimerspec its;

			its.it_value.tv_sec = times[i].vs;
			its.it_value.tv_nsec = times[i].vns;
			its.it_interval.tv_sec = times[i].is;
			its.it_interval.tv_nsec = times[i].ins;
			for (j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
				struct itimerspec olda, oldb;
				struct outcome a, b;

				snprintf(what, sizeof(what),
					 "timerfd_settime(timerfd, %#x, %s)",
					 flags[j], times[i].what);
				a = settle(timerfd_settime(tfd, flags[j], &its,
							   &olda));
				b = settle(libc_timerfd_settime(tfd, flags[j],
								&its, &oldb));
				same(what, a, b, 0);
			}
		}
		for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
			struct itimerspec its = { { 0, 0 }, { 1, 0 } }, cur;
			struct outcome a, b;

			snprintf(what, sizeof(what),
				 "timerfd_settime(%s, 0, 1 s)", fd_names[i]);
			a = settle(timerfd_settime(fds[i], 0, &its, NULL));
			b = settle(libc_timerfd_settime(fds[i], 0, &its, NULL));
			same(what, a, b, 0);
			snprintf(what, sizeof(what), "timerfd_gettime(%s)",
				 fd_names[i]);
			a = settle(timerfd_gettime(fds[i], &cur));
			b = settle(libc_timerfd_gettime(fds[i], &cur));
			same(what, a, b, 0);
		}
		{
			struct itimerspec its = { { 0, 0 }, { 1, 0 } };
			struct outcome a, b;

			a = settle(timerfd_settime(tfd, 0, null_its, NULL));
			b = settle(libc_timerfd_settime(tfd, 0, null_its, NULL));
			same("timerfd_settime(timerfd, 0, NULL, NULL)", a, b, 0);
			a = settle(timerfd_settime(tfd, 0, unmapped, NULL));
			b = settle(libc_timerfd_settime(tfd, 0, unmapped, NULL));
			same("timerfd_settime(timerfd, 0, unmapped, NULL)", a, b,
			     0);
			a = settle(timerfd_settime(tfd, 0, &its, unmapped));
			b = settle(libc_timerfd_settime(tfd, 0, &its, unmapped));
			same("timerfd_settime(timerfd, 0, &its, unmapped old)",
			     a, b, 0);
			a = settle(timerfd_settime(tfd, 0, &its, readonly));
			b = settle(libc_timerfd_settime(tfd, 0, &its, readonly));
			same("timerfd_settime(timerfd, 0, &its, read-only old)",
			     a, b, 0);
			a = settle(timerfd_gettime(tfd, null_its));
			b = settle(libc_timerfd_gettime(tfd, null_its));
			same("timerfd_gettime(timerfd, NULL)", a, b, 0);
			a = settle(timerfd_gettime(tfd, unmapped));
			b = settle(libc_timerfd_gettime(tfd, unmapped));
			same("timerfd_gettime(timerfd, unmapped)", a, b, 0);
			a = settle(timerfd_gettime(tfd, readonly));
			b = settle(libc_timerfd_gettime(tfd, readonly));
			same("timerfd_gettime(timerfd, read-only)", a, b, 0);
		}
	}
	return done_testing();
}
