/* Built by tests/test-headers.sh against a copy of the compiler's include
 * directories without the C library's <sys/signalfd.h> and <sys/timerfd.h>:
 * what our headers declare alone must be enough to build, link and run a
 * program that reads a signal and round-trips a timer.  Exit 0 and "ok".
 */
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	struct signalfd_siginfo si;
	struct itimerspec its, cur;
	unsigned long long ticks;
	sigset_t mask;
	int sfd, tfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || kill(getpid(), SIGUSR1) != 0 ||
	    read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si) ||
	    si.ssi_signo != SIGUSR1 || si.ssi_pid != (unsigned int)getpid())
		return 1;
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1000000;
	its.it_interval.tv_sec = 3;
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0 ||
	    read(tfd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks) ||
	    timerfd_gettime(tfd, &cur) != 0 || cur.it_interval.tv_sec != 3)
		return 2;
	printf("ok\n");
	return 0;
}
