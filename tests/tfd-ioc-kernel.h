/* tests/tfd-ioc-kernel.c: TFD_IOC_SET_TICKS of <linux/timerfd.h>.  */
#ifndef FDEVENTS_TESTS_TFD_IOC_KERNEL_H
#define FDEVENTS_TESTS_TFD_IOC_KERNEL_H

extern const unsigned long kernel_tfd_ioc_set_ticks;

#endif
