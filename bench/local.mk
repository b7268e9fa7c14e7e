# make bench: boot the patched and the baseline kernel in QEMU, run the same
# benchmarks in both, count the wrappers' instructions with callgrind, and
# print one table of ratios (bench/README.md says what each figure means).
# Included from the top Makefile.am.  Nothing here runs in make check.

EXTRA_DIST += bench/README.md bench/run.sh bench/guest-init.sh \
	bench/report.awk bench/fdbench.c bench/wrapcost.c \
	bench/signalfd-wakeups.c bench/kernel.config

bench: all
	$(AM_V_at)srcdir='$(srcdir)' top_builddir='$(top_builddir)' \
	  CC='$(CC)' QEMU='$(QEMU)' BUSYBOX='$(BUSYBOX)' KERNEL='$(KERNEL)' \
	  $(SHELL) $(srcdir)/bench/run.sh
.PHONY: bench
