/* test_stream_hostile.c - the stream.jsonl reader (harness/result/result.c)
 * fed what a broken or hostile guest sends (issue 9): NUL bytes, garbage,
 * events out of order or of the wrong shape, huge repetition numbers and
 * counts, markup in names. Each result.json built from such a stream must
 * still load with compare-report's own reader (cmp_load.c). */
#define _GNU_SOURCE
#include "helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "result.h"

/* The workloads of a stream (the modules dropped). */
static json_t *stream_wls(const char *s, size_t len, struct hb_stream_info *info)
{
	json_t *mods, *wls = hb_result_from_stream_n(s, len, &mods, info);

	json_decref(mods);
	return wls;
}

static const char *verdict_of(const char *s, size_t len, struct hb_stream_info *info)
{
	static char reason[512];
	json_t *wls = stream_wls(s, len, info);

	json_decref(wls);
	return hb_result_verdict(HB_END_NORMAL, info, NULL, 0, reason, sizeof(reason));
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

static void test_stream_nul_line(void **state)
{
	static const char s[] = HBT_BOOT HBT_SS HBT_WS HBT_MET "\0\0\0\n" HBT_CHK HBT_WE HBT_SE;
	struct hb_stream_info info;

	(void)state;
	assert_string_equal(verdict_of(HBT_LIT(s), &info), "pass");
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.n_pass, 1);
}

static void test_stream_nul_then_fail(void **state)
{
	static const char s[] = HBT_BOOT HBT_SS "\0\n" HBT_WS HBT_MET HBT_WEF HBT_SE;
	static const char cut[] = HBT_BOOT HBT_SS HBT_WS HBT_MET
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\0\"status\":\"pass\"}\n" HBT_SE;
	struct hb_stream_info info;

	(void)state;
	assert_string_equal(verdict_of(HBT_LIT(s), &info), "fail");
	assert_int_equal(info.bad_lines, 1);
	/* a corrupted workload_end leaves the workload without an end */
	assert_string_equal(verdict_of(HBT_LIT(cut), &info), "error");
	assert_int_equal(info.n_error, 1);
}

static void test_stream_hostile_loads(void **state)
{
	char err[512];
	int failed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char *s;
		int n = asprintf(&s, HBT_BOOT HBT_SS HBT_WS HBT_MET "%s\n" HBT_CHK HBT_WE HBT_SE, hostile[i]);

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
	static const char early[] = HBT_BOOT HBT_SS HBT_MET HBT_WS HBT_MET HBT_WE HBT_SE;
	static const char bad[] = HBT_BOOT HBT_SS HBT_WS
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":0,\"status\":\"PASS\"}\n" HBT_SE;
	struct hb_stream_info info;
	json_t *wls;

	(void)state;
	/* the event before workload_start makes an error entry, not "incomplete" */
	wls = stream_wls(HBT_LIT(early), &info);
	assert_int_equal(json_array_size(wls), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "without its workload_start"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 1), "status")),
			    "pass");
	json_decref(wls);
	/* markup in a name is refused: the workload ends in error */
	wls = stream_wls(HBT_LIT(HBT_BOOT HBT_SS HBT_WS "{\"ev\":\"metric\",\"workload\":\"fault\","
				 "\"name\":\"<b>x</b>\",\"samples\":[1]}\n" HBT_WE HBT_SE),
			 &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
	/* an unknown status is an error saying so */
	wls = stream_wls(HBT_LIT(bad), &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "pass|fail|skip|error"));
	assert_int_equal(info.n_error, 1);
	json_decref(wls);
}

/* A malformed event about a workload makes it an error; a metric without
 * samples is recorded as unavailable; what the guest dropped is kept. */
static void test_stream_malformed_metric(void **state)
{
	static const char s[] = HBT_BOOT HBT_SS HBT_WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"b\",\"better\":\"up\","
		"\"samples\":[1]}\n" HBT_WE HBT_SE;
	static const char empty[] = HBT_BOOT HBT_SS HBT_WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"e\",\"samples\":[]}\n"
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"name\":\"d\",\"samples\":[2],"
		"\"dropped_non_finite\":3}\n" HBT_WE HBT_SE;
	struct hb_stream_info info;
	json_t *wls, *w, *m;

	(void)state;
	wls = stream_wls(HBT_LIT(s), &info);
	w = json_array_get(wls, 0);
	assert_string_equal(json_string_value(json_object_get(w, "status")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(w, "reason")),
			       "malformed metric event for this workload (stream.jsonl line 4)"));
	assert_int_equal(json_array_size(json_object_get(w, "metrics")), 0);
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
	wls = stream_wls(HBT_LIT(empty), &info);
	w = json_array_get(wls, 0);
	assert_string_equal(json_string_value(json_object_get(w, "status")), "pass");
	m = hb_result_named(json_object_get(w, "metrics"), "e");
	assert_non_null(json_object_get(m, "unavailable"));
	m = hb_result_named(json_object_get(w, "metrics"), "d");
	assert_int_equal(json_integer_value(json_object_get(m, "dropped_non_finite")), 3);
	assert_int_equal(info.bad_lines, 0);
	json_decref(wls);
}

