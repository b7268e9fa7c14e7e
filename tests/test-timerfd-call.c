/* timerfd(ufd, clockid, tmrtype, utmr): the single-call timer of the
 * fdevents kernel series.  On a kernel without the series the call must
 * fail with ENOSYS (and the behaviour tests are skipped, saying so); with
 * FDEVENTS_KERNEL=patched (the QEMU guest) everything is checked.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define MS 1000000L
#define NS_PER_S 1000000000L

static struct timespec ts(long long ns)
{
	struct timespec t = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };

	return t;
}

static long long now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * (long long)NS_PER_S + t.tv_nsec;
}

static struct itimerspec spec(long long value_ns, long long interval_ns)
{
	struct itimerspec its;

	its.it_value = ts(value_ns);
	its.it_interval = ts(interval_ns);
	return its;
}

/* One read into an 8-byte buffer: how many bytes came, and the count.  */
static ssize_t read_count(int fd, uint32_t *count)
{
	union {
		uint32_t u32;
		uint64_t u64;
	} buf = { 0 };
	ssize_t n;

	buf.u64 = 0xa5a5a5a5a5a5a5a5ULL;
	n = read(fd, &buf, sizeof(buf.u64));
	*count = buf.u32;
	return n;
}

/* Non-blocking from now on: true if a read() then finds nothing.  */
static int drained(int fd)
{
	uint32_t count;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	errno = 0;
	return read_count(fd, &count) == -1 && errno == EAGAIN;
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void nap_ms(long ms)
{
	struct timespec nap = ts(ms * MS);

	nanosleep(&nap, NULL);
}

static void types_on(clockid_t clock, const char *name)
{
	struct itimerspec its;
	uint32_t count;
	ssize_t n;
	int fd;

	/* REL: relative time from it_interval, it_value ignored.  */
	its = spec(100LL * NS_PER_S, 20 * MS);
	fd = timerfd(-1, clock, TFD_TIMER_REL, &its);
	ok(fd >= 0, "%s: REL creates a descriptor", name);
	n = read_count(fd, &count);
	is(n, 4, "%s: REL: read() returns exactly 4 bytes", name);
	is(count, 1, "%s: REL: one expiration after it_interval (it_value ignored)", name);
	ok(drained(fd), "%s: REL: one-shot, then EAGAIN", name);
	close(fd);

	/* ABS: absolute it_value, it_interval ignored (one-shot).  */
	its = spec(now_ns(clock) + 30 * MS, 1 * MS);
	fd = timerfd(-1, clock, TFD_TIMER_ABS, &its);
	ok(fd >= 0, "%s: ABS creates a descriptor", name);
	n = read_count(fd, &count);
	ok(n == 4 && count == 1, "%s: ABS: one 4-byte expiration (got %zd bytes, %u)",
	   name, n, count);
	nap_ms(50);
	ok(drained(fd), "%s: ABS: it_interval ignored, no second expiration", name);
	close(fd);

	/* SEQ: first tick at it_value, then every it_interval.  */
	its = spec(now_ns(clock) + 10 * MS, 10 * MS);
	fd = timerfd(-1, clock, TFD_TIMER_SEQ, &its);
	ok(fd >= 0, "%s: SEQ creates a descriptor", name);
	nap_ms(200);
	n = read_count(fd, &count);
	ok(n == 4 && count >= 10 && count < 100000,
	   "%s: SEQ: 10 ms period after 200 ms reads >= 10 (got %u)", name, count);
	n = read_count(fd, &count);
	ok(n == 4 && count >= 1, "%s: SEQ: keeps ticking (got %u)", name, count);
	close(fd);

	/* SEQ with the first tick one second in the past: the elapsed
	 * periods are counted.  */
	its = spec(now_ns(clock) - NS_PER_S, 10 * MS);
	fd = timerfd(-1, clock, TFD_TIMER_SEQ, &its);
	n = read_count(fd, &count);
	ok(n == 4 && count >= 100 && count < 100000,
	   "%s: SEQ with a first tick 1 s ago counts >= 100 elapsed periods (got %u)",
	   name, count);
	close(fd);
}

/* TFD_CLOEXEC and TFD_NONBLOCK OR'ed into the type when creating; the
 * bare types create what the 2007 interface created; re-arming with a
 * flag is EINVAL.  */
static void creation_flags(void)
{
	static const struct { int flags; const char *name; } c[] = {
		{ 0, "no flag" },
		{ TFD_CLOEXEC, "TFD_CLOEXEC" },
		{ TFD_NONBLOCK, "TFD_NONBLOCK" },
		{ TFD_CLOEXEC | TFD_NONBLOCK, "TFD_CLOEXEC | TFD_NONBLOCK" },
	};
	struct itimerspec its = spec(0, 10LL * NS_PER_S);
	unsigned int i;
	uint32_t count;
	int fd, fdf, fl, r;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL | c[i].flags, &its);
		fdf = fcntl(fd, F_GETFD);
		fl = fcntl(fd, F_GETFL);
		ok(fd >= 0 && !!(fdf & FD_CLOEXEC) == !!(c[i].flags & TFD_CLOEXEC) &&
		   !!(fl & O_NONBLOCK) == !!(c[i].flags & TFD_NONBLOCK),
		   "timerfd(-1, ..., TFD_TIMER_REL | %s): FD_CLOEXEC %d, O_NONBLOCK %d",
		   c[i].name, !!(fdf & FD_CLOEXEC), !!(fl & O_NONBLOCK));
		if (c[i].flags & TFD_NONBLOCK) {
			errno = 0;
			ok(read_count(fd, &count) == -1 && errno == EAGAIN,
			   "%s: a read before the expiry gives EAGAIN", c[i].name);
		}
		if (c[i].flags) {
			errno = 0;
			r = timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL | c[i].flags, &its);
			ok(r == -1 && errno == EINVAL,
			   "re-arming with %s fails with EINVAL", c[i].name);
		}
		close(fd);
	}
	errno = 0;
	r = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ | 0x10, &its);
	ok(r == -1 && errno == EINVAL, "an unknown bit in the type is EINVAL");
}

