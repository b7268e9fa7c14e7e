/* System call numbers added by the fdevents kernel series (internal).
   SPDX-License-Identifier: LGPL-2.1-or-later

   The library's one definition of each number.  It must equal the line
   kernel/patches/0001-*.patch adds to arch/x86/entry/syscalls/syscall_64.tbl
   ("548  64  timerfd  sys_timerfd"); tests/test-syscall-numbers.sh checks
   that.  548 and up are free for x86_64 ("64" ABI) in every mainline
   kernel, so a kernel without the series answers ENOSYS instead of running
   another call.  The series wires the call up for x86_64 only: elsewhere
   (x32 and 32-bit included) no number is defined and the wrapper fails
   with ENOSYS.  */

#ifndef FDEVENTS_SYSCALL_NUMBERS_H
#define FDEVENTS_SYSCALL_NUMBERS_H

#if defined(__x86_64__) && !defined(__ILP32__)
# define FDEVENTS_NR_timerfd 548
#endif

#endif
