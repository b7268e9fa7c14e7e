/* tests/libc-syscall-deny.c: a kernel without some system calls, played
 * in the C library's syscall().  Declared weak: a test built without that
 * file (the guest's static ABI builds) sees a null function and uses a
 * seccomp filter instead.
 */
#ifndef FDEVENTS_TESTS_LIBC_SYSCALL_DENY_H
#define FDEVENTS_TESTS_LIBC_SYSCALL_DENY_H

void libc_syscall_deny(long nr1, long nr2) __attribute__((weak));

#endif
