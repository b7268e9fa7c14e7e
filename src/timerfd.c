/* timerfd_create(), timerfd_settime(), timerfd_gettime() and timerfd()
   for libtimerfd.
   SPDX-License-Identifier: LGPL-2.1-or-later

   Where time_t is 64 bits wide (every 64-bit target, and x32) each call
   is one system call.  On 32-bit targets, whose C library has a 32-bit
   time_t and a 64-bit one (_TIME_BITS=64), this file defines both sets of
   entry points, as glibc does: __timerfd_settime64, __timerfd_gettime64
   and __timerfd64 pass struct __kernel_itimerspec to the 64-bit-time
   system calls, and the 32-bit-time names convert to and from it.  */

/* Both sets are defined here, so this file sees the C library's default
   time_t whatever the build's CPPFLAGS ask for, as the C library builds
   its own wrappers.  */
#undef _TIME_BITS

#include <time.h>
#include <sys/timerfd.h>

#include "syscall.h"
#include "syscall-numbers.h"

int
timerfd_create (int clockid, int flags)
{
  return syscall_ret (raw_syscall2 (SYS_timerfd_create, clockid, flags));
}

#if !(defined __TIMESIZE && __TIMESIZE == 32)

/* time_t is the kernel's __kernel_time64_t: the structures go to the
   kernel as they are.  */

int
timerfd_settime (int fd, int flags, const struct itimerspec *new_value,
		 struct itimerspec *old_value)
{
  return syscall_ret (raw_syscall4 (SYS_timerfd_settime, fd, flags,
				    new_value, old_value));
}

int
timerfd_gettime (int fd, struct itimerspec *curr_value)
{
  return syscall_ret (raw_syscall2 (SYS_timerfd_gettime, fd, curr_value));
}

int
timerfd (int ufd, int clockid, int tmrtype, const struct itimerspec *utmr)
{
# ifdef FDEVENTS_NR_timerfd
  return syscall_ret (raw_syscall4 (FDEVENTS_NR_timerfd, ufd, clockid,
				    tmrtype, utmr));
# else
  /* No number was assigned on this architecture: never guess one.  */
  (void) ufd, (void) clockid, (void) tmrtype, (void) utmr;
  return syscall_error (-ENOSYS);
# endif
}

#else /* __TIMESIZE == 32 */

# include <stdint.h>
# include <linux/time_types.h>

_Static_assert (sizeof (time_t) == 4,
		"the 32-bit-time entry points need the 32-bit time_t");

/* The 64-bit-time entry points.  <sys/timerfd.h> under _TIME_BITS=64
   names them for the program, with its 64-bit struct itimerspec, whose
   layout is the kernel's (the padding beside a 32-bit tv_nsec is the
   kernel's to ignore, as it does for every 32-bit caller).  */
int __timerfd_settime64 (int fd, int flags,
			 const struct __kernel_itimerspec *new_value,
			 struct __kernel_itimerspec *old_value);
int __timerfd_gettime64 (int fd, struct __kernel_itimerspec *curr_value);
int __timerfd64 (int ufd, int clockid, int tmrtype,
		 const struct __kernel_itimerspec *utmr);

static int
fits_time32 (long long sec)
{
  return sec >= INT32_MIN && sec <= INT32_MAX;
}

static struct __kernel_timespec
widen (struct timespec ts)
{
  struct __kernel_timespec k = { ts.tv_sec, ts.tv_nsec };

  return k;
}

/* Only after fits_time32().  */
static struct timespec
narrow (struct __kernel_timespec k)
{
  struct timespec ts;

  ts.tv_sec = (time_t) k.tv_sec;
  ts.tv_nsec = (long) k.tv_nsec;
  return ts;
}

static struct __kernel_itimerspec *
widen_its (struct __kernel_itimerspec *k, const struct itimerspec *its)
{
  if (its == NULL)
    return NULL;		/* the kernel answers EFAULT */
  k->it_interval = widen (its->it_interval);
  k->it_value = widen (its->it_value);
  return k;
}

/* 0, or -EOVERFLOW when a 32-bit time_t cannot hold the kernel's answer
   (a timer set through the 64-bit-time calls); then *ITS is untouched.  */
static long
narrow_its (struct itimerspec *its, const struct __kernel_itimerspec *k)
{
  if (!fits_time32 (k->it_value.tv_sec)
      || !fits_time32 (k->it_interval.tv_sec))
    return -EOVERFLOW;
  its->it_interval = narrow (k->it_interval);
  its->it_value = narrow (k->it_value);
  return 0;
}

# ifdef SYS_timerfd_settime64
/* Kernels before 5.1 have only the 32-bit-time calls: convert, when the
   times fit.  Off the fast path.  */
static __attribute__ ((noinline, cold)) long
settime_time32 (int fd, int flags, const struct __kernel_itimerspec *new_value,
		struct __kernel_itimerspec *old_value)
{
  struct itimerspec new32, old32;
  long ret;

