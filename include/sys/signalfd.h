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

/* glibc and musl both guard their header with _SYS_SIGNALFD_H; without it
   the structure, the flags and the prototype are ours to declare.  */
#ifndef _SYS_SIGNALFD_H
# include <fcntl.h>
# include <signal.h>
# include <stdint.h>

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

# ifdef __cplusplus
extern "C" {
# endif
extern int signalfd (int __fd, const sigset_t *__mask, int __flags);
# ifdef __cplusplus
}
# endif
#endif

#ifndef SFD_CLOEXEC
# define SFD_CLOEXEC O_CLOEXEC
#endif
#ifndef SFD_NONBLOCK
# define SFD_NONBLOCK O_NONBLOCK
#endif

/* Claim the signals of the mask for the calling thread group: while the
   descriptor is open they are delivered only through signalfds, with no
   sigprocmask().  Needs the fdevents kernel series; other kernels answer
   EINVAL.  See signalfd(3).  */
#ifndef SFD_EXCLUSIVE
# define SFD_EXCLUSIVE 0x00000001
#endif

/* The layout is the kernel's ABI: fail the build, not the read(), if a
   C library's structure ever differs from it.  C89 has no static_assert,
   hence the negative array size.  */
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
