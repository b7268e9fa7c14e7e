/* The struct signalfd_siginfo our <sys/signalfd.h> defines where the C
 * library has none: its text, cut out of the header at build time
 * (tests/siginfo-layout-header.h), measured here under another name, since
 * the C library's structure of the same name is in the other units.
 */
#include <stdint.h>

#include "siginfo-layout.h"

#define signalfd_siginfo fdevents_header_siginfo
#include "tests/siginfo-layout-header.h"

size_t header_siginfo_layout(struct field_layout *fields)
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
