/* Fault injection for the guest tests: /proc/thread-self/fail-nth makes
 * the n-th slab allocation of this thread fail (CONFIG_FAILSLAB).
 *
 * failslab_unready()   NULL when fail-nth can be used, else why not
 * failslab_nth(fd, n)  arm fail-nth (fd: /proc/thread-self/fail-nth)
 *
 * Include after tap.h (it reports through diag()).
 */
#ifndef FDEVENTS_TESTS_FAILSLAB_H
#define FDEVENTS_TESTS_FAILSLAB_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Fault injection: /proc/thread-self/fail-nth makes the n-th allocation of
 * this thread fail, through failslab, whose debugfs knobs are set for the
 * run and restored at exit: ignore-gfp-wait off, since these calls make
 * sleeping GFP_KERNEL allocations that failslab spares by default, and
 * verbose down to 1, one line per injected failure: the default 2 adds a
 * stack trace, which the guest's log check would count as a report.  */
static struct {
	const char *name, *value;
	char old[16];
} failslab_knobs[] = {
	{ "ignore-gfp-wait", "N\n", "" },
	{ "verbose", "1\n", "" },
};
#define N_KNOBS (sizeof(failslab_knobs) / sizeof(failslab_knobs[0]))

/* Read a knob into buf (of size len), or write value to it; some of them
 * cannot seek, hence one open per access.  */
static ssize_t failslab_knob(const char *name, char *buf, size_t len,
			     const char *value)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/failslab/%s", name);
	fd = open(path, value ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return -1;
	if (value)
		n = write(fd, value, strlen(value));
	else if ((n = read(fd, buf, len - 1)) >= 0)
		buf[n] = 0;
	close(fd);
	return n;
}

static void failslab_restore(void)
{
	size_t i;

	for (i = 0; i < N_KNOBS; i++)
		if (failslab_knobs[i].old[0] &&
		    failslab_knob(failslab_knobs[i].name, NULL, 0,
				  failslab_knobs[i].old) < 0)
			diag("could not restore failslab/%s: %s",
			     failslab_knobs[i].name, strerror(errno));
}

/* NULL when fail-nth can be used, else why not.  */
static const char *failslab_unready(void)
{
	static char why[160];
	static int state;	/* 0 unknown, 1 ready, -1 not available */
	size_t i;

	if (state)
		return state > 0 ? NULL : why;
	state = -1;
	if (access("/proc/thread-self/fail-nth", W_OK) != 0)
		return strcpy(why, "kernel without fault injection (CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS): no fail-nth");
	if (access("/sys/kernel/debug/failslab", F_OK) != 0)
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	atexit(failslab_restore);
	for (i = 0; i < N_KNOBS; i++) {
		char *old = failslab_knobs[i].old;
		char now[sizeof(failslab_knobs[i].old)];

		/* old is kept empty until the new value is in */
		if (failslab_knob(failslab_knobs[i].name, now, sizeof(now), NULL) <= 0 ||
		    failslab_knob(failslab_knobs[i].name, NULL, 0, failslab_knobs[i].value) < 0) {
			snprintf(why, sizeof(why), "cannot set /sys/kernel/debug/failslab/%s (needs CONFIG_FAULT_INJECTION_DEBUG_FS and root): %s",
				 failslab_knobs[i].name, strerror(errno));
			return why;
		}
		strcpy(old, now);
	}
	state = 1;
	return NULL;
}

/* Arm fail-nth, open as @fd, for the @n-th allocation from now (0
 * disarms).  Returns the value it held: > 0 while an allocation armed
 * before was not reached; -1 if it cannot be written.  */
static int failslab_nth(int fd, int n)
{
	char left[16], arm[16];
	ssize_t r;

	r = pread(fd, left, sizeof(left) - 1, 0);
	left[r > 0 ? r : 0] = '\0';
	snprintf(arm, sizeof(arm), "%d", n);
	if (pwrite(fd, arm, strlen(arm), 0) < 0)
		return -1;
	return atoi(left);
}

#endif
