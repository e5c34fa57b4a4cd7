# hugebench - benchmark and validate huge tmpfs across kernel builds.
# make bench [TARGET=debian-6.12] [SUITE=quick]   boot TARGET, run SUITE, write results/
# make test                                       unit tests, then real guests
# make deps                                       install missing Debian packages
# make compare A=<run|target> B=<run|target>      compare-report of two runs
# make kernel TARGET=<source recipe>              build a kernel from source

TARGET ?= debian-6.12
SUITE ?= quick
ARGS ?=
CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers -Wno-format-truncation
CPPFLAGS += -Iworkloads -Iharness

BUILD := build
# Debian packages the build, the guests and the tests need.
DEB_PKGS := qemu-system-x86 qemu-utils busybox-static libjansson-dev libcmocka-dev \
	libgsl-dev libssl-dev cpio xz-utils zstd kmod \
	build-essential flex bison bc libelf-dev

GUEST_SRC := $(wildcard workloads/*.c)
GUEST_OBJ := $(patsubst workloads/%.c,$(BUILD)/guest/%.o,$(GUEST_SRC))
HARNESS_SRC := $(wildcard harness/*.c)
HARNESS_OBJ := $(patsubst harness/%.c,$(BUILD)/harness/%.o,$(HARNESS_SRC))
# Harness objects without main(), for unit tests.
HARNESS_LIB := $(filter-out $(BUILD)/harness/main.o,$(HARNESS_OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all deps bench test unit integration compare kernel clean doctor check-deps nightly compare-sim test-deps install-pkgs

all: check-deps $(BUILD)/hugebench $(BUILD)/hb-guest

# Installs what is missing (as root), or prints the exact command to run.
# Only the tests need a browser (the HTML report is opened in Chromium).
TEST_PKGS := chromium

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

$(BUILD)/hb-guest: $(GUEST_OBJ)
	$(CC) -static -o $@ $^ -ljansson -lm

$(BUILD)/harness/%.o: harness/%.c $(wildcard harness/*.h) $(wildcard workloads/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

# The host links the same /proc and suite parsers the guest uses.
SHARED_OBJ := $(BUILD)/guest/procstat.o $(BUILD)/guest/suite.o
HOST_LIBS := -ljansson -lgsl -lgslcblas -lcrypto -lm
$(BUILD)/hugebench: $(HARNESS_OBJ) $(SHARED_OBJ)
	$(CC) -o $@ $^ $(HOST_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(HARNESS_LIB) $(SHARED_OBJ) $(BUILD)/guest/hb_util.o \
		$(BUILD)/guest/hb_core.o
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $^ $(HOST_LIBS) -lcmocka

# Benchmark of the compare-report rule (not a test): false alarms and power
# by simulation, for hugebench's rule and the mmtests and LKP rules.
$(BUILD)/compare_sim: bench/compare_sim.c harness/stats.c harness/cmp_rule.c harness/cmp_util.c \
		harness/cmp_load.c harness/cmp_report.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $^ -ljansson -lgsl -lgslcblas -lm

compare-sim: $(BUILD)/compare_sim
	$(BUILD)/compare_sim --trials 1000

bench: all
	$(BUILD)/hugebench run --target "$(TARGET)" --suite "$(SUITE)" $(ARGS)

doctor: all
	$(BUILD)/hugebench doctor

compare: all
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=<run-dir|target> B=<run-dir|target>" >&2; exit 2; }
	$(BUILD)/hugebench compare-report $(A) $(B) $(ARGS)

# Nightly CI: run the suite on BASE and NEW, then fail on any regression.
BASE ?= debian-6.1
NEW ?= debian-6.12
nightly: all
	$(BUILD)/hugebench run --target $(BASE) --suite $(SUITE) $(ARGS) || [ $$? -eq 1 ]
	$(BUILD)/hugebench run --target $(NEW) --suite $(SUITE) $(ARGS) || [ $$? -eq 1 ]
	$(BUILD)/hugebench compare-report --suite $(SUITE) $(BASE) $(NEW)

kernel: all
	$(BUILD)/hugebench kernel --target "$(TARGET)"

unit: all $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail

ITEST_SRC := $(wildcard tests/integration/*.c)
$(BUILD)/tests/test_guests: $(ITEST_SRC) $(wildcard tests/integration/*.h) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/integration $(WARN) $(CFLAGS) -o $@ $(ITEST_SRC) -ljansson -lcmocka

# Boots real guests: Debian 6.1 and 6.12 under TCG (kernels cached in .cache/).
integration: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests

test: test-deps
	@$(MAKE) --no-print-directory unit integration

clean:
	rm -rf $(BUILD)
