/* test_bisect.c - the search of `hugebench bisect` (bisect/search.c) without
 * builds or boots: a simulated series whose truth (first bad prefix, prefixes
 * that skip, prefixes uncertain a number of times) answers each step the
 * search asks for; plus the --check / --metric argument grammar, the
 * verdicts of real result.json files (a crash, hang or kernel warning is bad
 * by default: issue 22), the exit codes, and git mode driven through real
 * git with a build script that compiles nothing (every commit skipped: the
 * exact candidate range, exit 4). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "compare.h"
#include "git_refs.h"
#include "sysinfo.h"
#include "util.h"

#define MAXN 64

struct sim {
	int n, first_bad;	   /* first_bad > n: no bad prefix */
	bool skip[MAXN + 1];
	int uncertain[MAXN + 1];   /* judged uncertain this many times first */
	enum hb_bisect_v v[MAXN + 1];
	int tries[MAXN + 1];
	int order[4 * MAXN], steps; /* every judgement asked for, in order */
	struct hb_bisect_next last;
};

static void sim_run(struct sim *s, int max_tries)
{
	for (int guard = 0; guard < 4 * MAXN; guard++) {
		struct hb_bisect_next nx;
		int k;

		assert_int_equal(hb_bisect_next(s->v, s->tries, s->n, max_tries, &nx), 0);
		if (nx.action == HB_BA_DONE) {
			s->last = nx;
			return;
		}
		k = nx.k;
		assert_true(k >= 0 && k <= s->n);
		if (nx.action == HB_BA_TEST)
			assert_int_equal(s->v[k], HB_BV_UNTESTED);
		else
			assert_int_equal(s->v[k], HB_BV_UNCERTAIN);
		s->order[s->steps++] = k;
		s->tries[k]++;
		if (s->skip[k])
			s->v[k] = HB_BV_SKIP;
		else if (s->tries[k] <= s->uncertain[k])
			s->v[k] = HB_BV_UNCERTAIN;
		else
			s->v[k] = k >= s->first_bad ? HB_BV_BAD : HB_BV_GOOD;
	}
	fail_msg("the search did not end");
}

static void test_middle_patch_two_builds(void **state)
{
	struct sim s = { .n = 5, .first_bad = 3 };

	(void)state;
	sim_run(&s, 3);
	assert_int_equal(s.last.outcome, HB_BO_FOUND);
	assert_int_equal(s.last.first_bad, 3);
	assert_int_equal(s.steps, 2);
	assert_int_equal(s.order[0], 2);
	assert_int_equal(s.order[1], 3);
	assert_int_equal(s.v[0], HB_BV_UNTESTED); /* the base is not built */
}

/* Every series length and position: the right answer in at most
 * ceil(log2(n + 1)) + 1 builds (the + 1: k = n built last when every
 * prefix below it was good). */
static void test_every_position(void **state)
{
	(void)state;
	for (int n = 1; n <= 40; n++)
		for (int b = 1; b <= n + 1; b++) {
			struct sim s = { .n = n, .first_bad = b };
			int bound = (int)ceil(log2(n + 1)) + 1;

			sim_run(&s, 3);
			if (b <= n) {
				assert_int_equal(s.last.outcome, HB_BO_FOUND);
				assert_int_equal(s.last.first_bad, b);
			} else {
				assert_int_equal(s.last.outcome, HB_BO_NONE);
				assert_int_equal(s.v[n], HB_BV_GOOD);
			}
			assert_true(s.steps <= bound);
		}
}

static void test_base_bad(void **state)
{
	enum hb_bisect_v v[4] = { HB_BV_BAD };
	int tries[4] = { 1 };
	struct hb_bisect_next nx;

	(void)state;
	assert_int_equal(hb_bisect_next(v, tries, 3, 3, &nx), 0);
	assert_int_equal(nx.action, HB_BA_DONE);
	assert_int_equal(nx.outcome, HB_BO_BASE_BAD);
	assert_int_equal(nx.first_bad, -1);
}

/* A skipped middle goes to a neighbour; the answer stays exact when the
 * skipped prefix is not next to the first bad one. */
static void test_skip_neighbour(void **state)
{
	struct sim s = { .n = 7, .first_bad = 6 };

	(void)state;
	s.skip[3] = true;
	sim_run(&s, 3);
	assert_int_equal(s.order[0], 3);
	assert_int_equal(s.order[1], 4); /* mid + 1 */
	assert_int_equal(s.last.outcome, HB_BO_FOUND);
	assert_int_equal(s.last.first_bad, 6);
}

