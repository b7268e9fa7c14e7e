/* Seeded, reproducible fuzzer for the signalfd and timerfd system calls.
 *
 * It makes FDEVENTS_FUZZ_CALLS (default 1000000) calls with random
 * arguments — live, stale and random descriptors, random flags, clock ids,
 * timer types, huge, negative and non-normalized timespecs, NULL, unmapped,
 * read-only and misaligned pointers, short and odd buffer sizes — to
 * signalfd, signalfd4, timerfd_create, timerfd_settime, timerfd_gettime and
 * timerfd(), interleaved with read, poll and close on the descriptors it
 * made.  Every failure must carry an errno the man pages document for that
 * call; the process must not crash or hang; no descriptor may leak.  The
 * kernel side (warnings, lockdep, KASAN, kmemleak) is judged by the guest
 * harness from the kernel log.
 *
 *   FDEVENTS_FUZZ_SEED=n   replay a run (the seed is printed)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define POOL 48

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: small, fast, and the same sequence for a seed.  */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

static int pool[POOL];
static int stale[POOL];
static void *unmapped, *readonly;
static char *buffer;	/* a page of scratch the kernel may write */

enum call { C_SIGNALFD, C_SIGNALFD4, C_OLD_SIGNALFD, C_CREATE, C_SETTIME,
	    C_GETTIME, C_TIMERFD, C_READ, C_POLL, C_CLOSE, C_KILL, N_CALLS };
static const char *const call_names[N_CALLS] = {
	"signalfd", "signalfd4", "signalfd(old)", "timerfd_create",
	"timerfd_settime", "timerfd_gettime", "timerfd", "read", "poll",
	"close", "kill"
};
/* The errnos each call may give (its man page's ERRORS, plus the resource
 * limits every descriptor-creating call has).  */
static const int allowed[N_CALLS][8] = {
	[C_SIGNALFD] = { EBADF, EINVAL, EFAULT, EMFILE, ENFILE, ENOMEM, ENODEV },
	[C_SIGNALFD4] = { EBADF, EINVAL, EFAULT, EMFILE, ENFILE, ENOMEM, ENODEV },
	[C_OLD_SIGNALFD] = { EBADF, EINVAL, EFAULT, EMFILE, ENFILE, ENOMEM, ENODEV },
	[C_CREATE] = { EINVAL, EMFILE, ENFILE, ENOMEM, ENODEV, EPERM },
	[C_SETTIME] = { EBADF, EINVAL, EFAULT, ECANCELED },
	[C_GETTIME] = { EBADF, EINVAL, EFAULT },
	[C_TIMERFD] = { EBADF, EINVAL, EFAULT, EMFILE, ENFILE, ENOMEM, EPERM, ENODEV },
	[C_READ] = { EAGAIN, EINVAL, EFAULT, EBADF, ECANCELED, EISDIR },
	[C_POLL] = { EFAULT, EINVAL, ENOMEM },
	[C_CLOSE] = { EBADF },
	[C_KILL] = { 0 },
};
static unsigned long made[N_CALLS], failed[N_CALLS], unexpected[N_CALLS];

static int any_fd(void)
{
	switch (below(12)) {
	case 0:
		return -1;
	case 1:
		return (int)(rnd() & 0x7fffffff) * (below(2) ? 1 : -1);
	case 2:
		return stale[below(POOL)];
	case 3:
		return (int)below(4);	/* stdio: never read or closed */
	default:
		return pool[below(POOL)];
	}
}

static void *any_ptr(size_t size)
{
	switch (below(10)) {
	case 0:
		return NULL;
	case 1:
		return unmapped;
	case 2:
		return readonly;
	case 3:
		return (void *)(uintptr_t)0xffff880000000000ULL; /* kernel */
	case 4:
		return buffer + 4096 - size / 2;	/* runs off the page */
	case 5:
		return buffer + 1 + below(7);		/* misaligned */
	default:
		return buffer;
	}
}

static long long any_ns(void)
{
	switch (below(8)) {
	case 0:
		return -(long long)below(2000000000);
	case 1:
		return 1000000000 + (long long)below(1000);
	case 2:
		return (long long)rnd();
	case 3:
		return 0;
	case 4:
		return 1;
	default:
		return (long long)below(1000000000);
	}
}