static void test_stream_kernel_release(void **state)
{
	static const char ok[] = "{\"ev\":\"suite_start\",\"kernel_release\":\"6.1.0~rc1+x\"}\n";
	static const char bad[] = "{\"ev\":\"suite_start\",\"kernel_release\":\"<b>6.1\"}\n";
	struct hb_stream_info info;
	json_t *wls;

	(void)state;
	wls = stream_wls(HBT_LIT(ok), &info);
	assert_string_equal(info.kernel_release, "6.1.0~rc1+x");
	json_decref(wls);
	/* the suite did start; only the release is left out (a bad line) */
	wls = stream_wls(HBT_LIT(bad), &info);
	assert_true(info.suite_started);
	assert_string_equal(info.kernel_release, "");
	assert_int_equal(info.bad_lines, 1);
	json_decref(wls);
}

static void test_stream_rep_bounds(void **state)
{
	static const char huge[] = HBT_BOOT HBT_SS
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":9223372036854775807}\n" HBT_SE;
	static const char last[] = HBT_BOOT HBT_SS
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":999}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"fault\",\"rep\":999,\"status\":\"pass\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"fault\",\"rep\":1000}\n" HBT_SE;
	struct hb_stream_info info;
	json_t *wls;

	(void)state;
	/* dropped, and the workload it names ends in error saying where */
	wls = stream_wls(HBT_LIT(huge), &info);
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.max_rep, 0);
	assert_int_equal(json_array_size(wls), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(wls, 0), "reps")), 0);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(wls, 0), "reason")),
			       "malformed workload_start event for this workload "
			       "(stream.jsonl line 3)"));
	assert_int_equal(info.n_error, 1);
	json_decref(wls);
	wls = stream_wls(HBT_LIT(last), &info);
	assert_int_equal(info.bad_lines, 1);
	assert_int_equal(info.max_rep, 999);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(wls, 0), "reps")), 1000);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	json_decref(wls);
}

static void test_stream_samples_overflow(void **state)
{
	static const char s[] = HBT_BOOT HBT_SS HBT_WS
		"{\"ev\":\"metric\",\"workload\":\"fault\",\"rep\":0,\"name\":\"o\","
		"\"samples\":[1e308,1.7e308,-1.7e308,1e308]}\n" HBT_WE HBT_SE;
	struct hb_stream_info info;
	json_t *wls = stream_wls(HBT_LIT(s), &info);
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
}

/* 5000 distinct workloads: capped (a suite has at most 64 lines), an error,
 * and fast (the old reader scanned every entry for every event). */
static void test_stream_many_workloads(void **state)
{
	size_t cap = 5000 * 120 + 256, len = 0;
	char *s = malloc(cap);
	char reason[256];
	struct hb_stream_info info;
	json_t *wls;

	(void)state;
	len += (size_t)snprintf(s + len, cap - len, HBT_SS);
	for (int i = 0; i < 5000; i++)
		len += (size_t)snprintf(s + len, cap - len,
					"{\"ev\":\"workload_start\",\"workload\":\"w%d\",\"rep\":0}\n"
					"{\"ev\":\"workload_end\",\"workload\":\"w%d\",\"status\":"
					"\"pass\"}\n",
					i, i);
	len += (size_t)snprintf(s + len, cap - len, HBT_SE);
	wls = stream_wls(s, len, &info);
	assert_int_equal(json_array_size(wls), HB_RESULT_MAX_WORKLOADS);
	assert_non_null(strstr(info.suite_error, "more than"));
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason,
					      sizeof(reason)),
			    "error");
	json_decref(wls);
	free(s);
}

/* Issue 23: the guest's workload_end does not decide. A failed check with
 * workload_end "pass" is a fail (verdict fail, exit 1), and a line with a
 * key twice ("pass":false,"pass":true) is a bad line, not a pass. */
static void test_stream_checks_decide(void **state)
{
	static const char text[] =
		"{\"ev\":\"suite_start\",\"suite\":\"t\",\"runs\":2}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"a\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"a\",\"rep\":0,\"name\":\"c\",\"pass\":false}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"a\",\"rep\":0,\"status\":\"pass\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"b\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"b\",\"rep\":0,\"name\":\"c\",\"pass\":false,"
		"\"pass\":true}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"b\",\"rep\":0,\"status\":\"pass\","
		"\"status\":\"pass\"}\n"
		"{\"ev\":\"suite_end\"}\n";
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream(text, &mods, &info);
	json_t *a = json_array_get(wls, 0), *b = json_array_get(wls, 1);
	char reason[256];

	(void)state;
	assert_string_equal(json_string_value(json_object_get(a, "status")), "fail");
	assert_non_null(strstr(json_string_value(json_object_get(a, "reason")), "check c failed"));
	/* both lines of b are bad: no check, and no workload_end (error) */
	assert_int_equal(info.bad_lines, 2);
	assert_int_equal(json_array_size(json_object_get(b, "checks")), 0);
	assert_string_equal(json_string_value(json_object_get(b, "status")), "error");
	assert_int_equal(info.n_fail, 1);
	assert_int_equal(info.n_pass, 0);
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason,
					      sizeof(reason)), "error");
	json_decref(wls);
	json_decref(mods);
}