/* The prefix just below the first bad skips: the answer is a range. */
static void test_skip_ambiguous(void **state)
{
	struct sim s = { .n = 5, .first_bad = 3 };

	(void)state;
	s.skip[2] = true;
	sim_run(&s, 3);
	assert_int_equal(s.last.outcome, HB_BO_AMBIGUOUS);
	assert_int_equal(s.last.first_bad, -1);
	assert_int_equal(s.last.lo, 1);
	assert_int_equal(s.last.hi, 3);
}

/* k = n does not build and everything below is good: nothing can be said
 * beyond "after lo". */
static void test_last_skipped(void **state)
{
	struct sim s = { .n = 3, .first_bad = 99 };

	(void)state;
	s.skip[3] = true;
	sim_run(&s, 3);
	assert_int_equal(s.last.outcome, HB_BO_AMBIGUOUS);
	assert_int_equal(s.last.lo, 2);
	assert_int_equal(s.last.hi, 3);
}

/* An uncertain verdict is judged again (more boots) up to the cap. */
static void test_uncertain_retested(void **state)
{
	struct sim s = { .n = 5, .first_bad = 3 };

	(void)state;
	s.uncertain[2] = 2;
	sim_run(&s, 3);
	assert_int_equal(s.tries[2], 3);
	assert_int_equal(s.order[0], 2);
	assert_int_equal(s.order[1], 2);
	assert_int_equal(s.order[2], 2);
	assert_int_equal(s.last.outcome, HB_BO_FOUND);
	assert_int_equal(s.last.first_bad, 3);
}

/* Past the cap it counts as a skip. */
static void test_uncertain_capped(void **state)
{
	struct sim s = { .n = 5, .first_bad = 3 };
	struct hb_bisect_next nx;

	(void)state;
	s.uncertain[3] = 100;
	sim_run(&s, 2);
	assert_int_equal(s.tries[3], 2);
	assert_int_equal(s.last.outcome, HB_BO_AMBIGUOUS);
	assert_int_equal(s.last.lo, 2);
	assert_int_equal(s.last.hi, 4);
	/* with a higher cap the same state asks for k = 3 again */
	assert_int_equal(hb_bisect_next(s.v, s.tries, s.n, 3, &nx), 0);
	assert_int_equal(nx.action, HB_BA_RETEST);
	assert_int_equal(nx.k, 3);
}

static void test_bad_input(void **state)
{
	enum hb_bisect_v v[2] = { 0 };
	int tries[2] = { 0 };
	struct hb_bisect_next nx;

	(void)state;
	assert_int_equal(hb_bisect_next(v, tries, 0, 3, &nx), -EINVAL);
	assert_int_equal(hb_bisect_next(NULL, tries, 1, 3, &nx), -EINVAL);
	v[1] = (enum hb_bisect_v)42;
	assert_int_equal(hb_bisect_next(v, tries, 1, 3, &nx), -EINVAL);
	assert_int_equal(hb_bisect_v_parse("bad"), HB_BV_BAD);
	assert_int_equal(hb_bisect_v_parse("maybe"), -1);
	assert_string_equal(hb_bisect_v_name(HB_BV_SKIP), "skip");
}

static void test_spec_grammar(void **state)
{
	struct hb_bisect_spec s;
	char err[256];

	(void)state;
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault", &s, err, sizeof(err)), 0);
	assert_string_equal(s.workload, "fault");
	assert_string_equal(s.name, "");
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault.huge_ShmemPmdMapped_delta_kb",
					      &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.name, "huge_ShmemPmdMapped_delta_kb");
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "fragment.clean_fault_latency", &s,
					      err, sizeof(err)),
			 0);
	assert_string_equal(s.workload, "fragment");
	assert_string_equal(s.name, "clean_fault_latency");
	/* a metric needs WORKLOAD.METRIC */
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "fragment", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "WORKLOAD.METRIC"));
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "a.b.c", &s, err, sizeof(err)), -1);
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "", &s, err, sizeof(err)), -1);
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault;rm", &s, err, sizeof(err)), -1);
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, ".x", &s, err, sizeof(err)), -1);
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault.", &s, err, sizeof(err)), -1);
}

/* ---- judging real result.json files (bisect/judge.c) ---------------------- */

static char g_dir[64] = "/tmp/hb-test-bisect-XXXXXX";

/* One run's result.json: workload fault with check pmd (pass or not) and
 * metric lat whose samples are around center; verdict given. */
