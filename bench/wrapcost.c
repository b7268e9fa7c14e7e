/*
 * wrapcost: the host half of `make bench'.  Calls one wrapper CALLS times,
 * either ours (libsignalfd/libtimerfd, linked) or glibc's (found with
 * dlsym() on libc.so.6), so that valgrind --tool=callgrind can count the
 * instructions each call executes in user space.  bench/run.sh reads the
 * function's inclusive cost from callgrind_annotate and divides by CALLS.
 *
 *	wrapcost ours|glibc signalfd|timerfd_settime|timerfd_gettime [CALLS]
 *
 * Every call succeeds: signalfd() re-programs one descriptor, the timer
 * calls act on one armed timerfd.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>

typedef int signalfd_fn(int, const sigset_t *, int);
typedef int settime_fn(int, int, const struct itimerspec *,
		       struct itimerspec *);
typedef int gettime_fn(int, struct itimerspec *);

static void *glibc(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *sym = libc ? dlsym(libc, name) : NULL;

	if (!sym) {
		fprintf(stderr, "wrapcost: glibc's %s not found: %s\n", name,
			dlerror());
		exit(2);
	}
	return sym;
}

int main(int argc, char **argv)
{
	struct itimerspec its = { .it_value = { 1000, 0 } }, cur;
	long calls = argc > 3 ? atol(argv[3]) : 10000, i;
	int use_glibc, fd, tfd;
	sigset_t mask;

	if (argc < 3 || calls <= 0 ||
	    (strcmp(argv[1], "ours") && strcmp(argv[1], "glibc"))) {
		fprintf(stderr, "usage: wrapcost ours|glibc CALL [CALLS]\n");
		return 2;
	}
	use_glibc = !strcmp(argv[1], "glibc");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	fd = signalfd(-1, &mask, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0 || tfd < 0 || timerfd_settime(tfd, 0, &its, NULL)) {
		perror("wrapcost: setup");
		return 2;
	}

	if (!strcmp(argv[2], "signalfd")) {
		signalfd_fn *f = use_glibc ? (signalfd_fn *)glibc("signalfd")
					   : signalfd;

		for (i = 0; i < calls; i++)
			if (f(fd, &mask, 0) != fd)
				return 1;
	} else if (!strcmp(argv[2], "timerfd_settime")) {
		settime_fn *f = use_glibc
			? (settime_fn *)glibc("timerfd_settime")
			: timerfd_settime;

		for (i = 0; i < calls; i++)
			if (f(tfd, 0, &its, NULL))
				return 1;
	} else if (!strcmp(argv[2], "timerfd_gettime")) {
		gettime_fn *f = use_glibc
			? (gettime_fn *)glibc("timerfd_gettime")
			: timerfd_gettime;

		for (i = 0; i < calls; i++)
			if (f(tfd, &cur))
				return 1;
	} else {
		fprintf(stderr, "wrapcost: unknown call %s\n", argv[2]);
		return 2;
	}
	return 0;
}
