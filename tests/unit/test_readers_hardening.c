/* test_readers_hardening.c - the readers of bytes that come from a guest
 * (issue 9): console scanner, stream aggregation, the accelerator probe's
 * stream check and the suite parser, fed NUL bytes, garbage and events
 * that break the protocol. Every result.json built from a hostile stream
 * must load with compare-report's own reader (cmp_load.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accel.h"
#include "compare.h"
#include "console.h"
#include "result.h"
#include "suite.h"

/* sizeof of a literal, without its terminating NUL: NULs inside count */
#define LIT(s) (s), (sizeof(s) - 1)

/* ---- console ------------------------------------------------------------ */

static void test_console_nul_before_panic(void **state)
{
	static const char con[] = "[    0.0] Linux version 6.1\n"
				  "[    1.0] serial\0garbage\n"
				  "[    5.0] Kernel panic - not syncing: Fatal exception\n";
	struct hb_kissue is[4];
	char reason[256];
	struct hb_stream_info info = { .booted = true, .suite_end = true, .n_pass = 1 };
	size_t n = hb_console_scan_n(LIT(con), is, 4);

	(void)state;
	assert_int_equal(n, 1);
	assert_string_equal(is[0].kind, "panic");
	assert_int_equal(is[0].line, 3);
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, is, n, reason, sizeof(reason)),
			    "panic");
}

static void test_console_nul_in_line(void **state)
{
	static const char con[] = "boot\n\0\0\0[ 5.0] Kernel panic - not syncing: x\nafter\n";
	static const char warn[] = "boot\n\0\n[ 5.1] WARNING: CPU: 0 PID: 1 at mm/shmem.c:1\n";
	struct hb_kissue is[4];

	(void)state;
	assert_int_equal(hb_console_scan_n(LIT(con), is, 4), 1);
	assert_string_equal(is[0].kind, "panic");
	assert_int_equal(is[0].line, 2);
	/* the excerpt stays one string: the NULs are shown, not an end */
	assert_non_null(strstr(is[0].excerpt, "???[ 5.0] Kernel panic"));
	assert_non_null(strstr(is[0].excerpt, "after"));
	assert_int_equal(hb_console_scan_n(LIT(warn), is, 4), 1);
	assert_string_equal(is[0].kind, "WARNING");
	assert_int_equal(hb_console_scan_n(NULL, 0, is, 4), 0);
	assert_int_equal(hb_console_scan_n(LIT(""), is, 4), 0);
}

/* A line that never ended: the panic is 3000 bytes in. The old scanner
 * looked only at the first 1023 bytes of a line. */
static void test_console_long_line(void **state)
{
	size_t len = 3000 + 64;
	char *con = malloc(len + 1);
	struct hb_kissue is[2];

	(void)state;
	memset(con, 'x', 3000);
	snprintf(con + 3000, 65, "Kernel panic - not syncing: Fatal exception");
	assert_int_equal(hb_console_scan(con, is, 2), 1);
	assert_string_equal(is[0].kind, "panic");
	/* the excerpt holds the match, not only the 'x's before it */
	assert_non_null(strstr(is[0].excerpt, "Kernel panic"));
	free(con);
}

/* ---- stream ------------------------------------------------------------- */

#define BOOT "{\"ev\":\"boot\",\"cmdline\":\"console=ttyS0\"}\n"
#define SS "{\"ev\":\"suite_start\",\"suite\":\"s\",\"kernel_release\":\"6.1.0-t\"}\n"
#define WS "{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":0}\n"
#define MET                                                                                        \
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"lat\",\"unit\":\"ns\","  \
	"\"better\":\"lower\",\"samples\":[1,2,3]}\n"
#define CHK                                                                                        \
	"{\"ev\":\"check\",\"workload\":\"fault\",\"rep\":0,\"name\":\"c\",\"expected\":\"== 1\"," \
	"\"observed\":\"1\",\"pass\":true}\n"
#define WE "{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"pass\"}\n"
#define WEF "{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"fail\"}\n"
#define SE "{\"ev\":\"suite_end\"}\n"

static const char *verdict_of(const char *s, size_t len, struct hb_stream_info *info)
{
	static char reason[512];
	json_t *mods, *wls = hb_result_from_stream_n(s, len, &mods, info);

	json_decref(wls);
	json_decref(mods);
	return hb_result_verdict(HB_END_NORMAL, info, NULL, 0, reason, sizeof(reason));
}

static void test_stream_nul_line(void **state)
{
	static const char s[] = BOOT SS WS MET "\0\0\0\n" CHK WE SE;
	struct hb_stream_info info;

	(void)state;
	assert_string_equal(verdict_of(LIT(s), &info), "pass");
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.n_pass, 1);
}

