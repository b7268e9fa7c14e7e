/* No kernel memory reaches user space through struct signalfd_siginfo:
 * for each kind of signal, every byte outside the fields its si_code
 * defines reads zero.
 *
 * The read buffer is filled with 0xa5 first, so a byte the kernel did not
 * write shows as well as one it wrote wrongly; the buffer holds two
 * structures, so a write past the first one shows too.  Offending bytes
 * are listed by offset and field.
 *
 * A fault's own signal cannot be read through a signalfd: the kernel
 * forces it (force_sig_fault() unblocks it and, if it is blocked or
 * ignored, resets its action to the default), so the faulting thread dies
 * before any read.  The same goes for seccomp's SIGSYS.  The fault layouts
 * are therefore checked with siginfos queued to ourselves through
 * rt_sigqueueinfo() (allowed for any si_code when the target is the
 * caller), with every byte the layout does not define set to garbage: the
 * kernel must copy only the layout's fields, never the rest of its union.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#ifndef TRAP_PERF
# define TRAP_PERF 6
#endif
#ifndef SYS_SECCOMP
# define SYS_SECCOMP 1
#endif

#define FILL 0xa5	/* what the read buffer holds before the read */
#define JUNK 0x5a	/* what an injected siginfo holds outside its fields */

/* The fields of struct signalfd_siginfo, as bits of a set.  */
enum {
	SIGNO, ERRNO, CODE, PID, UID, FD, TID, BAND, OVERRUN, TRAPNO, STATUS,
	INT, PTR, UTIME, STIME, ADDR, ADDR_LSB, SYSCALL, CALL_ADDR, ARCH,
	N_FIELDS
};
#define B(f) (1u << (f))

#define FIELD(f, m) { #m, offsetof(struct signalfd_siginfo, m), \
		      sizeof(((struct signalfd_siginfo *)0)->m) }
static const struct {
	const char *name;
	size_t off, size;
} fields[N_FIELDS] = {
	[SIGNO] = FIELD(SIGNO, ssi_signo),
	[ERRNO] = FIELD(ERRNO, ssi_errno),
	[CODE] = FIELD(CODE, ssi_code),
	[PID] = FIELD(PID, ssi_pid),
	[UID] = FIELD(UID, ssi_uid),
	[FD] = FIELD(FD, ssi_fd),
	[TID] = FIELD(TID, ssi_tid),
	[BAND] = FIELD(BAND, ssi_band),
	[OVERRUN] = FIELD(OVERRUN, ssi_overrun),
	[TRAPNO] = FIELD(TRAPNO, ssi_trapno),
	[STATUS] = FIELD(STATUS, ssi_status),
	[INT] = FIELD(INT, ssi_int),
	[PTR] = FIELD(PTR, ssi_ptr),
	[UTIME] = FIELD(UTIME, ssi_utime),
	[STIME] = FIELD(STIME, ssi_stime),
	[ADDR] = FIELD(ADDR, ssi_addr),
	[ADDR_LSB] = FIELD(ADDR_LSB, ssi_addr_lsb),
	[SYSCALL] = FIELD(SYSCALL, ssi_syscall),
	[CALL_ADDR] = FIELD(CALL_ADDR, ssi_call_addr),
	[ARCH] = FIELD(ARCH, ssi_arch),
};
#undef FIELD

/* Which field a byte belongs to, padding included.  */
static const char *field_at(size_t off)
{
	int f;

	for (f = 0; f < N_FIELDS; f++)
		if (off >= fields[f].off && off < fields[f].off + fields[f].size)
			return fields[f].name;
	return off >= offsetof(struct signalfd_siginfo, __pad) ? "__pad" : "__pad2";
}

static union {
	unsigned char bytes[2 * sizeof(struct signalfd_siginfo)];
	struct signalfd_siginfo si;
} buf;

static int sfd;		/* a plain signalfd on every signal the test uses */
static sigset_t used;

static void names(unsigned int set, char *out, size_t len)
{
	int f;

	out[0] = 0;
	for (f = 0; f < N_FIELDS; f++)
		if (set & B(f))
			snprintf(out + strlen(out), len - strlen(out), "%s%s",
				 out[0] ? "," : "", fields[f].name + 4);
}

