/* signalfd() for libsignalfd.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <signal.h>
#include <sys/signalfd.h>

#include "syscall.h"

/* The kernel's sigset_t is _NSIG bits; the C library's _NSIG counts one
   more (signal 0), and its sigset_t is larger still.  */
#define KERNEL_SIGSET_SIZE ((size_t) (_NSIG - 1) / 8)

/* Off the fast path: signalfd4() failed.  */
static __attribute__ ((noinline, cold)) int
signalfd_failed (long ret, int fd, const sigset_t *mask, int flags)
{
#ifdef SYS_signalfd
  /* Kernels before 2.6.27 have only signalfd(), which takes no flags.
     Nonzero flags there fail with EINVAL, as glibc's fallback did:
     setting FD_CLOEXEC afterwards with fcntl() would leave a window in
     which a concurrent fork() and exec() leaks the descriptor.  */
  if (ret == -ENOSYS)
    return syscall_ret (flags == 0
			? raw_syscall3 (SYS_signalfd, fd, mask,
					KERNEL_SIGSET_SIZE)
			: -EINVAL);
#else
  (void) fd, (void) mask, (void) flags;
#endif
  return syscall_error (ret);
}

int
signalfd (int fd, const sigset_t *mask, int flags)
{
  long ret = raw_syscall4 (SYS_signalfd4, fd, mask, KERNEL_SIGSET_SIZE,
			   flags);

  return syscall_failed (ret) ? signalfd_failed (ret, fd, mask, flags)
			      : (int) ret;
}
