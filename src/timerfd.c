/* timerfd_create(), timerfd_settime(), timerfd_gettime() and timerfd()
   for libtimerfd.
   SPDX-License-Identifier: LGPL-2.1-or-later  */

#include <time.h>
#include <sys/timerfd.h>

#include "syscall.h"
#include "syscall-numbers.h"

int
timerfd_create (int clockid, int flags)
{
  return syscall_ret (raw_syscall2 (SYS_timerfd_create, clockid, flags));
}

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
#ifdef FDEVENTS_NR_timerfd
  return syscall_ret (raw_syscall4 (FDEVENTS_NR_timerfd, ufd, clockid,
				    tmrtype, utmr));
#else
  /* No number was assigned on this architecture: never guess one.  */
  (void) ufd, (void) clockid, (void) tmrtype, (void) utmr;
  return syscall_error (-ENOSYS);
#endif
}
