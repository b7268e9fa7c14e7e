/* Every errno the man pages list, provoked and checked: one table row per
 * call and cause.  signalfd(), timerfd_create(), timerfd_settime(),
 * timerfd_gettime(), timerfd() and read() of each descriptor kind.
 *
 * Rows that need the fdevents series (timerfd(), SFD_EXCLUSIVE) are skipped
 * on a kernel without it, saying so, unless FDEVENTS_KERNEL=patched says
 * the series must be there; rows that need the kernel without the series
 * (ENOSYS, SFD_EXCLUSIVE's EINVAL) are skipped on the patched one.  ENFILE
 * lowers the system-wide file limit, and ENOMEM fails kernel allocations
 * with fault injection (fail-nth), so they run only in the guest;
 * ECANCELED sets CLOCK_REALTIME (to its own value less 1 ns), so it needs
 * CAP_SYS_TIME; EPERM comes from a child that drops CAP_WAKE_ALARM.
 * ENOSYS from a kernel without the calls is played by a seccomp filter.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "failslab.h"
#include "seccomp-enosys.h"
/* The library's own number for timerfd(), which a test checks against
 * the kernel series.  */
#include "../src/syscall-numbers.h"

#define NS_PER_S 1000000000L

/* The signalfd() of 2.6.22, which arm64 and the other asm-generic
 * architectures never had.  */
#ifdef SYS_signalfd
# define NR_OLD_SIGNALFD SYS_signalfd
#else
# define NR_OLD_SIGNALFD SYS_signalfd4
#endif

/* Descriptor arguments: fixtures made before the table runs.  */
enum fd_arg {
	F_NEW = -1,	/* literally -1: "create one" */
	F_MINUS2 = -2,	/* literally -2 */
	F_CLOSED = 1000, /* a number that was just closed */
	F_PIPE,		/* open, but neither a signalfd nor a timerfd */
	F_SFD,		/* a plain signalfd on {SIGUSR1}, non-blocking */
	F_TFD,		/* timerfd_create(CLOCK_MONOTONIC), non-blocking */
	F_CFD,		/* timerfd(-1, CLOCK_MONOTONIC, ...), non-blocking */
	F_AFD,		/* timerfd_create(CLOCK_BOOTTIME_ALARM) */
	F_RTC,		/* timerfd_create(CLOCK_REALTIME), non-blocking */
	N_FDS
};

/* Pointer arguments.  */
enum ptr_arg {
	P_NONE,		/* NULL where NULL is allowed (old_value) */
	P_NULL,		/* NULL where it is not */
	P_UNMAPPED,
	P_READONLY,
	P_MASK,		/* a valid sigset_t: {SIGUSR1} */
	P_BUF,		/* a writable 256-byte buffer */
	P_SPEC,		/* a valid itimerspec: 10 s, then every 10 s */
	P_VAL_NSEC_BIG,	/* it_value.tv_nsec = 1e9 */
	P_VAL_NSEC_NEG,	/* it_value.tv_nsec = -1 */
	P_VAL_SEC_NEG,	/* it_value.tv_sec = -1 */
	P_INT_NSEC_BIG,	/* it_interval.tv_nsec = 1e9 */
	P_INT_SEC_NEG,	/* it_interval.tv_sec = -1 */
	P_ZERO_PERIOD,	/* it_value 10 s, it_interval 0 */
	N_PTRS
};

/* What a row needs before it runs.  */
#define NEED_TIMERFD	0x001	/* the timerfd() system call */
#define NO_TIMERFD	0x002	/* a kernel without it */
#define NEED_EXCL	0x004	/* SFD_EXCLUSIVE */
#define NO_EXCL		0x008	/* a kernel without it */
#define NEED_ALARM_FD	0x010	/* F_AFD could be made */
#define NEED_SYS_TIME	0x020	/* CAP_SYS_TIME, to set the realtime clock */
#define NO_WAKE_ALARM	0x040	/* run in a child without CAP_WAKE_ALARM */
#define LOW_NOFILE	0x080	/* RLIMIT_NOFILE exhausted */
#define LOW_FILE_MAX	0x100	/* fs.file-max exhausted, child without
				   CAP_SYS_ADMIN (guest only) */
#define SKIP		0x200	/* not provokable: why says why */
#define FAIL_ALLOC	0x400	/* kernel allocations failed one by one with
				   fail-nth (fault injection, guest only) */
#define ENOSYS_FILTER	0x800	/* run in a child whose seccomp filter answers
				   ENOSYS for .sys and .sys2 */
#define NATIVE		0x1000	/* not under user-mode emulation: why says
				   what the emulator does instead */

/* What is done to the descriptor just before the call.  */
enum prep { PREP_NONE, PREP_QUIET, PREP_SIGNAL, PREP_EXPIRE, PREP_CANCEL };

struct row {
	const char *cause;
	int err;
	const char *errname;
	int fd;			/* an fd_arg, or a literal -1 / -2 */
	int arg;		/* clock id, sigset size, or read length */
	int flags;		/* flags, or timerfd()'s tmrtype */
	enum ptr_arg ptr, ptr2;
	unsigned int need;
	enum prep prep;
	const char *why;	/* the reason of a SKIP row */
	long sys, sys2;		/* the calls an ENOSYS_FILTER denies */
};