static char *write_result(const char *name, const char *status, int check_pass, double center,
			  const char *verdict)
{
	static char paths[32][128];
	static int k;
	char *dir = paths[k++ % 32], file[192];
	json_t *samples = json_array(), *wl, *root, *checks = json_array();

	for (int i = 0; i < 8; i++)
		json_array_append_new(samples, json_real(center * (1 + 0.002 * (i % 4))));
	if (check_pass >= 0)
		json_array_append_new(checks, json_pack("{s:s, s:s, s:s, s:b, s:i}", "name", "pmd",
							"expected", "== 16384", "observed",
							check_pass ? "16384" : "0", "pass",
							check_pass, "rep", 0));
	wl = json_pack("{s:s, s:s, s:s, s:i, s:[{s:s, s:s, s:s, s:o, s:[f]}], s:o}", "name",
		       "fault", "status", status, "reason", "", "reps", 1, "metrics", "name", "lat",
		       "unit", "ns", "better", "lower", "samples", samples, "rep_means", center,
		       "checks", checks);
	root = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:i, s:i}, s:s, s:i,"
			 " s:[o], s:[], s:s}",
			 "schema", "hugebench-result/1", "run_id", name, "target", "name", "t",
			 "kernel_release", "6.1.0", "cmdline", "console=ttyS0", "environment",
			 "accelerator", "tcg", "qemu_version", "7.2.22", "vcpus", 2, "memory_mb",
			 2048, "suite", "s", "repeat", 1, "workloads", wl, "kernel_issues",
			 "verdict", verdict);
	assert_non_null(root);
	snprintf(dir, 128, "%s/%s", g_dir, name);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/result.json", dir);
	assert_int_equal(json_dump_file(root, file, 0), 0);
	json_decref(root);
	snprintf(dir + strlen(dir), 128 - strlen(dir), "/result.json");
	return dir;
}

/* The judging tests share g_dir, made once for the group and removed at
 * its end (group_teardown: it had been left in /tmp on every run). */
static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(g_dir) ? 0 : -1;
}

static void test_judge_check(void **state)
{
	struct hb_bisect_spec s;
	char why[512], err[128];
	char *pass = write_result("pass", "pass", 1, 1000, "pass");
	char *fail = write_result("fail", "fail", 0, 1000, "fail");
	char *absent = write_result("absent", "error", -1, 1000, "error");
	char *g[2];

	(void)state;
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault.pmd", &s, err, sizeof(err)), 0);
	g[0] = pass;
	assert_int_equal(hb_bisect_judge_check(&s, g, 1, why, sizeof(why)), HB_BV_GOOD);
	g[1] = fail;
	assert_int_equal(hb_bisect_judge_check(&s, g, 2, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "fault.pmd failed: expected == 16384, observed 0"));
	/* the check never ran: nothing to say about this kernel */
	g[0] = absent;
	assert_int_equal(hb_bisect_judge_check(&s, g, 1, why, sizeof(why)), HB_BV_SKIP);
	assert_non_null(strstr(why, "not in the run"));
	/* the workload's status */
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault", &s, err, sizeof(err)), 0);
	g[0] = fail;
	assert_int_equal(hb_bisect_judge_check(&s, g, 1, why, sizeof(why)), HB_BV_BAD);
	g[0] = absent;
	assert_int_equal(hb_bisect_judge_check(&s, g, 1, why, sizeof(why)), HB_BV_SKIP);
	/* an unreadable result is a skip, not a crash */
	g[0] = "/nonexistent/result.json";
	assert_int_equal(hb_bisect_judge_check(&s, g, 1, why, sizeof(why)), HB_BV_SKIP);
}

/* 3 boots per side through the compare-report rule: +50 % is bad, the same
 * is good; one boot per side without a calibration is uncertain. */
static void test_judge_metric(void **state)
{
	static const double base_c[3] = { 1000, 1010, 990 }, same_c[3] = { 1005, 995, 1002 };
	char *base[3], *slow[3], *same[3], why[512], err[128], name[32];
	struct hb_bisect_spec s;

	(void)state;
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "base%d", i);
		base[i] = write_result(name, "pass", 1, base_c[i], "pass");
		snprintf(name, sizeof(name), "slow%d", i);
		slow[i] = write_result(name, "pass", 1, 1.5 * base_c[i], "pass");
		snprintf(name, sizeof(name), "same%d", i);
		same[i] = write_result(name, "pass", 1, same_c[i], "pass");
	}
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "fault.lat", &s, err, sizeof(err)), 0);
	assert_int_equal(hb_bisect_judge_metric(&s, base, 3, slow, 3, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "fault.lat +50"));
	assert_int_equal(hb_bisect_judge_metric(&s, base, 3, same, 3, why, sizeof(why)), HB_BV_GOOD);
	assert_int_equal(hb_bisect_judge_metric(&s, base, 1, slow, 1, why, sizeof(why)),
			 HB_BV_UNCERTAIN);
	/* a minimum effect above the change: not a regression */
	s.min_effect_pct = 80;
	assert_int_equal(hb_bisect_judge_metric(&s, base, 3, slow, 3, why, sizeof(why)), HB_BV_GOOD);
	/* a metric the runs do not have */
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "fault.nope", &s, err, sizeof(err)), 0);
	assert_int_equal(hb_bisect_judge_metric(&s, base, 3, slow, 3, why, sizeof(why)), HB_BV_SKIP);
	assert_non_null(strstr(why, "in neither side"));
}

