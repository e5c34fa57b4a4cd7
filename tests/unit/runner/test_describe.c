/* test_describe.c - the runner's parameter tables seen from outside
 * (guest-images/runner/runner.c, build/hb-guest): `hb-guest --describe`
 * lists every workload with defaults its own checker allows, unique names
 * and help; every shipped configs/NAME.suite passes the check the host
 * runs before a boot, and only those that run fio, stress-ng or kselftest
 * (the workloads whose descriptors name a tool) get the tools layer; a bad
 * suite is stopped by hb-guest and by `hugebench
 * run` before anything runs or boots. Skipped when build/ lacks the
 * binaries. */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "suite.h"
#include "sysinfo.h"
#include "util.h"

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("params");
}

/* ---- the real tables (build/hb-guest) and the shipped suites ----------- */

static int guest_describe(struct hb_describe *d)
{
	static char out[1 << 18];
	char *guest = (char *)hbt_in_root("build/hb-guest"), err[256];
	char *argv[] = { guest, "--describe", NULL };

	if (access(guest, X_OK))
		return -1;
	assert_int_equal(hb_spawn_capture(argv, out, sizeof(out)), 0);
	if (hb_describe_load(out, d, err, sizeof(err)))
		fail_msg("hb-guest --describe: %s", err);
	return 0;
}

/* Every default is allowed by its own entry, names are unique and none
 * shadows a common one, ranges are ranges, every huge tmpfs workload takes
 * the runner's shmem_enabled. */
static void test_guest_tables(void **state)
{
	static const char *const huge_tmpfs[] = { "fault", "access", "truncate", "unmap", "mlock",
						  "mapped", "pressure", "recover", "fragment",
						  "kvm-map", "race", "split-race", "fallback", "swapacct",
						  "uffd", "hugetlb-memfd", "mthp-paths" };
	struct hb_describe d;
	char why[384];

	(void)state;
	if (guest_describe(&d))
		skip();
	/* + fio, stress-ng, kselftest (issue 12), mthp (21), race, fallback,
	 * swapacct, uffd, hugetlb-memfd, mthp-paths, split-race (37) */
	assert_int_equal(d.n, 23);
	for (size_t i = 0; i < d.n; i++) {
		/* the external workloads name their tool, the others none */
		const char *tool = !strcmp(d.wl[i].name, "fio")		? "fio"
				   : !strcmp(d.wl[i].name, "stress-ng") ? "stress-ng"
				   : !strcmp(d.wl[i].name, "kselftest") ? "kselftest"
									: NULL;

		if (tool ? !d.wl[i].tool || strcmp(d.wl[i].tool, tool) : d.wl[i].tool != NULL)
			fail_msg("%s: tool %s, not %s", d.wl[i].name,
				 d.wl[i].tool ? d.wl[i].tool : "(none)", tool ? tool : "(none)");
		for (const struct hb_param *p = d.wl[i].params; p->name; p++) {
			if (p->def && hb_param_check(p, p->def, why, sizeof(why)))
				fail_msg("%s: default %s", d.wl[i].name, why);
			if (p->type == HB_PARAM_LONG && p->min > p->max)
				fail_msg("%s.%s: min > max", d.wl[i].name, p->name);
			if ((p->type == HB_PARAM_ENUM || p->type == HB_PARAM_LIST) &&
			    (!p->choices || !p->choices[0]))
				fail_msg("%s.%s: no choices", d.wl[i].name, p->name);
			if (!p->help || !p->help[0])
				fail_msg("%s.%s: no help", d.wl[i].name, p->name);
			for (const struct hb_param *q = d.common; q->name; q++)
				if (!strcmp(p->name, q->name))
					fail_msg("%s.%s shadows a common parameter", d.wl[i].name,
						 p->name);
			for (const struct hb_param *q = d.wl[i].params; q < p; q++)
				if (!strcmp(p->name, q->name))
					fail_msg("%s.%s declared twice", d.wl[i].name, p->name);
		}
	}
	for (size_t k = 0; k < HBT_N_OF(huge_tmpfs); k++) {
		const struct hb_param *p = NULL;

		for (size_t i = 0; i < d.n; i++)
			if (!strcmp(d.wl[i].name, huge_tmpfs[k]))
				p = hb_param_find(d.wl[i].params, "shmem_enabled");
		if (!p || !p->runner)
			fail_msg("%s does not take the runner's shmem_enabled", huge_tmpfs[k]);
	}
	hb_describe_free(&d);
}

/* Every configs/NAME.suite passes the same check the host runs before a
 * boot; external, full, nightly and nightly-newer need the tools layer. */
