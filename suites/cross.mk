# suites/cross.mk — the example and test benchmark programs cross-built for
# other architectures, so that `{arch}` in a suite finds a binary for every
# host of a mixed run. Plain C, no libraries, linked statically: one file
# runs on any Linux of that architecture (and under qemu-user).
#
#   make cross-aarch64                      (the Makefile includes this file)
#   make -f suites/cross.mk cross-aarch64   (alone: tests/e2e/arch-check.sh)
#
# Needs Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross; says so
# when they are missing. Writes suites/example/bin/linux-aarch64/ and
# tests/progs/bin/linux-aarch64/, which `make clean` already removes. The
# example suite's data file comes from the Makefile's `suites` target, as
# for the native programs.
# Every variable here starts with CROSS_ so that including this file changes
# nothing in the Makefile that includes it.

# On an aarch64 Linux machine the native compiler does it.
CROSS_MACHINE := $(shell uname -sm)
ifneq ($(filter Linux-aarch64 Linux-arm64,$(subst $() ,-,$(CROSS_MACHINE))),)
  CROSS_AARCH64_CC ?= cc
else
  CROSS_AARCH64_CC ?= aarch64-linux-gnu-gcc
endif
CROSS_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
	-D_DEFAULT_SOURCE -static

CROSS_SUITE_BIN := suites/example/bin/linux-aarch64
CROSS_TPROG_BIN := tests/progs/bin/linux-aarch64
CROSS_AARCH64_PROGS := \
	$(patsubst suites/example/%.c,$(CROSS_SUITE_BIN)/%,$(wildcard suites/example/*.c)) \
	$(patsubst tests/progs/%.c,$(CROSS_TPROG_BIN)/%,$(wildcard tests/progs/*.c))

.PHONY: cross-aarch64 cross-aarch64-cc
cross-aarch64: $(CROSS_AARCH64_PROGS)

# Fails with the package names when the cross compiler is missing.
cross-aarch64-cc:
	@command -v $(CROSS_AARCH64_CC) >/dev/null 2>&1 || { \
		echo "cross.mk: $(CROSS_AARCH64_CC) not found; install it with:" \
		    "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" >&2; \
		exit 1; }

$(CROSS_SUITE_BIN)/%: suites/example/%.c | cross-aarch64-cc
	@mkdir -p $(@D)
	$(CROSS_AARCH64_CC) $(CROSS_CFLAGS) -o $@ $<
$(CROSS_TPROG_BIN)/%: tests/progs/%.c | cross-aarch64-cc
	@mkdir -p $(@D)
	$(CROSS_AARCH64_CC) $(CROSS_CFLAGS) -o $@ $<
