# hugebench - benchmark and validate huge tmpfs across kernel builds.
# make bench [TARGET=debian-6.12] [SUITE=quick]   boot TARGET, run SUITE, write results/
# make test                                       unit tests, then real guests
# make deps                                       install missing Debian packages
# make bench BOOTS=5                              five boots: one run group
# make ab A=<target> B=<target> BOOTS=5           boots A and B alternately, then compare-report
# make compare A=<run|target> B=<run|target>      compare-report of two runs
# make nightly [MATRIX=configs/nightly.matrix] [RESULTS=results] [ARGS=--auto-promote]
# make kernel TARGET=<source recipe>              build a kernel from source
# make bisect-perf                                bisect a series for a slowdown (README, "Bisect")

TARGET ?= debian-6.12
SUITE ?= quick
ARGS ?=
BOOTS ?= 1
FUZZ_SECONDS ?= 60

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
export HB_MATRIX := $(value MATRIX)
export HB_BOOTS := $(value BOOTS)
export HB_GROUP := $(value GROUP)
export HB_RESULTS := $(value RESULTS)
# make would export command-line variables itself, expanding them (and any
# $(shell ...) inside) on the way: only the HB_* copies above are exported.
HB_WORD_VARS := TARGET SUITE ARGS A B BASE NEW MATRIX BOOTS GROUP RESULTS PKGS FUZZ_SECONDS
unexport $(HB_WORD_VARS)
# Every other variable given on the command line (HUGEBENCH_CACHE in the
# README's cron line, CC, CFLAGS...) is exported too, and make expands it on
# the way, so HUGEBENCH_CACHE='$(shell id)' ran id. Each one becomes a simple
# variable holding the text as typed (never expanded again) and is exported
# as that text. Sub-makes get the same text through MAKEFLAGS and do the
# same. (make expands a variable's *name* on its command line before it reads
# this file: only values are protected; README, "Known limitations".)
HB_CLI_VARS := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $v)),$v))
$(foreach v,$(HB_CLI_VARS),$(eval override $v := $$(value $v)))
$(foreach v,$(filter-out $(HB_WORD_VARS),$(HB_CLI_VARS)),$(eval export $v))
# Those other variables reach recipe text as typed: $(BUILD) in every
# mkdir -p, $(DEB_PKGS) in the package goals, $(CC) $(CFLAGS) in each
# compile. So each one (and CC, CFLAGS, LDFLAGS, AR, MAKE when they come from
# the environment) must be plain text: letters, digits, blanks and _-.,/+=:@%.
# Anything else (a quote, ;, `, $, a newline...) stops make here with one
# line, before any recipe runs. HUGEBENCH_CACHE and KSRC are only exported,
# never pasted: they are not checked (hugebench checks the paths).
HB_PLAIN_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z \
	A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9 _ - . , / + = : @ %
hb_empty :=
hb_space := $(hb_empty) $(hb_empty)
# $(1) with every plain character removed (what is left is not plain)
hb_unplain = $(if $(2),$(call hb_unplain,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(subst $(hb_space),,$(1)))
HB_PASTED_VARS := $(filter-out $(HB_WORD_VARS) HUGEBENCH_CACHE KSRC,$(HB_CLI_VARS)) \
	$(foreach v,CC CFLAGS LDFLAGS AR MAKE,$(if $(filter environment%,$(origin $v)),$v))
$(foreach v,$(HB_PASTED_VARS),$(if $(call hb_unplain,$(value $v),$(HB_PLAIN_CHARS)),\
	$(error $v: only letters, digits, blanks and _-.,/+=:@% are allowed (make pastes it into commands); give a plain value)))
CC ?= gcc
CFLAGS ?= -O2 -g
# The project's own compiles go through ccache where it is installed (it is
# in DEB_PKGS for the kernel builds): a second clone on the machine compiled
# all of it again, about 85 CPU-s of make test (issue 33). ccache's own
# cache (root: /root/.cache/ccache) is shared by every clone of one user;
# the clone's path is kept out of the hash and of the debug info
# (CCACHE_BASEDIR, -fdebug-prefix-map), so clones hit each other's objects.
# Only single-file compiles (-c) are cached; links are not.
# The clone's path is pasted into the compiles only if it is plain text
# (else no prefix map: objects are cached per clone).
HB_CCACHE := $(if $(shell command -v ccache 2>/dev/null),ccache)
export CCACHE_BASEDIR := $(CURDIR)
HB_PREFIX_MAP := $(if $(call hb_unplain,$(CURDIR),$(HB_PLAIN_CHARS)),,-fdebug-prefix-map=$(CURDIR)=.)
COMPILE = $(HB_CCACHE) $(CC) $(HB_PREFIX_MAP)
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers -Wno-format-truncation
# libxml2 (the JUnit writer, harness/nightly/junit.c) keeps its headers in a folder of their own.
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)

