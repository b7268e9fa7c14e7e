/* System call numbers added by the fdevents kernel series (internal).
   SPDX-License-Identifier: LGPL-2.1-or-later

   The one definition the library uses.  It must equal the line the
   series adds to arch/x86/entry/syscalls/syscall_64.tbl; the test
   tests/test-syscall-numbers.sh compares the two.  548 and up are free
   for x86_64 ("64" ABI) in every mainline kernel, so a kernel without the
   series answers ENOSYS instead of running another call.  */

#ifndef FDEVENTS_SYSCALL_NUMBERS_H
#define FDEVENTS_SYSCALL_NUMBERS_H

#if defined(__x86_64__) && !defined(__ILP32__)
# define FDEVENTS_NR_timerfd 548
#endif

#endif
