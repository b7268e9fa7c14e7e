/* struct signalfd_siginfo as a program sees it through our header (the C
 * library's, where it has one), and as our header defines it where the C
 * library has none, each against the kernel's <linux/signalfd.h>: same
 * size, and every field at the same offset with the same width.  The
 * header's static assertions check fixed numbers at compile time; this
 * compares with the kernel headers actually installed.
 */
#include <sys/signalfd.h>

#include "siginfo-layout.h"
#include "tap.h"

int main(void)
{
	struct field_layout kernel[32], ours[32], header[32];
	struct signalfd_siginfo s;
	struct field_layout *o = ours;
	size_t ksize = kernel_siginfo_layout(kernel);
	size_t hsize = header_siginfo_layout(header);
	size_t i, n;

#define X(f) \
	o->name = #f; \
	o->offset = offsetof(struct signalfd_siginfo, f); \
	o->size = sizeof(s.f); \
	o++;
	SIGINFO_FIELDS(X)
#undef X
	n = (size_t)(o - ours);

	is(sizeof(s), 128, "struct signalfd_siginfo is 128 bytes");
	is(sizeof(s), ksize, "same size as the kernel's");
	for (i = 0; i < n; i++)
		ok(ours[i].offset == kernel[i].offset &&
		   ours[i].size == kernel[i].size,
		   "%s at offset %zu, %zu bytes (kernel: %zu, %zu)",
		   ours[i].name, ours[i].offset, ours[i].size,
		   kernel[i].offset, kernel[i].size);
	is(hsize, ksize, "our header's own structure: %zu bytes, as the kernel's", hsize);
	for (i = 0; i < n; i++)
		ok(header[i].offset == kernel[i].offset &&
		   header[i].size == kernel[i].size,
		   "our header's own structure: %s at offset %zu, %zu bytes (kernel: %zu, %zu)",
		   header[i].name, header[i].offset, header[i].size,
		   kernel[i].offset, kernel[i].size);
	return done_testing();
}
