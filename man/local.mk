# Man pages, their EXAMPLES programs, and the tests of the pages.
# Included by the top-level Makefile.am (non-recursive, subdir-objects).

## The pages ###########################################################

# timerfd_settime.3 and timerfd_gettime.3 are one-line .so links to
# timerfd_create.3, as in the man-pages project.
dist_man_MANS += \
	man/man3/signalfd.3 \
	man/man3/timerfd.3 \
	man/man3/timerfd_create.3 \
	man/man3/timerfd_gettime.3 \
	man/man3/timerfd_settime.3 \
	man/man7/fdevents.7

## The EXAMPLES programs ###############################################

# Each page's EXAMPLES program (between its SRC BEGIN and SRC END
# markers) is extracted into the build tree, compiled against the
# uninstalled library, and run as a TAP test, on the host and in the QEMU
# guest.  The text given to --tap is what the program prints when the
# kernel lacks the fdevents series: under FDEVENTS_KERNEL=patched that
# fails the test.
man_examples = \
	man/examples/signalfd \
	man/examples/timerfd_create \
	man/examples/timerfd
check_PROGRAMS += $(man_examples)
TESTS += $(man_examples)
GUEST_TESTS += $(man_examples)
CLEANFILES += man/examples/signalfd.c man/examples/timerfd_create.c \
	man/examples/timerfd.c
EXTRA_DIST += man/extract-examples.sh man/run-example.h

# -no-install: the binaries run in place and are copied into the guest.
nodist_man_examples_signalfd_SOURCES = man/examples/signalfd.c
man_examples_signalfd_LDADD = src/libsignalfd.la
man_examples_signalfd_LDFLAGS = -no-install
nodist_man_examples_timerfd_create_SOURCES = man/examples/timerfd_create.c
man_examples_timerfd_create_LDADD = src/libtimerfd.la
man_examples_timerfd_create_LDFLAGS = -no-install
nodist_man_examples_timerfd_SOURCES = man/examples/timerfd.c
man_examples_timerfd_LDADD = src/libtimerfd.la
man_examples_timerfd_LDFLAGS = -no-install

man_extract = $(SHELL) $(srcdir)/man/extract-examples.sh --tap
man/examples/signalfd.c: man/man3/signalfd.3 man/extract-examples.sh man/run-example.h
	$(AM_V_GEN)$(MKDIR_P) man/examples && \
	$(man_extract) 'SFD_EXCLUSIVE not supported' \
	  $(srcdir)/man/man3/signalfd.3 > $@-t && mv -f $@-t $@
man/examples/timerfd_create.c: man/man3/timerfd_create.3 man/extract-examples.sh man/run-example.h
	$(AM_V_GEN)$(MKDIR_P) man/examples && \
	$(man_extract) '' \
	  $(srcdir)/man/man3/timerfd_create.3 > $@-t && mv -f $@-t $@
man/examples/timerfd.c: man/man3/timerfd.3 man/extract-examples.sh man/run-example.h
	$(AM_V_GEN)$(MKDIR_P) man/examples && \
	$(man_extract) 'timerfd() is not available' \
	  $(srcdir)/man/man3/timerfd.3 > $@-t && mv -f $@-t $@

## Tests of the pages (build host only) ################################

# man-lint.sh: mandoc -Tlint and groff -ww over every page, and the
# man-pages section order.  man-errors.sh: every errno in an ERRORS
# section is provoked by a test under tests/.  man-install.sh: make
# install-man into a DESTDIR, then man -w finds our pages.
# man-kernel-commands.sh: fdevents(7)'s and README.Debian's commands that
# apply the kernel series, run against a small copy of the pristine tree.
man_test_scripts = tests/man-lint.sh tests/man-errors.sh tests/man-install.sh \
	tests/man-kernel-commands.sh
TESTS += $(man_test_scripts)
EXTRA_DIST += $(man_test_scripts)

# For tests/man-install.sh: the install layout, as make install uses it.
man-print-mandir:
	@echo '$(mandir)'
.PHONY: man-print-mandir