/* result.json of write_result with verdict, its reason and (kind != NULL)
 * one kernel issue set. */
static char *write_ended(const char *name, const char *status, int check_pass,
			 const char *verdict, const char *reason, const char *kind)
{
	char *path = write_result(name, status, check_pass, 1000, verdict);
	json_t *root = json_load_file(path, 0, NULL);

	assert_non_null(root);
	json_object_set_new(root, "verdict_reason", json_string(reason));
	if (kind)
		json_array_append_new(json_object_get(root, "kernel_issues"),
				      json_pack("{s:s, s:i, s:s}", "kind", kind, "line", 412,
						"excerpt", "WARNING: CPU: 0 PID: 1 at mm/shmem.c:99"));
	if (!strcmp(status, "none"))
		json_array_clear(json_object_get(root, "workloads"));
	assert_int_equal(json_dump_file(root, path, 0), 0);
	json_decref(root);
	return path;
}

static int crashed(const char *path, char *why, size_t len)
{
	char err[512];
	struct hb_cmp_run *r = hb_cmp_load(path, err, sizeof(err));
	int rc;

	if (!r)
		fail_msg("%s", err);
	rc = hb_bisect_boot_crash(r, why, len);
	hb_cmp_run_free(r);
	return rc;
}

/* Which ends of a boot are a crash: panic, timeout (a hang or a silent
 * guest), a guest that stopped or never spoke, a kernel issue on the
 * console; not a pass, a fail, an interrupt or an infrastructure error. */
static void test_boot_crash(void **state)
{
	char why[512];

	(void)state;
	assert_int_equal(crashed(write_ended("c-panic", "none", -1, "panic",
					     "kernel panic at console.log line 80", "panic"),
				 why, sizeof(why)), 1);
	assert_non_null(strstr(why, "panic: kernel panic at console.log line 80"));
	assert_int_equal(crashed(write_ended("c-timeout", "none", -1, "timeout",
					     "the run hit its time limit; QEMU was killed", NULL),
				 why, sizeof(why)), 1);
	assert_non_null(strstr(why, "timeout"));
	assert_int_equal(crashed(write_ended("c-silent", "none", -1, "timeout",
					     "the guest sent nothing for 10 s (--stall)", NULL),
				 why, sizeof(why)), 1);
	assert_int_equal(crashed(write_ended("c-noboot", "none", -1, "incomplete",
					     "the guest never reported (boot failed or no init)", NULL),
				 why, sizeof(why)), 1);
	assert_non_null(strstr(why, "never reported"));
	assert_int_equal(crashed(write_ended("c-warn", "pass", 1, "kernel-warning",
					     "1 kernel issue(s) on the console", "WARNING"),
				 why, sizeof(why)), 1);
	assert_non_null(strstr(why, "kernel WARNING on the console (line 412: WARNING: CPU"));
	/* a failed check with a warning beside it: the warning counts */
	assert_int_equal(crashed(write_ended("c-failwarn", "fail", 0, "fail",
					     "1 workload(s) failed a check", "BUG"),
				 why, sizeof(why)), 1);
	assert_int_equal(crashed(write_ended("c-pass", "pass", 1, "pass", "1 passed", NULL), why,
				 sizeof(why)), 0);
	assert_int_equal(crashed(write_ended("c-fail", "fail", 0, "fail", "1 failed", NULL), why,
				 sizeof(why)), 0);
	assert_int_equal(crashed(write_ended("c-intr", "none", -1, "incomplete",
					     "interrupted by a signal; QEMU was killed", NULL),
				 why, sizeof(why)), 0);
	assert_int_equal(crashed(write_ended("c-infra", "none", -1, "error",
					     "qemu exited with status 1 before the guest spoke", NULL),
				 why, sizeof(why)), 0);
	assert_int_equal(crashed(write_ended("c-wlerr", "error", -1, "error",
					     "1 workload(s) ended in error", NULL),
				 why, sizeof(why)), 0);
}