/* Wait for the descriptor, read one structure into the 0xa5-filled
 * buffer, and check its bytes against the fields of @set.  */
static struct signalfd_siginfo *read_and_check(int fd, const char *kind,
					       unsigned int set)
{
	struct pollfd p = { fd, POLLIN, 0 };
	unsigned char allowed[sizeof(struct signalfd_siginfo)] = { 0 };
	char list[160], bad[512];
	size_t i, j, nbad = 0, past = 0;
	ssize_t n;
	int f;

	memset(&buf, FILL, sizeof(buf));
	if (poll(&p, 1, 5000) != 1) {
		ok(0, "%s: the signal arrives within 5 s", kind);
		skip(2, "%s: nothing to read", kind);
		return NULL;
	}
	n = read(fd, &buf, sizeof(buf));
	for (i = sizeof(buf.si); i < sizeof(buf); i++)
		past += buf.bytes[i] != FILL;
	ok(n == (ssize_t)sizeof(buf.si) && past == 0,
	   "%s: read() returns one structure and writes nothing past it (%zd bytes, %zu past)",
	   kind, n, past);

	for (f = 0; f < N_FIELDS; f++)
		if (set & B(f))
			memset(allowed + fields[f].off, 1, fields[f].size);
	bad[0] = 0;
	for (i = 0; i < sizeof(buf.si); i = j) {
		j = i + 1;
		if (allowed[i] || buf.bytes[i] == 0)
			continue;
		/* One run of offending bytes within one field.  */
		while (j < sizeof(buf.si) && !allowed[j] && buf.bytes[j] != 0 &&
		       field_at(j) == field_at(i))
			j++;
		nbad += j - i;
		if (strlen(bad) < sizeof(bad) - 64)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 " %zu..%zu (%s) = %02x%s", i, j - 1, field_at(i),
				 buf.bytes[i], j - i > 1 ? "..." : "");
	}
	names(set, list, sizeof(list));
	if (!ok(nbad == 0, "%s: every byte outside {%s} reads zero", kind, list))
		diag("%s: %zu nonzero bytes at offset%s", kind, nbad, bad);
	return &buf.si;
}

static void block(int sig)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_BLOCK, &one, NULL);
	sigaddset(&used, sig);
}

/* The kinds of signal a process can get without a fault.  */

static void from_kill(void)
{
	struct signalfd_siginfo *si;

	kill(getpid(), SIGUSR1);
	si = read_and_check(sfd, "kill(SIGUSR1), SI_USER", B(SIGNO) | B(CODE) | B(PID) | B(UID));
	if (si)
		ok(si->ssi_signo == SIGUSR1 && si->ssi_code == SI_USER &&
		   si->ssi_pid == (uint32_t)getpid() && si->ssi_uid == getuid(),
		   "kill(SIGUSR1): signo, code, pid and uid as sent");
}

static void from_kill_rt(void)
{
	struct signalfd_siginfo *si;
	int sig = SIGRTMIN + 3;

	kill(getpid(), sig);
	si = read_and_check(sfd, "kill(SIGRTMIN+3), SI_USER", B(SIGNO) | B(CODE) | B(PID) | B(UID));
	if (si)
		ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == SI_USER &&
		   si->ssi_pid == (uint32_t)getpid(),
		   "kill(SIGRTMIN+3): signo, code and pid as sent");
}

static void from_sigqueue(void)
{
	struct signalfd_siginfo *si;
	union sigval v;
	int sig = SIGRTMIN + 1;

	v.sival_ptr = (void *)(uintptr_t)0x0123456789abcdefULL;
	sigqueue(getpid(), sig, v);
	si = read_and_check(sfd, "sigqueue(), SI_QUEUE",
			    B(SIGNO) | B(CODE) | B(PID) | B(UID) | B(INT) | B(PTR));
	if (si)
		ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == SI_QUEUE &&
		   si->ssi_pid == (uint32_t)getpid() && si->ssi_uid == getuid() &&
		   si->ssi_ptr == (uint64_t)(uintptr_t)v.sival_ptr &&
		   (uint32_t)si->ssi_int == 0x89abcdefU,
		   "sigqueue(): signo, code, pid, uid, ptr and int as sent (ptr %#llx, int %#x)",
		   (unsigned long long)si->ssi_ptr, (unsigned)si->ssi_int);
}

