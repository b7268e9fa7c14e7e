/* Raw system calls for the fdevents wrappers (internal).
   SPDX-License-Identifier: LGPL-2.1-or-later

   raw_syscall*() return what the kernel returned: the result, or -errno,
   so a wrapper can look at the kernel's answer (for a fallback) before
   errno is touched.  syscall_ret() turns that into the C library's
   convention, -1 with errno set (musl's __syscall_ret), with the errno
   store out of line (glibc's __syscall_error): a successful call runs no
   more instructions than glibc's wrapper.  */

#ifndef FDEVENTS_SYSCALL_H
#define FDEVENTS_SYSCALL_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
/* Each argument keeps its own type on its way to its register, as in
   glibc's ARGIFY: an int is not widened to long first, because the
   kernel reads only the low 32 bits of an int argument.  Pointers become
   integers of their width.  */
# define SYSCALL_ARG(x) ((__typeof__ ((x) - (x))) (x))

# define raw_syscall4(n, a, b, c, d)					\
  __extension__ ({							\
    __typeof__ (SYSCALL_ARG (a)) a_ = SYSCALL_ARG (a);			\
    __typeof__ (SYSCALL_ARG (b)) b_ = SYSCALL_ARG (b);			\
    __typeof__ (SYSCALL_ARG (c)) c_ = SYSCALL_ARG (c);			\
    register __typeof__ (SYSCALL_ARG (d)) r10_ __asm__ ("r10")		\
      = SYSCALL_ARG (d);						\
    long ret_;								\
    __asm__ __volatile__ ("syscall"					\
			  : "=a" (ret_)					\
			  : "0" ((long) (n)), "D" (a_), "S" (b_),	\
			    "d" (c_), "r" (r10_)			\
			  : "rcx", "r11", "memory");			\
    ret_; })

# define raw_syscall2(n, a, b)						\
  __extension__ ({							\
    __typeof__ (SYSCALL_ARG (a)) a_ = SYSCALL_ARG (a);			\
    __typeof__ (SYSCALL_ARG (b)) b_ = SYSCALL_ARG (b);			\
    long ret_;								\
    __asm__ __volatile__ ("syscall"					\
			  : "=a" (ret_)					\
			  : "0" ((long) (n)), "D" (a_), "S" (b_)	\
			  : "rcx", "r11", "memory");			\
    ret_; })
#else
/* Elsewhere the C library's syscall() does the trap; undo its errno
   convention so both paths give the wrappers the same raw answer.  A
   failure the wrapper then recovers from (the ENOSYS before a fallback)
   must leave errno as the caller had it, as glibc's wrappers do: put
   back what syscall() overwrote.  */
static inline long raw_syscall_libc (long n, long a, long b, long c, long d)
{
  int saved_errno = errno;
  long ret = syscall (n, a, b, c, d);

  if (ret == -1)
    {
      ret = -errno;
      errno = saved_errno;
    }
  return ret;
}
# define raw_syscall4(n, a, b, c, d) \
  raw_syscall_libc (n, (long) (a), (long) (b), (long) (c), (long) (d))
# define raw_syscall2(n, a, b) raw_syscall4 (n, a, b, 0, 0)
#endif

#define raw_syscall3(n, a, b, c) raw_syscall4 (n, a, b, c, 0)

/* The kernel returns -4095..-1 for errors and anything else for success.  */
#define syscall_failed(ret) \
  __builtin_expect ((unsigned long) (ret) > -4096UL, 0)

/* Off the fast path: only a failed call comes here.  */
static __attribute__ ((noinline, cold)) int syscall_error (long ret)
{
  errno = (int) -ret;
  return -1;
}

static inline int syscall_ret (long ret)
{
  return syscall_failed (ret) ? syscall_error (ret) : (int) ret;
}

#endif