static void errors(void)
{
	struct itimerspec its = spec(0, 10 * MS), bad;
	struct itimerspec *volatile null_its = NULL;
	int p[2], fd, cfd;
	uint32_t small;

	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	cfd = timerfd_create(CLOCK_REALTIME, 0);
	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));

#define FAILS(call, e, what) do { \
		errno = 0; \
		ok((call) == -1 && errno == (e), "%s gives %s", what, #e); \
	} while (0)
	FAILS(timerfd(1000, CLOCK_MONOTONIC, TFD_TIMER_REL, &its), EBADF,
	      "an unopened ufd");
	FAILS(timerfd(-2, CLOCK_MONOTONIC, TFD_TIMER_REL, &its), EBADF,
	      "ufd -2");
	FAILS(timerfd(p[0], CLOCK_MONOTONIC, TFD_TIMER_REL, &its), EINVAL,
	      "a ufd that is not a timerfd");
	FAILS(timerfd(-1, CLOCK_PROCESS_CPUTIME_ID, TFD_TIMER_REL, &its),
	      EINVAL, "a CPU-time clock");
	FAILS(timerfd(-1, 12345, TFD_TIMER_REL, &its), EINVAL, "clock 12345");
	FAILS(timerfd(-1, -1, TFD_TIMER_REL, &its), EINVAL, "clock -1");
	FAILS(timerfd(-1, CLOCK_MONOTONIC, 0, &its), EINVAL, "tmrtype 0");
	FAILS(timerfd(-1, CLOCK_MONOTONIC, 4, &its), EINVAL, "tmrtype 4");
	FAILS(timerfd(-1, CLOCK_MONOTONIC, -1, &its), EINVAL, "tmrtype -1");
	bad = spec(0, 0);
	bad.it_interval.tv_nsec = NS_PER_S;
	FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &bad), EINVAL,
	      "REL with it_interval.tv_nsec = 1e9");
	bad = spec(0, 0);
	bad.it_interval.tv_sec = -1;
	FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &bad), EINVAL,
	      "REL with a negative it_interval");
	bad = spec(0, 0);
	bad.it_value.tv_nsec = -1;
	FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_ABS, &bad), EINVAL,
	      "ABS with a negative it_value.tv_nsec");
	bad = spec(now_ns(CLOCK_MONOTONIC) + NS_PER_S, 0);
	FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &bad), EINVAL,
	      "SEQ with a zero period");
	FAILS(timerfd(fd, CLOCK_REALTIME, TFD_TIMER_REL, &its), EINVAL,
	      "re-arming with another clock than the descriptor's");
	FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, null_its), EFAULT,
	      "a NULL utmr");
	/* With a 32-bit time_t the wrapper widens *utmr in user space, as
	 * glibc's timerfd_settime() does there: a bad pointer faults in
	 * the caller, before the kernel can answer EFAULT.  */
	if (sizeof(time_t) >= 8)
		FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL,
			      (struct itimerspec *)8), EFAULT, "an unmapped utmr");
	else
		skip(1, "an unmapped utmr: a 32-bit time_t is converted in user space, where a bad pointer faults (as in glibc's wrappers)");
	FAILS(timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, null_its), EFAULT,
	      "re-arming with a NULL utmr");
	FAILS(read(fd, &small, 3), EINVAL, "a 3-byte read");
	FAILS(read(cfd, &small, 4), EINVAL,
	      "a 4-byte read of a timerfd_create() descriptor (it keeps 8 bytes)");

	/* EMFILE: no descriptor left under RLIMIT_NOFILE.  */
	{
		struct rlimit old, tight;

		getrlimit(RLIMIT_NOFILE, &old);
		tight = old;
		tight.rlim_cur = 3;
		setrlimit(RLIMIT_NOFILE, &tight);
		FAILS(timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its), EMFILE,
		      "creating with RLIMIT_NOFILE exhausted");
		setrlimit(RLIMIT_NOFILE, &old);
	}

	/* EPERM: an alarm clock without CAP_WAKE_ALARM (in a child that
	 * drops the capability from its effective set).  */
	{
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			struct __user_cap_header_struct h = {
				_LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];
			int r;

			if (syscall(SYS_capget, &h, d) != 0)
				_exit(10);
			d[CAP_WAKE_ALARM / 32].effective &=
				~(1u << (CAP_WAKE_ALARM % 32));
			if (syscall(SYS_capset, &h, d) != 0)
				_exit(11);
			r = timerfd(-1, CLOCK_BOOTTIME_ALARM, TFD_TIMER_REL, &its);
			_exit(r == -1 && errno == EPERM ? 0 :
			      r == -1 ? 20 + (errno & 63) : 12);
		}
		waitpid(pid, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "an alarm clock without CAP_WAKE_ALARM gives EPERM (child status %d)",
		   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
#undef FAILS
	close(p[0]);
	close(p[1]);
	close(fd);
	close(cfd);
}

