/* <sys/timerfd.h> of fdevents: timerfd_create(2) and friends through
   libtimerfd, plus the single-call timerfd() of the fdevents kernel series.
   Copyright (C) 2026 The fdevents authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   This header stands beside the C library's, not over it: it includes the
   C library's <sys/timerfd.h> where one exists and adds only what that
   lacks.  Install it in $(includedir)/fdevents/sys and compile with
   `pkg-config --cflags libtimerfd' (-isystem, so #include_next works).  */

#ifndef _FDEVENTS_SYS_TIMERFD_H
#define _FDEVENTS_SYS_TIMERFD_H 1

#ifdef __has_include_next
# if __has_include_next(<sys/timerfd.h>)
#  include_next <sys/timerfd.h>
# endif
#else
# include_next <sys/timerfd.h>
#endif

#include <fcntl.h>
#include <time.h>

/* Declared at file scope so the prototypes below name this structure even
   where <time.h> hides it (strict C89 without a POSIX feature macro).  */
struct itimerspec;

#ifdef __cplusplus
extern "C" {
#endif

/* glibc and musl both guard their header with _SYS_TIMERFD_H; without it
   the flags and the prototypes are ours to declare.  */
#ifndef _SYS_TIMERFD_H
extern int timerfd_create (int __clockid, int __flags);
extern int timerfd_settime (int __ufd, int __flags,
			    const struct itimerspec *__utmr,
			    struct itimerspec *__otmr);
extern int timerfd_gettime (int __ufd, struct itimerspec *__otmr);
#endif

/* Create (UFD == -1) or re-arm the timer descriptor UFD on CLOCKID in one
   call.  TMRTYPE says which fields of *UTMR are read (the original 2007
   interface): TFD_TIMER_REL fires once it_interval from now; TFD_TIMER_ABS
   fires once at it_value; TFD_TIMER_SEQ fires at it_value and then every
   it_interval.  read() of a descriptor made here returns a 4-byte count.
   Needs the fdevents kernel series; other kernels answer ENOSYS.  */
extern int timerfd (int __ufd, int __clockid, int __tmrtype,
		    const struct itimerspec *__utmr);

#ifdef __cplusplus
}
#endif

#ifndef TFD_CLOEXEC
# define TFD_CLOEXEC O_CLOEXEC
#endif
#ifndef TFD_NONBLOCK
# define TFD_NONBLOCK O_NONBLOCK
#endif
#ifndef TFD_TIMER_ABSTIME
# define TFD_TIMER_ABSTIME (1 << 0)
#endif
#ifndef TFD_TIMER_CANCEL_ON_SET
# define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif

/* Timer types of timerfd().  */
#ifndef TFD_TIMER_REL
# define TFD_TIMER_REL 1
#endif
#ifndef TFD_TIMER_ABS
# define TFD_TIMER_ABS 2
#endif
#ifndef TFD_TIMER_SEQ
# define TFD_TIMER_SEQ 3
#endif

#endif /* _FDEVENTS_SYS_TIMERFD_H */