static void from_tgkill(void)
{
	struct signalfd_siginfo *si;
	int sig = SIGRTMIN + 2;

	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	si = read_and_check(sfd, "tgkill(), SI_TKILL", B(SIGNO) | B(CODE) | B(PID) | B(UID));
	if (si)
		ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == SI_TKILL &&
		   si->ssi_pid == (uint32_t)getpid() && si->ssi_uid == getuid(),
		   "tgkill(): signo, code, pid and uid as sent");
}

static void from_timer(void)
{
	struct sigevent ev;
	struct itimerspec its = { { 0, 0 }, { 0, 1000000 } };
	struct signalfd_siginfo *si;
	timer_t timer;
	int sig = SIGRTMIN + 4;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = sig;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)0xfedcba9876543210ULL;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &its, NULL) != 0) {
		ok(0, "timer_create() and timer_settime() for a SIGEV_SIGNAL timer");
		skip(2, "no POSIX timer");
		return;
	}
	si = read_and_check(sfd, "POSIX timer, SI_TIMER",
			    B(SIGNO) | B(CODE) | B(TID) | B(OVERRUN) | B(INT) | B(PTR));
	if (si)
		ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == SI_TIMER &&
		   si->ssi_tid == (uint32_t)(intptr_t)timer &&
		   si->ssi_ptr == (uint64_t)(uintptr_t)ev.sigev_value.sival_ptr &&
		   si->ssi_overrun == 0,
		   "timer: signo, code, timer id, value and overrun as set (tid %u, overrun %u)",
		   si->ssi_tid, si->ssi_overrun);
	timer_delete(timer);
}

/* SIGCHLD of a child that exits with @code, or that is killed with
 * SIGKILL when @code is -1.  */
static void from_child(int code)
{
	const char *kind = code >= 0 ? "SIGCHLD, CLD_EXITED" : "SIGCHLD, CLD_KILLED";
	struct signalfd_siginfo *si;
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		alarm(10);
		if (code < 0)
			for (;;)
				pause();
		_exit(code);
	}
	if (code < 0)
		kill(pid, SIGKILL);
	si = read_and_check(sfd, kind, B(SIGNO) | B(CODE) | B(PID) | B(UID) |
			    B(STATUS) | B(UTIME) | B(STIME));
	if (si)
		ok(si->ssi_signo == SIGCHLD && si->ssi_pid == (uint32_t)pid &&
		   si->ssi_uid == getuid() &&
		   (code >= 0 ? si->ssi_code == CLD_EXITED && si->ssi_status == code
			      : si->ssi_code == CLD_KILLED && si->ssi_status == SIGKILL),
		   "%s: signo, code, pid, uid and status right (code %d, status %d)",
		   kind, si->ssi_code, si->ssi_status);
	waitpid(pid, &status, 0);
}

/* SIGIO from a pipe with O_ASYNC: with F_SETSIG the POLL layout (band
 * and fd), without it a plain SIGIO from the kernel (SI_KERNEL).  */
static void from_sigio(int setsig)
{
	const char *kind = setsig ? "O_ASYNC with F_SETSIG, POLL_IN" : "O_ASYNC, SIGIO, SI_KERNEL";
	struct signalfd_siginfo *si;
	int p[2], sig = setsig ? SIGRTMIN + 5 : SIGIO;

	if (pipe(p) != 0 || fcntl(p[0], F_SETOWN, getpid()) != 0 ||
	    (setsig && fcntl(p[0], F_SETSIG, sig) != 0) ||
	    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
		ok(0, "%s: set up the pipe", kind);
		skip(2, "no O_ASYNC pipe");
		return;
	}
	if (write(p[1], "x", 1) != 1)
		diag("write: %s", strerror(errno));
	if (setsig) {
		si = read_and_check(sfd, kind, B(SIGNO) | B(CODE) | B(FD) | B(BAND));
		if (si)
			ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == POLL_IN &&
			   si->ssi_fd == p[0] && (si->ssi_band & POLLIN),
			   "%s: signo, code, fd and band right (fd %d, band %#x)",
			   kind, si->ssi_fd, si->ssi_band);
	} else {
		si = read_and_check(sfd, kind, B(SIGNO) | B(CODE));
		if (si)
			ok(si->ssi_signo == SIGIO && si->ssi_code == SI_KERNEL,
			   "%s: signo and code right (code %#x)", kind, si->ssi_code);
	}
	close(p[0]);
	close(p[1]);
}

