/* boots.c - integration tests of run groups, calibration and interleaved
 * A/B with the boot as the unit, under the default (virtual) guest clock.
 * Registered in test_guests.c's list. Suite: configs/boots-itest.suite (fault 16
 * MiB, fragment, pressure: every workload allocates shmem huge folios in a
 * timed phase, next to phases that do not).
 *
 * - A/A: `hugebench calibrate debian-6.12 --boots 3` (the fewest a
 *   calibration takes), then `hugebench ab
 *   debian-6.12 debian-6.12 --boots 3`: exit 0, the virtual-clock calibration
 *   is found and used, no finding of any kind.
 * - Delay injection, 1 %: `hugebench ab minimal-6.1
 *   minimal-6.1-delay-alloc-1pct --boots 3` (173 us busy-wait per shmem huge
 *   folio allocation, 1 % of a huge write fault): the per-fault metrics of
 *   the allocation path are flagged, each moved by 1.0 % (the instrument
 *   measures what was injected), and nothing the injection cannot cause.
 * - Sensitivity, small: the 5 % recipe, 3 boots, against the same BASE
 *   boots: the per-fault metrics move by 5.0 %.
 * minimal-6.1 runs with 1 vCPU under the virtual clock (docs/guest-time.md,
 * "SMP under -icount").
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boots.h"
#include "itest.h"

#define BOOTS_SUITE "configs/boots-itest.suite"
/* One huge folio allocated per sample: the delay moves each by its share of
 * the fault (minimal-6.1, virtual clock: about 17.37 ms per fault). */
static const char *const delay_alloc_flagged[] = { "fault.write_fault_huge",
						   "fragment.clean_fault_latency",
						   "fragment.fragmented_fault_latency" };

/* The folder printed after "label" (e.g. "  BASE -> ") in out. */
static void printed_dir(const char *out, const char *label, char *dir, size_t len)
{
	const char *p = strstr(out, label);
	size_t n = 0;

	dir[0] = 0;
	if (!p)
		return;
	p += strlen(label);
	while (p[n] && p[n] != '\n')
		n++;
	snprintf(dir, len, "%.*s", (int)n, p);
}

/* compare-report --format json of two folders; the first comparison. */
/* 3 A/A boots calibrate debian-6.12 for this suite; then 3 + 3 boots of
 * the same kernel, interleaved: no regression, and the calibration is the
 * one used. */
void test_boots_aa_calibrated(void **state)
{
	char *cal[] = { "calibrate", "debian-6.12", "--boots", "3", "--suite", BOOTS_SUITE,
			"--results", (char *)hb_itest_results_dir(), NULL };
	char *ab[] = { "ab", "debian-6.12", "debian-6.12", "--boots", "3", "--suite", BOOTS_SUITE,
		       "--results", (char *)hb_itest_results_dir(), NULL };
	char base[4096], new[4096], *calfile;
	struct hb_itest_out o;
	json_t *root, *cmp, *f, *m;
	double t0 = hb_itest_now();
	size_t i;
	int rc;

	(void)state;
	hb_itest_hugebench(cal, &o);
	assert_int_equal(o.exit_code, 0);
	calfile = strstr(o.out, "-tcg-virtual-boots-itest-6.12.json");
	assert_non_null(calfile);
	hb_itest_out_free(&o);

	hb_itest_hugebench(ab, &o);
	assert_int_equal(o.exit_code, 0);
	assert_non_null(strstr(o.out, "no regression"));
	assert_non_null(strstr(o.out, "-tcg-virtual-boots-itest-6.12.json (3 boots of debian-6.12"));
	printed_dir(o.out, "  BASE -> ", base, sizeof(base));
	printed_dir(o.out, "  NEW  -> ", new, sizeof(new));
	hb_itest_out_free(&o);
	assert_true(base[0] && new[0]);

	cmp = hb_itest_compare_json(base, new, &rc, &root);
	assert_int_equal(rc, 0);
	assert_int_equal(json_integer_value(json_object_get(cmp, "base_boots")), 3);
	assert_int_equal(json_integer_value(json_object_get(cmp, "new_boots")), 3);
	assert_non_null(json_string_value(json_object_get(cmp, "calibration")));
	json_array_foreach(json_object_get(cmp, "findings"), i, f) {
		printf("finding: %s\n", hb_itest_str(f, "text"));
		assert_false(json_is_true(json_object_get(f, "regression")));
	}
	/* every timing metric was judged (no noise exclusion), with the
	 * calibrated sd as its floor, and nothing moved */
	json_array_foreach(json_object_get(cmp, "metrics"), i, m) {
		const char *v = hb_itest_str(m, "verdict");

		assert_string_not_equal(v, "regression");
		assert_string_not_equal(v, "improvement");
		if (!strcmp(hb_itest_str(m, "better"), "lower") && !strcmp(hb_itest_str(m, "unit"), "ns")) {
			assert_string_equal(v, "same");
			assert_true(json_is_number(json_object_get(m, "boot_sd_calibrated")));
		}
	}
	json_decref(root);
	printf("A/A with calibration: %.0f s\n", hb_itest_now() - t0);
}

