# orch — distributed benchmark orchestrator.  Plain GNU make.
#
#   make                      build bin/orch, bin/orch-agent and the example suites
#   make demo                 install what is missing, then run suites/example.ini on `local`
#   make check                install what is missing (build + test sets), then every test
#   make check-fresh          make demo and make check on a clean Debian 12 root (CI runs it)
#   make bench                install the bench set too, then docs/performance.md's tables
#   make check-quick          the unit tests, a few end-to-end tests and the checks
#                             of the tree (layers, style): about a minute (HACKING.md)
#   make check-layers, make check-style   those checks alone, each after its self-test
#   make check-docs           orch doc check on docs/performance.md (its figures are its records')
#   make compdb               compile_commands.json: the build's commands, for tools
#   make SANITIZE=address,undefined   a sanitized tree in build/san/ (bin in build/san/bin);
#                             any other set in its own, e.g. SANITIZE=thread: build/san-thread/
#   make install [PREFIX=/usr/local] [DESTDIR=]   the programs to PREFIX/bin, the
#                             prebuilt agents (bin/OS-ARCH/) to PREFIX/libexec/orch

.DEFAULT_GOAL := all
comma := ,
empty :=
space := $(empty) $(empty)
SHELL := /bin/bash

CC      ?= cc
# The agent needs only these; `make agent` builds it alone (orch deploy
# runs that on hosts without a prebuilt agent, e.g. the M2).
# Homebrew's msgpack 6 calls itself msgpack-c; Debian's 4.0 msgpack.
MSGPACK_PC := $(shell pkg-config --exists msgpack-c && echo msgpack-c || echo msgpack)
AGENT_PKGS := nanomsg $(MSGPACK_PC) libcrypto
COORD_PKGS := libssh2 $(AGENT_PKGS) inih sqlite3
# What the sources are compiled against; `make agent` narrows it.
PKGS    ?= $(COORD_PKGS)
UNAME_S := $(shell uname -s)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wconversion -Wno-sign-conversion -Wpointer-arith \
	-Wcast-qual -Wvla -Wno-format-truncation -Wno-unknown-warning-option -Werror
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -D_DARWIN_C_SOURCE
OPT  ?= -O2 -g

# SANITIZE: a comma-separated subset of address,undefined,leak,thread.
# Each set builds in its own tree, so that one never overwrites another's
# objects: ASan+UBSan (make check's, and what the end-to-end tests run
# with ORCH_BIN_DIR=build/san/bin) in build/san, any other set in
# build/san-SET (its names sorted, joined by -: build/san-thread).
SANITIZE ?=
ifneq ($(SANITIZE),)
  san_set := $(sort $(subst $(comma), ,$(SANITIZE)))
  bad_san := $(filter-out address undefined leak thread,$(san_set))
  ifneq ($(bad_san),)
    $(error SANITIZE: unknown value(s) '$(bad_san)'; allowed: address, undefined, leak, thread)
  endif
  san_dir := $(subst $(space),-,$(san_set))
  O    := build/san$(if $(filter address-undefined,$(san_dir)),,-$(san_dir))
  SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  OPT  := -O1 -g
else
  O    := build/default
  SANFLAGS :=
endif
BIN := $(if $(SANITIZE),$(O)/bin,bin)

# pkg-config's own words say which library is missing (make deps-build
# installs them); its errors are not hidden.
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   = $(shell pkg-config --libs cmocka)

CFLAGS_ALL  = $(CSTD) $(OPT) $(WARN) $(SANFLAGS) -I. $(PKG_CFLAGS) -MMD -MP $(CFLAGS)
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)
# Each program links what it uses: the agent (and the test tools, which
# link libproto only) neither libssh2 nor inih.
# (LIBS is asked for when orch or a unit test links: `make agent` on a
# host without libssh2 or inih never asks.)
AGENT_LIBS := $(shell pkg-config --libs $(AGENT_PKGS)) -lpthread -lm
LIBS        = $(shell pkg-config --libs $(COORD_PKGS)) -lpthread -lm

