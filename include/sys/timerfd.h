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

#include <time.h>

/* Declared at file scope so the prototypes below name this structure even
   where <time.h> hides it (strict C89 without a POSIX feature macro).  */
struct itimerspec;

/* The C library's declaration conventions (glibc's <sys/cdefs.h>, which
   <time.h> brings in), or their plain meaning without them.  */
#ifdef __BEGIN_DECLS
# define __FDEVENTS_BEGIN_DECLS __BEGIN_DECLS
# define __FDEVENTS_END_DECLS __END_DECLS
#elif defined __cplusplus
# define __FDEVENTS_BEGIN_DECLS extern "C" {
# define __FDEVENTS_END_DECLS }
#else
# define __FDEVENTS_BEGIN_DECLS
# define __FDEVENTS_END_DECLS
#endif
#ifdef __THROW
# define __FDEVENTS_THROW __THROW
#elif defined __cplusplus && __cplusplus >= 201103L
# define __FDEVENTS_THROW noexcept (true)
#elif defined __cplusplus
# define __FDEVENTS_THROW throw ()
#else
# define __FDEVENTS_THROW
#endif

/* The flags of timerfd_create(): O_CLOEXEC and O_NONBLOCK, whose values
   differ between architectures.  Written out, as the kernel's
   <asm/fcntl.h> has them, so that this header adds no <fcntl.h>.  */
#if defined __alpha__
# define __FDEVENTS_O_CLOEXEC 010000000
# define __FDEVENTS_O_NONBLOCK 00000004
#elif defined __hppa__
# define __FDEVENTS_O_CLOEXEC 010000000
# define __FDEVENTS_O_NONBLOCK 000200000
#elif defined __sparc__
# define __FDEVENTS_O_CLOEXEC 0x400000
# define __FDEVENTS_O_NONBLOCK 0x4000
#elif defined __mips__
# define __FDEVENTS_O_CLOEXEC 02000000
# define __FDEVENTS_O_NONBLOCK 0x0080
#else
# define __FDEVENTS_O_CLOEXEC 02000000
# define __FDEVENTS_O_NONBLOCK 00004000
#endif

__FDEVENTS_BEGIN_DECLS

/* glibc and musl both guard their header with _SYS_TIMERFD_H; without it
   the prototypes are ours to declare, as glibc declares them.  */
#ifndef _SYS_TIMERFD_H
extern int timerfd_create (int __clockid, int __flags) __FDEVENTS_THROW;
# if defined __USE_TIME_BITS64 && defined __REDIRECT_NTH
extern int __REDIRECT_NTH (timerfd_settime,
			   (int __ufd, int __flags,
			    const struct itimerspec *__utmr,
			    struct itimerspec *__otmr),
			   __timerfd_settime64);
extern int __REDIRECT_NTH (timerfd_gettime,
			   (int __ufd, struct itimerspec *__otmr),
			   __timerfd_gettime64);
# else
#  ifdef __USE_TIME_BITS64
#   define timerfd_settime __timerfd_settime64
#   define timerfd_gettime __timerfd_gettime64
#  endif
extern int timerfd_settime (int __ufd, int __flags,
			    const struct itimerspec *__utmr,
			    struct itimerspec *__otmr) __FDEVENTS_THROW;
extern int timerfd_gettime (int __ufd, struct itimerspec *__otmr)
  __FDEVENTS_THROW;
# endif
#endif

/* Create (UFD == -1) or re-arm the timer descriptor UFD on CLOCKID in one
   call.  TMRTYPE says which fields of *UTMR are read (the original 2007
   interface): TFD_TIMER_REL fires once it_interval from now; TFD_TIMER_ABS
   fires once at it_value; TFD_TIMER_SEQ fires at it_value and then every
   it_interval.  read() of a descriptor made here returns a 4-byte count.
   Needs the fdevents kernel series; other kernels answer ENOSYS.
   A C library that declares it too must declare this prototype.
   Under _TIME_BITS=64 on a 32-bit target it is the library's 64-bit-time
   __timerfd64, as the C library's own calls are renamed there.  */
#if defined __USE_TIME_BITS64 && defined __REDIRECT_NTH
extern int __REDIRECT_NTH (timerfd,
			   (int __ufd, int __clockid, int __tmrtype,
			    const struct itimerspec *__utmr),
			   __timerfd64);
#else
# ifdef __USE_TIME_BITS64
#  define timerfd __timerfd64
# endif
extern int timerfd (int __ufd, int __clockid, int __tmrtype,
		    const struct itimerspec *__utmr) __FDEVENTS_THROW;
#endif

__FDEVENTS_END_DECLS

/* Flags the C library may define already (glibc does, with enums): then
   its value must be ours, which the build checks below.  */
#ifndef TFD_CLOEXEC
# define TFD_CLOEXEC __FDEVENTS_O_CLOEXEC
#endif
#ifndef TFD_NONBLOCK
# define TFD_NONBLOCK __FDEVENTS_O_NONBLOCK
#endif
#ifndef TFD_TIMER_ABSTIME
# define TFD_TIMER_ABSTIME (1 << 0)
#endif
#ifndef TFD_TIMER_CANCEL_ON_SET
# define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif

/* The ioctl that sets a timer's count of expirations, for checkpoint and
   restore: the kernel's _IOW ('T', 0, __u64) of <linux/timerfd.h>, which
   glibc's <sys/timerfd.h> lacks and which cannot be included beside it.
   Written out in each architecture's ioctl encoding, as the flags above
   are, so that this header adds no <sys/ioctl.h>.  */
#ifndef TFD_IOC_SET_TICKS
# if defined __alpha__ || defined __hppa__ || defined __mips__ \
     || defined __powerpc__ || defined __sparc__
#  define TFD_IOC_SET_TICKS 0x80085400U
# else
#  define TFD_IOC_SET_TICKS 0x40085400U
# endif
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

/* A constant the C library already defines must have our value: fail
   the build, not the call, if it ever differs.  C89 has no
   static_assert, hence the negative array size.  */
#define __FDEVENTS_TFD_IS(name, value) \
  typedef char __fdevents_tfd_##name[(name) == (value) ? 1 : -1]
__FDEVENTS_TFD_IS (TFD_CLOEXEC, __FDEVENTS_O_CLOEXEC);
__FDEVENTS_TFD_IS (TFD_NONBLOCK, __FDEVENTS_O_NONBLOCK);
__FDEVENTS_TFD_IS (TFD_TIMER_ABSTIME, 1);
__FDEVENTS_TFD_IS (TFD_TIMER_CANCEL_ON_SET, 2);
__FDEVENTS_TFD_IS (TFD_TIMER_REL, 1);
__FDEVENTS_TFD_IS (TFD_TIMER_ABS, 2);
__FDEVENTS_TFD_IS (TFD_TIMER_SEQ, 3);
#undef __FDEVENTS_TFD_IS

#endif /* _FDEVENTS_SYS_TIMERFD_H */
