/* The kernel's struct signalfd_siginfo, from <linux/signalfd.h>.  */
#include <linux/signalfd.h>

#include "siginfo-layout.h"

size_t kernel_siginfo_layout(struct field_layout *fields)
{
	struct signalfd_siginfo s;

#define X(f) \
	fields->name = #f; \
	fields->offset = offsetof(struct signalfd_siginfo, f); \
	fields->size = sizeof(s.f); \
	fields++;
	SIGINFO_FIELDS(X)
#undef X
	return sizeof(s);
}