ifeq ($(UNAME_S),Darwin)
  OS_SUFFIX := darwin
else
  OS_SUFFIX := linux
endif

PROTO_SRC := $(wildcard proto/*.c)
AGENT_SRC := $(filter-out agent/main.c $(wildcard agent/*-linux.c agent/*-darwin.c),$(wildcard agent/*.c)) \
	$(wildcard agent/*-$(OS_SUFFIX).c)
COORD_SRC := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c coordinator/*/*.c))
UNIT_SRC  := $(wildcard tests/unit/test-*.c)

PROTO_OBJ := $(PROTO_SRC:%.c=$(O)/obj/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(O)/obj/%.o)
COORD_OBJ := $(COORD_SRC:%.c=$(O)/obj/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

LIBPROTO := $(O)/lib/libproto.a
LIBAGENT := $(O)/lib/libagent.a
LIBCOORD := $(O)/lib/libcoord.a

# Rebuild everything when the flags change.
FLAGS_FILE := $(O)/.flags
FLAGS_NOW  := $(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) $(AGENT_LIBS)
$(shell mkdir -p $(O); [ "$$(cat $(FLAGS_FILE) 2>/dev/null)" = '$(FLAGS_NOW)' ] || printf '%s' '$(FLAGS_NOW)' > $(FLAGS_FILE))

# agent: the agent alone, with only its libraries (what orch deploy runs).
agent:
	@$(MAKE) --no-print-directory PKGS='$(AGENT_PKGS)' $(BIN)/orch-agent $(BIN)/orch-null

.PHONY: check-stats docs-stats
.PHONY: install tools agent all programs demo lab-units check check-unit check-san check-valgrind check-e2e check-san-e2e check-tsan-e2e \
	deps deps-build deps-test deps-bench deps-check check-commands check-fresh clean bench fuzz fuzz-smoke \
	check-layers check-style check-quick compdb check-docs

all: deps-check programs suites

programs: $(BIN)/orch $(BIN)/orch-agent $(BIN)/orch-null

# The floor program: static where the C library allows (not on macOS).
NULL_LDFLAGS := $(if $(filter Darwin,$(UNAME_S)),,-static)
$(BIN)/orch-null: agent/null/orch-null.c
	@mkdir -p $(@D)
	$(CC) -O2 -o $@ $< $(NULL_LDFLAGS) || { echo "orch-null: cannot link it" \
		"statically (above): linking it dynamically" >&2; $(CC) -O2 -o $@ $<; }

$(O)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIBPROTO): $(PROTO_OBJ)
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^
$(LIBAGENT): $(AGENT_OBJ)
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^
$(LIBCOORD): $(COORD_OBJ)
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^

$(BIN)/orch-agent: $(O)/obj/agent/main.o $(LIBAGENT) $(LIBPROTO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(AGENT_LIBS)

$(BIN)/orch: $(O)/obj/coordinator/main.o $(LIBCOORD) $(LIBPROTO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

# The synthetic records (tests/unit/synth.c) that unit tests and calib share:
# an object linked into each, not a test of its own.
SYNTH_OBJ := $(O)/obj/tests/unit/synth.o
$(O)/tests/%: tests/unit/%.c $(SYNTH_OBJ) $(LIBCOORD) $(LIBAGENT) $(LIBPROTO) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CMOCKA_CFLAGS) -Wno-missing-prototypes -o $@ $< \
		$(LDFLAGS_ALL) $(SYNTH_OBJ) $(LIBCOORD) $(LIBAGENT) $(LIBPROTO) $(CMOCKA_LIBS) $(LIBS)

# check-stats: the calibration of docs/statistics.md, simulated through the
# real record and analysis (fixed seeds; about a minute on 2 cores). It
# checks the targets of docs/statistics.md and that its table is this output;
# docs-stats rewrites that table.
CALIB := $(O)/tests/calib
$(CALIB): tests/stats/calib.c $(SYNTH_OBJ) $(LIBCOORD) $(LIBAGENT) $(LIBPROTO) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL) $(SYNTH_OBJ) $(LIBCOORD) \
		$(LIBAGENT) $(LIBPROTO) $(LIBS)