  if (new_value != NULL)
    {
      if (!fits_time32 (new_value->it_value.tv_sec)
	  || !fits_time32 (new_value->it_interval.tv_sec))
	return -EOVERFLOW;
      new32.it_interval = narrow (new_value->it_interval);
      new32.it_value = narrow (new_value->it_value);
    }
  ret = raw_syscall4 (SYS_timerfd_settime, fd, flags,
		      new_value != NULL ? &new32 : NULL,
		      old_value != NULL ? &old32 : NULL);
  if (ret == 0 && old_value != NULL)
    {
      old_value->it_interval = widen (old32.it_interval);
      old_value->it_value = widen (old32.it_value);
    }
  return ret;
}

static __attribute__ ((noinline, cold)) long
gettime_time32 (int fd, struct __kernel_itimerspec *curr_value)
{
  struct itimerspec cur32;
  long ret = raw_syscall2 (SYS_timerfd_gettime, fd,
			   curr_value != NULL ? &cur32 : NULL);

  if (ret == 0 && curr_value != NULL)
    {
      curr_value->it_interval = widen (cur32.it_interval);
      curr_value->it_value = widen (cur32.it_value);
    }
  return ret;
}
# else
#  error "32-bit time_t, but <sys/syscall.h> has no SYS_timerfd_settime64"
# endif

/* The kernel's answer: the result or -errno.  */
static long
settime64 (int fd, int flags, const struct __kernel_itimerspec *new_value,
	   struct __kernel_itimerspec *old_value)
{
  long ret = raw_syscall4 (SYS_timerfd_settime64, fd, flags, new_value,
			   old_value);

  if (__builtin_expect (ret == -ENOSYS, 0))
    ret = settime_time32 (fd, flags, new_value, old_value);
  return ret;
}

static long
gettime64 (int fd, struct __kernel_itimerspec *curr_value)
{
  long ret = raw_syscall2 (SYS_timerfd_gettime64, fd, curr_value);

  if (__builtin_expect (ret == -ENOSYS, 0))
    ret = gettime_time32 (fd, curr_value);
  return ret;
}

static long
timerfd64 (int ufd, int clockid, int tmrtype,
	   const struct __kernel_itimerspec *utmr)
{
# ifdef FDEVENTS_NR_timerfd
  /* The call takes struct __kernel_itimerspec on every ABI.  */
  return raw_syscall4 (FDEVENTS_NR_timerfd, ufd, clockid, tmrtype, utmr);
# else
  /* No number was assigned on this architecture: never guess one.  */
  (void) ufd, (void) clockid, (void) tmrtype, (void) utmr;
  return -ENOSYS;
# endif
}

int
__timerfd_settime64 (int fd, int flags,
		     const struct __kernel_itimerspec *new_value,
		     struct __kernel_itimerspec *old_value)
{
  return syscall_ret (settime64 (fd, flags, new_value, old_value));
}

int
__timerfd_gettime64 (int fd, struct __kernel_itimerspec *curr_value)
{
  return syscall_ret (gettime64 (fd, curr_value));
}

int
__timerfd64 (int ufd, int clockid, int tmrtype,
	     const struct __kernel_itimerspec *utmr)
{
  return syscall_ret (timerfd64 (ufd, clockid, tmrtype, utmr));
}

/* The 32-bit-time names, as glibc's: the new setting is widened; the
   old one is narrowed, or EOVERFLOW if it does not fit, in which case
   the new setting has taken effect all the same.  A null pointer goes to
   the kernel as one, which answers EFAULT.  */
int
timerfd_settime (int fd, int flags, const struct itimerspec *new_value,
		 struct itimerspec *old_value)
{
  struct __kernel_itimerspec new64, old64;
  long ret = settime64 (fd, flags, widen_its (&new64, new_value),
			old_value != NULL ? &old64 : NULL);

  if (ret == 0 && old_value != NULL)
    ret = narrow_its (old_value, &old64);
  return syscall_ret (ret);
}

int
timerfd_gettime (int fd, struct itimerspec *curr_value)
{
  struct __kernel_itimerspec cur64;
  long ret = gettime64 (fd, curr_value != NULL ? &cur64 : NULL);

  /* A kernel answers EFAULT for NULL; qemu-user answers 0.  */
  if (ret == 0 && curr_value != NULL)
    ret = narrow_its (curr_value, &cur64);
  return syscall_ret (ret);
}

int
timerfd (int ufd, int clockid, int tmrtype, const struct itimerspec *utmr)
{
  struct __kernel_itimerspec utmr64;

  return syscall_ret (timerfd64 (ufd, clockid, tmrtype,
				 widen_its (&utmr64, utmr)));
}

#endif /* __TIMESIZE == 32 */