/* Names each errno literally: a test greps the sources for each one.  */
#define E(e) e, #e

static int fds[N_FDS - F_CLOSED];
static void *ptrs[N_PTRS];
static int has_timerfd, has_excl;
static sigset_t mask;
static union {
	char bytes[256];
	struct itimerspec its;
	struct signalfd_siginfo si;
} buf;

static int fd_of(int f)
{
	return f >= F_CLOSED ? fds[f - F_CLOSED] : f;
}

/*
 * One section per call: the function that makes it, then its rows, in the
 * order of the man page's ERRORS section, with EINVAL (one row per cause)
 * last.
 */

static long call_signalfd(const struct row *r)
{
	if (r->arg)	/* the raw system call, with another sigset size */
		return syscall(SYS_signalfd4, fd_of(r->fd), ptrs[r->ptr],
			       (size_t)r->arg, r->flags);
	return signalfd(fd_of(r->fd), ptrs[r->ptr], r->flags);
}

static const struct row signalfd_rows[] = {
	{ "fd neither -1 nor open", E(EBADF), .fd = F_CLOSED, .ptr = P_MASK },
	{ "fd -2", E(EBADF), .fd = F_MINUS2, .ptr = P_MASK },
	{ "mask NULL", E(EFAULT), .fd = F_NEW, .ptr = P_NULL },
	{ "mask unmapped", E(EFAULT), .fd = F_NEW, .ptr = P_UNMAPPED },
	{ "re-programming with mask NULL", E(EFAULT), .fd = F_SFD, .ptr = P_NULL },
	{ "RLIMIT_NOFILE reached", E(EMFILE), .fd = F_NEW, .ptr = P_MASK,
	  .need = LOW_NOFILE },
	{ "fs.file-max reached without CAP_SYS_ADMIN", E(ENFILE), .fd = F_NEW,
	  .ptr = P_MASK, .need = LOW_FILE_MAX },
	{ "a kernel allocation fails", E(ENOMEM), .fd = F_NEW, .ptr = P_MASK,
	  .need = FAIL_ALLOC },
	{ "the kernel answers ENOSYS (seccomp stands in for a kernel without CONFIG_SIGNALFD)",
	  E(ENOSYS), .fd = F_NEW, .ptr = P_MASK, .need = ENOSYS_FILTER,
	  .sys = SYS_signalfd4, .sys2 = NR_OLD_SIGNALFD },
	{ "no anonymous inode mount", E(ENODEV), .need = SKIP,
	  .why = "that mount is made at boot and cannot fail afterwards" },
	{ "fd a pipe, not a signalfd", E(EINVAL), .fd = F_PIPE, .ptr = P_MASK },
	{ "fd a timerfd, not a signalfd", E(EINVAL), .fd = F_TFD, .ptr = P_MASK },
	{ "flags with bit 0x2", E(EINVAL), .fd = F_NEW, .flags = 0x2,
	  .ptr = P_MASK },
	{ "flags with bit 30", E(EINVAL), .fd = F_NEW, .flags = 1 << 30,
	  .ptr = P_MASK },
	{ "SFD_EXCLUSIVE on a kernel without the series", E(EINVAL),
	  .fd = F_NEW, .flags = SFD_EXCLUSIVE, .ptr = P_MASK, .need = NO_EXCL },
	{ "SFD_EXCLUSIVE on an existing non-claiming signalfd", E(EINVAL),
	  .fd = F_SFD, .flags = SFD_EXCLUSIVE, .ptr = P_MASK, .need = NEED_EXCL },
	{ "(signalfd4) a sigset size other than the kernel's", E(EINVAL),
	  .fd = F_NEW, .arg = 4, .ptr = P_MASK, .need = NATIVE,
	  .why = "qemu-user passes the kernel its own sigset size, whatever the program's" },
};

static long call_create(const struct row *r)
{
	return timerfd_create(r->arg, r->flags);
}

static const struct row create_rows[] = {
	{ "RLIMIT_NOFILE reached", E(EMFILE), .arg = CLOCK_MONOTONIC,
	  .need = LOW_NOFILE },
	{ "fs.file-max reached without CAP_SYS_ADMIN", E(ENFILE),
	  .arg = CLOCK_MONOTONIC, .need = LOW_FILE_MAX },
	{ "a kernel allocation fails", E(ENOMEM), .arg = CLOCK_MONOTONIC,
	  .need = FAIL_ALLOC },
	{ "the kernel answers ENOSYS (seccomp stands in for a kernel without CONFIG_TIMERFD)",
	  E(ENOSYS), .arg = CLOCK_MONOTONIC, .need = ENOSYS_FILTER,
	  .sys = SYS_timerfd_create, .sys2 = SYS_timerfd_create },
	{ "no anonymous inode mount", E(ENODEV), .need = SKIP,
	  .why = "that mount is made at boot and cannot fail afterwards" },
	{ "CLOCK_REALTIME_ALARM without CAP_WAKE_ALARM", E(EPERM),
	  .arg = CLOCK_REALTIME_ALARM, .need = NO_WAKE_ALARM },
	{ "CLOCK_BOOTTIME_ALARM without CAP_WAKE_ALARM", E(EPERM),
	  .arg = CLOCK_BOOTTIME_ALARM, .need = NO_WAKE_ALARM },
	{ "clock 12345", E(EINVAL), .arg = 12345 },
	{ "clock -1", E(EINVAL), .arg = -1 },
	{ "CLOCK_PROCESS_CPUTIME_ID", E(EINVAL), .arg = CLOCK_PROCESS_CPUTIME_ID },
	{ "CLOCK_MONOTONIC_RAW", E(EINVAL), .arg = CLOCK_MONOTONIC_RAW },
	{ "CLOCK_TAI", E(EINVAL), .arg = CLOCK_TAI },
	{ "flags TFD_TIMER_ABSTIME (a settime flag)", E(EINVAL),
	  .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_ABSTIME },
	{ "flags with bit 30", E(EINVAL), .arg = CLOCK_MONOTONIC, .flags = 1 << 30,
	  .need = NATIVE,
	  .why = "qemu-user drops the flags it does not know before the kernel sees them" },
};