/* A timerfd() descriptor (non-blocking, so that a lost expiration gives
 * EAGAIN instead of a hang) whose 1 ms one-shot has expired: -1 if it
 * did not within 5 s.  */
static int expired_timerfd(void)
{
	struct itimerspec its = spec(0, 1 * MS);
	int fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL | TFD_NONBLOCK, &its);

	if (fd >= 0 && !wait_readable(fd, 5000)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A read-write page followed by an unmapped one: the address of the
 * first byte after the mapped page, or NULL.  */
static char *mapped_page_end(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + page, page);
	return p + page;
}

/* The 4-byte count is written whole or not at all: a read into END + SKIP
 * (END: the start of an unmapped page) is EFAULT, never a short read.  */
static void read_at_unmapped(int skip, const char *what)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = expired_timerfd();
	char *end = mapped_page_end();
	ssize_t n;

	if (fd < 0 || !end) {
		ok(0, "a timerfd() descriptor expired, and a page before an unmapped one");
	} else {
		errno = 0;
		n = read(fd, end + skip, 4);
		ok(n == -1 && errno == EFAULT,
		   "a 4-byte read into %s gives EFAULT (returned %zd)", what, n);
	}
	if (end)
		munmap(end - page, page);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	struct itimerspec its = spec(0, 20 * MS), cur;
	uint32_t count;
	int fd, again, r;

	errno = 0;
	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	if (!kernel_is_patched()) {
		if (fd == -1 && errno == ENOSYS) {
			ok(1, "timerfd() on a kernel without the fdevents series fails with ENOSYS");
			skip(1, "kernel without the fdevents series: timerfd() behaviour is tested in the QEMU guest (make check)");
			return done_testing();
		}
		diag("timerfd() works here: this kernel carries the series");
	}
	if (!ok(fd >= 0, "timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL) creates a descriptor"))
		return done_testing();
	close(fd);

	types_on(CLOCK_MONOTONIC, "CLOCK_MONOTONIC");
	types_on(CLOCK_REALTIME, "CLOCK_REALTIME");
	types_on(CLOCK_BOOTTIME, "CLOCK_BOOTTIME");

	/* Re-arm through ufd: a timerfd() descriptor...  */
	its = spec(0, 10LL * NS_PER_S);
	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	its = spec(0, 20 * MS);
	again = timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	is(again, fd, "re-arming a timerfd() descriptor returns it");
	ok(wait_readable(fd, 5000) && read_count(fd, &count) == 4 && count == 1,
	   "re-armed from 10 s to 20 ms: expires once, soon");
	/* ...gettime works on it...  */
	its = spec(now_ns(CLOCK_MONOTONIC) + 10LL * NS_PER_S, 250 * MS);
	timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
	/* read first: the arguments of ok() may be evaluated before it */
	memset(&cur, 0, sizeof(cur));
	r = timerfd_gettime(fd, &cur);
	ok(r == 0 && cur.it_interval.tv_sec == 0 &&
	   cur.it_interval.tv_nsec == 250 * MS && cur.it_value.tv_sec <= 10 &&
	   cur.it_value.tv_sec >= 5,
	   "timerfd_gettime() on a timerfd() descriptor: %ld.%09ld s left, period %ld ns",
	   (long)cur.it_value.tv_sec, (long)cur.it_value.tv_nsec,
	   (long)cur.it_interval.tv_nsec);
	/* ...a zero time disarms it...  */
	its = spec(0, 0);
	ok(timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_ABS, &its) == fd &&
	   timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	   cur.it_value.tv_nsec == 0, "ABS with a zero it_value disarms");
	its = spec(0, 0);
	ok(timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, &its) == fd &&
	   timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	   cur.it_value.tv_nsec == 0, "REL with a zero it_interval disarms");
	its = spec(0, 5 * MS);
	ok(timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its) == fd &&
	   timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec == 0 &&
	   cur.it_value.tv_nsec == 0, "SEQ with a zero it_value disarms");
	/* ...and O_NONBLOCK gives EAGAIN.  */
	ok(drained(fd), "O_NONBLOCK read of a disarmed timer gives EAGAIN");
	close(fd);

	/* ...and a timerfd_create() descriptor, which keeps 8-byte reads.  */
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	its = spec(0, 20 * MS);
	again = timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
	is(again, fd, "re-arming a timerfd_create() descriptor returns it");
	{
		uint64_t ticks = 0;

		ok(read(fd, &ticks, sizeof(ticks)) == 8 && ticks == 1,
		   "it expires once and still reads 8 bytes");
	}
	close(fd);

	/* poll and epoll readiness.  */
	{
		struct epoll_event ev = { .events = EPOLLIN }, out;
		int ep = epoll_create1(0);

		its = spec(0, 30 * MS);
		fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &its);
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		ok(wait_readable(fd, 5000), "poll reports POLLIN when it expires");
		ok(epoll_wait(ep, &out, 1, 5000) == 1 && (out.events & EPOLLIN),
		   "epoll reports EPOLLIN");
		read_count(fd, &count);
		ok(!wait_readable(fd, 0), "poll: not readable once read");
		is(epoll_wait(ep, &out, 1, 0), 0, "epoll: not ready once read");
		close(fd);
		close(ep);
	}

	/* Saturation: a 1 ns period whose first tick was at 1 ns of
	 * CLOCK_MONOTONIC has passed 2^32 periods once the clock is past
	 * 4.3 s; the 4-byte count stays at UINT32_MAX instead of wrapping,
	 * and the kernel does not take one interrupt per period to get
	 * there.  */
	while (now_ns(CLOCK_MONOTONIC) < 4400LL * MS)
		nap_ms(100);
	its = spec(1, 1);
	fd = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_SEQ, &its);
	ok(read_count(fd, &count) == 4 && count == UINT32_MAX,
	   "more than 2^32 periods saturate at UINT32_MAX (got %u)", count);
	close(fd);

	errors();
	read_at_unmapped(-2, "a buffer whose last 2 bytes are unmapped");
	read_at_unmapped(0, "an unmapped page");
	creation_flags();
	return done_testing();
}
