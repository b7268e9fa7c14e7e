/* <sys/signalfd.h> of fdevents: signalfd(2) through libsignalfd.
   Copyright (C) 2026 The fdevents authors.
   SPDX-License-Identifier: LGPL-2.1-or-later

   This header stands beside the C library's, not over it: it includes the
   C library's <sys/signalfd.h> where one exists and adds only what that
   lacks.  Install it in $(includedir)/fdevents/sys and compile with
   `pkg-config --cflags libsignalfd' (-isystem, so #include_next works).  */

#ifndef _FDEVENTS_SYS_SIGNALFD_H
#define _FDEVENTS_SYS_SIGNALFD_H 1

#ifdef __has_include_next
# if __has_include_next(<sys/signalfd.h>)
#  include_next <sys/signalfd.h>
# endif
#else
# include_next <sys/signalfd.h>
#endif

#include <signal.h>

/* The C library's declaration conventions (glibc's <sys/cdefs.h>, which
   <signal.h> brings in), or their plain meaning without them.  */
#ifdef __BEGIN_DECLS
# define __FDEVENTS_SFD_BEGIN_DECLS __BEGIN_DECLS
# define __FDEVENTS_SFD_END_DECLS __END_DECLS
#elif defined __cplusplus
# define __FDEVENTS_SFD_BEGIN_DECLS extern "C" {
# define __FDEVENTS_SFD_END_DECLS }
#else
# define __FDEVENTS_SFD_BEGIN_DECLS
# define __FDEVENTS_SFD_END_DECLS
#endif
#ifdef __THROW
# define __FDEVENTS_SFD_THROW __THROW
#elif defined __cplusplus && __cplusplus >= 201103L
# define __FDEVENTS_SFD_THROW noexcept (true)
#elif defined __cplusplus
# define __FDEVENTS_SFD_THROW throw ()
#else
# define __FDEVENTS_SFD_THROW
#endif
#ifdef __nonnull
# define __FDEVENTS_SFD_NONNULL(params) __nonnull (params)
#elif defined __GNUC__ && (__GNUC__ > 3 || (__GNUC__ == 3 && __GNUC_MINOR__ >= 3))
# define __FDEVENTS_SFD_NONNULL(params) __attribute__ ((__nonnull__ params))
#else
# define __FDEVENTS_SFD_NONNULL(params)
#endif

/* The flags of signalfd(): O_CLOEXEC and O_NONBLOCK, whose values differ
   between architectures.  Written out, as the kernel's <asm/fcntl.h> has
   them, so that this header adds no <fcntl.h>.  */
#if defined __alpha__
# define __FDEVENTS_SFD_O_CLOEXEC 010000000
# define __FDEVENTS_SFD_O_NONBLOCK 00000004
#elif defined __hppa__
# define __FDEVENTS_SFD_O_CLOEXEC 010000000
# define __FDEVENTS_SFD_O_NONBLOCK 000200000
#elif defined __sparc__
# define __FDEVENTS_SFD_O_CLOEXEC 0x400000
# define __FDEVENTS_SFD_O_NONBLOCK 0x4000
#elif defined __mips__
# define __FDEVENTS_SFD_O_CLOEXEC 02000000
# define __FDEVENTS_SFD_O_NONBLOCK 0x0080
#else
# define __FDEVENTS_SFD_O_CLOEXEC 02000000
# define __FDEVENTS_SFD_O_NONBLOCK 00004000
#endif

/* glibc and musl both guard their header with _SYS_SIGNALFD_H; without it
   the structure, the flags and the prototype are ours to declare.  */
#ifndef _SYS_SIGNALFD_H
# include <stdint.h>
/* glibc's <signal.h> defines sigset_t only for POSIX programs (strict
   ISO C has none); its <sys/signalfd.h> takes it from here.  */
# ifdef __has_include
#  if __has_include(<bits/types/sigset_t.h>)
#   include <bits/types/sigset_t.h>
#  endif
# endif