static void test_stream_nul_then_fail(void **state)
{
	static const char s[] = BOOT SS "\0\n" WS MET WEF SE;
	static const char cut[] = BOOT SS WS MET
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\0\"status\":\"pass\"}\n" SE;
	struct hb_stream_info info;

	(void)state;
	assert_string_equal(verdict_of(LIT(s), &info), "fail");
	assert_int_equal(info.bad_lines, 1);
	/* a corrupted workload_end leaves the workload without an end */
	assert_string_equal(verdict_of(LIT(cut), &info), "error");
	assert_int_equal(info.n_error, 1);
}

/* Wraps the aggregated stream the way run.c does, writes it to a file and
 * loads it with compare-report's reader; returns 0 when it loaded. */
static int write_and_load(const char *s, size_t len, char *err, size_t errlen)
{
	struct hb_stream_info info;
	char reason[512], path[] = "/tmp/hb-test-readers-XXXXXX";
	json_t *mods, *wls = hb_result_from_stream_n(s, len, &mods, &info);
	const char *verdict = hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason,
						sizeof(reason));
	json_t *res = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s}, s:s, s:I, s:o, s:o, "
				"s:o, s:s, s:s}",
				"schema", "hugebench-result/1", "run_id", "host/x-s", "created",
				"2026-12-03T07:15:00Z", "target", "name", "host", "kind", "host",
				"environment", "accelerator", "none", "suite", "s", "repeat",
				(json_int_t)info.max_rep + 1, "workloads", wls, "modules", mods,
				"kernel_issues", json_array(), "verdict", verdict, "verdict_reason",
				reason);
	struct hb_cmp_run *run;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	if (info.bad_lines)
		json_object_set_new(res, "stream_bad_lines", json_integer(info.bad_lines));
	assert_int_equal(json_dump_file(res, path, JSON_INDENT(1)), 0);
	json_decref(res);
	run = hb_cmp_load(path, err, errlen);
	unlink(path);
	hb_cmp_run_free(run);
	return run ? 0 : -1;
}

/* Each line, put into an otherwise good stream, must leave a result.json
 * that compare-report loads. */
static const char *const hostile[] = {
	/* an event before its workload_start (the placeholder status stayed) */
	"{\"ev\":\"metric\",\"workload\":\"early\",\"rep\":0,\"name\":\"m\",\"samples\":[1]}",
	"{\"ev\":\"check\",\"workload\":\"early2\",\"name\":\"c\",\"pass\":true}",
	"{\"ev\":\"note\",\"workload\":\"early3\",\"text\":\"hi\"}",
	/* statuses */
	"{\"ev\":\"workload_start\",\"workload\":\"st\",\"rep\":0}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"st\",\"rep\":0,\"status\":\"ok\"}",
	"{\"ev\":\"workload_start\",\"workload\":\"st\",\"rep\":0}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"st\",\"rep\":0,\"status\":\"incomplete\"}",
	"{\"ev\":\"workload_start\",\"workload\":\"st\",\"rep\":0}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"st\",\"rep\":0,\"status\":7,\"reason\":{}}",
	"{\"ev\":\"workload_start\",\"workload\":\"st\",\"rep\":0}\n"
	"{\"ev\":\"workload_end\",\"workload\":\"st\",\"status\":\"pass\",\"params\":[1]}",
	/* metrics */
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"b\",\"better\":\"sideways\","
	"\"samples\":[1]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"b\",\"better\":5,\"samples\":[1]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"s\",\"samples\":[\"1\",null]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"s\",\"samples\":\"1,2\"}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"s\",\"samples\":[]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"s\"}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"u\",\"unavailable\":5}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"u\",\"unit\":[],\"samples\":[1]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"\",\"samples\":[1]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":7,\"samples\":[1]}",
	"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"o\","
	"\"samples\":[1e308,1.7e308,-1.7e308,1e308]}",
	/* checks and snapshots */
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"c\",\"pass\":\"yes\"}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"c\"}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"\",\"pass\":true}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"c\",\"pass\":true,\"observed\":1}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"c\",\"pass\":true,\"rep\":1e300}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"c\",\"pass\":true,\"rep\":-1}",
	"{\"ev\":\"snapshot\",\"workload\":\"fault\",\"label\":\"h\",\"meminfo_kb\":{\"A\":\"x\"}}",
	"{\"ev\":\"snapshot\",\"workload\":\"fault\",\"meminfo_kb\":{}}",
	"{\"ev\":\"snapshot\",\"workload\":\"fault\",\"label\":\"h\",\"vmstat\":[1]}",
	/* reps and names */
	"{\"ev\":\"workload_start\",\"workload\":\"r\",\"rep\":9223372036854775807}",
	"{\"ev\":\"workload_start\",\"workload\":\"r\",\"rep\":-2147483648}",
	"{\"ev\":\"workload_start\",\"workload\":\"r\",\"rep\":0.5}",
	"{\"ev\":\"workload_start\",\"workload\":\"a b\",\"rep\":0}",
	"{\"ev\":\"workload_start\",\"workload\":\"\",\"rep\":0}",
	"{\"ev\":\"workload_start\",\"workload\":\"\\u0001x\",\"rep\":0}",
	"{\"ev\":\"workload_start\",\"workload\":7,\"rep\":0}",
	"{\"ev\":\"workload_start\",\"workload\":\"<script>\",\"rep\":0}",
	"{\"ev\":\"check\",\"workload\":\"fault\",\"name\":\"a|b\",\"pass\":false}",
	"{\"ev\":\"suite_start\",\"kernel_release\":\"\\u00e9\\u00e9\\u00e9\"}",
	"{\"ev\":\"suite_start\",\"kernel_release\":{}}",
	"{\"ev\":\"suite_error\",\"reason\":\"\\u00ff\\n\\u001b[31m\"}",
	/* not events at all */
	"[1,2,3]", "\"ev\"", "{\"ev\":5}", "{\"ev\":\"\"}", "\xff\xfe{}", "{\"ev\":\"x\"} junk",
};

