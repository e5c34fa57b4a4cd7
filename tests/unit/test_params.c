/* test_params.c - unit tests for workload parameters as data (params.c):
 * the checker (unknown key, out of range, wrong type, twice, unknown
 * workload), the suite syntax it builds on (suite.c: line numbers, repeat),
 * defaults read through hb_param_*(), the --describe JSON round trip, the
 * real tables of build/hb-guest, every shipped configs/NAME.suite, and a bad
 * suite stopped by hb-guest and by `hugebench run` before anything runs or
 * boots. Nothing here changes the host: a bad suite never gets that far. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hb.h"
#include "params.h"
#include "runner.h"
#include "util.h"

static char g_root[PATH_MAX]; /* the source tree */
static char g_tmp[PATH_MAX];

/* A table with every type, like a workload's. */
static const struct hb_param t_params[] = {
	{ .name = "size_mb", .type = HB_PARAM_LONG, .def = "64", .min = 2, .max = 1024, .mult = 2,
	  .help = "size" },
	{ .name = "hole_kb", .type = HB_PARAM_LONG, .def = "256", .min = 4, .max = 1024, .mult = 4,
	  .help = "hole" },
	{ .name = "pro", .type = HB_PARAM_LONG, .def = "-1", .min = -1, .max = 100, .help = "pro" },
	{ .name = "madv", .type = HB_PARAM_BOOL, .def = "0", .help = "madv" },
	{ .name = "phases", .type = HB_PARAM_ENUM, .def = "both", .choices = "both|swap|noswap",
	  .help = "phases" },
	{ .name = "backings", .type = HB_PARAM_LIST, .def = "huge,never",
	  .choices = "huge|never|memfd", .help = "backings" },
	{ .name = "label", .type = HB_PARAM_STR, .def = "x", .help = "free text" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

static void t_run(struct hb_ctx *ctx)
{
	(void)ctx;
}

static const struct hb_workload t_wl = { .name = "t-wl", .help = "test", .run = t_run,
					  .params = t_params };
static const struct hb_wl_desc t_descs[] = {
	{ "t-wl", "test", t_params },
	{ "plain", "no parameters", NULL },
};

/* ---- the checker ------------------------------------------------------- */

static void expect_bad(const char *key, const char *value, const char *words)
{
	const struct hb_param *p = hb_param_find(t_params, key);
	char why[384];

	assert_non_null(p);
	if (hb_param_check(p, value, why, sizeof(why)) == 0)
		fail_msg("%s=%s accepted", key, value);
	if (!strstr(why, key) || !strstr(why, words))
		fail_msg("%s=%s: '%s' lacks '%s'", key, value, why, words);
}

static void expect_ok(const char *key, const char *value)
{
	char why[384];

	if (hb_param_check(hb_param_find(t_params, key), value, why, sizeof(why)))
		fail_msg("%s=%s rejected: %s", key, value, why);
}

/* Out of range and not a whole number: the key and the range in the line.
 * strtol(base 0) used to read 0x40 as 64 and 010 as 8. */
static void test_check_long(void **state)
{
	static const char *const bad[] = { "0", "3", "1026", "2048", "abc", "", "0x40", "+4",
					   "4 ", "1e3", "-2", "99999999999999999999" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad("size_mb", bad[i], "an even number in 2..1024");
	expect_ok("size_mb", "2");
	expect_ok("size_mb", "1024");
	expect_ok("size_mb", "010"); /* decimal ten */
	expect_bad("hole_kb", "6", "a multiple of 4 in 4..1024");
	expect_ok("hole_kb", "1024");
	expect_bad("pro", "-2", "a whole number in -1..100");
	expect_ok("pro", "-1");
	expect_ok("timeout_s", "604800"); /* common, from hb_common_params */
	expect_bad("timeout_s", "604801", "1..604800");
}

static void test_check_types(void **state)
{
	(void)state;
	expect_bad("madv", "2", "0 or 1");
	expect_bad("madv", "yes", "0 or 1");
	expect_ok("madv", "1");
	expect_bad("phases", "Both", "one of both|swap|noswap");
	expect_bad("phases", "", "one of");
	expect_ok("phases", "noswap");
	expect_bad("backings", "huge,foo", "a comma-separated list of huge|never|memfd");
	expect_bad("backings", "huge,", "list");
	expect_bad("backings", ",huge", "list");
	expect_bad("backings", "hug", "list");
	expect_ok("backings", "memfd");
	expect_ok("backings", "huge,never,memfd");
	expect_ok("label", "anything,at:all");
	expect_bad("shmem_enabled", "sometimes", "always|within_size|advise|never|deny|force");
	assert_true(hb_param_find(t_params, "shmem_enabled")->runner);
	assert_null(hb_param_find(t_params, "size_m"));
	assert_null(hb_param_find(NULL, "size_mb"));
	assert_non_null(hb_param_find(NULL, "repeat"));
}

/* Runs text through the suite parser and the checker; the checker's line. */
static int check_text(const char *text, char *err, size_t len)
{
	static struct hb_suite_entry e[8];
	int n = hb_suite_parse(text, e, 8, err, len);

	if (n < 0)
		return -1;
	return hb_suite_check(e, n, t_descs, 2, err, len);
}

static void expect_suite_err(const char *text, const char *const words[])
{
	char err[512] = "";

	if (check_text(text, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", text);
	for (; *words; words++)
		if (!strstr(err, *words))
			fail_msg("'%s' lacks '%s' (suite: %s)", err, *words, text);
	assert_null(strchr(err, '\n')); /* one line */
}

/* `fault size_m=64` ran with the defaults: an unknown key is now an error
 * that names the line, the key and what the workload takes. */
static void test_suite_unknown_key(void **state)
{
	char err[512];

	(void)state;
	expect_suite_err("t-wl size_m=64\n", (const char *[]){ "line 1 (t-wl)",
		"unknown parameter 'size_m'", "size_mb", "timeout_s", NULL });
	/* the line is the file's line: comments and empty lines count */
	expect_suite_err("# c\n\nt-wl size_mb=4\n\nt-wl sizemb=4\n",
			 (const char *[]){ "line 5 (t-wl)", "'sizemb'", NULL });
	expect_suite_err("plain mode=ok\n", (const char *[]){ "line 1 (plain)", "'mode'",
		"plain takes repeat, timeout_s", NULL });
	expect_suite_err("t-wl size_mb=4 size_mb=6\n", (const char *[]){ "size_mb given twice",
		NULL });
	expect_suite_err("t-wl\nfualt size_mb=4\n", (const char *[]){ "line 2",
		"unknown workload 'fualt'", "known: t-wl, plain", NULL });
	expect_suite_err("t-wl size_mb=3\n", (const char *[]){ "line 1 (t-wl)",
		"size_mb=3 is not an even number in 2..1024", NULL });
	expect_suite_err("t-wl timeout_s=0\n", (const char *[]){ "timeout_s=0", "1..604800", NULL });
	expect_suite_err("t-wl repeat=5x\n", (const char *[]){ "line 1 (t-wl)", "repeat=5x",
		"1..1000", NULL });
	expect_suite_err("t-wl repeat=2 repeat=3\n", (const char *[]){ "repeat given twice", NULL });
	/* "-" and "_" alike in names, as on the command line */
	assert_int_equal(check_text("t_wl size_mb=4 repeat=2 timeout_s=5\nplain\n", err,
				    sizeof(err)), 0);
}

/* Suite syntax (suite.c): "line N" counts empty lines (it said line 2 for
 * the third line below), and a value cut to fit used to be checked as what
 * was left of it. */
static void test_suite_syntax(void **state)
{
	struct hb_suite_entry e[2];
	char text[256], err[512];

	(void)state;
	assert_int_equal(hb_suite_parse("# c\n\nt-wl size_mb\n", e, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3"));
	assert_int_equal(hb_suite_parse("\n\n\nt-wl\r\n", e, 2, err, sizeof(err)), 1);
	assert_int_equal(e[0].line, 4);
	assert_string_equal(e[0].name, "t-wl");
	snprintf(text, sizeof(text), "t-wl label=%0120d\n", 7);
	assert_int_equal(check_text(text, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "label"));
	assert_non_null(strstr(err, "longer than 95"));
	snprintf(text, sizeof(text), "t-wl %040d=1\n", 7);
	assert_int_equal(check_text(text, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than 31"));
}

/* ---- defaults through the workload API ---------------------------------- */

static void test_defaults(void **state)
{
	int fd = open("/dev/null", O_WRONLY);
	struct hb_ctx *ctx;

	(void)state;
	assert_true(fd >= 0);
	ctx = hb_ctx_new(&t_wl, 0, fd);
	assert_int_equal(hb_param_long(ctx, "size_mb"), 64);
	assert_int_equal(hb_param_long(ctx, "pro"), -1);
	assert_false(hb_param_bool(ctx, "madv"));
	assert_string_equal(hb_param_str(ctx, "phases"), "both");
	assert_string_equal(hb_param_str(ctx, "backings"), "huge,never");
	assert_null(hb_param_given(ctx, "shmem_enabled")); /* no default: not set */
	assert_int_equal(hb_ctx_status(ctx), HB_PASS);
	hb_ctx_free(ctx);

	ctx = hb_ctx_new(&t_wl, 0, fd);
	hb_ctx_set_param(ctx, "size_mb", "6");
	hb_ctx_set_param(ctx, "madv", "1");
	hb_ctx_set_param(ctx, "phases", "swap");
	assert_int_equal(hb_param_long(ctx, "size_mb"), 6);
	assert_true(hb_param_bool(ctx, "madv"));
	assert_string_equal(hb_param_str(ctx, "phases"), "swap");
	assert_int_equal(hb_ctx_status(ctx), HB_PASS);
	hb_ctx_free(ctx);

	/* a value the runner did not check (a test, a caller) is still checked */
	ctx = hb_ctx_new(&t_wl, 0, fd);
	hb_ctx_set_param(ctx, "size_mb", "7");
	assert_int_equal(hb_param_long(ctx, "size_mb"), 64);
	assert_int_equal(hb_ctx_status(ctx), HB_ERROR);
	hb_ctx_free(ctx);

	/* a key the table does not declare is a bug in the workload */
	ctx = hb_ctx_new(&t_wl, 0, fd);
	assert_int_equal(hb_param_long(ctx, "size_m"), 0);
	assert_int_equal(hb_ctx_status(ctx), HB_ERROR);
	hb_ctx_free(ctx);
	ctx = hb_ctx_new(&t_wl, 0, fd);
	assert_string_equal(hb_param_str(ctx, "size_mb"), ""); /* a long read as a string */
	assert_int_equal(hb_ctx_status(ctx), HB_ERROR);
	hb_ctx_free(ctx);
	close(fd);
}

/* ---- --describe ------------------------------------------------------- */

static void test_describe_round_trip(void **state)
{
	json_t *j = hb_describe_json(t_descs, 2);
	char *text = json_dumps(j, 0), err[256];
	struct hb_describe d;
	const struct hb_param *p;

	(void)state;
	assert_int_equal(hb_describe_load(text, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.wl[0].name, "t-wl");
	for (size_t i = 0; t_params[i].name; i++) {
		p = hb_param_find(d.wl[0].params, t_params[i].name);
		assert_non_null(p);
		assert_int_equal(p->type, t_params[i].type);
		assert_string_equal(p->def ? p->def : "(none)",
				    t_params[i].def ? t_params[i].def : "(none)");
		assert_int_equal(p->min, t_params[i].min);
		assert_int_equal(p->max, t_params[i].max);
		assert_int_equal(p->mult > 1 ? p->mult : 0, t_params[i].mult > 1 ? t_params[i].mult : 0);
		assert_string_equal(p->choices ? p->choices : "", t_params[i].choices ? t_params[i].choices : "");
		assert_int_equal(p->runner, t_params[i].runner);
	}
	assert_null(d.wl[1].params[0].name);
	assert_string_equal(d.common[1].name, "timeout_s");
	hb_describe_free(&d);
	free(text);
	json_decref(j);
	assert_int_equal(hb_describe_load("{\"schema\":\"other\"}", &d, err, sizeof(err)), -1);
	assert_int_equal(hb_describe_load("not json", &d, err, sizeof(err)), -1);
	assert_int_equal(hb_describe_load("{\"schema\":\"" HB_DESCRIBE_SCHEMA "\",\"workloads\":"
					  "[{\"name\":\"a\",\"params\":[{\"name\":\"k\",\"type\":"
					  "\"float\"}]}]}", &d, err, sizeof(err)), -1);
}

/* ---- the real tables (build/hb-guest) and the shipped suites ----------- */

static int guest_describe(struct hb_describe *d)
{
	static char out[1 << 18];
	char guest[PATH_MAX + 32], err[256];
	char *argv[] = { guest, "--describe", NULL };

	snprintf(guest, sizeof(guest), "%s/build/hb-guest", g_root);
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
						  "kvm-map" };
	struct hb_describe d;
	char why[384];

	(void)state;
	if (guest_describe(&d))
		skip();
	assert_int_equal(d.n, 15); /* + fio, stress-ng, kselftest (issue 12) */
	for (size_t i = 0; i < d.n; i++) {
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
	for (size_t k = 0; k < sizeof(huge_tmpfs) / sizeof(huge_tmpfs[0]); k++) {
		const struct hb_param *p = NULL;

		for (size_t i = 0; i < d.n; i++)
			if (!strcmp(d.wl[i].name, huge_tmpfs[k]))
				p = hb_param_find(d.wl[i].params, "shmem_enabled");
		if (!p || !p->runner)
			fail_msg("%s does not take the runner's shmem_enabled", huge_tmpfs[k]);
	}
	hb_describe_free(&d);
}

/* Every configs/NAME.suite passes the same check the host runs before a boot. */
static void test_shipped_suites(void **state)
{
	static struct hb_suite_entry e[64];
	char dir[PATH_MAX + 16], path[PATH_MAX * 2], err[512];
	struct hb_describe d;
	struct dirent *de;
	DIR *dp;
	int suites = 0;

	(void)state;
	if (guest_describe(&d))
		skip();
	snprintf(dir, sizeof(dir), "%s/configs", g_root);
	dp = opendir(dir);
	assert_non_null(dp);
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		char *text;
		int n;

		if (l < 7 || strcmp(de->d_name + l - 6, ".suite"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		text = hb_read_text(path, NULL);
		assert_non_null(text);
		n = hb_suite_parse(text, e, 64, err, sizeof(err));
		if (n <= 0 || hb_suite_check(e, n, d.wl, d.n, err, sizeof(err)))
			fail_msg("%s: %s", de->d_name, n == 0 ? "no workloads" : err);
		free(text);
		suites++;
	}
	closedir(dp);
	assert_true(suites >= 4); /* full, quick, smoke, subject-absent */
	hb_describe_free(&d);
}

/* ---- a bad suite, end to end -------------------------------------------- */

/* argv to completion, stdout and stderr to errpath; the exit code. */
static int run_to_end(char *const argv[], const char *errpath)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* hb-guest: exit 2, one suite_error with the line, nothing started. */
static void test_guest_rejects_typo(void **state)
{
	char guest[PATH_MAX + 32], out[PATH_MAX + 16], errp[PATH_MAX + 16];
	char *argv[] = { guest, "--out", out, "--run", "fault", "size_m=64", NULL };
	char *stream;

	(void)state;
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", g_root);
	if (access(guest, X_OK))
		skip();
	snprintf(out, sizeof(out), "%s/typo.jsonl", g_tmp);
	snprintf(errp, sizeof(errp), "%s/typo.err", g_tmp);
	assert_int_equal(run_to_end(argv, errp), 2);
	stream = hb_read_text(out, NULL);
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
	char hb[PATH_MAX + 32], suite[PATH_MAX + 16], res[PATH_MAX + 16], errp[PATH_MAX + 16];
	char *argv[] = { hb, "run", "--target", "debian-6.12", "--suite", suite, "--results", res,
			 NULL };
	char *msg;
	FILE *f;

	(void)state;
	snprintf(hb, sizeof(hb), "%s/build/hugebench", g_root);
	if (access(hb, X_OK))
		skip();
	snprintf(suite, sizeof(suite), "%s/typo.suite", g_tmp);
	snprintf(res, sizeof(res), "%s/results", g_tmp);
	snprintf(errp, sizeof(errp), "%s/host.err", g_tmp);
	f = fopen(suite, "w");
	assert_non_null(f);
	fputs("# a typo on line 3\nfault size_mb=16\naccess size_m=16\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(run_to_end(argv, errp), 2);
	msg = hb_read_text(errp, NULL);
	assert_non_null(msg);
	if (!strstr(msg, "line 3 (access): unknown parameter 'size_m'; access takes size_mb") ||
	    strchr(msg, '\n') != msg + strlen(msg) - 1)
		fail_msg("hugebench said: %s", msg);
	free(msg);
	assert_int_equal(access(res, F_OK), -1); /* no result folder: nothing began */
}

static int setup(void **state)
{
	char p[PATH_MAX + 16];
	const char *slash = strrchr(__FILE__, '/');

	(void)state;
	snprintf(p, sizeof(p), "%.*s/../..", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	if (!realpath(p, g_root))
		return -1;
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/hb-test-params-XXXXXX");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char *rm[] = { "rm", "-rf", g_tmp, NULL };

	(void)state;
	hb_spawn_capture(rm, NULL, 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_long),
		cmocka_unit_test(test_check_types),
		cmocka_unit_test(test_suite_unknown_key),
		cmocka_unit_test(test_suite_syntax),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_describe_round_trip),
		cmocka_unit_test(test_guest_tables),
		cmocka_unit_test(test_shipped_suites),
		cmocka_unit_test(test_guest_rejects_typo),
		cmocka_unit_test(test_host_rejects_typo_before_boot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