BUILD := build
# Debian packages the build, the guests and the tests need.
DEB_PKGS := qemu-system-x86 qemu-utils busybox-static libjansson-dev libcmocka-dev \
	libgsl-dev libssl-dev libxml2-dev cpio xz-utils zstd kmod \
	build-essential flex bison bc libelf-dev \
	libvirt-dev libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients \
	stress-ng dpkg-dev rsync ccache zlib1g-dev
# (kselftest's linux-source-<version> is not installed: build-source.sh --fetch
# downloads the package into the cache when a suite first needs it.)

# The tree (README "Where things are"). Each side sees only its own headers
# and lib/: the host build cannot include a guest header and vice versa.
HOST_DIRS := harness harness/common harness/vm harness/kernel harness/result harness/compare harness/nightly harness/bisect
GUEST_DIRS := guest-images/runner workloads/api workloads lib/kvm
HOST_INC := $(addprefix -I,lib $(HOST_DIRS)) $(XML_CFLAGS)
GUEST_INC := $(addprefix -I,lib $(GUEST_DIRS))
# Tests and benchmarks see everything.
ALL_INC := $(addprefix -I,lib $(HOST_DIRS) $(GUEST_DIRS)) $(XML_CFLAGS)
ALL_H := $(wildcard lib/*.h $(addsuffix /*.h,$(HOST_DIRS) $(GUEST_DIRS)))

LIB_SRC := $(wildcard lib/*.c)
HOST_SRC := $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c))
GUEST_SRC := $(foreach d,$(GUEST_DIRS),$(wildcard $(d)/*.c))
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(LIB_SRC))
HOST_OBJ := $(call obj,$(HOST_SRC))
GUEST_OBJ := $(call obj,$(GUEST_SRC))
# Host objects without main(), for unit tests.
HARNESS_LIB := $(filter-out $(BUILD)/obj/harness/main.o,$(HOST_OBJ))
# Unit tests mirror the tree (tests/unit/README.md): tests/unit/test_*.c and
# tests/unit/<dir>[/<dir>]/test_*.c; build/tests/<same path> each.
UNIT_SRC := $(wildcard tests/unit/test_*.c tests/unit/*/test_*.c tests/unit/*/*/test_*.c)
UNIT_OBJ := $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.o,$(UNIT_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
# Shared by every unit test (tests/unit/helpers*.c).
UNIT_H := $(wildcard tests/unit/*.h)
UNIT_HELPERS := $(call obj,$(wildcard tests/unit/helpers*.c))

.PHONY: libvirt-deps ab all deps bench bisect-perf test unit integration mthp-regress expect-newer race-long real-bugs test-long compare kernel clean clean-cache doctor check-deps nightly compare-sim aa-study calib-diff sensitivity-study test-deps install-pkgs \
	sanitize san-unit fuzz fuzz-regress

all: check-deps $(BUILD)/hugebench $(BUILD)/hb-guest

# Installs what is missing (as root), or prints the exact command to run.
# Only the tests need a browser (the HTML report is opened in Chromium).
# Sanitizer and fuzz builds use clang's libFuzzer runtime (libclang-rt-14-dev).
# nightly's junit.xml and kcidb.json are validated with xmllint and python3-jsonschema;
# the libvirt tests reach a "remote" libvirtd over ssh to localhost.
TEST_PKGS := chromium clang libclang-rt-14-dev libxml2-utils python3-jsonschema \
	openssh-server openssh-client

# The package lists reach the shell as HB_PKGS through the environment,
# unexpanded ($(value ...)), like PKGS below: a DEB_PKGS given on the command
# line is only words that install-pkgs checks (it was pasted into the recipe).
deps: export HB_PKGS := $(value DEB_PKGS)
deps:
	$(hb-install-pkgs)

# A production libvirt host (docs/libvirt.md, "Production setup"): the
# packaged service (systemd units and sockets, the libvirt-qemu user, the
# libvirt group, /var/lib/libvirt, AppArmor profiles) and QEMU. Not part of
# `make deps`: the tests start their own daemons (tests/integration/libvirt-up.sh).
LIBVIRT_HOST_PKGS := libvirt-daemon-system libvirt-clients qemu-system-x86

libvirt-deps: export HB_PKGS := $(value LIBVIRT_HOST_PKGS)
libvirt-deps:
	$(hb-install-pkgs)

test-deps: export HB_PKGS := $(value DEB_PKGS) $(value TEST_PKGS)
test-deps:
	$(hb-install-pkgs)

# PKGS reaches the shell through the environment, unexpanded, split with
# globbing off; each word must be a Debian package name.
install-pkgs: export HB_PKGS := $(value PKGS)
install-pkgs:
	$(hb-install-pkgs)

# One recipe for the four goals above, each with its own list in HB_PKGS.
define hb-install-pkgs
@set -f; for p in $$HB_PKGS; do case $$p in [!a-z0-9]*|*[!a-z0-9.+-]*) \
		echo "hugebench: $@: '$$p' is not a Debian package name" >&2; exit 2;; esac; done; \
	missing=$$(for p in $$HB_PKGS; do dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null \
		| grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "hugebench: missing packages; run: sudo apt-get install -y $$missing" >&2; exit 2; fi; \
	echo "hugebench: installing $$missing"; \
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null \
	|| { echo "hugebench: apt-get install failed; run: apt-get update && apt-get install -y $$missing" >&2; exit 2; }
endef

check-deps: deps

# make picks the pattern with the shortest stem: harness/ and lib/ objects
# get their own include paths, everything else is guest code.
$(BUILD)/obj/harness/%.o: harness/%.c $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) $(HOST_INC) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/lib/%.o: lib/%.c $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -Ilib $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) $(GUEST_INC) $(WARN) $(CFLAGS) -c -o $@ $<

# lib/kfeatures.c reads /proc/config.gz with zlib (guest and host alike).
$(BUILD)/hb-guest: $(GUEST_OBJ) $(LIB_OBJ)
	$(CC) -static -o $@ $^ -ljansson -lz -lm

HOST_LIBS := -ljansson -lgsl -lgslcblas -lcrypto -lxml2 -lz -lm
$(BUILD)/hugebench: $(HOST_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

# Unit tests of guest code link the objects they test (declared in the
# workload's header next to it).
$(BUILD)/tests/workloads/test_truncate_model: $(BUILD)/obj/workloads/wl_truncate.o
$(BUILD)/tests/workloads/test_mlock_table: $(BUILD)/obj/workloads/wl_mlock.o
$(BUILD)/tests/workloads/test_mapped_table: $(BUILD)/obj/workloads/wl_mapped.o
$(BUILD)/tests/workloads/test_knobs_table: $(BUILD)/obj/workloads/knobs_table.o
$(BUILD)/tests/workloads/test_mthp_table: $(call obj,workloads/mthp_table.c workloads/knobs_table.c \
	workloads/wl_mthp.c workloads/mthp_case.c workloads/mthp_parts.c workloads/mthp_io.c \
	workloads/mthp_folio.c workloads/pressure_env.c)
$(BUILD)/tests/workloads/test_mthp_paths: $(call obj,workloads/wl_mthp_paths.c \
	workloads/mthp_paths_io.c workloads/wl_mlock.c workloads/mthp_table.c workloads/knobs_table.c \
	workloads/mthp_case.c workloads/mthp_parts.c workloads/mthp_io.c workloads/wl_mthp.c \
	workloads/mthp_folio.c workloads/pressure_env.c)
$(BUILD)/tests/workloads/test_fragment_threshold $(BUILD)/tests/workloads/api/test_subject: \
	$(BUILD)/obj/workloads/wl_fragment.o
$(BUILD)/tests/lib/kvm/test_kvm_stats: $(BUILD)/obj/lib/kvm/kvm_stats.o
# the outcome tests of issue 25: each workload's judging, errnos and kernel
# versions injected (tests/unit/workloads/test_*_outcomes.c)
$(BUILD)/tests/workloads/test_recover_outcomes: $(BUILD)/obj/workloads/wl_recover.o
$(BUILD)/tests/workloads/test_race_model: $(BUILD)/obj/workloads/race_worker.o
$(BUILD)/tests/workloads/test_truncate_outcomes: $(BUILD)/obj/workloads/wl_truncate.o
$(BUILD)/tests/workloads/test_mlock_outcomes: $(BUILD)/obj/workloads/wl_mlock.o
$(BUILD)/tests/workloads/test_fragment_outcomes: $(BUILD)/obj/workloads/wl_fragment.o
$(BUILD)/tests/workloads/test_knobs_outcomes: $(call obj,workloads/wl_knobs.c workloads/knobs_table.c workloads/mthp_folio.c)
$(BUILD)/tests/workloads/test_pressure_outcomes: $(call obj,workloads/wl_pressure.c workloads/pressure_env.c)
$(BUILD)/tests/workloads/test_mapped_outcomes: $(BUILD)/obj/workloads/wl_mapped.o
$(BUILD)/tests/workloads/test_unmap_outcomes: $(BUILD)/obj/workloads/wl_unmap.o
$(BUILD)/tests/workloads/test_fault_outcomes: $(BUILD)/obj/workloads/wl_fault.o
$(BUILD)/tests/workloads/test_access_outcomes: $(BUILD)/obj/workloads/wl_access.o
$(BUILD)/tests/workloads/test_kvm_map_outcomes: $(BUILD)/obj/workloads/kvm_map_judge.o
$(BUILD)/tests/workloads/test_fio_outcomes $(BUILD)/tests/workloads/test_stressng_outcomes \
	$(BUILD)/tests/workloads/test_kselftest_outcomes: $(call obj,workloads/wl_fio.c \
	workloads/wl_stressng.c workloads/wl_kselftest.c workloads/api/ext_run.c)
# the external workloads' parameter tables, next to their parsers
$(BUILD)/tests/lib/test_ext_parse: $(call obj,workloads/wl_fio.c workloads/wl_stressng.c \
	workloads/wl_kselftest.c workloads/api/ext_run.c)
WL_API_OBJ := $(call obj,workloads/api/hb_util.c workloads/api/hb_core.c workloads/api/hb_kf.c)
$(BUILD)/obj/tests/unit/%.o: tests/unit/%.c $(UNIT_H) $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) $(ALL_INC) -Itests/unit $(WARN) $(CFLAGS) -c -o $@ $<
# The host objects reach the unit tests through an archive, last on the link
# line: the linker takes only the members a test uses (no object here has a
# constructor or anything else that works by merely being linked). Linking
# every object into every test cost 1.1 s of CPU per test, the archive 0.36 s;
# 61 tests, built twice by make test (plain and sanitized).
UNIT_LIB := $(BUILD)/tests/libhb-unit.a
$(UNIT_LIB): $(HARNESS_LIB) $(LIB_OBJ) $(WL_API_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
# compiled (cached) and linked apart: ccache does not cache a compile that links
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPERS) $(UNIT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out $(UNIT_LIB),$^) $(UNIT_LIB) $(HOST_LIBS) -lcmocka

# The compare-report rule outside hugebench (no run.c, no QEMU): the bench
# programs below link exactly these.
CMP_SRC := lib/protocol.c lib/userfile.c harness/common/stats.c harness/result/compact.c $(addprefix harness/compare/,cmp_rule.c cmp_thresholds.c cmp_util.c cmp_load.c cmp_findings.c \
	cmp_functional.c cmp_report.c cmp_group.c cmp_calib.c cmp_calib_file.c)

# Benchmark of the compare-report rule (not a test): false alarms and power
# by simulation from measured boot-to-boot noise (bench/data/*.json, made by
# hugebench calibrate), at 1, 3, 5 and 10 boots per side.
$(BUILD)/compare_sim: bench/compare_sim.c $(CMP_SRC) $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(CC) -Ilib -Iharness/common -Iharness/compare -Iharness/result $(WARN) $(CFLAGS) -o $@ bench/compare_sim.c $(CMP_SRC) -ljansson -lgsl -lgslcblas -lcrypto -lm

compare-sim: $(BUILD)/compare_sim
	$(BUILD)/compare_sim --trials 2000 --calibration bench/data/debian-6.12-tcg-quick.json

# The rule on real boots: every A/A split of GROUP (>= 10 boots of one
# kernel; default: the latest debian-6.12 group) into halves of 5, then each
# delay-injection group against its interleaved minimal-6.1 group when
# RESULTS (default results/) holds them.
$(BUILD)/aa_study: bench/aa_study.c $(CMP_SRC) $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(CC) -Ilib -Iharness/common -Iharness/compare -Iharness/result $(WARN) $(CFLAGS) -o $@ bench/aa_study.c $(CMP_SRC) -ljansson -lgsl -lgslcblas -lcrypto -lm

aa-study: $(BUILD)/aa_study
	@res="$${HB_RESULTS:-results}"; \
	$(BUILD)/aa_study --results "$$res" -- "$${HB_GROUP:-$$res/debian-6.12}" || exit $$?; \
	for t in minimal-6.1-delay-alloc minimal-6.1-delay-split; do \
		[ -d "$$res/$$t" ] || continue; echo; \
		$(BUILD)/aa_study --results "$$res" --ab -- "$$res/minimal-6.1" "$$res/$$t" || exit $$?; \
	done

# Two calibrations of one suite and kernel made apart, metric by metric
# (Welch on the log boot centers, F on their spreads): by default the 30
# boots of debian-6.12 quick on an Intel Xeon host (K) against 30 on an AMD
# EPYC host (L), the evidence that the virtual clock does not see the host
# CPU (docs/compare.md, "Across host CPUs"). A=FILE B=FILE for others.
calib-diff: $(BUILD)/aa_study
	$(BUILD)/aa_study --calib-diff "$${HB_A:-bench/data/debian-6.12-tcg-virtual-quick-means-30-k.json}" \
		"$${HB_B:-bench/data/debian-6.12-tcg-virtual-quick-means-30-l-epyc.json}"

# The sensitivity sweep (docs/compare.md, "Sensitivity"): a calibration of
# minimal-6.1 (5 boots), then `hugebench ab` of minimal-6.1 against each
# delay recipe (5, 2 and 1 % of a huge tmpfs write fault), 5 + 5 boots on
# configs/boots.suite, and every choice of 1, 3 and 5 boots per side through
# the rule (bench/aa_study --ab; 1 boot a side with the calibration). About
# 35 boots, 12 minutes here. RESULTS (default results/) receives the runs.
SWEEP := minimal-6.1-delay-alloc-5pct minimal-6.1-delay-alloc-2pct minimal-6.1-delay-alloc-1pct
sensitivity-study: all $(BUILD)/aa_study
	@res="$${HB_RESULTS:-results}"; \
	$(BUILD)/hugebench calibrate minimal-6.1 --boots 5 --suite configs/boots.suite \
		--results "$$res" > "$$res/sensitivity-calibrate.log" || exit $$?; \
	cal=$$(sed -n 's/^.*-> \(.*calibration\/.*\.json\).*$$/\1/p' "$$res/sensitivity-calibrate.log" | tail -n 1); \
	[ -n "$$cal" ] || { echo "calibrate printed no calibration file: $$res/sensitivity-calibrate.log"; exit 3; }; \
	echo "calibration: $$cal"; \
	for t in $(SWEEP); do \
		$(BUILD)/hugebench ab minimal-6.1 $$t --boots 5 --suite configs/boots.suite \
			--results "$$res" > "$$res/sensitivity-$$t.log"; rc=$$?; \
		[ $$rc -le 1 ] || { echo "ab $$t failed (exit $$rc): $$res/sensitivity-$$t.log"; exit $$rc; }; \
		for k in 5 3; do echo; echo "== $$t, $$k + $$k boots"; \
			$(BUILD)/aa_study --results "$$res" --ab --half $$k -- "$$res/minimal-6.1" "$$res/$$t" || exit $$?; done; \
		echo; echo "== $$t, 1 + 1 boots, calibrated"; \
		$(BUILD)/aa_study --results "$$res" --ab --half 1 --calibration "$$cal" -- "$$res/minimal-6.1" "$$res/$$t" || exit $$?; \
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

# Nightly CI (README.md, "Nightly runs"): every target of MATRIX (default
# configs/nightly.matrix) against its baseline, one folder
# $(RESULTS)/nightly-<stamp>/ with summary.md, junit.xml and kcidb.json.
# ARGS: e.g. --auto-promote. Exit non-zero on any finding.
nightly: all
	set -f; $(BUILD)/hugebench nightly $${HB_MATRIX:+--matrix "$$HB_MATRIX"} \
		$${HB_RESULTS:+--results "$$HB_RESULTS"} $$HB_ARGS

kernel: all
	$(BUILD)/hugebench kernel --target "$$HB_TARGET"

# Performance bisect of a shipped series (make test-long runs the same bisect in
# test_bisect_series_metric; make test runs one over git commits in
# test_bisect_git_metric):
# the 1 ms shmem huge allocation delay (+5.8 % on this metric under the virtual
# clock; it was about +46 % under the wall clock, when 20 % was the minimum
# effect here), 3rd of 5 patches, found with boots against the base's, judged
# at a 3 % minimum effect (--vcpus 1: the delay shows in every boot and boots
# agree to 0.1 %, see tests/integration/boots.c).
bisect-perf: all
	$(BUILD)/hugebench bisect minimal-6.1-delay-series --metric fragment.fragmented_fault_latency \
		--min-effect 3 --boots 3 --vcpus 1

# tests/make-vars.sh: no command-line variable runs as code; tests/tmp-names.sh:
# no test uses a predictable /tmp name (issue 23)
unit: all $(UNIT_BIN) $(BUILD)/compare_sim $(BUILD)/aa_study
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; \
	echo "== compare-sim, small (20 trials a row; make compare-sim: 2000)"; \
	$(BUILD)/compare_sim --trials 20 --calibration bench/data/debian-6.12-tcg-quick.json \
		>$(BUILD)/compare-sim-small.txt 2>&1 && grep -q '^| ' $(BUILD)/compare-sim-small.txt || \
		{ echo "compare_sim failed: $(BUILD)/compare-sim-small.txt"; fail=1; }; \
	echo "== tests/make-vars.sh"; tests/make-vars.sh || fail=1; \
	echo "== tests/tmp-names.sh"; tests/tmp-names.sh || fail=1; exit $$fail

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
# The malformed-input corpus (36 s of wall, 161 runs of the sanitized
# binary) runs beside the unit tests, its output printed after theirs: the
# phase is make test's critical path once ccache has the builds.
san-unit: $(BUILD)/hugebench $(UNIT_BIN)
	@fail=0; env $(SAN_ENV) tests/malformed/run.sh $(BUILD)/hugebench \
		>$(BUILD)/malformed.log 2>&1 & m=$$!; \
	for t in $(UNIT_BIN); do echo "== [asan+ubsan] $$t"; \
		env $(SAN_ENV) $$t || fail=1; done; \
	wait $$m || fail=1; \
	echo "== [asan+ubsan] malformed-input corpus (beside the unit tests)"; \
	cat $(BUILD)/malformed.log; exit $$fail

# libFuzzer targets: tests/fuzz/fuzz_<name>.c, seeds in tests/fuzz/corpus/<name>/.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_CC := clang
# clang has no -Wformat-truncation
FUZZ_WARN := $(filter-out -Wno-format-truncation,$(WARN))
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all
FUZZ_OBJ := $(patsubst $(BUILD)/obj/%,$(BUILD)/fuzz/obj/%,$(HARNESS_LIB) $(LIB_OBJ))
# FUZZ_SECONDS (default 60, at the top): a number of seconds, or make stops here (it was pasted into the recipe)
hb_nondigits = $(strip $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst \
	6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1))))))))))))
HB_FUZZ_OK := $(and $(filter 1,$(words $(value FUZZ_SECONDS))),$(if $(call hb_nondigits,$(value FUZZ_SECONDS)),,y))
ifneq ($(HB_FUZZ_OK),y)
$(error FUZZ_SECONDS must be a whole number of seconds)
endif
export HB_FUZZ_SECONDS := $(value FUZZ_SECONDS)
# keep the fuzz objects between builds (make deletes pattern-made intermediates)
.SECONDARY: $(FUZZ_OBJ) $(UNIT_HELPERS) $(UNIT_OBJ)

$(BUILD)/fuzz/obj/%.o: %.c $(ALL_H) | check-deps
	@mkdir -p $(dir $@)
	$(HB_CCACHE) $(FUZZ_CC) $(HB_PREFIX_MAP) $(ALL_INC) $(FUZZ_WARN) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_INC) $(FUZZ_WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(HOST_LIBS)

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
		mkdir -p $(BUILD)/fuzz/new-$$n; echo "== fuzzing $$n for $$HB_FUZZ_SECONDS s"; \
		$$f -max_total_time="$$HB_FUZZ_SECONDS" -max_len=65536 $(BUILD)/fuzz/new-$$n \
			tests/fuzz/corpus/$$n || exit 1; done

ITEST_SRC := $(wildcard tests/integration/*.c)
# The guest tests read the shipped suites with lib/suite.c, the parser the
# guest and the host use.
$(BUILD)/tests/test_guests: $(ITEST_SRC) $(wildcard tests/integration/*.h) $(LIB_OBJ) | check-deps
	@mkdir -p $(dir $@)
	$(CC) -Itests/integration -Ilib $(WARN) $(CFLAGS) -o $@ $(ITEST_SRC) $(LIB_OBJ) -ljansson -lcmocka -lz -lm

# The mthp suite's planted regressions (issue 21): minimal-7.2 and
# minimal-7.2-mthp-regress (a cold 7.x build the first time: about 35
# CPU-minutes), mthp on both and quick on the regression
# (tests/integration/mthp_itest.c, test_mthp_planted_regress); then one
# seeded one-patch recipe per area (swap, khugepaged, stats, write, split,
# boot parameters, guest_memfd): mthp and quick on each (test_mthp_planted_<area>).
mthp-regress: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests --long 'test_mthp_planted_*'

# Issue 36's proof: minimal-7.2 booted as 7.3 (minimal-7.3-raised) and with
# a planted per-size change (minimal-7.3-planted), two seeded one-patch
# builds on minimal-7.2 (under a minute each once it is built); knobs and
# mthp on both, `hugebench accept`, the planted kernel again with the
# accepted entries; minimal-7.2-memfd-fix (the proposed fix of the memfd
# known bug) showing it fixed; then the external suite on minimal-6.1 with
# its known kselftest bug (tests/integration/expect_itest.c).
expect-newer: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests --long 'test_expect_*'
	$(BUILD)/tests/test_guests --long 'test_external_known_bug_suite_*'

# Issue 37's race at full strength (configs/race.suite: 16 workers for 120 s
# on brd swap, then 8 on zram, then split-race) on debian-7.2, debian-6.12 and
# debian-6.1 with --tcg-threads multi (the vCPUs at once), three boots each,
# every boot passing (test_race_full_strength_stock); and
# the seed that hung debian-7.2 in ftruncate, replayed until it hangs again
# (test_race_replay_hang_debian_7_2).
race-long: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests --long 'test_race_*'

# The real-bugs corpus (issue 35, docs/real-bugs.md): twelve upstream shmem
# THP fixes undone on minimal-7.2-debug (DEBUG_VM, KASAN, PROVE_LOCKING,
# DEBUG_LIST; a cold debug build the first time, then one seeded patch each),
# configs/real-bugs.suite on the stock debug base and on each, and the table
# fix | kernel | caught? | by | boots | time. HB_ARGS: e.g. --only
# real-within-size-align,real-shmem-thps-swapout, --docs docs/real-bugs.md.
real-bugs: all
	set -f; tests/real-bugs.sh $$HB_ARGS

# Every test too long for make test (test_guests.c, long_tests): the mthp
# planted regression above and bisect in series mode by metric (3 builds, 9
# boots; make test keeps series mode by check and metric mode in git mode).
test-long: all $(BUILD)/tests/test_guests
	$(BUILD)/tests/test_guests --long

# Boots real guests: Debian 6.1 and 6.12 under TCG (kernels cached in the
# machine's cache, `build/hugebench cache show`).
# ccache-reuse.sh (a one-patch recipe on the built minimal-6.1 is seeded from
# its objects and compiles only a handful of files, docs/kernels.md) runs as
# stream 1's last test, test_build_reuse.
# Two streams at once (test_guests.c, run_stream): TCG runs each guest on
# one core, so one stream left the second core idle once the prebuild was
# done. Each starts with its own tests, then both take the shared ones
# (claimed under HB_STREAM_RUN). Stream 2's output is printed after stream
# 1's (and kept in build/test-results/stream-2.log).
integration: all $(BUILD)/tests/test_guests
	@mkdir -p $(BUILD)/test-results
	@export HB_STREAM_RUN=$$$$ HB_TEST_TIMES=$(BUILD)/test-results/times.txt; \
	rm -f $$HB_TEST_TIMES; \
	$(BUILD)/tests/test_guests --stream 2 >$(BUILD)/test-results/stream-2.log 2>&1 & s2=$$!; \
	$(BUILD)/tests/test_guests --stream 1; r1=$$?; wait $$s2; r2=$$?; \
	echo "== stream 2: libvirt tests, then shared ones ($(BUILD)/test-results/stream-2.log)"; \
	cat $(BUILD)/test-results/stream-2.log; \
	echo "== the 12 longest guest tests (both streams; all: $$HB_TEST_TIMES)"; \
	sort -rn $$HB_TEST_TIMES 2>/dev/null | head -12; \
	echo "== integration: stream 1 exit $$r1, stream 2 exit $$r2"; \
	[ $$r1 = 0 ] && [ $$r2 = 0 ]

# The source kernels and the external tools layers build in the background
# from the start (tests/integration/prebuild.sh): the cold kernel build, the
# largest piece of CPU time here, overlaps the unit tests and the sanitizer
# builds, which use one core (docs/testing.md, "How long it takes").
# Each phase's wall time is printed at the end ("== make test: ..."), so a
# slow clone says where its time went.
# The phases build with one job per core (their tests still run one at a
# time): on a second clone the prebuild ends in seconds, and unit and
# sanitize built on one core while the other idled (cc11: sanitize 117 s of
# wall for 117 s of CPU). Unit and sanitize run at once (each runs its tests
# one at a time: one core each; cc17: unit 30 s, then sanitize 91 s).
# The integration tests start when unit ends, not when sanitize does
# (cc36: unit 54 s, sanitize 70 s, one core idle between); sanitize's
# result is waited for, and printed, after them.
HB_TEST_JOBS := $(shell nproc 2>/dev/null || echo 1)
test: test-deps
	@$(MAKE) --no-print-directory all
	@tests/integration/prebuild.sh start
	@t0=$$(date +%s); rc=0; mkdir -p $(BUILD)/test-results; \
	$(MAKE) --no-print-directory -j$(HB_TEST_JOBS) sanitize >$(BUILD)/test-results/sanitize.log 2>&1 & s=$$!; \
	$(MAKE) --no-print-directory -j$(HB_TEST_JOBS) unit || rc=1; tu=$$(( $$(date +%s) - t0 )); \
	times=" unit $$tu s,"; \
	if [ $$rc = 0 ]; then \
		t=$$(date +%s); \
		$(MAKE) --no-print-directory -j$(HB_TEST_JOBS) integration || rc=1; \
		times="$$times integration $$(( $$(date +%s) - t )) s (from unit's end),"; \
	fi; \
	wait $$s || rc=1; ts=$$(( $$(date +%s) - t0 )); \
	echo "== sanitize (from the start, beside unit and integration; $(BUILD)/test-results/sanitize.log)"; \
	cat $(BUILD)/test-results/sanitize.log; \
	times="$$times sanitize $$ts s (from the start),"; \
	echo "== make test:$$times total $$(( $$(date +%s) - t0 )) s; exit $$rc"; \
	[ $$rc = 0 ] || { tests/integration/prebuild.sh stop; exit 1; }

# `make clean` removes build/ only: the cache (downloaded and built kernels,
# ccache, images, probe answers) is the machine's, shared by every clone
# (`build/hugebench cache show` says where). `make clean-cache` empties it,
# refused while another hugebench uses it.
clean:
	rm -rf $(BUILD)

clean-cache: all
	$(BUILD)/hugebench cache clean