/* What an allocation delay can move at all: the timed phases that allocate
 * shmem huge folios (fragment's setup fills memory with them; pressure fills
 * 32 and allocates more as it swaps back in). */
static const char *const delay_alloc_possible[] = { "fault.write_fault_huge",
						    "fragment.clean_fault_latency",
						    "fragment.fragmented_fault_latency",
						    "fragment.fragment_setup_time",
						    "pressure.swap_fill_time",
						    "pressure.swap_phase_time",
						    "pressure.swap_verify_time",
						    "pressure.noswap_time_to_oom" };

static bool listed(const char *const *l, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* The metric workload.name in a comparison. */
static json_t *metric_row(json_t *cmp, const char *wname)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(cmp, "metrics"), i, m) {
		char name[256];

		snprintf(name, sizeof(name), "%s.%s", hb_itest_str(m, "workload"),
			 hb_itest_str(m, "name"));
		if (!strcmp(name, wname))
			return m;
	}
	return NULL;
}

/* compare-report of BASE and NEW, the delay recipe of pct %: the per-fault
 * metrics are flagged and moved by pct (+-0.1), nothing the delay cannot
 * cause is flagged. */
static void delay_judged(const char *base, const char *new, double pct)
{
	const size_t n_flag = sizeof(delay_alloc_flagged) / sizeof(delay_alloc_flagged[0]);
	const size_t n_poss = sizeof(delay_alloc_possible) / sizeof(delay_alloc_possible[0]);
	json_t *root, *cmp, *f;
	size_t i, found = 0;
	int rc;

	cmp = hb_itest_compare_json(base, new, &rc, &root);
	assert_int_equal(rc, 1);
	json_array_foreach(json_object_get(cmp, "findings"), i, f) {
		char name[256];

		if (!json_is_true(json_object_get(f, "regression")))
			continue;
		/* only metrics: the kernel is otherwise the same */
		assert_string_equal(hb_itest_str(f, "kind"), "metric");
		snprintf(name, sizeof(name), "%s.%s", hb_itest_str(f, "workload"),
			 hb_itest_str(f, "what"));
		printf("flagged: %s\n", name);
		if (!listed(delay_alloc_possible, n_poss, name))
			fail_msg("%s flagged: the allocation delay cannot move it", name);
		found += listed(delay_alloc_flagged, n_flag, name);
	}
	/* every metric the delay moves by its full size */
	assert_int_equal(found, n_flag);
	for (i = 0; i < n_flag; i++) {
		json_t *m = metric_row(cmp, delay_alloc_flagged[i]);
		double ch;

		assert_non_null(m);
		ch = json_number_value(json_object_get(m, "change_pct"));
		printf("%s: %+.3f %% (injected %.1f %%)\n", delay_alloc_flagged[i], ch, pct);
		assert_true(fabs(ch - pct) <= 0.1);
		assert_string_equal(hb_itest_str(m, "verdict"), "regression");
	}
	json_decref(root);
}

/* ab minimal-6.1 against the 1 % delay recipe, 3 + 3 boots: flagged, and
 * measured at 1 %. Then the 5 % recipe, 3 boots of its own, against the
 * same BASE boots (compare-report of two run groups; the virtual clock
 * makes boots of one kernel agree to 0.1 % whenever they ran): measured at
 * 5 %. The 5 % recipe had an ab of its own (6 boots, 64 s); its BASE was
 * the same kernel, the same suite. */
void test_boots_delay_alloc(void **state)
{
	char *ab[] = { "ab", "minimal-6.1", "minimal-6.1-delay-alloc-1pct", "--boots", "3",
		       "--suite", BOOTS_SUITE, "--results", (char *)hb_itest_results_dir(), NULL };
	char *run5[] = { "run", "--target", "minimal-6.1-delay-alloc-5pct", "--boots", "3",
			 "--suite", BOOTS_SUITE, "--results", (char *)hb_itest_results_dir(), NULL };
	char base[4096], new[4096];
	struct hb_itest_out o;
	double t0 = hb_itest_now();

	(void)state;
	hb_itest_hugebench(ab, &o);
	assert_int_equal(o.exit_code, 1);
	printed_dir(o.out, "  BASE -> ", base, sizeof(base));
	printed_dir(o.out, "  NEW  -> ", new, sizeof(new));
	hb_itest_out_free(&o);
	assert_true(base[0] && new[0]);
	delay_judged(base, new, 1.0);
	hb_itest_hugebench(run5, &o);
	if (o.exit_code != 0)
		hb_itest_fail_out(&o, "run of the 5 %% recipe exited %d", o.exit_code);
	printed_dir(o.out, " at a time) -> ", new, sizeof(new));
	hb_itest_out_free(&o);
	assert_true(new[0]);
	delay_judged(base, new, 5.0);
	printf("delay injection 1 %% and 5 %%: %.0f s\n", hb_itest_now() - t0);
}
