/* A kernel without some system calls, played inside the C library's
 * syscall(): for the targets where the library reaches the kernel
 * through syscall() (all but x86_64) and no seccomp filter can be
 * installed (qemu-user refuses them).  Linked into a dynamically linked
 * test, this syscall() takes the C library's place for the whole program,
 * libsignalfd and libtimerfd included (symbol interposition): it answers
 * ENOSYS for the denied numbers, as such a kernel does, and passes every
 * other call on to the C library's.
 *
 * libc_syscall_deny(nr1, nr2)  deny these from now on; -1 lifts a denial
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "libc-syscall-deny.h"

static long denied[2] = { -1, -1 };

void libc_syscall_deny(long nr1, long nr2)
{
	denied[0] = nr1;
	denied[1] = nr2;
}

long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;
	int i;

	if (nr == denied[0] || nr == denied[1]) {
		errno = ENOSYS;
		return -1;
	}
	if (next == NULL)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (next == NULL) {
		errno = ENOSYS;
		return -1;
	}
	/* As the C library's own: six arguments, whatever the call takes.  */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