static long long any_sec(void)
{
	switch (below(6)) {
	case 0:
		return -(long long)below(100);
	case 1:
		return (long long)(rnd() >> 1);	/* huge */
	case 2:
		return 0;
	default:
		return (long long)below(3);
	}
}

static void fill_timerspec(struct itimerspec *its)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (below(2)) {
		/* A valid one: most calls should get past the checks.  */
		its->it_value.tv_sec = below(2) ? now.tv_sec : 0;
		its->it_value.tv_nsec = (long)below(1000000000);
		its->it_interval.tv_sec = 0;
		its->it_interval.tv_nsec = below(2) ? 0 : 1 + (long)below(10000000);
		return;
	}
	its->it_value.tv_sec = below(3) ? any_sec() : now.tv_sec + (long long)below(2);
	its->it_value.tv_nsec = any_ns();
	its->it_interval.tv_sec = any_sec();
	its->it_interval.tv_nsec = below(4) ? any_ns() : 1 + (long long)below(1000);
}

static int any_clock(void)
{
	static const int clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
		CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM,
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_MONOTONIC_RAW, CLOCK_TAI, -1, 12, 1000, -6 };

	return below(8) ? clocks[below(sizeof(clocks) / sizeof(clocks[0]))]
			: (int)rnd();
}

static int any_flags(void)
{
	static const int flags[] = { 0, O_CLOEXEC, O_NONBLOCK,
		O_CLOEXEC | O_NONBLOCK, SFD_EXCLUSIVE, TFD_TIMER_ABSTIME,
		TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
		TFD_TIMER_CANCEL_ON_SET, 0x4 };

	return below(8) ? flags[below(sizeof(flags) / sizeof(flags[0]))]
			: (int)rnd();
}

/* Keep a new descriptor in the pool (non-blocking, so reads never hang),
 * retiring the one it replaces to the stale list.  */
static void adopt(int fd)
{
	int slot = (int)below(POOL);

	if (fd <= 2)
		return;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pool[slot] > 2) {
		close(pool[slot]);
		stale[below(POOL)] = pool[slot];
	}
	pool[slot] = fd;
}

static int is_pool_fd(int fd)
{
	int i;

	for (i = 0; i < POOL; i++)
		if (pool[i] == fd)
			return i;
	return -1;
}