static long call_settime(const struct row *r)
{
	return timerfd_settime(fd_of(r->fd), r->flags, ptrs[r->ptr], ptrs[r->ptr2]);
}

static const struct row settime_rows[] = {
	{ "fd not open", E(EBADF), .fd = F_CLOSED, .ptr = P_SPEC },
	{ "fd -1", E(EBADF), .fd = F_NEW, .ptr = P_SPEC },
	{ "re-arming a CANCEL_ON_SET timer canceled by clock_settime()",
	  E(ECANCELED), .fd = F_RTC,
	  .flags = TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, .ptr = P_SPEC,
	  .need = NEED_SYS_TIME, .prep = PREP_CANCEL },
	{ "new_value NULL", E(EFAULT), .fd = F_TFD, .ptr = P_NULL },
	{ "new_value unmapped", E(EFAULT), .fd = F_TFD, .ptr = P_UNMAPPED },
	{ "old_value unmapped", E(EFAULT), .fd = F_TFD, .ptr = P_SPEC,
	  .ptr2 = P_UNMAPPED },
	{ "old_value read-only", E(EFAULT), .fd = F_TFD, .ptr = P_SPEC,
	  .ptr2 = P_READONLY },
	{ "an alarm timer without CAP_WAKE_ALARM", E(EPERM), .fd = F_AFD,
	  .ptr = P_SPEC, .need = NEED_ALARM_FD | NO_WAKE_ALARM },
	{ "fd a pipe, not a timerfd", E(EINVAL), .fd = F_PIPE, .ptr = P_SPEC },
	{ "fd a signalfd, not a timerfd", E(EINVAL), .fd = F_SFD, .ptr = P_SPEC },
	{ "flags with bit 0x4", E(EINVAL), .fd = F_TFD, .flags = 0x4, .ptr = P_SPEC },
	{ "flags with bit 30", E(EINVAL), .fd = F_TFD, .flags = 1 << 30,
	  .ptr = P_SPEC },
	{ "it_value.tv_nsec 1000000000", E(EINVAL), .fd = F_TFD,
	  .ptr = P_VAL_NSEC_BIG },
	{ "it_value.tv_nsec -1", E(EINVAL), .fd = F_TFD, .ptr = P_VAL_NSEC_NEG },
	{ "it_value.tv_sec -1", E(EINVAL), .fd = F_TFD, .ptr = P_VAL_SEC_NEG },
	{ "it_interval.tv_nsec 1000000000", E(EINVAL), .fd = F_TFD,
	  .ptr = P_INT_NSEC_BIG },
	{ "it_interval.tv_sec -1", E(EINVAL), .fd = F_TFD, .ptr = P_INT_SEC_NEG },
};

static long call_gettime(const struct row *r)
{
	return timerfd_gettime(fd_of(r->fd), ptrs[r->ptr]);
}

static const struct row gettime_rows[] = {
	{ "fd not open", E(EBADF), .fd = F_CLOSED, .ptr = P_BUF },
	{ "fd -1", E(EBADF), .fd = F_NEW, .ptr = P_BUF },
	{ "curr_value NULL", E(EFAULT), .fd = F_TFD, .ptr = P_NULL,
	  .need = NATIVE,
	  .why = "qemu-user answers 0 for a NULL curr_value" },
	{ "curr_value unmapped", E(EFAULT), .fd = F_TFD, .ptr = P_UNMAPPED },
	{ "curr_value read-only", E(EFAULT), .fd = F_TFD, .ptr = P_READONLY },
	{ "fd a pipe, not a timerfd", E(EINVAL), .fd = F_PIPE, .ptr = P_BUF },
	{ "fd a signalfd, not a timerfd", E(EINVAL), .fd = F_SFD, .ptr = P_BUF },
};

static long call_timerfd(const struct row *r)
{
	return timerfd(fd_of(r->fd), r->arg, r->flags, ptrs[r->ptr]);
}

