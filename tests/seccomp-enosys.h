/* A seccomp filter that answers ENOSYS for up to two system calls, as a
 * kernel built without them does: how the tests play an older or smaller
 * kernel.  Install it in a child (it lasts as long as the process).
 *
 * deny_with_enosys(nr1, nr2)  0, or -1 with errno; nr2 may repeat nr1
 * seccomp_filter_calls(nr1, nr2, action)
 *                             the same filter with another action for the
 *                             two calls (SECCOMP_RET_TRAP, ...)
 *
 * The filter knows the system call ABIs of x86_64, x32, i386 and arm64
 * (SECCOMP_FILTER_ARCH); elsewhere it fails with ENOTSUP, and under
 * qemu-user, which refuses every filter, with EINVAL.
 * SECCOMP_ENOSYS_ARCH is defined on x86_64 only: the tables of
 * test-errno-table and test-fallback were written for its numbers.
 */
#ifndef FDEVENTS_TESTS_SECCOMP_ENOSYS_H
#define FDEVENTS_TESTS_SECCOMP_ENOSYS_H

#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__) && !defined(__ILP32__)
# define SECCOMP_ENOSYS_ARCH AUDIT_ARCH_X86_64
# define SECCOMP_FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__x86_64__)
/* x32's numbers carry __X32_SYSCALL_BIT, as seccomp_data.nr does.  */
# define SECCOMP_FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
# define SECCOMP_FILTER_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
# define SECCOMP_FILTER_ARCH AUDIT_ARCH_AARCH64
#endif

__attribute__((unused))
static int seccomp_filter_calls(long nr1, long nr2, unsigned int action)
{
#ifdef SECCOMP_FILTER_ARCH
	/* Another architecture's numbers mean other calls: let them be.  */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_FILTER_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr1, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr2, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, action),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	/* Without privileges, a filter needs no_new_privs first.  */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
	(void)nr1, (void)nr2, (void)action;
	errno = ENOTSUP;
	return -1;
#endif
}

__attribute__((unused))
static int deny_with_enosys(long nr1, long nr2)
{
	return seccomp_filter_calls(nr1, nr2, SECCOMP_RET_ERRNO | ENOSYS);
}

#endif
