/* TFD_IOC_SET_TICKS as the kernel's <linux/timerfd.h> defines it, in a
 * file of its own: that header cannot be included beside <sys/timerfd.h>.
 * test-timerfd compares it with the value of ours.
 */
#include <linux/timerfd.h>

#include "tfd-ioc-kernel.h"

const unsigned long kernel_tfd_ioc_set_ticks = TFD_IOC_SET_TICKS;
