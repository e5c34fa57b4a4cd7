# hugebench - benchmark and validate huge tmpfs across kernel builds.
# make bench [TARGET=debian-6.12] [SUITE=quick]   boot TARGET, run SUITE, write results/
# make test                                       unit tests, then real guests
# make deps                                       install missing Debian packages
# make bench BOOTS=5                              five boots: one run group
# make ab A=<target> B=<target> BOOTS=5           boots A and B alternately, then compare-report
# make compare A=<run|target> B=<run|target>      compare-report of two runs
# make kernel TARGET=<source recipe>              build a kernel from source

TARGET ?= debian-6.12
SUITE ?= quick
ARGS ?=
BOOTS ?= 1

# User input never becomes recipe text: make passes each variable to the
# recipe's shell through the environment, unexpanded ($(value ...)), and the
# recipe quotes it ("$$HB_TARGET"). A value such as `...`, $$(...), ; or
# $(shell ...) is then only a word that hugebench rejects. ARGS is several
# words by design: it is split on blanks with globbing off (set -f), never
# evaluated.
export HB_TARGET := $(value TARGET)
export HB_SUITE := $(value SUITE)
export HB_ARGS := $(value ARGS)
export HB_A := $(value A)
export HB_B := $(value B)
export HB_BASE := $(value BASE)
export HB_NEW := $(value NEW)
export HB_BOOTS := $(value BOOTS)
export HB_GROUP := $(value GROUP)
export HB_RESULTS := $(value RESULTS)
# make would export command-line variables itself, expanding them (and any
# $(shell ...) inside) on the way: only the HB_* copies above are exported.
unexport TARGET SUITE ARGS A B BASE NEW BOOTS GROUP RESULTS
CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers -Wno-format-truncation
CPPFLAGS += -Iworkloads -Iharness -Ilib

BUILD := build
# Debian packages the build, the guests and the tests need.
DEB_PKGS := qemu-system-x86 qemu-utils busybox-static libjansson-dev libcmocka-dev \
	libgsl-dev libssl-dev cpio xz-utils zstd kmod \
	build-essential flex bison bc libelf-dev \
	stress-ng dpkg-dev rsync linux-source-6.12