#define T_REL .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_REL
static const struct row timerfd_rows[] = {
	{ "a kernel without the fdevents series", E(ENOSYS), .fd = F_NEW, T_REL,
	  .ptr = P_SPEC, .need = NO_TIMERFD },
#ifdef FDEVENTS_NR_timerfd
	{ "the kernel answers ENOSYS (seccomp stands in for a kernel without the series)",
	  E(ENOSYS), .fd = F_NEW, T_REL, .ptr = P_SPEC, .need = ENOSYS_FILTER,
	  .sys = FDEVENTS_NR_timerfd, .sys2 = FDEVENTS_NR_timerfd },
#endif
	{ "ufd not open", E(EBADF), .fd = F_CLOSED, T_REL, .ptr = P_SPEC,
	  .need = NEED_TIMERFD },
	{ "ufd -2", E(EBADF), .fd = F_MINUS2, T_REL, .ptr = P_SPEC,
	  .need = NEED_TIMERFD },
	{ "utmr NULL", E(EFAULT), .fd = F_NEW, T_REL, .ptr = P_NULL,
	  .need = NEED_TIMERFD },
	{ "utmr unmapped", E(EFAULT), .fd = F_NEW, T_REL, .ptr = P_UNMAPPED,
	  .need = NEED_TIMERFD },
	{ "re-arming with utmr NULL", E(EFAULT), .fd = F_CFD,
	  .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_SEQ, .ptr = P_NULL,
	  .need = NEED_TIMERFD },
	{ "RLIMIT_NOFILE reached", E(EMFILE), .fd = F_NEW, T_REL, .ptr = P_SPEC,
	  .need = NEED_TIMERFD | LOW_NOFILE },
	{ "fs.file-max reached without CAP_SYS_ADMIN", E(ENFILE), .fd = F_NEW,
	  T_REL, .ptr = P_SPEC, .need = NEED_TIMERFD | LOW_FILE_MAX },
	{ "a kernel allocation fails", E(ENOMEM), .fd = F_NEW, T_REL,
	  .ptr = P_SPEC, .need = NEED_TIMERFD | FAIL_ALLOC },
	{ "CLOCK_REALTIME_ALARM without CAP_WAKE_ALARM", E(EPERM), .fd = F_NEW,
	  .arg = CLOCK_REALTIME_ALARM, .flags = TFD_TIMER_REL, .ptr = P_SPEC,
	  .need = NEED_TIMERFD | NO_WAKE_ALARM },
	{ "CLOCK_BOOTTIME_ALARM without CAP_WAKE_ALARM", E(EPERM), .fd = F_NEW,
	  .arg = CLOCK_BOOTTIME_ALARM, .flags = TFD_TIMER_SEQ, .ptr = P_SPEC,
	  .need = NEED_TIMERFD | NO_WAKE_ALARM },
	{ "ufd a pipe, not a timerfd", E(EINVAL), .fd = F_PIPE, T_REL,
	  .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "ufd a signalfd, not a timerfd", E(EINVAL), .fd = F_SFD, T_REL,
	  .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "re-arming a timerfd() descriptor on another clock", E(EINVAL),
	  .fd = F_CFD, .arg = CLOCK_REALTIME, .flags = TFD_TIMER_REL,
	  .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "re-arming a timerfd_create() descriptor on another clock", E(EINVAL),
	  .fd = F_TFD, .arg = CLOCK_BOOTTIME, .flags = TFD_TIMER_REL,
	  .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "clock 12345", E(EINVAL), .fd = F_NEW, .arg = 12345,
	  .flags = TFD_TIMER_REL, .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "CLOCK_PROCESS_CPUTIME_ID", E(EINVAL), .fd = F_NEW,
	  .arg = CLOCK_PROCESS_CPUTIME_ID, .flags = TFD_TIMER_REL, .ptr = P_SPEC,
	  .need = NEED_TIMERFD },
	{ "tmrtype 0", E(EINVAL), .fd = F_NEW, .arg = CLOCK_MONOTONIC,
	  .flags = 0, .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "tmrtype 4", E(EINVAL), .fd = F_NEW, .arg = CLOCK_MONOTONIC,
	  .flags = 4, .ptr = P_SPEC, .need = NEED_TIMERFD },
	{ "TFD_TIMER_REL with it_interval.tv_nsec 1000000000", E(EINVAL),
	  .fd = F_NEW, T_REL, .ptr = P_INT_NSEC_BIG, .need = NEED_TIMERFD },
	{ "TFD_TIMER_REL with it_interval.tv_sec -1", E(EINVAL), .fd = F_NEW,
	  T_REL, .ptr = P_INT_SEC_NEG, .need = NEED_TIMERFD },
	{ "TFD_TIMER_ABS with it_value.tv_nsec -1", E(EINVAL), .fd = F_NEW,
	  .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_ABS, .ptr = P_VAL_NSEC_NEG,
	  .need = NEED_TIMERFD },
	{ "TFD_TIMER_ABS with it_value.tv_sec -1", E(EINVAL), .fd = F_NEW,
	  .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_ABS, .ptr = P_VAL_SEC_NEG,
	  .need = NEED_TIMERFD },
	{ "TFD_TIMER_SEQ with it_interval.tv_nsec 1000000000", E(EINVAL),
	  .fd = F_NEW, .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_SEQ,
	  .ptr = P_INT_NSEC_BIG, .need = NEED_TIMERFD },
	{ "TFD_TIMER_SEQ with a zero period", E(EINVAL), .fd = F_NEW,
	  .arg = CLOCK_MONOTONIC, .flags = TFD_TIMER_SEQ, .ptr = P_ZERO_PERIOD,
	  .need = NEED_TIMERFD },
};
#undef T_REL