/* The 64-bit fields that hold a type of the caller's ABI: a pointer
 * (ssi_ptr, ssi_addr, ssi_call_addr), which the kernel zero-extends, or
 * a clock_t (ssi_utime, ssi_stime), which it sign-extends.  Gives in
 * *expect what injected()'s JUNK bytes of that type read back as, and
 * returns 1; 0 for the other fields.  On 64-bit ABIs both are all
 * JUNK.  */
static int caller_junk(int f, uint64_t *expect)
{
	void *p;
	clock_t c;

	switch (f) {
	case PTR: case ADDR: case CALL_ADDR:
		memset(&p, JUNK, sizeof(p));
		*expect = (uint64_t)(uintptr_t)p;
		return 1;
	case UTIME: case STIME:
		memset(&c, JUNK, sizeof(c));
		*expect = (uint64_t)(int64_t)c;
		return 1;
	}
	return 0;
}

/* A siginfo queued to ourselves with garbage in every byte its layout
 * does not define.  The fields it does define get recognisable values,
 * which the read must give back.  */
static void injected(const char *kind, int sig, int code, unsigned int set)
{
	struct signalfd_siginfo *si;
	siginfo_t info;

	memset(&info, JUNK, sizeof(info));
	info.si_signo = sig;
	info.si_code = code;
	info.si_errno = 0x11;
	if (syscall(SYS_rt_sigqueueinfo, getpid(), sig, &info) != 0) {
		ok(0, "%s: rt_sigqueueinfo() to ourselves", kind);
		skip(2, "%s: not queued", kind);
		return;
	}
	si = read_and_check(sfd, kind, set | B(SIGNO) | B(ERRNO) | B(CODE));
	if (si) {
		const unsigned char *bytes = (const unsigned char *)si;
		size_t i, junk = 0, want = 0;
		int f;

		/* The layout's own fields come back as queued: all garbage.
		 * A pointer or clock_t field is as wide as the caller's type,
		 * see caller_junk().  */
		for (f = 0; f < N_FIELDS; f++) {
			uint64_t v, expect;

			if (!(set & B(f)))
				continue;
			want += fields[f].size;
			if (caller_junk(f, &expect)) {
				memcpy(&v, bytes + fields[f].off, sizeof(v));
				junk += v == expect ? sizeof(v) : 0;
				continue;
			}
			for (i = fields[f].off; i < fields[f].off + fields[f].size; i++)
				junk += bytes[i] == JUNK;
		}
		ok(si->ssi_signo == (uint32_t)sig && si->ssi_code == code &&
		   si->ssi_errno == 0x11 && junk == want,
		   "%s: signo, errno, code and the layout's fields as queued (%zu of %zu bytes)",
		   kind, junk, want);
	}
}

/* SFD_EXCLUSIVE: a claimed signal, not blocked, sent to the process and
 * to another thread, read through the claiming descriptor.  */
static volatile sig_atomic_t usr2_handled;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_handled++;
}

static volatile sig_atomic_t sleeper_done;

/* Not pthread_cancel(): that loads libgcc_s, which the guest lacks.  */
static void *sleeper(void *arg)
{
	pid_t *tid = arg;

	*tid = (pid_t)syscall(SYS_gettid);
	while (!sleeper_done)
		usleep(1000);
	return NULL;
}

