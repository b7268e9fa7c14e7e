/*
 * signalfd-wakeups: what a waiter sees with patch 0003 (per-descriptor
 * wake-ups) must be what it saw before.  A TAP program for the guest (and
 * the host: mainline passes it too); kept beside the benchmark that
 * measures the patch until tests/ adopts it into GUEST_TESTS.
 *
 *   cc -O2 -static -pthread -o signalfd-wakeups bench/signalfd-wakeups.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int n, failed;
static void ok(int c, const char *what)
{
	printf("%s %d - %s\n", c ? "ok" : "not ok", ++n, what);
	fflush(stdout);
	if (!c)
		failed = 1;
}

static sigset_t set1(int s)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, s);
	return m;
}

static void blockall(void)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGUSR2);
	sigaddset(&m, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &m, NULL);
}

static int sfd(int s, int flags)
{
	sigset_t m = set1(s);
	return signalfd(-1, &m, flags);
}

static int epwait1(int ep, int ms)
{
	struct epoll_event ev;
	int r = epoll_wait(ep, &ev, 1, ms);
	return r == 1 ? ev.data.fd : -1;
}

static int drain(int fd)
{
	struct signalfd_siginfo si;
	int k = 0;
	while (read(fd, &si, sizeof(si)) == sizeof(si))
		k++;
	return k;
}

static void sendfd(int sock, int fd)
{
	char c = 0, buf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr msg = { .msg_iov = &io, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		perror("sendmsg");
}

static int recvfd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr msg = { .msg_iov = &io, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	int fd = -1;
	if (recvmsg(sock, &msg, 0) == 1)
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	return fd;
}

static int child_status(pid_t p)
{
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static void *reader(void *arg)
{
	struct signalfd_siginfo si;
	long r = read(*(int *)arg, &si, sizeof(si));
	return (void *)(r == sizeof(si) ? (long)si.ssi_signo : -1L);
}

static volatile int stop;
static int shared_fd;
static void *masker(void *arg)
{
	(void)arg;
	while (!stop) {
		sigset_t m = set1(rand() & 1 ? SIGUSR1 : SIGUSR2);
		signalfd(shared_fd, &m, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int a, b, c, ep, sv[2], p[2];
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t pid;
	char ch;

	if (argc == 4 && !strcmp(argv[1], "--after-exec")) {
		int fd = atoi(argv[2]), e = atoi(argv[3]);
		kill(getpid(), SIGUSR1);
		printf("%s - exec: epoll registration survives exec\n",
		       epwait1(e, 3000) == fd ? "ok" : "not ok");
		struct pollfd pf = { fd, POLLIN, 0 };
		printf("%s - exec: poll sees it\n",
		       poll(&pf, 1, 3000) == 1 ? "ok" : "not ok");
		return 0;
	}
	blockall();
	printf("TAP version 13\n");

	/* 1. epoll: each signal wakes its descriptor only */
	a = sfd(SIGUSR1, SFD_NONBLOCK);
	b = sfd(SIGUSR2, SFD_NONBLOCK);
	ep = epoll_create1(0);
	ev.data.fd = a; epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev);
	ev.data.fd = b; epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev);
	ok(epwait1(ep, 0) == -1, "nothing ready at first");
	kill(getpid(), SIGUSR1);
	ok(epwait1(ep, 1000) == a, "SIGUSR1 makes the SIGUSR1 fd ready");
	ok(drain(a) == 1, "and it reads one siginfo");
	kill(getpid(), SIGUSR2);
	ok(epwait1(ep, 1000) == b, "SIGUSR2 makes the SIGUSR2 fd ready");
	ok(drain(b) == 1 && epwait1(ep, 0) == -1, "drained, nothing ready");

	/* 2. mask change while registered in epoll */
	{
		sigset_t m = set1(SIGUSR2);
		signalfd(a, &m, 0);
		kill(getpid(), SIGUSR2);
		int first = epwait1(ep, 1000);
		ok(first == a || first == b, "after a mask change the fd is woken for its new signal");
		struct epoll_event evs[2];
		int k = epoll_wait(ep, evs, 2, 1000);
		ok(k == 2, "both SIGUSR2 fds ready");
		ok(drain(a) == 1 && drain(b) == 0, "the re-programmed fd reads it");
		m = set1(SIGUSR1);
		signalfd(a, &m, 0);
	}

	/* 3. blocking read, in another thread */
	{
		pthread_t t;
		void *res;
		int fd = sfd(SIGUSR1, 0);
		pthread_create(&t, NULL, reader, &fd);
		usleep(200000);
		kill(getpid(), SIGRTMIN);	/* other signal: no wake needed */
		usleep(100000);
		kill(getpid(), SIGUSR1);
		pthread_join(t, &res);
		ok((long)res == SIGUSR1, "a blocked read() in a thread wakes on its signal");
		close(fd);
		sigset_t m = set1(SIGRTMIN);
		int r = signalfd(-1, &m, SFD_NONBLOCK);
		drain(r);
		close(r);
	}

	/* 4. inherited over fork, polled in the child */
	if (pipe(p)) return 1;
	pid = fork();
	if (pid == 0) {
		struct pollfd pf = { a, POLLIN, 0 };
		if (write(p[1], "x", 1) != 1) _exit(3);
		int r = poll(&pf, 1, 5000);
		_exit(r == 1 && drain(a) == 1 ? 0 : 1);
	}
	if (read(p[0], &ch, 1) != 1) return 1;
	usleep(200000);
	kill(pid, SIGUSR1);
	ok(child_status(pid) == 0, "a child polling an inherited fd wakes on its own signal");
	ok(drain(a) == 0, "the parent's fd has nothing pending");

	/* 5. passed over a socket to an unrelated process, epoll there */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid = fork();
	if (pid == 0) {
		int fd = recvfd(sv[1]);
		int e = epoll_create1(0);
		struct epoll_event ev2 = { .events = EPOLLIN, .data.fd = fd };
		epoll_ctl(e, EPOLL_CTL_ADD, fd, &ev2);
		if (write(sv[1], "x", 1) != 1) _exit(3);
		int r = epwait1(e, 5000);
		_exit(r == fd && drain(fd) == 1 ? 0 : 1);
	}
	c = sfd(SIGUSR1, SFD_NONBLOCK);
	sendfd(sv[0], c);
	if (read(sv[0], &ch, 1) != 1) return 1;
	usleep(200000);
	kill(pid, SIGUSR1);
	ok(child_status(pid) == 0, "a process given the fd over a socket wakes in epoll");

	/* 6. the fd outlives its creator, which had polled it */
	pid = fork();
	if (pid == 0) {
		int fd = sfd(SIGUSR1, SFD_NONBLOCK);
		int e = epoll_create1(0);
		struct epoll_event ev2 = { .events = EPOLLIN, .data.fd = fd };
		struct pollfd pf = { fd, POLLIN, 0 };
		epoll_ctl(e, EPOLL_CTL_ADD, fd, &ev2);
		poll(&pf, 1, 10);
		sendfd(sv[1], fd);
		sendfd(sv[1], e);
		_exit(0);
	}
	{
		int fd = recvfd(sv[0]), e = recvfd(sv[0]);
		ok(child_status(pid) == 0 && fd >= 0 && e >= 0, "the creator exited, fds passed on");
		struct pollfd pf = { fd, POLLIN, 0 };
		kill(getpid(), SIGUSR1);
		ok(poll(&pf, 1, 1000) == 1, "poll in the new owner works");
		ok(epwait1(e, 100) == fd, "the creator's epoll set reports it when polled");
		pid = fork();
		if (pid == 0) {
			/* poll from a third process, then exit while it watches */
			struct pollfd pf2 = { fd, POLLIN, 0 };
			poll(&pf2, 1, 50);
			_exit(0);
		}
		child_status(pid);
		ok(drain(fd) == 1, "read it");
		pf.revents = 0;
		pid = fork();
		if (pid == 0) {
			usleep(200000);
			kill(getppid(), SIGUSR1);
			_exit(0);
		}
		ok(poll(&pf, 1, 3000) == 1 && drain(fd) == 1, "a signal from another process wakes poll");
		child_status(pid);
		close(e);
		close(fd);
	}

	/* 7. exec keeps the registration (sighand not shared) */
	pid = fork();
	if (pid == 0) {
		char s1[16], s2[16];
		int fd = sfd(SIGUSR1, SFD_NONBLOCK);
		int e = epoll_create1(0);
		struct epoll_event ev2 = { .events = EPOLLIN, .data.fd = fd };
		epoll_ctl(e, EPOLL_CTL_ADD, fd, &ev2);
		snprintf(s1, sizeof(s1), "%d", fd);
		snprintf(s2, sizeof(s2), "%d", e);
		execl("/proc/self/exe", argv[0], "--after-exec", s1, s2, (char *)NULL);
		_exit(5);
	}
	ok(child_status(pid) == 0, "exec'd child ran");

	/* 8. stress: mask changes, polls from exiting children, signals */
	{
		pthread_t t;
		int i, bad = 0;
		shared_fd = sfd(SIGUSR1, SFD_NONBLOCK);
		pthread_create(&t, NULL, masker, NULL);
		for (i = 0; i < 200; i++) {
			pid = fork();
			if (pid == 0) {
				struct pollfd pf = { shared_fd, POLLIN, 0 };
				int e = epoll_create1(0);
				struct epoll_event ev2 = { .events = EPOLLIN, .data.fd = shared_fd };
				epoll_ctl(e, EPOLL_CTL_ADD, shared_fd, &ev2);
				kill(getpid(), SIGUSR1);
				kill(getpid(), SIGUSR2);
				poll(&pf, 1, 1);
				_exit(0);
			}
			kill(pid, SIGUSR1);
			if (i % 3 == 0) {
				int tmp = sfd(SIGUSR2, SFD_NONBLOCK);
				struct pollfd pf = { tmp, POLLIN, 0 };
				kill(getpid(), SIGUSR2);
				poll(&pf, 1, 0);
				close(tmp);
			}
			if (child_status(pid) != 0)
				bad++;
		}
		stop = 1;
		pthread_join(t, NULL);
		close(shared_fd);
		ok(!bad, "stress: 200 children polling a shared fd while its mask changes");
	}
	printf("1..%d\n", n + 2);
	return failed;
}