static long call_read(const struct row *r)
{
	return read(fd_of(r->fd), ptrs[r->ptr], (size_t)r->arg);
}

static const struct row read_sfd_rows[] = {
	{ "O_NONBLOCK and nothing pending", E(EAGAIN), .fd = F_SFD, .arg = 128,
	  .ptr = P_BUF, .prep = PREP_QUIET },
	{ "buffer NULL with a signal pending", E(EFAULT), .fd = F_SFD,
	  .arg = 128, .ptr = P_NULL, .prep = PREP_SIGNAL },
	{ "buffer unmapped with a signal pending", E(EFAULT), .fd = F_SFD,
	  .arg = 128, .ptr = P_UNMAPPED, .prep = PREP_SIGNAL },
	{ "buffer read-only with a signal pending", E(EFAULT), .fd = F_SFD,
	  .arg = 128, .ptr = P_READONLY, .prep = PREP_SIGNAL },
	{ "127-byte buffer", E(EINVAL), .fd = F_SFD, .arg = 127, .ptr = P_BUF,
	  .prep = PREP_SIGNAL },
	{ "1-byte buffer", E(EINVAL), .fd = F_SFD, .arg = 1, .ptr = P_BUF,
	  .prep = PREP_SIGNAL },
};

static const struct row read_tfd_rows[] = {
	{ "O_NONBLOCK and no expiration", E(EAGAIN), .fd = F_TFD, .arg = 8,
	  .ptr = P_BUF, .prep = PREP_QUIET },
	{ "CANCEL_ON_SET timer after clock_settime()", E(ECANCELED), .fd = F_RTC,
	  .arg = 8, .ptr = P_BUF, .need = NEED_SYS_TIME, .prep = PREP_CANCEL },
	{ "buffer NULL after an expiration", E(EFAULT), .fd = F_TFD, .arg = 8,
	  .ptr = P_NULL, .prep = PREP_EXPIRE },
	{ "buffer read-only after an expiration", E(EFAULT), .fd = F_TFD,
	  .arg = 8, .ptr = P_READONLY, .prep = PREP_EXPIRE },
	{ "7-byte buffer", E(EINVAL), .fd = F_TFD, .arg = 7, .ptr = P_BUF,
	  .prep = PREP_EXPIRE },
	{ "4-byte buffer", E(EINVAL), .fd = F_TFD, .arg = 4, .ptr = P_BUF,
	  .prep = PREP_EXPIRE },
};

static const struct row read_cfd_rows[] = {
	{ "O_NONBLOCK and no expiration", E(EAGAIN), .fd = F_CFD, .arg = 4,
	  .ptr = P_BUF, .need = NEED_TIMERFD, .prep = PREP_QUIET },
	{ "buffer NULL after an expiration", E(EFAULT), .fd = F_CFD, .arg = 4,
	  .ptr = P_NULL, .need = NEED_TIMERFD, .prep = PREP_EXPIRE },
	{ "3-byte buffer", E(EINVAL), .fd = F_CFD, .arg = 3, .ptr = P_BUF,
	  .need = NEED_TIMERFD, .prep = PREP_EXPIRE },
	{ "1-byte buffer", E(EINVAL), .fd = F_CFD, .arg = 1, .ptr = P_BUF,
	  .need = NEED_TIMERFD, .prep = PREP_EXPIRE },
};

static const struct row read_any_rows[] = {
	{ "a descriptor not open", E(EBADF), .fd = F_CLOSED, .arg = 8,
	  .ptr = P_BUF },
};

#define SECTION(name, fn, rows) \
	{ name, fn, rows, sizeof(rows) / sizeof(rows[0]) }
static const struct section {
	const char *call;
	long (*fn)(const struct row *);
	const struct row *rows;
	size_t n;
} sections[] = {
	SECTION("signalfd()", call_signalfd, signalfd_rows),
	SECTION("timerfd_create()", call_create, create_rows),
	SECTION("timerfd_settime()", call_settime, settime_rows),
	SECTION("timerfd_gettime()", call_gettime, gettime_rows),
	SECTION("timerfd()", call_timerfd, timerfd_rows),
	SECTION("read(signalfd)", call_read, read_sfd_rows),
	SECTION("read(timerfd_create() fd)", call_read, read_tfd_rows),
	SECTION("read(timerfd() fd)", call_read, read_cfd_rows),
	SECTION("read()", call_read, read_any_rows),
};
#undef SECTION

static int has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

static int drop_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[cap / 32].effective &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &h, d);
}

