/* System call numbers added by the fdevents kernel series (internal).
   SPDX-License-Identifier: LGPL-2.1-or-later

   The library's one definition of each number, per architecture, chosen
   by the compiler's own macros.  Each must equal what kernel/patches/
   adds to that architecture's system call table (or to
   include/uapi/asm-generic/unistd.h); tests/test-syscall-numbers.sh
   checks every one of them against the series.

   timerfd() is 900 everywhere, with the architecture's offset where its
   numbers have one (x32's __X32_SYSCALL_BIT), except where 2.6.22's
   timerfd slot was kept reserved and the call takes it back: alpha,
   ia64, mips and s390.  900 is far above mainline's numbering and below
   1000, so a kernel without the series answers ENOSYS instead of running
   another call.

   An architecture not named here gets no number, and timerfd() fails
   with ENOSYS: a guessed number could run an unrelated system call.  */

#ifndef FDEVENTS_SYSCALL_NUMBERS_H
#define FDEVENTS_SYSCALL_NUMBERS_H

#if defined __x86_64__ && defined __ILP32__
# define FDEVENTS_NR_timerfd (0x40000000 + 900)	/* x32 */
#elif defined __x86_64__
# define FDEVENTS_NR_timerfd 900
#elif defined __i386__
# define FDEVENTS_NR_timerfd 900
#elif defined __aarch64__ && !defined __ILP32__
# define FDEVENTS_NR_timerfd 900		/* asm-generic */
#elif defined __arm__ && defined __ARM_EABI__
# define FDEVENTS_NR_timerfd 900		/* EABI; also arm64's compat */
#elif defined __riscv || defined __loongarch__ || defined __csky__ \
      || defined __arc__ || defined __hexagon__ || defined __nios2__ \
      || defined __or1k__
# define FDEVENTS_NR_timerfd 900		/* asm-generic */
#elif defined __powerpc__ || defined __sparc__ || defined __m68k__ \
      || defined __microblaze__ || defined __hppa__ || defined __sh__ \
      || defined __xtensa__
# define FDEVENTS_NR_timerfd 900
#elif defined __alpha__
# define FDEVENTS_NR_timerfd 477
#elif defined __ia64__
# define FDEVENTS_NR_timerfd (1024 + 284)
#elif defined __mips__ && defined _MIPS_SIM && defined _ABIO32 \
      && _MIPS_SIM == _ABIO32
# define FDEVENTS_NR_timerfd (4000 + 318)
#elif defined __mips__ && defined _MIPS_SIM && defined _ABI64 \
      && _MIPS_SIM == _ABI64
# define FDEVENTS_NR_timerfd (5000 + 277)
#elif defined __mips__ && defined _MIPS_SIM && defined _ABIN32 \
      && _MIPS_SIM == _ABIN32
# define FDEVENTS_NR_timerfd (6000 + 281)
#elif defined __s390__
# define FDEVENTS_NR_timerfd 317		/* s390 and s390x */
#endif

#endif