/* Field for field the kernel's include/uapi/linux/signalfd.h.  */
struct signalfd_siginfo
{
  uint32_t ssi_signo;
  int32_t ssi_errno;
  int32_t ssi_code;
  uint32_t ssi_pid;
  uint32_t ssi_uid;
  int32_t ssi_fd;
  uint32_t ssi_tid;
  uint32_t ssi_band;
  uint32_t ssi_overrun;
  uint32_t ssi_trapno;
  int32_t ssi_status;
  int32_t ssi_int;
  uint64_t ssi_ptr;
  uint64_t ssi_utime;
  uint64_t ssi_stime;
  uint64_t ssi_addr;
  uint16_t ssi_addr_lsb;
  uint16_t __pad2;
  int32_t ssi_syscall;
  uint64_t ssi_call_addr;
  uint32_t ssi_arch;
  uint8_t __pad[28];
};

__FDEVENTS_SFD_BEGIN_DECLS
/* As glibc declares it.  */
extern int signalfd (int __fd, const sigset_t *__mask, int __flags)
  __FDEVENTS_SFD_THROW __FDEVENTS_SFD_NONNULL ((2));
__FDEVENTS_SFD_END_DECLS
#endif

/* Flags the C library may define already (glibc does, with enums): then
   its value must be ours, which the build checks below.  */
#ifndef SFD_CLOEXEC
# define SFD_CLOEXEC __FDEVENTS_SFD_O_CLOEXEC
#endif
#ifndef SFD_NONBLOCK
# define SFD_NONBLOCK __FDEVENTS_SFD_O_NONBLOCK
#endif

/* Claim the signals of the mask for the calling thread group: while the
   descriptor is open they are delivered only through signalfds, with no
   sigprocmask().  Needs the fdevents kernel series; other kernels answer
   EINVAL.  See signalfd(3).  */
#define __FDEVENTS_SFD_EXCLUSIVE 0x00000001
#ifndef SFD_EXCLUSIVE
# define SFD_EXCLUSIVE __FDEVENTS_SFD_EXCLUSIVE
#endif

/* A constant the C library already defines must have our value, and the
   structure's layout is the kernel's ABI: fail the build, not the call or
   the read(), if either ever differs.  C89 has no static_assert, hence the
   negative array size.  */
#define __FDEVENTS_SFD_IS(name, value) \
  typedef char __fdevents_sfd_##name[(name) == (value) ? 1 : -1]
__FDEVENTS_SFD_IS (SFD_CLOEXEC, __FDEVENTS_SFD_O_CLOEXEC);
__FDEVENTS_SFD_IS (SFD_NONBLOCK, __FDEVENTS_SFD_O_NONBLOCK);
__FDEVENTS_SFD_IS (SFD_EXCLUSIVE, __FDEVENTS_SFD_EXCLUSIVE);
#undef __FDEVENTS_SFD_IS

#define __FDEVENTS_SSI_AT(field, offset) \
  typedef char __fdevents_ssi_##field[ \
    __builtin_offsetof (struct signalfd_siginfo, field) == (offset) ? 1 : -1]
__FDEVENTS_SSI_AT (ssi_signo, 0);
__FDEVENTS_SSI_AT (ssi_errno, 4);
__FDEVENTS_SSI_AT (ssi_code, 8);
__FDEVENTS_SSI_AT (ssi_pid, 12);
__FDEVENTS_SSI_AT (ssi_uid, 16);
__FDEVENTS_SSI_AT (ssi_fd, 20);
__FDEVENTS_SSI_AT (ssi_tid, 24);
__FDEVENTS_SSI_AT (ssi_band, 28);
__FDEVENTS_SSI_AT (ssi_overrun, 32);
__FDEVENTS_SSI_AT (ssi_trapno, 36);
__FDEVENTS_SSI_AT (ssi_status, 40);
__FDEVENTS_SSI_AT (ssi_int, 44);
__FDEVENTS_SSI_AT (ssi_ptr, 48);
__FDEVENTS_SSI_AT (ssi_utime, 56);
__FDEVENTS_SSI_AT (ssi_stime, 64);
__FDEVENTS_SSI_AT (ssi_addr, 72);
__FDEVENTS_SSI_AT (ssi_addr_lsb, 80);
__FDEVENTS_SSI_AT (ssi_syscall, 84);
__FDEVENTS_SSI_AT (ssi_call_addr, 88);
__FDEVENTS_SSI_AT (ssi_arch, 96);
typedef char __fdevents_ssi_size[
  sizeof (struct signalfd_siginfo) == 128 ? 1 : -1];
#undef __FDEVENTS_SSI_AT

#endif /* _FDEVENTS_SYS_SIGNALFD_H */