static struct itimerspec *new_spec(long long vs, long vns,
				   long long is, long ins)
{
	struct itimerspec *its = calloc(1, sizeof(*its));

	if (!its)
		bail("calloc: %s", strerror(errno));
	its->it_value.tv_sec = vs;
	its->it_value.tv_nsec = vns;
	its->it_interval.tv_sec = is;
	its->it_interval.tv_nsec = ins;
	return its;
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void setup(void)
{
	sigset_t usr1;
	int p[2], page = (int)sysconf(_SC_PAGESIZE);
	struct itimerspec zero = { { 0, 0 }, { 0, 0 } };

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);

	if (pipe(p) != 0)
		bail("pipe: %s", strerror(errno));
	fds[F_PIPE - F_CLOSED] = p[0];
	fds[F_SFD - F_CLOSED] = signalfd(-1, &usr1, SFD_NONBLOCK);
	fds[F_TFD - F_CLOSED] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	fds[F_RTC - F_CLOSED] = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	fds[F_AFD - F_CLOSED] = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fds[F_SFD - F_CLOSED] < 0 || fds[F_TFD - F_CLOSED] < 0 ||
	    fds[F_RTC - F_CLOSED] < 0)
		bail("fixtures: %s", strerror(errno));
	if (fds[F_AFD - F_CLOSED] < 0)
		diag("timerfd_create(CLOCK_BOOTTIME_ALARM): %s", strerror(errno));

	errno = 0;
	fds[F_CFD - F_CLOSED] = timerfd(-1, CLOCK_MONOTONIC, TFD_TIMER_REL, &zero);
	has_timerfd = fds[F_CFD - F_CLOSED] >= 0;
	if (has_timerfd)
		fcntl(fds[F_CFD - F_CLOSED], F_SETFL, O_NONBLOCK);
	else
		diag("timerfd(): %s", strerror(errno));
	{
		int x = signalfd(-1, &usr1, SFD_EXCLUSIVE | SFD_NONBLOCK);

		has_excl = x >= 0;
		if (has_excl)
			close(x);
		else
			diag("signalfd(SFD_EXCLUSIVE): %s", strerror(errno));
	}

	/* A number that was open a moment ago, far above the ones the
	 * table's own calls and children get.  */
	fds[F_CLOSED - F_CLOSED] = 999;
	dup2(fds[F_PIPE - F_CLOSED], 999);
	close(999);

	ptrs[P_NONE] = NULL;
	ptrs[P_NULL] = NULL;
	ptrs[P_READONLY] = mmap(NULL, page, PROT_READ,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs[P_READONLY] == MAP_FAILED)
		bail("mmap: %s", strerror(errno));
	mask = usr1;
	ptrs[P_MASK] = &mask;
	ptrs[P_BUF] = &buf;
	ptrs[P_SPEC] = new_spec(10, 0, 10, 0);
	ptrs[P_VAL_NSEC_BIG] = new_spec(1, NS_PER_S, 0, 0);
	ptrs[P_VAL_NSEC_NEG] = new_spec(1, -1, 0, 0);
	ptrs[P_VAL_SEC_NEG] = new_spec(-1, 0, 0, 0);
	ptrs[P_INT_NSEC_BIG] = new_spec(1, 0, 0, NS_PER_S);
	ptrs[P_INT_SEC_NEG] = new_spec(1, 0, -1, 0);
	ptrs[P_ZERO_PERIOD] = new_spec(10, 0, 0, 0);

	/* A user address nothing maps: the second page (below
	 * vm.mmap_min_addr).  A hole made with munmap() would be reused by
	 * the next mapping anyone makes.  */
	ptrs[P_UNMAPPED] = (void *)(uintptr_t)page;
}

/* Set CLOCK_REALTIME to what it reads minus 1 ns: a discontinuous change
 * that moves the clock by nothing anyone notices, but always changes the
 * realtime-monotonic offset (even with a coarse clocksource).  */
static int nudge_realtime(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	if (t.tv_nsec > 0) {
		t.tv_nsec--;
	} else {
		t.tv_sec--;
		t.tv_nsec = NS_PER_S - 1;
	}
	return clock_settime(CLOCK_REALTIME, &t);
}

/* Put the row's descriptor in the state the cause needs.  */
static int prepare(const struct row *r)
{
	int fd = fd_of(r->fd);
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	switch (r->prep) {
	case PREP_NONE:
		return 0;
	case PREP_QUIET:
		if (r->fd == F_SFD) {
			while (read(fd, &buf, sizeof(buf)) > 0)
				;
			return 0;
		}
		if (r->fd == F_CFD)
			return timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, &its) == fd ? 0 : -1;
		return timerfd_settime(fd, 0, &its, NULL);
	case PREP_SIGNAL:
		raise(SIGUSR1);
		return wait_readable(fd, 5000) ? 0 : -1;
	case PREP_EXPIRE:
		its.it_value.tv_nsec = 1;
		its.it_interval.tv_nsec = 1;	/* timerfd()'s REL reads this */
		if (r->fd == F_CFD) {
			if (timerfd(fd, CLOCK_MONOTONIC, TFD_TIMER_REL, &its) != fd)
				return -1;
		} else {
			its.it_interval.tv_nsec = 0;
			if (timerfd_settime(fd, 0, &its, NULL) != 0)
				return -1;
		}
		return wait_readable(fd, 5000) ? 0 : -1;
	case PREP_CANCEL:
		clock_gettime(CLOCK_REALTIME, &its.it_value);
		its.it_value.tv_sec += 3600;
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
				    &its, NULL) != 0)
			return -1;
		return nudge_realtime();
	}
	return -1;
}

/* Run the call in a child that first gives up a capability (@cap >= 0)
 * or installs the row's ENOSYS filter (@cap < 0); for ENFILE the parent
 * has already lowered fs.file-max.  The answer comes back through a
 * pipe.  */