/* The audit's reproducer: a check line with a duplicate key (or a raw NUL)
 * is dropped, and the clean workload_end after it said pass. The workload's
 * checks are then not known: error, never pass. A line dropped outside any
 * workload (after suite_end) only counts. */
static void test_stream_unread_check_is_not_pass(void **state)
{
	static const char text[] =
		"{\"ev\":\"suite_start\",\"suite\":\"t\",\"runs\":3}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"a\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"a\",\"rep\":0,\"name\":\"c\",\"pass\":false,"
		"\"pass\":true}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"a\",\"rep\":0,\"status\":\"pass\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"b\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"b\",\"rep\":0,\"name\":\"c\",\"pass\":\0false}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"b\",\"rep\":0,\"status\":\"skip\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"c\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"c\",\"rep\":0,\"name\":\"c\",\"pass\":true}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"c\",\"rep\":0,\"status\":\"pass\"}\n"
		"{\"ev\":\"suite_end\"}\n"
		"{\"ev\":\"note\",\"te";
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream_n(text, sizeof(text) - 1, &mods, &info);
	char reason[256];
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		json_t *w = json_array_get(wls, i);

		assert_string_equal(json_string_value(json_object_get(w, "status")), "error");
		assert_non_null(strstr(json_string_value(json_object_get(w, "reason")),
				       "1 stream line(s) inside this workload could not be read"));
		assert_null(json_object_get(w, "_unread"));
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 2), "status")),
			    "pass");
	assert_int_equal(info.bad_lines, 3);
	assert_int_equal(info.n_error, 2);
	assert_int_equal(info.n_pass, 1);
	assert_string_not_equal(hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason,
						  sizeof(reason)), "pass");
	json_decref(wls);
	json_decref(mods);
}

/* A check with a "basis" (an expectation extrapolated to this kernel) that
 * fails is counted as an unverified expectation and fails no workload; a
 * plain failed check next to it still does. */
static void test_stream_unverified(void **state)
{
	static const char text[] =
		"{\"ev\":\"suite_start\",\"suite\":\"t\",\"runs\":2}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"a\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"a\",\"rep\":0,\"name\":\"x\",\"pass\":false,"
		"\"basis\":\"extrapolated: the 7.2 table on Linux 7.3\"}\n"
		"{\"ev\":\"check\",\"workload\":\"a\",\"rep\":0,\"name\":\"y\",\"pass\":true,"
		"\"basis\":\"extrapolated\"}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"a\",\"rep\":0,\"status\":\"pass\"}\n"
		"{\"ev\":\"workload_start\",\"workload\":\"b\",\"rep\":0}\n"
		"{\"ev\":\"check\",\"workload\":\"b\",\"rep\":0,\"name\":\"z\",\"pass\":false}\n"
		"{\"ev\":\"workload_end\",\"workload\":\"b\",\"rep\":0,\"status\":\"pass\"}\n"
		"{\"ev\":\"suite_end\"}\n";
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream(text, &mods, &info);
	json_t *a = json_array_get(wls, 0), *b = json_array_get(wls, 1);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(a, "status")), "pass");
	assert_string_equal(json_string_value(json_object_get(b, "status")), "fail");
	assert_int_equal(info.n_unverified, 2);
	assert_int_equal(info.n_unverified_disagree, 1);
	assert_non_null(strstr(json_string_value(json_object_get(
				       json_array_get(json_object_get(a, "checks"), 0), "basis")),
			       "7.3"));
	json_decref(wls);
	json_decref(mods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_unverified),
		cmocka_unit_test(test_stream_nul_line),
		cmocka_unit_test(test_stream_nul_then_fail),
		cmocka_unit_test(test_stream_hostile_loads),
		cmocka_unit_test(test_stream_statuses_recorded),
		cmocka_unit_test(test_stream_malformed_metric),
		cmocka_unit_test(test_stream_kernel_release),
		cmocka_unit_test(test_stream_rep_bounds),
		cmocka_unit_test(test_stream_samples_overflow),
		cmocka_unit_test(test_stream_many_workloads),
		cmocka_unit_test(test_stream_checks_decide),
		cmocka_unit_test(test_stream_unread_check_is_not_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