static void test_stream_hostile_loads(void **state)
{
	char err[512];
	int failed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char *s;
		int n = asprintf(&s, BOOT SS WS MET "%s\n" CHK WE SE, hostile[i]);

		assert_true(n > 0);
		if (write_and_load(s, (size_t)n, err, sizeof(err))) {
			fprintf(stderr, "hostile line %zu: %s\n", i, err);
			failed++;
		}
		free(s);
	}
	assert_int_equal(failed, 0);
}

static void test_stream_statuses_recorded(void **state)
{
	static const char early[] = BOOT SS MET WS MET WE SE;
	static const char bad[] = BOOT SS WS
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"PASS\"}\n" SE;
	struct hb_stream_info info;
	json_t *mods, *wls;

	(void)state;
	/* the event before workload_start makes an error entry, not "incomplete" */
	wls = hb_result_from_stream_n(LIT(early), &mods, &info);
	assert_int_equal(json_array_size(wls), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "without its workload_start"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 1), "status")),
			    "pass");
	json_decref(wls);
	json_decref(mods);
	/* markup in a name is refused: the workload ends in error */
	wls = hb_result_from_stream_n(LIT(BOOT SS WS "{\"ev\":\"metric\",\"workload\":\"fault\","
					  "\"name\":\"<b>x</b>\",\"samples\":[1]}\n" WE SE),
				      &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
	json_decref(mods);
	/* an unknown status is an error saying so */
	wls = hb_result_from_stream_n(LIT(bad), &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "pass|fail|skip|error"));
	assert_int_equal(info.n_error, 1);
	json_decref(wls);
	json_decref(mods);
}

/* A malformed event about a workload makes it an error; a metric without
 * samples is recorded as unavailable; what the guest dropped is kept. */
static void test_stream_malformed_metric(void **state)
{
	static const char s[] = BOOT SS WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"b\",\"better\":\"up\","
		"\"samples\":[1]}\n" WE SE;
	static const char empty[] = BOOT SS WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"e\",\"samples\":[]}\n"
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"d\",\"samples\":[2],"
		"\"dropped_non_finite\":3}\n" WE SE;
	struct hb_stream_info info;
	json_t *mods, *wls, *w, *m;

	(void)state;
	wls = hb_result_from_stream_n(LIT(s), &mods, &info);
	w = json_array_get(wls, 0);
	assert_string_equal(json_string_value(json_object_get(w, "status")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(w, "reason")),
			       "malformed metric event for this workload (stream.jsonl line 4)"));
	assert_int_equal(json_array_size(json_object_get(w, "metrics")), 0);
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
	json_decref(mods);
	wls = hb_result_from_stream_n(LIT(empty), &mods, &info);
	w = json_array_get(wls, 0);
	assert_string_equal(json_string_value(json_object_get(w, "status")), "pass");
	m = hb_result_named(json_object_get(w, "metrics"), "e");
	assert_non_null(json_object_get(m, "unavailable"));
	m = hb_result_named(json_object_get(w, "metrics"), "d");
	assert_int_equal(json_integer_value(json_object_get(m, "dropped_non_finite")), 3);
	assert_int_equal(info.bad_lines, 0);
	json_decref(wls);
	json_decref(mods);
}

