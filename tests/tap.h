/* Minimal TAP producer for the fdevents tests (read by Automake's TAP driver).
 *
 * ok(cond, fmt, ...)          one test point; prints errno on failure
 * is(got, want, fmt, ...)     ok() for integers, shows both values on failure
 * skip(n, fmt, ...)           n test points skipped, with the reason
 * diag(fmt, ...)              a comment line
 * bail(fmt, ...)              abort the whole run (Bail out!)
 * done_testing()              prints the plan; returns the exit status
 *
 * skip_all(fmt, ...)          the whole test skipped, with the reason
 * emulator()                  the user-mode emulator the test runs under
 *                             (TEST_EMULATOR, a cross build's qemu-user), or
 *                             NULL when it runs natively
 * fork_broken()               NULL when fork() gives a working child, else
 *                             why not (qemu-user here: see below)
 *
 * FDEVENTS_KERNEL=patched in the environment means "this kernel carries the
 * fdevents series": tests then treat ENOSYS/EINVAL from the new calls as
 * failures instead of the expected answer of an unpatched kernel.
 */
#ifndef FDEVENTS_TESTS_TAP_H
#define FDEVENTS_TESTS_TAP_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int tap_count;
static int tap_failed;

static void tap_vline(const char *status, const char *fmt, va_list ap)
{
	printf("%s %d - ", status, ++tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond ? "ok" : "not ok", fmt, ap);
	va_end(ap);
	if (!cond) {
		tap_failed++;
		printf("#   errno is %d (%s)\n", saved, strerror(saved));
	}
	errno = saved;
	return cond;
}

__attribute__((format(printf, 3, 4), unused))
static int is(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(got == want ? "ok" : "not ok", fmt, ap);
	va_end(ap);
	if (got != want) {
		tap_failed++;
		printf("#   got %lld, want %lld\n", got, want);
	}
	return got == want;
}

__attribute__((format(printf, 2, 3), unused))
static void skip(int n, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	while (n-- > 0) {
		printf("ok %d # SKIP %s\n", ++tap_count, reason);
	}
	fflush(stdout);
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((format(printf, 1, 2), noreturn, unused))
static void bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

__attribute__((format(printf, 1, 2), noreturn, unused))
static void skip_all(const char *fmt, ...)
{
	va_list ap;

	fputs("1..0 # SKIP ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(0);
}

__attribute__((unused))
static const char *emulator(void)
{
	const char *e = getenv("TEST_EMULATOR");

	return e && *e ? e : NULL;
}

/* Under qemu-user 7.2 on this build host, the child of fork() in a
 * dynamically linked guest program crashes (SIGSEGV) or spins just after
 * the clone, before it runs any code of the program.  A test that needs a
 * child asks first, and skips what needs one, saying why.  */
__attribute__((unused))
static const char *fork_broken(void)
{
	static char why[200];
	static int state;	/* 0 unknown, 1 works, -1 broken */
	int status = 0, waited;
	pid_t pid;

	if (state)
		return state > 0 ? NULL : why;
	state = -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(42);
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork() fails: %s", strerror(errno));
		return why;
	}
	for (waited = 0; waited < 300; waited++) {	/* 3 s */
		struct timespec nap = { 0, 10 * 1000 * 1000 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		nanosleep(&nap, NULL);
	}
	if (waited == 300) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		snprintf(why, sizeof(why), "the child of fork() hangs%s%s",
			 emulator() ? " under " : "", emulator() ? emulator() : "");
		return why;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 42) {
		state = 1;
		return NULL;
	}
	snprintf(why, sizeof(why), "the child of fork() dies (status %#x)%s%s",
		 (unsigned int)status, emulator() ? " under " : "",
		 emulator() ? emulator() : "");
	return why;
}

__attribute__((unused))
static int kernel_is_patched(void)
{
	const char *k = getenv("FDEVENTS_KERNEL");

	return k && strcmp(k, "patched") == 0;
}

#endif
