/* Raw system calls for the fdevents wrappers (internal).
   SPDX-License-Identifier: LGPL-2.1-or-later

   raw_syscall*() return what the kernel returned: the result, or -errno.
   syscall_ret() turns that into the C library's convention, -1 with errno
   set, in one place (musl's __syscall_ret pattern), so each wrapper can
   look at the kernel's answer (for a fallback) before errno is touched.  */

#ifndef FDEVENTS_SYSCALL_H
#define FDEVENTS_SYSCALL_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
static inline long raw_syscall4 (long n, long a, long b, long c, long d)
{
  register long r10 __asm__ ("r10") = d;
  unsigned long ret;

  __asm__ __volatile__ ("syscall"
			: "=a" (ret)
			: "a" (n), "D" (a), "S" (b), "d" (c), "r" (r10)
			: "rcx", "r11", "memory");
  return (long) ret;
}
#else
/* Elsewhere the C library's syscall() does the trap; undo its errno
   convention so both paths give the wrappers the same raw answer.  */
static inline long raw_syscall4 (long n, long a, long b, long c, long d)
{
  long ret = syscall (n, a, b, c, d);

  return ret == -1 ? -errno : ret;
}
#endif

#define raw_syscall2(n, a, b) raw_syscall4 (n, a, b, 0, 0)
#define raw_syscall3(n, a, b, c) raw_syscall4 (n, a, b, c, 0)

/* The kernel returns -4095..-1 for errors and anything else for success.  */
static inline int syscall_ret (long ret)
{
  if ((unsigned long) ret > -4096UL)
    {
      errno = (int) -ret;
      return -1;
    }
  return (int) ret;
}

#endif