static void test_stream_kernel_release(void **state)
{
	static const char ok[] = "{\"ev\":\"suite_start\",\"kernel_release\":\"6.1.0~rc1+x\"}\n";
	static const char bad[] = "{\"ev\":\"suite_start\",\"kernel_release\":\"<b>6.1\"}\n";
	struct hb_stream_info info;
	json_t *mods, *wls;

	(void)state;
	wls = hb_result_from_stream_n(LIT(ok), &mods, &info);
	assert_string_equal(info.kernel_release, "6.1.0~rc1+x");
	json_decref(wls);
	json_decref(mods);
	/* the suite did start; only the release is left out (a bad line) */
	wls = hb_result_from_stream_n(LIT(bad), &mods, &info);
	assert_true(info.suite_started);
	assert_string_equal(info.kernel_release, "");
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
	json_decref(mods);
}

static void test_stream_rep_bounds(void **state)
{
	static const char huge[] = BOOT SS
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":9223372036854775807}\n" SE;
	static const char last[] = BOOT SS
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":999}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":999,\"status\":\"pass\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":1000}\n" SE;
	struct hb_stream_info info;
	json_t *mods, *wls;

	(void)state;
	/* dropped, and the workload it names ends in error saying where */
	wls = hb_result_from_stream_n(LIT(huge), &mods, &info);
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.max_rep, 0);
	assert_int_equal(json_array_size(wls), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(wls, 0), "reps")), 0);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "malformed workload_start event for this workload "
			       "(stream.jsonl line 3)"));
	assert_int_equal(info.n_error, 1);
	json_decref(wls);
	json_decref(mods);
	wls = hb_result_from_stream_n(LIT(last), &mods, &info);
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.max_rep, 999);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(wls, 0), "reps")), 1000);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	json_decref(wls);
	json_decref(mods);
}

static void test_stream_samples_overflow(void **state)
{
	static const char s[] = BOOT SS WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"o\","
		"\"samples\":[1e308,1.7e308,-1.7e308,1e308]}\n" WE SE;
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream_n(LIT(s), &mods, &info);
	json_t *m = json_array_get(json_object_get(json_array_get(wls, 0), "metrics"), 0);
	json_t *sum = json_object_get(m, "summary");
	const char *k;
	json_t *v;

	(void)state;
	assert_int_equal(json_array_size(json_object_get(m, "rep_means")), 1);
	assert_float_equal(json_number_value(json_array_get(json_object_get(m, "rep_means"), 0)),
			   5e307, 1e293);
	assert_non_null(sum);
	json_object_foreach(sum, k, v)
		assert_true(isfinite(json_number_value(v)));
	json_decref(wls);
	json_decref(mods);
}

/* 5000 distinct workloads: capped (a suite has at most 64 lines), an error,
 * and fast (the old reader scanned every entry for every event). */
static void test_stream_many_workloads(void **state)
{
	size_t cap = 5000 * 120 + 256, len = 0;
	char *s = malloc(cap);
	char reason[256];
	struct hb_stream_info info;
	json_t *mods, *wls;

	(void)state;
	len += (size_t)snprintf(s + len, cap - len, SS);
	for (int i = 0; i < 5000; i++)
		len += (size_t)snprintf(s + len, cap - len,
					"{\"ev\":\"workload_start\",\"workload\":\"w%d\",\"rep\":0}\n"
					"{\"ev\":\"workload_end\",\"workload\":\"w%d\",\"status\":"
					"\"pass\"}\n",
					i, i);
	len += (size_t)snprintf(s + len, cap - len, SE);
	wls = hb_result_from_stream_n(s, len, &mods, &info);
	assert_int_equal(json_array_size(wls), HB_RESULT_MAX_WORKLOADS);
	assert_non_null(strstr(info.suite_error, "more than"));
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason,
					      sizeof(reason)),
			    "error");
	json_decref(wls);
	json_decref(mods);
	free(s);
}

/* ---- the accelerator probe's reading of the stream -------------------------- */