GUEST_SRC := $(wildcard workloads/*.c)
# lib/: code both binaries link (issue 12: the external tools' parsers)
LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(patsubst lib/%.c,$(BUILD)/guest/lib_%.o,$(LIB_SRC))
GUEST_OBJ := $(patsubst workloads/%.c,$(BUILD)/guest/%.o,$(GUEST_SRC)) $(LIB_OBJ)
HARNESS_SRC := $(wildcard harness/*.c)
HARNESS_OBJ := $(patsubst harness/%.c,$(BUILD)/harness/%.o,$(HARNESS_SRC))
# Harness objects without main(), for unit tests.
HARNESS_LIB := $(filter-out $(BUILD)/harness/main.o,$(HARNESS_OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: ab all deps bench test unit integration compare kernel clean doctor check-deps nightly compare-sim aa-study test-deps install-pkgs \
	sanitize san-unit fuzz fuzz-regress

all: check-deps $(BUILD)/hugebench $(BUILD)/hb-guest

# Installs what is missing (as root), or prints the exact command to run.
# Only the tests need a browser (the HTML report is opened in Chromium).
# Sanitizer and fuzz builds use clang's libFuzzer runtime (libclang-rt-14-dev).
TEST_PKGS := chromium clang libclang-rt-14-dev

deps:
	@$(MAKE) --no-print-directory install-pkgs PKGS="$(DEB_PKGS)"

test-deps:
	@$(MAKE) --no-print-directory install-pkgs PKGS="$(DEB_PKGS) $(TEST_PKGS)"

install-pkgs:
	@missing=$$(for p in $(PKGS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null \
		| grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "hugebench: missing packages; run: sudo apt-get install -y $$missing" >&2; exit 2; fi; \
	echo "hugebench: installing $$missing"; \
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null \
	|| { echo "hugebench: apt-get install failed; run: apt-get update && apt-get install -y $$missing" >&2; exit 2; }

check-deps: deps

$(BUILD)/guest/%.o: workloads/%.c $(wildcard workloads/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/guest/lib_%.o: lib/%.c $(wildcard lib/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/hb-guest: $(GUEST_OBJ)
	$(CC) -static -o $@ $^ -ljansson -lm

$(BUILD)/harness/%.o: harness/%.c $(wildcard harness/*.h) $(wildcard workloads/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

# The host links the same /proc and suite parsers the guest uses.
SHARED_OBJ := $(BUILD)/guest/procstat.o $(BUILD)/guest/suite.o $(BUILD)/guest/params.o
HOST_LIBS := -ljansson -lgsl -lgslcblas -lcrypto -lm
$(BUILD)/hugebench: $(HARNESS_OBJ) $(SHARED_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

# test_kvm_stats, test_wl_a and test_wl_b #include guest .c files: rebuild
# them when those change.
$(BUILD)/tests/test_kvm_stats: workloads/kvm_stats.c
$(BUILD)/tests/test_ext_parse: workloads/ext_run.c workloads/wl_fio.c workloads/wl_stressng.c \
	workloads/wl_kselftest.c
$(BUILD)/tests/test_wl_a $(BUILD)/tests/test_wl_b $(BUILD)/tests/test_subject: \
	$(wildcard workloads/wl_*.c workloads/*_table.c)
$(BUILD)/tests/%: tests/unit/%.c $(HARNESS_LIB) $(SHARED_OBJ) $(BUILD)/guest/hb_util.o \
		$(BUILD)/guest/hb_core.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $(filter-out workloads/%.c,$^) $(HOST_LIBS) -lcmocka

# The compare-report rule outside hugebench (no run.c, no QEMU): the bench
# programs below link exactly these.
CMP_SRC := harness/stats.c harness/cmp_rule.c harness/cmp_util.c harness/cmp_load.c \
	harness/cmp_report.c harness/cmp_group.c harness/cmp_calib.c

# Benchmark of the compare-report rule (not a test): false alarms and power
# by simulation from measured boot-to-boot noise (bench/data/*.json, made by
# hugebench calibrate), at 1, 3, 5 and 10 boots per side.
$(BUILD)/compare_sim: bench/compare_sim.c $(CMP_SRC) $(wildcard harness/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ bench/compare_sim.c $(CMP_SRC) -ljansson -lgsl -lgslcblas -lm

compare-sim: $(BUILD)/compare_sim
	$(BUILD)/compare_sim --trials 2000 --calibration bench/data/debian-6.12-tcg-quick.json

# The rule on real boots: every A/A split of GROUP (>= 10 boots of one
# kernel; default: the latest debian-6.12 group) into halves of 5, then each
# delay-injection group against its interleaved minimal-6.1 group when
# RESULTS (default results/) holds them.
$(BUILD)/aa_study: bench/aa_study.c $(CMP_SRC) $(wildcard harness/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ bench/aa_study.c $(CMP_SRC) -ljansson -lgsl -lgslcblas -lm

aa-study: $(BUILD)/aa_study
	@res="$${HB_RESULTS:-results}"; \
	$(BUILD)/aa_study --results "$$res" -- "$${HB_GROUP:-$$res/debian-6.12}" || exit $$?; \
	for t in minimal-6.1-delay-alloc minimal-6.1-delay-split; do \
		[ -d "$$res/$$t" ] || continue; echo; \
		$(BUILD)/aa_study --results "$$res" --ab -- "$$res/minimal-6.1" "$$res/$$t" || exit $$?; \
	done

bench: all
	set -f; $(BUILD)/hugebench run --target "$$HB_TARGET" --suite "$$HB_SUITE" --boots "$$HB_BOOTS" $$HB_ARGS

# BASE and NEW booted alternately, BOOTS each, then compare-report.
ab: all
	@test -n "$$HB_A" -a -n "$$HB_B" || { echo "usage: make ab A=<target> B=<target> [BOOTS=5] [SUITE=quick]" >&2; exit 2; }
	set -f; $(BUILD)/hugebench ab --suite "$$HB_SUITE" --boots "$$HB_BOOTS" $$HB_ARGS -- "$$HB_A" "$$HB_B"

doctor: all
	$(BUILD)/hugebench doctor

compare: all
	@test -n "$$HB_A" -a -n "$$HB_B" || { echo "usage: make compare A=<run-dir|target> B=<run-dir|target>" >&2; exit 2; }
	set -f; $(BUILD)/hugebench compare-report $$HB_ARGS -- "$$HB_A" "$$HB_B"

# Nightly CI: run the suite on BASE and NEW, then fail on any regression.
BASE ?= debian-6.1
NEW ?= debian-6.12
nightly: all
	set -f; $(BUILD)/hugebench run --target "$$HB_BASE" --suite "$$HB_SUITE" $$HB_ARGS || [ $$? -eq 1 ]
	set -f; $(BUILD)/hugebench run --target "$$HB_NEW" --suite "$$HB_SUITE" $$HB_ARGS || [ $$? -eq 1 ]
	$(BUILD)/hugebench compare-report --suite "$$HB_SUITE" -- "$$HB_BASE" "$$HB_NEW"

kernel: all
	$(BUILD)/hugebench kernel --target "$$HB_TARGET"

unit: all $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail

# ---- Sanitizers and fuzzing (issue 9) ------------------------------------
# `make sanitize`: the host binary and every unit test built with
# AddressSanitizer + UndefinedBehaviorSanitizer (any report aborts), the unit
# tests run, then the malformed-input corpus goes through the sanitized
# hugebench (tests/malformed/run.sh) and every fuzz corpus through its fuzz
# target once. The static guest binary is not sanitized (ASan needs a dynamic
# runtime); its parsers are covered by the unit tests and fuzz targets.
# float-cast-overflow is not part of gcc's -fsanitize=undefined: (long)1e300 went unseen.
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

sanitize: test-deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" san-unit
	@$(MAKE) --no-print-directory fuzz-regress

# Inner target of `sanitize` (BUILD points at build/san there).
san-unit: $(BUILD)/hugebench $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== [asan+ubsan] $$t"; \
		env $(SAN_ENV) $$t || fail=1; done; \
	echo "== [asan+ubsan] malformed-input corpus"; \
	env $(SAN_ENV) tests/malformed/run.sh $(BUILD)/hugebench || fail=1; exit $$fail

# libFuzzer targets: tests/fuzz/fuzz_<name>.c, seeds in tests/fuzz/corpus/<name>/.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_CC := clang
# clang has no -Wformat-truncation
FUZZ_WARN := $(filter-out -Wno-format-truncation,$(WARN))
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all
FUZZ_OBJ := $(patsubst harness/%.c,$(BUILD)/fuzz/obj/%.o,$(filter-out harness/main.c,$(HARNESS_SRC))) \
	$(BUILD)/fuzz/obj/g_procstat.o $(BUILD)/fuzz/obj/g_suite.o $(BUILD)/fuzz/obj/g_params.o \
	$(patsubst lib/%.c,$(BUILD)/fuzz/obj/lib_%.o,$(LIB_SRC))
FUZZ_SECONDS ?= 60
# keep the fuzz objects between builds (make deletes pattern-made intermediates)
.SECONDARY: $(FUZZ_OBJ)

$(BUILD)/fuzz/obj/%.o: harness/%.c $(wildcard harness/*.h) $(wildcard workloads/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_WARN) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/obj/g_%.o: workloads/%.c $(wildcard workloads/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_WARN) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/obj/lib_%.o: lib/%.c $(wildcard lib/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_WARN) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(HOST_LIBS)

# CI: every checked-in input once through its target (a regression test).
fuzz-regress: test-deps $(FUZZ_BIN)
	@fail=0; for f in $(FUZZ_BIN); do n=$$(basename $$f); n=$${n#fuzz_}; \
		echo "== fuzz corpus $$n"; \
		$$f -runs=0 tests/fuzz/corpus/$$n >/dev/null 2>$(BUILD)/fuzz/$$n.log \
		|| { tail -30 $(BUILD)/fuzz/$$n.log; fail=1; }; done; exit $$fail

# Bounded fuzzing session: FUZZ_SECONDS per target; new finds land in
# $(BUILD)/fuzz/new-<name>/ (copy a crash reproducer into the corpus with its fix).
fuzz: test-deps $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); n=$${n#fuzz_}; \
		mkdir -p $(BUILD)/fuzz/new-$$n; echo "== fuzzing $$n for $(FUZZ_SECONDS) s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(BUILD)/fuzz/new-$$n \
			tests/fuzz/corpus/$$n || exit 1; done

ITEST_SRC := $(wildcard tests/integration/*.c)
$(BUILD)/tests/test_guests: $(ITEST_SRC) $(wildcard tests/integration/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/integration $(WARN) $(CFLAGS) -o $@ $(ITEST_SRC) -ljansson -lcmocka

# Boots real guests: Debian 6.1 and 6.12 under TCG (kernels cached in .cache/).
integration: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests

test: test-deps
	@$(MAKE) --no-print-directory unit sanitize integration

clean:
	rm -rf $(BUILD)