check-stats: $(CALIB)
	@$(CALIB) --doc docs/statistics.md
docs-stats: $(CALIB)
	@./tests/stats/render-doc.sh $(CALIB) docs/statistics.md

# Test tools: programs the end-to-end tests drive (e.g. a hostile peer).
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOLS    := $(TOOL_SRC:tests/tools/%.c=$(O)/tools/%)
$(O)/tools/%: tests/tools/%.c $(LIBPROTO) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL) $(LIBPROTO) $(AGENT_LIBS)
# gen-history writes records through the coordinator's own writer.
$(O)/tools/gen-history: tests/tools/gen-history.c $(LIBCOORD) $(LIBPROTO) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL) $(LIBCOORD) $(LIBPROTO) $(LIBS)
tools: $(TOOLS)

-include $(wildcard $(O)/obj/*/*.d $(O)/obj/*/*/*.d $(O)/obj/*/*/*/*.d)

# ---- install --------------------------------------------------------------
# PREFIX/bin: orch, orch-agent (orch runs it beside itself for `local`),
# orch-null (the agent finds it beside itself). PREFIX/libexec/orch/OS-ARCH:
# the prebuilt agents of bin/OS-ARCH/ and bin/agents/OS-ARCH/, where an
# installed orch looks for them (deploy_prebuilt_path).
PREFIX  ?= /usr/local
DESTDIR ?=
PREBUILT_DIRS := $(patsubst %/orch-agent,%,$(wildcard bin/*-*/orch-agent bin/agents/*-*/orch-agent))
install: programs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN)/orch $(BIN)/orch-agent $(BIN)/orch-null $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 docs/orch.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	for d in $(PREBUILT_DIRS); do \
		to=$(DESTDIR)$(PREFIX)/libexec/orch/$${d##*/}; \
		install -d $$to && install -m 0755 $$d/orch-agent $$to/ || exit 1; \
		if test -f $$d/orch-null; then install -m 0755 $$d/orch-null $$to/ || exit 1; fi; \
	done

# The manual page: written by orch from the table of its options
# (coordinator/cli/usage.c); tests/e2e/t-cli.sh fails when docs/orch.1 is stale.
.PHONY: man
man: $(BIN)/orch
	$(BIN)/orch help --man > docs/orch.1

# ---- example and test benchmark programs (plain C, no libraries) ----------
SUITE_OS   := $(if $(filter Darwin,$(UNAME_S)),darwin,linux)
SUITE_ARCH := $(shell uname -m | sed -e 's/arm64/aarch64/' -e 's/amd64/x86_64/')
SUITE_BIN  := suites/example/bin/$(SUITE_OS)-$(SUITE_ARCH)
TPROG_BIN  := tests/progs/bin/$(SUITE_OS)-$(SUITE_ARCH)
SUITE_PROGS := $(patsubst suites/example/%.c,$(SUITE_BIN)/%,$(wildcard suites/example/*.c))
TEST_PROGS  := $(patsubst tests/progs/%.c,$(TPROG_BIN)/%,$(wildcard tests/progs/*.c))
PROG_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE

.PHONY: suites
suites: $(SUITE_PROGS) $(TEST_PROGS) suites/example/data.bin

$(SUITE_BIN)/%: suites/example/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(TPROG_BIN)/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $<
suites/example/data.bin:
	seq 1 50000 > $@

# ---- other architectures ----------------------------------------------------
# make cross-aarch64: the example and test programs for aarch64 Linux.
-include suites/cross.mk
# make darwin, make check-darwin: the agent and programs for macOS arm64.
-include darwin.mk

.PHONY: check-arch
# The mixed-architecture run: two x86_64 lab hosts and one aarch64 host
# (qemu-user); prints "arch-check: SKIPPED: <reason>" where it cannot run.
check-arch: programs suites
	@bash tests/e2e/arch-check.sh

# ---- fuzzing (clang's libFuzzer) ------------------------------------------
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 300
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -I.
FUZZ_BIN   := build/fuzz
FUZZERS    := $(FUZZ_BIN)/fuzz-proto $(FUZZ_BIN)/fuzz-suite $(FUZZ_BIN)/fuzz-inventory \
	$(FUZZ_BIN)/fuzz-knownhosts \
	$(FUZZ_BIN)/fuzz-record $(FUZZ_BIN)/fuzz-sshconfig $(FUZZ_BIN)/fuzz-docmark
$(FUZZ_BIN)/fuzz-docmark: tests/fuzz/fuzz-docmark.c coordinator/input/docmark.c proto/xmalloc.c proto/log.c proto/ident.c ; @mkdir -p $(@D) && $(FUZZ_CC) $(FUZZ_FLAGS) $^ -lpthread -o $@

$(FUZZ_BIN)/fuzz-proto: tests/fuzz/fuzz-proto.c proto/seal.c proto/msg.c proto/hash.c proto/log.c proto/ident.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs $(MSGPACK_PC) libcrypto) -lpthread -o $@
$(FUZZ_BIN)/fuzz-suite: tests/fuzz/fuzz-suite.c coordinator/input/suite.c coordinator/input/suite-claims.c coordinator/input/ini.c coordinator/analysis/rng.c proto/log.c proto/ident.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs inih) -lpthread -o $@
$(FUZZ_BIN)/fuzz-inventory: tests/fuzz/fuzz-inventory.c coordinator/hosts/inventory.c coordinator/hosts/sshconfig.c coordinator/input/address.c coordinator/input/ini.c proto/ident.c proto/util.c proto/xmalloc.c proto/log.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs inih) -lpthread -o $@
# The record loader, the analysis and every report writer: the layers
# below the run, whole (docs/architecture.md), and the shared base.
FUZZ_RECORD_SRC := $(wildcard coordinator/input/*.c coordinator/store/*.c \
	coordinator/analysis/*.c coordinator/report/*.c) $(PROTO_SRC)
$(FUZZ_BIN)/fuzz-record: tests/fuzz/fuzz-record.c $(FUZZ_RECORD_SRC)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs $(MSGPACK_PC) inih libcrypto sqlite3 nanomsg) -lpthread -lm -o $@

$(FUZZ_BIN)/fuzz-sshconfig: tests/fuzz/fuzz-sshconfig.c coordinator/hosts/sshconfig.c coordinator/hosts/inventory.c coordinator/input/address.c coordinator/input/ini.c proto/ident.c proto/util.c proto/xmalloc.c proto/log.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs inih) -lpthread -o $@
$(FUZZ_BIN)/fuzz-knownhosts: tests/fuzz/fuzz-knownhosts.c coordinator/hosts/knownhosts.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $^ $$(pkg-config --cflags --libs libcrypto) -o $@

# fuzz: each target FUZZ_TIME seconds (new inputs go to a scratch corpus,
# the committed seeds are only read); fuzz-smoke: 30 s each, in make check.
fuzz: $(FUZZERS)
	@./tests/run-fuzz.sh $(FUZZ_TIME) $(FUZZERS)
fuzz-smoke: $(FUZZERS)
	@./tests/run-fuzz.sh 30 $(FUZZERS)

# ---- orch's own performance -----------------------------------------------
# make bench: every table of docs/performance.md, measured side by side with
# its peer (hyperfine, a bare posix_spawn loop, scp), then the document.
bench: deps-bench programs suites
	@bash bench/run.sh

# ---- dependencies ---------------------------------------------------------
# Three sets of Debian packages, each what its job runs (tests/commands.txt
# maps every command the scripts call to its package; `make check-commands`
# proves each is in a set). BASE_DEBS: a minimal Debian root has them.
BASE_DEBS  := apt bash bsdutils coreutils dash debianutils diffutils dpkg findutils \
	grep gzip hostname libc-bin mawk mount perl-base sed tar util-linux
# make, make programs, make demo: the compiler and the six libraries
# (libsqlite3: the coordinator's history store only, never the agent).
BUILD_DEBS := build-essential pkg-config libssh2-1-dev libnanomsg-dev libmsgpack-dev \
	libssl-dev libinih-dev libsqlite3-dev
# make check: unit tests (cmocka, valgrind), the test lab (sshd, network
# namespaces), the fuzzers (clang), the report's screenshot (chromium,
# python3), the aarch64 host (qemu-user, mmdebstrap, a cross compiler),
# check-fresh (mmdebstrap, git), the macOS arm64 build (npm fetches its
# compiler; darwin.mk), the Slurm test cluster (tests/lab/slurm.sh).
TEST_DEBS  := libcmocka-dev valgrind openssh-server openssh-client nanomsg-utils \
	iproute2 procps jq clang libclang-rt-14-dev chromium python3-minimal git \
	qemu-user-static binfmt-support mmdebstrap arch-test \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross npm xz-utils \
	munge slurmctld slurmd slurm-client
# What comes from the npm registry instead (darwin.mk installs it).
NPM_PKGS   := $(DARWIN_ZIG_NPM)
# make bench: the peers and the profilers.
BENCH_DEBS := hyperfine time linux-perf gdb
BREW_BUILD := pkg-config nanomsg msgpack openssl libssh2 inih sqlite
BREW_TEST  := cmocka jq
BREW_BENCH := hyperfine

# deps-build / deps-test / deps-bench: install what is missing of that set
# and the ones before it (root + apt-get), else print the exact command.
# deps-check: never installs; what `make` needs.
deps-build:
	@./tests/deps.sh install build $(BUILD_DEBS) -- $(BREW_BUILD)
deps-test:
	@./tests/deps.sh install test $(BUILD_DEBS) $(TEST_DEBS) -- $(BREW_BUILD) $(BREW_TEST)
deps-bench:
	@./tests/deps.sh install bench $(BUILD_DEBS) $(TEST_DEBS) $(BENCH_DEBS) -- \
		$(BREW_BUILD) $(BREW_TEST) $(BREW_BENCH)
deps: deps-test
deps-check:
	@./tests/deps.sh check build $(BUILD_DEBS) -- $(BREW_BUILD)

# check-commands: every command a test, bench or CI script runs comes from
# a package of these sets (and dpkg agrees where it is installed).
SCANNED := $(wildcard tests/*.sh tests/e2e/*.sh tests/lab/*.sh tests/stats/*.sh bench/*.sh) .ci/run \
	Makefile suites/cross.mk darwin.mk
check-commands:
	@perl tests/scan-commands.pl --map=tests/commands.txt --base='$(BASE_DEBS)' \
		--build='$(BUILD_DEBS)' --test='$(TEST_DEBS)' --bench='$(BENCH_DEBS)' \
		--npm='$(NPM_PKGS)' $(SCANNED)

# ---- top-level jobs -------------------------------------------------------
# ORCH_FLAGS: options for orch run, e.g. make demo ORCH_FLAGS=--max-load=0
demo: deps-build
	@$(MAKE) --no-print-directory all
	./bin/orch run $(ORCH_FLAGS) suites/example.ini

check: deps-test
	@$(MAKE) --no-print-directory check-commands
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory check-style
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-docs
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-stats
	@$(MAKE) --no-print-directory SANITIZE=address,undefined check-unit
	@$(MAKE) --no-print-directory SANITIZE=thread check-unit
	@$(MAKE) --no-print-directory check-valgrind
	@$(MAKE) --no-print-directory check-e2e
	@$(MAKE) --no-print-directory check-san-e2e
	@$(MAKE) --no-print-directory check-tsan-e2e
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory check-arch
	@$(MAKE) --no-print-directory check-darwin

# check-fresh: both README commands (make demo, make check) on a clean
# Debian 12 root with nothing of ours: tests/check-fresh.sh.
check-fresh: deps-test
	@bash tests/check-fresh.sh

check-unit: $(UNIT_BIN) suites
	@./tests/run-unit.sh $(UNIT_BIN)

# check-layers: every #include points down the layers (cli > run > report >
# analysis > store > hosts > input > proto; HACKING.md) and none goes in a
# circle. check-style: the house style, as tests/check-style.pl tells it.
# Each first proves, on a copy of the sources with a finding put in, that
# its checker fails on one (tests/check-selftest.sh).
check-layers:
	@bash tests/check-selftest.sh layers
	@perl tests/check-layers.pl
check-style:
	@bash tests/check-selftest.sh style
	@perl tests/check-style.pl

# check-docs: the figures docs/performance.md quotes from the bench's
# records (bench/records/, its marks' run paths relative to the top of the
# tree) are what those records give now (orch doc check; tests/e2e/t-doc.sh
# shows it fails on one that is not).
check-docs: programs
	./bin/orch doc check docs/performance.md

# check-quick: the checks of the tree, the unit tests and the fast
# end-to-end tests (HACKING.md says how long it takes). Each part runs even
# when one before it failed; the last line names those that failed.
QUICK_E2E := tests/e2e/t-cli.sh tests/e2e/t-example.sh tests/e2e/t-oneline.sh \
	tests/e2e/t-output.sh tests/e2e/t-badinput.sh tests/e2e/t-protocol.sh \
	tests/e2e/t-report.sh tests/e2e/t-compare.sh tests/e2e/t-claims.sh
check-quick: programs suites $(TOOLS) $(UNIT_BIN)
	@failed=; \
	$(MAKE) --no-print-directory check-layers || failed="$$failed check-layers"; \
	$(MAKE) --no-print-directory check-style || failed="$$failed check-style"; \
	./tests/run-unit.sh $(UNIT_BIN) || failed="$$failed unit"; \
	./tests/run-e2e.sh $(QUICK_E2E) || failed="$$failed e2e"; \
	if [ -n "$$failed" ]; then echo "check-quick: FAILED:$$failed"; exit 1; fi; \
	echo "check-quick: passed"

# compdb: compile_commands.json, the commands this build runs (make -n -B)
# for each source of the programs, the test tools, the unit tests, the
# calibration and the example programs; for editors and clang tools.
compdb:
	@set -o pipefail; $(MAKE) --no-print-directory -n -B programs tools suites \
		$(UNIT_BIN) $(CALIB) | perl tests/compdb.pl '$(CURDIR)' > compile_commands.json.tmp || \
		{ rm -f compile_commands.json.tmp; exit 1; }
	@mv compile_commands.json.tmp compile_commands.json
	@echo "compdb: compile_commands.json, $$(grep -c '"file":' compile_commands.json) files"

check-valgrind: $(UNIT_BIN) suites
	@VALGRIND=1 ./tests/run-unit.sh $(UNIT_BIN)

# The unit tests some end-to-end tests run against their labs (t-remote,
# t-slurm-lab), built with the programs they test.
LAB_UNITS := $(O)/tests/test-ssh $(O)/tests/test-slurm
lab-units: $(LAB_UNITS)

check-e2e: programs suites $(TOOLS) $(LAB_UNITS)
	@./tests/run-e2e.sh

# The end-to-end tests again, with both programs built with ASan+UBSan.
check-san-e2e:
	@$(MAKE) --no-print-directory SANITIZE=address,undefined programs tools \
		lab-units
	@$(MAKE) --no-print-directory suites
	@ORCH_BIN_DIR=build/san/bin ./tests/run-e2e.sh

# The end-to-end tests where the coordinator runs a thread per host (labs of
# several SSH hosts, cut links, Ctrl-C, resume), with both programs built
# with ThreadSanitizer: a data race fails the test (TSan exits 66).
TSAN_E2E := t-lab t-faults t-remote t-interrupt t-jump t-resume-pid
check-tsan-e2e:
	@$(MAKE) --no-print-directory SANITIZE=thread programs tools lab-units
	@$(MAKE) --no-print-directory suites
	@ORCH_BIN_DIR=build/san-thread/bin ./tests/run-e2e.sh \
		$(TSAN_E2E:%=tests/e2e/%.sh)

clean:
	rm -rf build bin suites/example/bin tests/progs/bin suites/example/data.bin \
		compile_commands.json