static void test_accel_stream(void **state)
{
	static const char fake[] = BOOT SS "{\"ev\":\"note\",\"text\":\"\\\"suite_end\\\"\"}\n";
	static const char real[] = BOOT SS "\0\n" SE;
	static const char env_s[] = "{\"ev\":\"boot\",\"cmdline\":\"x \\\"suite_start\\\" y\"}\n"
				    "\0\n"
				    "{\"ev\":\"suite_start\",\"nested_virt\":\"svm+npt\",\"pmu\":true}\n";
	static const char env_bad[] = "{\"ev\":\"suite_start\",\"nested_virt\":5,\"pmu\":\"yes\","
				      "\"pmu_reason\":{}}\n";
	json_t *env = json_object();

	(void)state;
	assert_false(hb_accel_stream_finished(LIT(fake)));
	assert_true(hb_accel_stream_finished(LIT(real)));
	assert_false(hb_accel_stream_finished(NULL, 0));
	/* the words "suite_start" in an earlier line are not the event */
	hb_accel_guest_env_n(LIT(env_s), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "svm+npt");
	assert_true(json_is_true(json_object_get(env, "pmu")));
	hb_accel_guest_env("{\"ev\":\"boot\",\"cmdline\":\"\\\"suite_start\\\"\"}\n"
			   "{\"ev\":\"suite_start\",\"nested_virt\":\"none\",\"pmu\":false}\n",
			   env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "none");
	/* wrong types are left out */
	hb_accel_guest_env_n(LIT(env_bad), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "unknown");
	assert_true(json_is_null(json_object_get(env, "pmu")));
	json_decref(env);
}

/* ---- suite files -------------------------------------------------------------- */

static void test_suite_numbers(void **state)
{
	static const char *const bad[] = {
		"fault repeat=2x\n",	   "fault repeat=4294967297\n", "fault repeat=-1\n",
		"fault repeat=+5\n",	   "fault repeat=\n",		"fault repeat=1001\n",
		"fault repeat=0x10\n",	   "fault repeat=99999999999999999999\n",
	};
	struct hb_suite_entry e[4];
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(hb_suite_parse(bad[i], e, 4, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not a whole number in 1..1000"));
	}
	assert_int_equal(hb_suite_parse("fault repeat=1000\nx repeat=007\n", e, 4, err, sizeof(err)),
			 2);
	assert_int_equal(e[0].repeat, 1000);
	assert_int_equal(e[1].repeat, 7);
}

static void test_suite_lengths_and_crlf(void **state)
{
	struct hb_suite_entry e[4];
	char err[256], text[512];

	(void)state;
	/* too long for the struct: refused, not cut */
	snprintf(text, sizeof(text), "%040d\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is too long"));
	snprintf(text, sizeof(text), "fault mode=%0120d\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is longer than"));
	snprintf(text, sizeof(text), "fault %040d=1\n", 0);
	assert_int_equal(hb_suite_parse(text, e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is longer than"));
	/* a CRLF file reads like the LF one */
	assert_int_equal(hb_suite_parse("fault size_mb=64\r\n# c\r\ntruncate\r\n", e, 4, err,
					sizeof(err)),
			 2);
	assert_string_equal(e[0].name, "fault");
	assert_string_equal(e[0].params[0].value, "64");
	assert_string_equal(e[1].name, "truncate");
	/* messages name the real line (empty lines count) */
	assert_int_equal(hb_suite_parse("fault\n\n\nfault x\n", e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 4"));
}

/* A panic after more issues than the caller keeps is still kept (it was
 * dropped: a late panic read as kernel-warning, or incomplete). */
static void test_console_late_panic(void **state)
{
	static struct hb_kissue is[64];
	char *text = malloc(100 * 40 + 64);
	size_t off = 0, n;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 100; i++)
		off += (size_t)sprintf(text + off, "WARNING: CPU: 0 PID: %d at x\n", i);
	off += (size_t)sprintf(text + off, "Kernel panic - not syncing: late\n");
	n = hb_console_scan_n(text, off, is, 64);
	assert_int_equal(n, 101);
	assert_true(hb_console_has_panic(is, 64));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_late_panic),
		cmocka_unit_test(test_console_nul_before_panic),
		cmocka_unit_test(test_console_nul_in_line),
		cmocka_unit_test(test_console_long_line),
		cmocka_unit_test(test_stream_nul_line),
		cmocka_unit_test(test_stream_nul_then_fail),
		cmocka_unit_test(test_stream_hostile_loads),
		cmocka_unit_test(test_stream_statuses_recorded),
		cmocka_unit_test(test_stream_malformed_metric),
		cmocka_unit_test(test_stream_kernel_release),
		cmocka_unit_test(test_stream_rep_bounds),
		cmocka_unit_test(test_stream_samples_overflow),
		cmocka_unit_test(test_stream_many_workloads),
		cmocka_unit_test(test_accel_stream),
		cmocka_unit_test(test_suite_numbers),
		cmocka_unit_test(test_suite_lengths_and_crlf),
	};

	return cmocka_run_group_tests_name("readers_hardening", tests, NULL, NULL);
}