/* hb_bisect_judge, the one judge of both modes: crashes are bad by
 * default, --crash skip leaves the check or metric alone to decide; an
 * infrastructure error is never bad. */
static void test_judge_crash(void **state)
{
	char *panic = write_ended("j-panic", "none", -1, "panic", "kernel panic", "panic");
	char *warn = write_ended("j-warn", "pass", 1, "kernel-warning", "1 issue", "WARNING");
	char *hang = write_ended("j-hang", "none", -1, "timeout", "time limit", NULL);
	char *infra = write_ended("j-infra", "none", -1, "error", "cannot start qemu", NULL);
	char *fail = write_ended("j-failwarn", "fail", 0, "fail", "1 failed", "WARNING");
	char *pass = write_result("j-pass", "pass", 1, 1000, "pass");
	char *base[3], *g[2], why[512], err[128], name[32];
	struct hb_bisect_spec s;

	(void)state;
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_CHECK, "fault.pmd", &s, err, sizeof(err)), 0);
	assert_int_equal(s.crash, HB_BISECT_CRASH_BAD);
	g[0] = panic;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "boot 1 crashed: panic"));
	g[0] = pass;
	g[1] = warn;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 2, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "boot 2 crashed: kernel WARNING"));
	g[0] = hang;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_BAD);
	g[0] = infra;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_SKIP);
	/* the failed check is named before the warning beside it */
	g[0] = fail;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "fault.pmd failed"));
	g[0] = pass;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_GOOD);
	/* --crash skip: the old rule */
	s.crash = HB_BISECT_CRASH_SKIP;
	g[0] = panic;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_SKIP);
	g[0] = warn;
	assert_int_equal(hb_bisect_judge(&s, false, NULL, 0, g, 1, why, sizeof(why)), HB_BV_GOOD);
	/* metric: a step with a boot that hung is bad before any statistics;
	 * the reference itself is good unless it crashed */
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "j-base%d", i);
		base[i] = write_result(name, "pass", 1, 1000 + 5 * i, "pass");
	}
	assert_int_equal(hb_bisect_spec_parse(HB_BISECT_METRIC, "fault.lat", &s, err, sizeof(err)), 0);
	g[0] = base[1];
	g[1] = hang;
	assert_int_equal(hb_bisect_judge(&s, false, base, 3, g, 2, why, sizeof(why)), HB_BV_BAD);
	assert_non_null(strstr(why, "boot 2 crashed: timeout"));
	assert_int_equal(hb_bisect_judge(&s, true, NULL, 0, base, 3, why, sizeof(why)), HB_BV_GOOD);
	g[0] = panic;
	assert_int_equal(hb_bisect_judge(&s, true, NULL, 0, g, 1, why, sizeof(why)), HB_BV_BAD);
	s.crash = HB_BISECT_CRASH_SKIP;
	assert_int_equal(hb_bisect_judge(&s, true, NULL, 0, g, 1, why, sizeof(why)), HB_BV_GOOD);
}

static void test_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(hb_bisect_exit_code(HB_BO_FOUND), 0);
	assert_int_equal(hb_bisect_exit_code(HB_BO_NONE), 1);
	assert_int_equal(hb_bisect_exit_code(HB_BO_AMBIGUOUS), 4);
	assert_int_equal(hb_bisect_exit_code(HB_BO_BASE_BAD), 5);
	assert_string_equal(hb_bisect_outcome_name(HB_BO_AMBIGUOUS), "ambiguous");
	assert_string_equal(hb_bisect_outcome_name(HB_BO_BASE_BAD), "base-bad");
}

/* ---- bisect-step, the command git bisect run calls ------------------------- */

/* A kernels/ build script that compiles nothing: the tree "does not compile". */
static const char stub_build[] =
	"#!/bin/sh\n"
	"echo call >> \"$(dirname \"$0\")/../calls\"\n"
	"if [ \"$1\" = --fetch ]; then echo source=ksrc:stub; echo 'gcc=gcc (Test) 1.0'; exit 0; fi\n"
	"echo 'error=compile failed after 1 s: mm/x.c:6:14: error: expected something'\n"
	"exit 2\n";