static void test_shipped_suites(void **state)
{
	static const char *const with_tools[] = { "external.suite", "full.suite", "nightly.suite",
						  "nightly-newer.suite" };
	static struct hb_suite_entry e[64];
	char dir[PATH_MAX + 16], path[PATH_MAX * 2], err[512];
	struct hb_describe d;
	struct dirent *de;
	DIR *dp;
	int suites = 0;

	(void)state;
	if (guest_describe(&d))
		skip();
	snprintf(dir, sizeof(dir), "%s/configs", hbt_root());
	dp = opendir(dir);
	assert_non_null(dp);
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		char *text;
		int n;

		if (l < 7 || strcmp(de->d_name + l - 6, ".suite"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = hb_slurp(path, NULL);
		assert_non_null(text);
		n = hb_suite_parse(text, e, 64, err, sizeof(err));
		if (n <= 0 || hb_suite_check(e, n, d.wl, d.n, err, sizeof(err)))
			fail_msg("%s: %s", de->d_name, n == 0 ? "no workloads" : err);
		{
			bool want = false;

			for (size_t k = 0; k < HBT_N_OF(with_tools); k++)
				want |= !strcmp(de->d_name, with_tools[k]);
			if (hb_suite_uses_tools(e, n, d.wl, d.n) != want)
				fail_msg("%s: %s the tools layer", de->d_name,
					 want ? "does not get" : "gets");
		}
		free(text);
		suites++;
	}
	closedir(dp);
	assert_true(suites >= 4); /* full, quick, smoke, subject-absent */
	hb_describe_free(&d);
}

/* Entry i of a equals entry j of b: name, repeat, every parameter. */
static void assert_same_entry(const struct hb_suite_entry *a, const struct hb_suite_entry *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->repeat, b->repeat);
	assert_int_equal(a->n_params, b->n_params);
	for (int k = 0; k < a->n_params; k++) {
		assert_string_equal(a->params[k].key, b->params[k].key);
		assert_string_equal(a->params[k].value, b->params[k].value);
	}
}

/* nightly-newer.suite (debian-6.19 and 7.2 in configs/nightly.matrix) is
 * nightly.suite entry for entry, then mthp.suite entry for entry (mthp, and
 * kvm-map with the gmem backing, issue 21): it cannot drift from either. */
static void test_nightly_newer_is_nightly_plus_mthp(void **state)
{
	static struct hb_suite_entry q[64], m[64], n[64];
	char err[512];
	char *qt = hb_slurp(hbt_in_root("configs/nightly.suite"), NULL);
	char *mt = hb_slurp(hbt_in_root("configs/mthp.suite"), NULL);
	char *nt = hb_slurp(hbt_in_root("configs/nightly-newer.suite"), NULL);
	int nq, nm, nn;

	(void)state;
	assert_non_null(qt);
	assert_non_null(mt);
	assert_non_null(nt);
	nq = hb_suite_parse(qt, q, 64, err, sizeof(err));
	nm = hb_suite_parse(mt, m, 64, err, sizeof(err));
	nn = hb_suite_parse(nt, n, 64, err, sizeof(err));
	assert_true(nq > 0);
	assert_int_equal(nm, 2);
	assert_int_equal(nn, nq + nm);
	for (int i = 0; i < nq; i++)
		assert_same_entry(&n[i], &q[i]);
	for (int i = 0; i < nm; i++)
		assert_same_entry(&n[nq + i], &m[i]);
	assert_string_equal(m[0].name, "mthp");
	assert_string_equal(m[1].name, "kvm-map");
	free(qt);
	free(mt);
	free(nt);
}

/* ---- a bad suite, end to end -------------------------------------------- */

/* hb-guest: exit 2, one suite_error with the line, nothing started. */
static void test_guest_rejects_typo(void **state)
{
	char *guest = (char *)hbt_in_root("build/hb-guest"), *out = hbt_path("typo.jsonl");
	char *argv[] = { guest, "--out", out, "--run", "fault", "size_m=64", NULL };
	char *stream;

	(void)state;
	if (access(guest, X_OK))
		skip();
	assert_int_equal(hbt_run_to_end(argv, hbt_path("typo.err"), true), 2);
	stream = hb_slurp(out, NULL);
	assert_non_null(stream);
	assert_non_null(strstr(stream, "\"suite_error\""));
	assert_non_null(strstr(stream, "line 1 (fault): unknown parameter 'size_m'"));
	assert_null(strstr(stream, "suite_start"));
	assert_null(strstr(stream, "workload_start"));
	free(stream);
}

/* hugebench run: exit 2 with the guest's line, before a folder or a boot. */
static void test_host_rejects_typo_before_boot(void **state)
{
	char *hb = (char *)hbt_in_root("build/hugebench"), *res = hbt_path("results");
	char *suite = hbt_write_tmp("typo.suite", "# a typo on line 3\nfault size_mb=16\n"
				   "access size_m=16\n");
	char *argv[] = { hb, "run", "--target", "debian-6.12", "--suite", suite, "--results", res,
			 NULL };
	char *errp = hbt_path("host.err"), *msg;

	(void)state;
	if (access(hb, X_OK))
		skip();
	assert_int_equal(hbt_run_to_end(argv, errp, true), 2);
	msg = hb_slurp(errp, NULL);
	assert_non_null(msg);
	if (!strstr(msg, "line 3 (access): unknown parameter 'size_m'; access takes size_mb") ||
	    strchr(msg, '\n') != msg + strlen(msg) - 1)
		fail_msg("hugebench said: %s", msg);
	free(msg);
	assert_int_equal(access(res, F_OK), -1); /* no result folder: nothing began */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_tables),
		cmocka_unit_test(test_shipped_suites),
		cmocka_unit_test(test_nightly_newer_is_nightly_plus_mthp),
		cmocka_unit_test(test_guest_rejects_typo),
		cmocka_unit_test(test_host_rejects_typo_before_boot),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
