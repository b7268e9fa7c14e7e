/* struct signalfd_siginfo as three headers see it: ours (over the C
 * library's), ours alone (where the C library has none) and the kernel's
 * <linux/signalfd.h>.  They cannot be included in one file (each defines
 * the structure), so each is measured in its own translation unit.
 */
#ifndef FDEVENTS_TESTS_SIGINFO_LAYOUT_H
#define FDEVENTS_TESTS_SIGINFO_LAYOUT_H

#include <stddef.h>

#define SIGINFO_FIELDS(X) \
	X(ssi_signo) X(ssi_errno) X(ssi_code) X(ssi_pid) X(ssi_uid) \
	X(ssi_fd) X(ssi_tid) X(ssi_band) X(ssi_overrun) X(ssi_trapno) \
	X(ssi_status) X(ssi_int) X(ssi_ptr) X(ssi_utime) X(ssi_stime) \
	X(ssi_addr) X(ssi_addr_lsb) X(ssi_syscall) X(ssi_call_addr) \
	X(ssi_arch)

struct field_layout {
	const char *name;
	size_t offset;
	size_t size;
};

/* Fill the table (in SIGINFO_FIELDS order); return the structure's size. */
size_t kernel_siginfo_layout(struct field_layout *fields);
/* The same for the structure our header defines where the C library's
 * <sys/signalfd.h> is missing (tests/siginfo-layout-header.c).  */
size_t header_siginfo_layout(struct field_layout *fields);

#endif