static void from_claim(void)
{
	struct signalfd_siginfo *si;
	pthread_t thread;
	volatile pid_t tid = 0;
	sigset_t usr2;
	int fd, i;

	/* A handler, so a claim that fails to hold costs a test point
	 * rather than the process.  */
	signal(SIGUSR2, on_usr2);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	errno = 0;
	fd = signalfd(-1, &usr2, SFD_EXCLUSIVE | SFD_NONBLOCK);
	if (fd < 0 && !kernel_is_patched()) {
		skip(6, "kernel without the fdevents series: SFD_EXCLUSIVE gives %s (run in the QEMU guest)",
		     strerror(errno));
		return;
	}
	if (!ok(fd >= 0, "SFD_EXCLUSIVE claims SIGUSR2")) {
		skip(5, "no claim");
		return;
	}
	kill(getpid(), SIGUSR2);
	si = read_and_check(fd, "claimed SIGUSR2 from kill()", B(SIGNO) | B(CODE) | B(PID) | B(UID));
	if (pthread_create(&thread, NULL, sleeper, (void *)&tid) != 0) {
		ok(0, "pthread_create");
		skip(2, "no thread");
		close(fd);
		return;
	}
	for (i = 0; i < 5000 && !tid; i++)
		usleep(1000);
	syscall(SYS_tgkill, getpid(), tid, SIGUSR2);
	si = read_and_check(fd, "claimed SIGUSR2 from tgkill() to another thread",
			    B(SIGNO) | B(CODE) | B(PID) | B(UID));
	if (si)
		ok(si->ssi_signo == SIGUSR2 && si->ssi_code == SI_TKILL &&
		   si->ssi_pid == (uint32_t)getpid() && !usr2_handled,
		   "claimed SIGUSR2 from tgkill(): signo, code and pid as sent, handler never ran (%d)",
		   (int)usr2_handled);
	sleeper_done = 1;
	pthread_join(thread, NULL);
	close(fd);
}

int main(void)
{
	struct sigaction dfl;
	int sig;

	/* What is checked is the kernel's bytes; qemu-user builds the
	 * structure a program reads anew, field by field.  */
	if (emulator())
		skip_all("under %s, read() returns qemu-user's copy of the kernel's signalfd_siginfo, not the kernel's bytes",
			 emulator());

	/* SIGCHLD must not be ignored, or children are reaped unseen.  */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, NULL);

	sigemptyset(&used);
	block(SIGUSR1);
	block(SIGCHLD);
	block(SIGIO);
	block(SIGSEGV);
	block(SIGBUS);
	block(SIGFPE);
	block(SIGILL);
	block(SIGTRAP);
	block(SIGSYS);
	for (sig = SIGRTMIN + 1; sig <= SIGRTMIN + 5; sig++)
		block(sig);
	sfd = signalfd(-1, &used, SFD_NONBLOCK);
	if (sfd < 0)
		bail("signalfd: %s", strerror(errno));

	from_kill();
	from_kill_rt();
	from_sigqueue();
	from_tgkill();
	from_timer();
	from_child(7);
	from_child(-1);
	from_sigio(1);
	from_sigio(0);

	diag("a fault's own signal is forced and kills before any read: fault layouts are injected with rt_sigqueueinfo()");
	injected("injected SI_QUEUE with garbage past si_value", SIGRTMIN + 1,
		 SI_QUEUE, B(PID) | B(UID) | B(INT) | B(PTR));
	injected("injected SIGSEGV, SEGV_MAPERR", SIGSEGV, SEGV_MAPERR, B(ADDR));
	injected("injected SIGSEGV, SEGV_BNDERR (bounds not copied)", SIGSEGV,
		 SEGV_BNDERR, B(ADDR));
	injected("injected SIGSEGV, SEGV_PKUERR (pkey not copied)", SIGSEGV,
		 SEGV_PKUERR, B(ADDR));
	injected("injected SIGBUS, BUS_MCEERR_AO", SIGBUS, BUS_MCEERR_AO,
		 B(ADDR) | B(ADDR_LSB));
	injected("injected SIGFPE, FPE_INTDIV", SIGFPE, FPE_INTDIV, B(ADDR));
	injected("injected SIGILL, ILL_ILLOPC", SIGILL, ILL_ILLOPC, B(ADDR));
	injected("injected SIGTRAP, TRAP_PERF", SIGTRAP, TRAP_PERF, B(ADDR));
	injected("injected SIGSYS, SYS_SECCOMP", SIGSYS, SYS_SECCOMP,
		 B(CALL_ADDR) | B(SYSCALL) | B(ARCH));
	injected("injected SIGCHLD, CLD_EXITED", SIGCHLD, CLD_EXITED,
		 B(PID) | B(UID) | B(STATUS) | B(UTIME) | B(STIME));
	injected("injected SIGIO, POLL_IN", SIGIO, POLL_IN, B(FD) | B(BAND));

	from_claim();
	return done_testing();
}