static long call_in_child(const struct section *sec, const struct row *r,
			  int cap, int *err)
{
	long res[2] = { -2, 0 };
	int p[2], status;
	pid_t pid;

	if (pipe(p) != 0)
		return *err = errno, -2;
	pid = fork();
	if (pid == 0) {
		alarm(10);
		close(p[0]);
		if ((cap >= 0 ? drop_cap(cap) : deny_with_enosys(r->sys, r->sys2)) != 0) {
			res[1] = errno;
		} else {
			res[0] = sec->fn(r);
			res[1] = errno;
		}
		if (write(p[1], res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || !wait_readable(p[0], 15000) ||
	    read(p[0], res, sizeof(res)) != (ssize_t)sizeof(res)) {
		res[0] = -2;
		res[1] = pid < 0 ? errno : ETIMEDOUT;
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	*err = (int)res[1];
	return res[0];
}

/* Fail the first, then the second, ... allocation of the call until one
 * failure comes back as ENOMEM, or the call makes fewer allocations than
 * that.  Another errno from a failed allocation is noted and passed over. */
static long call_failing_allocs(const struct section *sec,
				const struct row *r, int *err)
{
	long ret = -2;
	int nth, left, fd = open("/proc/thread-self/fail-nth", O_RDWR);

	*err = errno;
	if (fd < 0)
		return -2;
	for (nth = 1; nth <= 100; nth++) {
		if (failslab_nth(fd, nth) < 0)
			break;
		errno = 0;
		ret = sec->fn(r);
		*err = errno;
		left = failslab_nth(fd, 0);
		if (left < 0)
			break;
		if (ret >= 0 && r->fd == F_NEW)
			close((int)ret);
		if (ret == -1 && *err == ENOMEM)
			break;
		if (ret == -1)
			diag("  allocation %d failed: %s", nth, strerror(*err));
		if (left > 0) {
			diag("  the call makes only %d allocations, none gave ENOMEM",
			     nth - 1);
			break;
		}
	}
	close(fd);
	return ret;
}

/* RLIMIT_NOFILE at the lowest free descriptor number: the next
 * descriptor would have to be above the limit.  */
static long call_without_fds(const struct section *sec,
			     const struct row *r, int *err)
{
	struct rlimit old, tight;
	int lowest = 0;
	long ret;

	while (fcntl(lowest, F_GETFD) != -1)
		lowest++;
	getrlimit(RLIMIT_NOFILE, &old);
	tight = old;
	tight.rlim_cur = (rlim_t)lowest;
	if (setrlimit(RLIMIT_NOFILE, &tight) != 0)
		return *err = errno, -2;
	ret = sec->fn(r);
	*err = errno;
	setrlimit(RLIMIT_NOFILE, &old);
	if (ret >= 0)
		close((int)ret);
	return ret;
}

/* fs.file-max at 1: a process without CAP_SYS_ADMIN can then open no file.
 * The parent keeps the capability (so it is not limited) and restores the
 * old value whatever the child did.  Only in the guest: on the host this
 * would starve every unprivileged process of the machine.  */
static long call_without_files(const struct section *sec,
			       const struct row *r, int *err)
{
	char old[64];
	ssize_t n;
	long ret;
	int fd = open("/proc/sys/fs/file-max", O_RDWR), extra[128], i;

	if (fd < 0)
		return *err = errno, -2;
	/* The limit is checked against a per-CPU counter's global part,
	 * which on a quiet guest can lag the real count down to 0: open
	 * enough files (as root, not limited) to push it past 1.  */
	for (i = 0; i < 128; i++)
		extra[i] = open("/dev/null", O_RDONLY);
	n = pread(fd, old, sizeof(old) - 1, 0);
	if (n <= 0 || pwrite(fd, "1\n", 2, 0) != 2) {
		*err = errno;
		ret = -2;
	} else {
		ret = call_in_child(sec, r, CAP_SYS_ADMIN, err);
		if (pwrite(fd, old, (size_t)n, 0) != n)
			bail("could not restore fs.file-max to %.*s: %s", (int)n,
			     old, strerror(errno));
	}
	close(fd);
	for (i = 0; i < 128; i++)
		close(extra[i]);
	return ret;
}

/* Whether the call reads or writes the row's itimerspec in user space:
 * with a 32-bit time_t, the wrappers convert to and from the kernel's
 * 64-bit-time structure, as glibc's do, so a bad pointer faults in the
 * program (SIGSEGV) instead of giving EFAULT.  NULL is passed on to the
 * kernel, which answers EFAULT.  */
static int converted_in_user_space(const struct section *sec,
				   const struct row *r)
{
	int bad = r->ptr == P_UNMAPPED || r->ptr == P_READONLY ||
		  r->ptr2 == P_UNMAPPED || r->ptr2 == P_READONLY;

	return sizeof(time_t) == 4 && bad &&
	       (sec->fn == call_settime || sec->fn == call_gettime ||
		sec->fn == call_timerfd);
}

/* Why a row cannot run here, or NULL.  */
static const char *cannot_run(const struct section *sec, const struct row *r)
{
	unsigned int need = r->need;

	if (need & SKIP)
		return r->why;
	if ((need & NATIVE) && emulator())
		return r->why;
	if (converted_in_user_space(sec, r))
		return "32-bit time_t: the wrapper converts the itimerspec in user space, as glibc's does, so a bad pointer faults there (SIGSEGV), not in the kernel";
	if ((need & (NO_WAKE_ALARM | LOW_FILE_MAX | ENOSYS_FILTER)) &&
	    fork_broken())
		return fork_broken();
	if ((need & NEED_TIMERFD) && !has_timerfd && !kernel_is_patched())
		return "kernel without the fdevents series: timerfd() gives ENOSYS (run in the QEMU guest)";
	if ((need & NO_TIMERFD) && (has_timerfd || kernel_is_patched()))
		return has_timerfd ? "kernel with the fdevents series: timerfd() exists" :
		       "FDEVENTS_KERNEL=patched: timerfd() must exist here";
	if ((need & NEED_EXCL) && !has_excl && !kernel_is_patched())
		return "kernel without the fdevents series: no SFD_EXCLUSIVE (run in the QEMU guest)";
	if ((need & NO_EXCL) && (has_excl || kernel_is_patched()))
		return has_excl ? "kernel with the fdevents series: SFD_EXCLUSIVE is accepted" :
		       "FDEVENTS_KERNEL=patched: SFD_EXCLUSIVE must be accepted here";
#ifndef SECCOMP_ENOSYS_ARCH
	if (need & ENOSYS_FILTER)
		return "the seccomp filter that plays a kernel without the call is written for x86_64 only";
#endif
	if ((need & NEED_ALARM_FD) && fds[F_AFD - F_CLOSED] < 0)
		return "no alarm timerfd could be made (needs CAP_WAKE_ALARM)";
	/* Setting the clock cancels every CANCEL_ON_SET timer on the machine
	 * (systemd has some): only in the guest, as the stress program.  */
	if ((need & NEED_SYS_TIME) && !kernel_is_patched())
		return "setting CLOCK_REALTIME would disturb this machine: tested in the QEMU guest only";
	if ((need & NEED_SYS_TIME) && !has_cap(CAP_SYS_TIME))
		return "setting CLOCK_REALTIME needs CAP_SYS_TIME (run as root; the guest does)";
	/* Only where the series really runs: that kernel is only ever booted
	 * in the QEMU guest, never on a machine others use.  */
	if ((need & LOW_FILE_MAX) && !(kernel_is_patched() && has_timerfd))
		return "lowering fs.file-max would starve the whole host: tested in the QEMU guest only";
	if ((need & FAIL_ALLOC) && !(kernel_is_patched() && has_timerfd))
		return "kernel allocations are failed on purpose (fail-nth) only in the QEMU guest";
	if ((need & FAIL_ALLOC) && failslab_unready())
		return failslab_unready();
	if ((need & LOW_FILE_MAX) && (geteuid() != 0 || !has_cap(CAP_SYS_ADMIN)))
		return "lowering fs.file-max needs root with CAP_SYS_ADMIN";
	return NULL;
}

static void run(const struct section *sec, const struct row *r)
{
	const char *why = cannot_run(sec, r);
	long ret;
	int err;

	if (why) {
		skip(1, "%s: %s gives %s: %s", sec->call, r->cause, r->errname, why);
		return;
	}
	/* Without the flag, this kernel's EINVAL would pass for the row's.  */
	if ((r->need & NEED_EXCL) && !has_excl) {
		ok(0, "%s: %s gives %s (the patched kernel rejects SFD_EXCLUSIVE itself)",
		   sec->call, r->cause, r->errname);
		return;
	}
	if (prepare(r) != 0) {
		ok(0, "%s: %s gives %s (could not prepare the descriptor)",
		   sec->call, r->cause, r->errname);
		return;
	}
	errno = 0;
	if (r->need & NO_WAKE_ALARM) {
		ret = call_in_child(sec, r, CAP_WAKE_ALARM, &err);
	} else if (r->need & LOW_NOFILE) {
		ret = call_without_fds(sec, r, &err);
	} else if (r->need & LOW_FILE_MAX) {
		ret = call_without_files(sec, r, &err);
	} else if (r->need & FAIL_ALLOC) {
		ret = call_failing_allocs(sec, r, &err);
	} else if (r->need & ENOSYS_FILTER) {
		ret = call_in_child(sec, r, -1, &err);
	} else {
		ret = sec->fn(r);
		err = errno;
		/* A call that wrongly succeeds must not leak a descriptor.  */
		if (ret >= 0 && r->fd == F_NEW && sec->fn != call_read)
			close((int)ret);
	}
	errno = err;
	if (!ok(ret == -1 && err == r->err, "%s: %s gives %s", sec->call,
		r->cause, r->errname))
		diag("  returned %ld", ret);
}

int main(void)
{
	size_t i, j;

	setup();
	diag("kernel: timerfd() %s, SFD_EXCLUSIVE %s%s",
	     has_timerfd ? "present" : "absent", has_excl ? "present" : "absent",
	     kernel_is_patched() ? " (FDEVENTS_KERNEL=patched)" : "");
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		for (j = 0; j < sections[i].n; j++)
			run(&sections[i], &sections[i].rows[j]);
	return done_testing();
}