static void put_file(const char *root, const char *rel, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* A git tree at tree (made) of one commit per message, the file "file"
 * holding the message. */
static void make_tree(const char *tree, const char *const *msgs, size_t n)
{
	char out[256];

	assert_int_equal(hb_mkdir_p(tree), 0);
	{
		char *const init[] = { "git", "-C", (char *)tree, "init", "-q", "-b", "main", NULL };

		assert_int_equal(hb_spawn_capture(init, out, sizeof(out)), 0);
	}
	for (size_t i = 0; i < n; i++) {
		char *const add[] = { "git", "-C", (char *)tree, "add", "file", NULL };
		char *const ci[] = { "git", "-C", (char *)tree, "-c", "user.name=t", "-c",
				     "user.email=t@t", "commit", "-qm", (char *)msgs[i], NULL };

		put_file(tree, "file", msgs[i], 0644);
		assert_int_equal(hb_spawn_capture(add, out, sizeof(out)), 0);
		assert_int_equal(hb_spawn_capture(ci, out, sizeof(out)), 0);
	}
}

static void rm_rf(const char *root)
{
	char *const rm[] = { "rm", "-rf", (char *)root, NULL };
	char out[64];

	hb_spawn_capture(rm, out, sizeof(out));
}

static int group_teardown(void **state)
{
	(void)state;
	rm_rf(g_dir);
	return 0;
}

/* build/hugebench ARGS with env; its exit code (-1: not run). */
static int hugebench(char *const argv[], char *const env[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		for (size_t i = 0; env[i]; i++)
			putenv(env[i]);
		execv("build/hugebench", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A step whose tree does not compile is recorded in steps.json as a skip
 * (exit 125 for git bisect run); run again, it answers from the record
 * without building. Writing the record crashed (SIGSEGV, exit 139) when the
 * record's json_pack lacked a key. */
static void test_step_records_skip(void **state)
{
	char root[] = "/tmp/hb-test-bisect-step-XXXXXX", path[256], env_root[300], env_cache[300];
	char tree[300], dir[300], *text;
	json_t *j, *st;

	(void)state;
	if (access("build/hugebench", X_OK))
		skip(); /* run from the checkout (make unit does) */
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/kernels/stubksrc", root);
	assert_int_equal(hb_mkdir_p(path), 0);
	snprintf(tree, sizeof(tree), "%s/tree", root);
	snprintf(dir, sizeof(dir), "%s/bisect", root);
	assert_int_equal(hb_mkdir_p(tree), 0);
	assert_int_equal(hb_mkdir_p(dir), 0);
	put_file(root, "Makefile", "", 0644);
	put_file(root, "kernels/base.config", "CONFIG_A=y\n", 0644);
	put_file(root, "kernels/build-source.sh", stub_build, 0755);
	put_file(root, "kernels/stubksrc/recipe", "kind=source\nsource=ksrc\n", 0644);
	put_file(tree, "file", "one\n", 0644);
	{
		char *const init[] = { "git", "-C", tree, "init", "-q", NULL };
		char *const add[] = { "git", "-C", tree, "add", "file", NULL };
		char *const ci[] = { "git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@t",
				     "commit", "-qm", "one", NULL };
		char out[256];

		assert_int_equal(hb_spawn_capture(init, out, sizeof(out)), 0);
		assert_int_equal(hb_spawn_capture(add, out, sizeof(out)), 0);
		assert_int_equal(hb_spawn_capture(ci, out, sizeof(out)), 0);
	}
	snprintf(env_root, sizeof(env_root), "HUGEBENCH_ROOT=%s", root);
	snprintf(env_cache, sizeof(env_cache), "HUGEBENCH_CACHE=%s/cache", root);
	{
		char *const argv[] = { "hugebench", "bisect-step", "--dir", dir, "--git", tree,
				       "--good", "HEAD", "--bad", "HEAD", "--check", "fault", "--",
				       "stubksrc", NULL };
		char *const env[] = { env_root, env_cache, NULL };

		assert_int_equal(hugebench(argv, env), 125);
		snprintf(path, sizeof(path), "%s/steps.json", dir);
		j = json_load_file(path, 0, NULL);
		assert_non_null(j);
		st = json_array_get(json_object_get(j, "steps"), 0);
		assert_string_equal(json_string_value(json_object_get(st, "verdict")), "skip");
		assert_string_equal(json_string_value(json_object_get(st, "patch")), "one");
		assert_int_equal(strlen(json_string_value(json_object_get(st, "commit"))), 40);
		assert_true(json_is_number(json_object_get(st, "build_s")));
		assert_int_equal(json_integer_value(json_object_get(st, "boots")), 0);
		assert_non_null(strstr(json_string_value(json_object_get(st, "why")), "compile failed"));
		json_decref(j);
		/* again: from the record, the build script not called (2 calls: fetch + build) */
		assert_int_equal(hugebench(argv, env), 125);
		snprintf(path, sizeof(path), "%s/calls", root);
		text = hb_slurp(path, NULL);
		assert_non_null(text);
		assert_string_equal(text, "call\ncall\n");
		free(text);
	}
	rm_rf(root);
}

/* git mode end to end with real git and the build script above: every
 * commit "does not compile", so every one is skipped and the answer is the
 * exact candidate range (all three commits after the good one), exit 4, in
 * the printed line, answer.json and summary.md; the repository is back on
 * its branch afterwards. */
static void test_git_ambiguous(void **state)
{
	char root[] = "/tmp/hb-test-bisect-git-XXXXXX", path[256], env_root[300], env_cache[300];
	char tree[300], results[300], out[8192], *text;
	const char *msgs[] = { "base", "one", "two", "three" };
	json_t *j;

	(void)state;
	if (access("build/hugebench", X_OK))
		skip(); /* run from the checkout (make unit does) */
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/kernels/stubksrc", root);
	assert_int_equal(hb_mkdir_p(path), 0);
	snprintf(tree, sizeof(tree), "%s/tree", root);
	snprintf(results, sizeof(results), "%s/results", root);
	assert_int_equal(hb_mkdir_p(tree), 0);
	put_file(root, "Makefile", "", 0644);
	put_file(root, "kernels/base.config", "CONFIG_A=y\n", 0644);
	put_file(root, "kernels/build-source.sh", stub_build, 0755);
	put_file(root, "kernels/stubksrc/recipe", "kind=source\nsource=ksrc\n", 0644);
	snprintf(path, sizeof(path), "%s/configs", root);
	assert_int_equal(hb_mkdir_p(path), 0);
	{
		/* the suite is checked against the real workloads' parameters */
		char guest[PATH_MAX], link[400];

		assert_non_null(realpath("build/hb-guest", guest));
		snprintf(link, sizeof(link), "%s/build", root);
		assert_int_equal(hb_mkdir_p(link), 0);
		snprintf(link, sizeof(link), "%s/build/hb-guest", root);
		assert_int_equal(symlink(guest, link), 0);
	}
	put_file(root, "configs/smoke.suite", "fault\n", 0644);
	make_tree(tree, msgs, 4);
	snprintf(env_root, sizeof(env_root), "HUGEBENCH_ROOT=%s", root);
	snprintf(env_cache, sizeof(env_cache), "HUGEBENCH_CACHE=%s/cache", root);
	{
		char *const argv[] = { "hugebench", "bisect", "stubksrc", "--git", tree, "--good",
				       "HEAD~3", "--bad", "HEAD", "--check", "fault", "--results",
				       results, NULL };
		char *const env[] = { env_root, env_cache, NULL };
		char *const head[] = { "git", "-C", tree, "symbolic-ref", "HEAD", NULL };
		char dir[400];
		glob_t g;

		assert_int_equal(hugebench(argv, env), 4);
		snprintf(dir, sizeof(dir), "%s/bisect-stubksrc-*/answer.json", results);
		assert_int_equal(glob(dir, 0, NULL, &g), 0);
		j = json_load_file(g.gl_pathv[0], 0, NULL);
		assert_non_null(j);
		assert_string_equal(json_string_value(json_object_get(j, "outcome")), "ambiguous");
		assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 4);
		assert_int_equal(json_array_size(json_object_get(j, "candidates")), 3);
		/* oldest first; the --bad commit itself was judged too (skip) */
		for (size_t i = 0; i < 3; i++) {
			json_t *c = json_array_get(json_object_get(j, "candidates"), i);

			assert_string_equal(json_string_value(json_object_get(c, "subject")), msgs[i + 1]);
			assert_string_equal(json_string_value(json_object_get(c, "verdict")), "skip");
		}
		assert_non_null(strstr(json_string_value(json_object_get(j, "answer")),
				       "the first bad commit is one of 3"));
		json_decref(j);
		snprintf(dir, sizeof(dir), "%.*s/summary.md",
			 (int)(strlen(g.gl_pathv[0]) - strlen("/answer.json")), g.gl_pathv[0]);
		globfree(&g);
		text = hb_slurp(dir, NULL);
		assert_non_null(text);
		assert_non_null(strstr(text, "**Result: ambiguous (skipped commits): the first bad "
					     "commit is one of 3"));
		assert_non_null(strstr(text, "(exit 4)"));
		assert_non_null(strstr(text, "## Candidates (oldest first)"));
		free(text);
		assert_int_equal(hb_spawn_capture(head, out, sizeof(out)), 0);
		assert_string_equal(out, "refs/heads/main\n");
	}
	rm_rf(root);
}

/* Bad input to the typed entries is -EINVAL with the line the command
 * prints (exit 2), before anything is built or git bisect starts: a --good
 * that is not a commit or not an ancestor of --bad, a series call with git. */
static void test_bad_refs_einval(void **state)
{
	char root[] = "/tmp/hb-test-bisect-refs-XXXXXX", tree[300], err[1024], out[256];
	static const char *const msgs[] = { "base", "one", "two" };
	struct hb_bisect_answer a;
	struct hb_bisect_opts o;
	static const struct {
		const char *good, *bad, *want;
	} cases[] = {
		{ "HEAD", "HEAD~2", "--good HEAD must be an ancestor of --bad HEAD~2" },
		{ "HEAD", "HEAD", "must be an ancestor" },
		{ "no-such-ref", "HEAD", "bisect --git: no-such-ref is not a commit in " },
		{ "--all", "HEAD", "--all is not a commit" },
	};

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(tree, sizeof(tree), "%s/tree", root);
	make_tree(tree, msgs, 3);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.target = "minimal-ksrc"; /* kernels/: kind=source, source=ksrc */
		o.git = tree;
		o.good = cases[i].good;
		o.bad = cases[i].bad;
		o.boots = o.max_tries = 1;
		err[0] = 0;
		assert_int_equal(hb_bisect_git(&o, &a, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("--good %s --bad %s: \"%s\", want \"%s\"", cases[i].good,
				 cases[i].bad, err, cases[i].want);
		assert_false(a.answered);
	}
	/* no bisect was started */
	assert_int_not_equal(GIT1(tree, out, "rev-parse", "-q", "--verify", "refs/bisect/bad"), 0);
	o.target = "minimal-ksrc";
	o.results = root;
	assert_int_equal(hb_bisect_series(&o, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hb_bisect_series needs"));
	/* a target that is no ksrc recipe */
	memset(&o, 0, sizeof(o));
	o.target = "minimal-6.1";
	o.git = tree;
	o.good = "HEAD~1";
	o.bad = "HEAD";
	assert_int_equal(hb_bisect_git(&o, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "must be kind=source with source=ksrc"));
	rm_rf(root);
}

/* The answer from git's refs is data: one candidate left is the first bad
 * commit, in the answer; the same with the bad commit unjudged is ambiguous. */
static void test_git_answer_first_bad(void **state)
{
	char root[] = "/tmp/hb-test-bisect-answer-XXXXXX", tree[300], head[64] = "", out[256];
	static const char *const msgs[] = { "base", "one", "two" };
	static struct hb_bisect_gstate g;
	struct hb_bisect_answer a;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(tree, sizeof(tree), "%s/tree", root);
	make_tree(tree, msgs, 3);
	assert_int_equal(GIT1(tree, head, "rev-parse", "HEAD"), 0);
	assert_int_equal(GITQ(tree, "bisect", "start", "HEAD", "HEAD~1"), 0);
	assert_int_equal(hb_bisect_gstate_read(tree, &g), 0);
	assert_int_equal(g.n_cands, 1);
	assert_int_equal(g.n_untested, 0);

	memset(&a, 0, sizeof(a));
	hb_bisect_git_answer(tree, &g, false, &a);
	assert_true(a.answered);
	assert_int_equal(a.outcome, HB_BO_FOUND);
	assert_string_equal(a.commit, head);
	snprintf(out, sizeof(out), "first bad commit: %.12s (two)", head);
	assert_string_equal(a.line, out);
	assert_int_equal(hb_bisect_exit_code(a.outcome), 0); /* the command's choice */

	memset(&a, 0, sizeof(a));
	hb_bisect_git_answer(tree, &g, true, &a);
	assert_int_equal(a.outcome, HB_BO_AMBIGUOUS);
	assert_string_equal(a.commit, "");
	assert_non_null(strstr(a.line, "which could not be judged"));
	assert_int_equal(hb_bisect_exit_code(a.outcome), HB_BISECT_EXIT_AMBIGUOUS);

	hb_bisect_gstate_free(&g);
	GITQ(tree, "bisect", "reset");
	rm_rf(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_middle_patch_two_builds),
		cmocka_unit_test(test_every_position),
		cmocka_unit_test(test_base_bad),
		cmocka_unit_test(test_skip_neighbour),
		cmocka_unit_test(test_skip_ambiguous),
		cmocka_unit_test(test_last_skipped),
		cmocka_unit_test(test_uncertain_retested),
		cmocka_unit_test(test_uncertain_capped),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_spec_grammar),
		cmocka_unit_test(test_judge_check),
		cmocka_unit_test(test_judge_metric),
		cmocka_unit_test(test_boot_crash),
		cmocka_unit_test(test_judge_crash),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_step_records_skip),
		cmocka_unit_test(test_git_ambiguous),
		cmocka_unit_test(test_bad_refs_einval),
		cmocka_unit_test(test_git_answer_first_bad),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