static void check(enum call c, long ret, int err)
{
	int i;

	made[c]++;
	if (ret != -1)
		return;
	failed[c]++;
	for (i = 0; i < 8 && allowed[c][i]; i++)
		if (allowed[c][i] == err)
			return;
	if (c == C_TIMERFD && err == ENOSYS && !kernel_is_patched())
		return;
	if (unexpected[c]++ < 5)
		diag("%s failed with unexpected errno %d (%s)", call_names[c],
		     err, strerror(err));
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void one_call(void)
{
	enum call c = (enum call)below(N_CALLS);
	struct itimerspec its;
	sigset_t mask;
	long ret = 0;
	int fd;

	errno = 0;
	switch (c) {
	case C_SIGNALFD:
	case C_SIGNALFD4:
	case C_OLD_SIGNALFD: {
		uint64_t bits = rnd();
		size_t size = below(4) ? 8 : below(17);
		const void *m;

		memcpy(&mask, &bits, sizeof(bits));
		m = below(6) ? (const void *)&mask : any_ptr(size);
		fd = below(3) ? -1 : any_fd();
		if (c == C_SIGNALFD)
			ret = signalfd(fd, m, any_flags());
		else if (c == C_SIGNALFD4)
			ret = syscall(SYS_signalfd4, fd, m, size, any_flags());
		else
#ifdef SYS_signalfd
			ret = syscall(SYS_signalfd, fd, m, size);
#else		/* arm64 and riscv have only signalfd4 */
			ret = syscall(SYS_signalfd4, fd, m, size, 0);
#endif
		break;
	}
	case C_CREATE:
		ret = timerfd_create(any_clock(), any_flags());
		break;
	case C_SETTIME:
		fill_timerspec(&its);
		ret = timerfd_settime(any_fd(), any_flags(),
				      below(6) ? &its : any_ptr(sizeof(its)),
				      below(2) ? NULL : any_ptr(sizeof(its)));
		break;
	case C_GETTIME:
		ret = timerfd_gettime(any_fd(), any_ptr(sizeof(its)));
		break;
	case C_TIMERFD:
		fill_timerspec(&its);
		ret = timerfd(below(3) ? -1 : any_fd(), any_clock(),
			      below(5) ? 1 + (int)below(3) : (int)rnd(),
			      below(6) ? &its : any_ptr(sizeof(its)));
		break;
	case C_READ: {
		static const size_t sizes[] = { 0, 1, 3, 4, 7, 8, 9, 127, 128,
						129, 256, 4096 };
		size_t size = sizes[below(sizeof(sizes) / sizeof(sizes[0]))];

		fd = pool[below(POOL)];
		if (fd <= 2)
			return;
		ret = read(fd, any_ptr(size), size);
		break;
	}
	case C_POLL: {
		struct pollfd p[4];
		int i;

		for (i = 0; i < 4; i++) {
			p[i].fd = pool[below(POOL)];
			p[i].events = POLLIN;
		}
		ret = poll(p, 4, 0);
		break;
	}
	case C_CLOSE: {
		int slot = (int)below(POOL);

		fd = pool[slot];
		if (fd <= 2)
			return;
		ret = close(fd);
		stale[below(POOL)] = fd;
		pool[slot] = -1;
		break;
	}
	case C_KILL: {
		union sigval v = { .sival_int = (int)below(1000) };

		/* All of these are blocked: they only queue up to be read. */
		if (below(2))
			kill(getpid(), below(2) ? SIGUSR1 : SIGCHLD);
		else
			sigqueue(getpid(), SIGRTMIN + (int)below(4), v);
		ret = 0;
		break;
	}
	default:
		return;
	}
	check(c, ret, errno);
	if (ret > 2 && (c == C_SIGNALFD || c == C_SIGNALFD4 ||
			c == C_OLD_SIGNALFD || c == C_CREATE || c == C_TIMERFD)
	    && is_pool_fd((int)ret) < 0)
		adopt((int)ret);
}

int main(void)
{
	const char *s = getenv("FDEVENTS_FUZZ_SEED");
	const char *n = getenv("FDEVENTS_FUZZ_CALLS");
	unsigned long calls = n ? strtoul(n, NULL, 0) : 1000000;
	unsigned long i, bad = 0;
	uint64_t seed;
	sigset_t all;
	int before, after, c;

	seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	rng_state = seed ? seed : 1;
	diag("seed %llu (replay with FDEVENTS_FUZZ_SEED=%llu), %lu calls",
	     (unsigned long long)seed, (unsigned long long)seed, calls);

	/* Every signal that can be blocked is: random kills only queue.  */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	buffer = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	readonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buffer == MAP_FAILED || unmapped == MAP_FAILED || readonly == MAP_FAILED)
		bail("mmap: %s", strerror(errno));
	munmap(buffer + 4096, 4096);	/* so buffer + 4096 - k runs off the end */
	munmap(unmapped, 4096);
	for (i = 0; i < POOL; i++)
		pool[i] = stale[i] = -1;
	before = count_fds();

	for (i = 0; i < calls; i++) {
		/* Keep live timers in the pool, so settime, gettime, read
		 * and poll reach armed and expiring timers, not just EBADF. */
		if (i % 64 == 0)
			adopt(timerfd_create(below(2) ? CLOCK_MONOTONIC
						      : CLOCK_REALTIME, 0));
		one_call();
	}

	for (i = 0; i < POOL; i++)
		if (pool[i] > 2)
			close(pool[i]);
	after = count_fds();
	for (c = 0; c < N_CALLS; c++) {
		diag("%-16s %9lu calls, %9lu failed, %lu with an unexpected errno",
		     call_names[c], made[c], failed[c], unexpected[c]);
		bad += unexpected[c];
	}
	is(bad, 0, "%lu fuzzed calls (seed %llu): every failure has a documented errno",
	   calls, (unsigned long long)seed);
	is(after, before, "no descriptor leaked (%d open before, %d after)", before, after);
	return done_testing();
}
