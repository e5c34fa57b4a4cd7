/* test_expect.c - checks whose expectation is not a verified table's
 * (issue 36): the newest table's checks fail, unverified ones fail only
 * under --strict, known bugs pass while present or fixed and fail when
 * changed otherwise, and an accepted expectations entry turns a failed
 * check into a pass; the verdict line says each. Also the accepted file's
 * reader and the shipped file's citations. */
#define _GNU_SOURCE
#include "helpers.h"

#include "commands.h"
#include "expect.h"
#include "result.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START "{\"ev\":\"suite_start\",\"suite\":\"t\",\"runs\":1,\"kernel_release\":\"7.3.13\"}\n"
#define WL(n) "{\"ev\":\"workload_start\",\"workload\":\"" n "\",\"rep\":0}\n"
#define END(n, st) "{\"ev\":\"workload_end\",\"workload\":\"" n "\",\"rep\":0,\"status\":\"" st "\"}\n"
#define NEWEST "\"basis\":\"per the 7.2 rules, newest verified; Linux 7.3 not read\",\"expectation\":\"newest\""
#define UNVER "\"basis\":\"extrapolated: the 6.12 and 7.2 rules differ\",\"expectation\":\"unverified\""

static const char text[] =
	START
	WL("knobs")
	"{\"ev\":\"check\",\"workload\":\"knobs\",\"rep\":0,\"name\":\"c1\",\"pass\":false,"
	"\"expected\":\"e0=huge e1=small\",\"observed\":\"e0=small e1=small\"," NEWEST "}\n"
	END("knobs", "fail")
	WL("mthp")
	"{\"ev\":\"check\",\"workload\":\"mthp\",\"rep\":0,\"name\":\"u1\",\"pass\":false,"
	"\"expected\":\"4:32\",\"observed\":\"0:512\"," UNVER "}\n"
	"{\"ev\":\"check\",\"workload\":\"mthp\",\"rep\":0,\"name\":\"kb\",\"pass\":true,"
	"\"expected\":\"x\",\"observed\":\"e0=huge e1=huge\",\"known_bug\":{\"id\":\"memfd-b\","
	"\"title\":\"t\",\"ref\":\"docs/findings.md\",\"state\":\"present\"}}\n"
	END("mthp", "pass")
	"{\"ev\":\"suite_end\"}\n";

static const char *verdict(const struct hb_stream_info *info, char *r, size_t len)
{
	return hb_result_verdict(HB_END_NORMAL, info, NULL, 0, r, len);
}

/* Default: the newest table's disagreement fails its workload; the
 * unverified one does not, and the verdict line says --strict would. */
static void test_newest_hard_unverified_soft(void **state)
{
	struct hb_stream_info info;
	char r[1024];
	json_t *mods, *wls;

	(void)state;
	hb_expect_set(false, NULL, "");
	wls = hb_result_from_stream(text, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "fail");
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 1), "status")),
			    "pass");
	assert_int_equal(info.n_newest, 1);
	assert_int_equal(info.n_newest_disagree, 1);
	assert_int_equal(info.n_unverified, 1);
	assert_int_equal(info.n_unverified_disagree, 1);
	assert_int_equal(info.n_known_present, 1);
	assert_string_equal(info.known_present, "memfd-b");
	assert_string_equal(verdict(&info, r, sizeof(r)), "fail");
	assert_non_null(strstr(r, "1 unverified expectation(s) disagree"));
	assert_non_null(strstr(r, "--strict fails them"));
	assert_non_null(strstr(r, "newest verified table on Linux 7.3, 1 disagree"));
	assert_non_null(strstr(r, "known bug(s) present: memfd-b"));
	json_decref(wls);
	json_decref(mods);
}

/* --strict: the unverified disagreement fails its workload too. */
static void test_strict(void **state)
{
	struct hb_stream_info info;
	json_t *mods, *wls, *m;

	(void)state;
	hb_expect_set(true, NULL, "");
	wls = hb_result_from_stream(text, &mods, &info);
	m = json_array_get(wls, 1);
	assert_string_equal(json_string_value(json_object_get(m, "status")), "fail");
	assert_non_null(strstr(json_string_value(json_object_get(m, "reason")), "--strict"));
	hb_expect_set(false, NULL, "");
	json_decref(wls);
	json_decref(mods);
}

/* An accepted entry of the kernel's major.minor, workload, check and
 * observed value turns the failed check into a pass and the guest's
 * "fail" into a pass; another observed value is not accepted. */
static void test_accepted(void **state)
{
	struct hb_stream_info info;
	char r[1024];
	json_t *mods, *wls, *k, *c;
	json_t *e = json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "kernel", "7.3", "workload", "knobs",
			      "check", "c1", "observed", "e0=small e1=small", "cite",
			      HB_ACCEPT_CITE_TODO);

	(void)state;
	hb_expect_set(false, e, "accepted.json");
	wls = hb_result_from_stream(text, &mods, &info);
	k = json_array_get(wls, 0);
	assert_string_equal(json_string_value(json_object_get(k, "status")), "pass");
	c = json_array_get(json_object_get(k, "checks"), 0);
	assert_true(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(json_string_value(json_object_get(c, "accepted")), HB_ACCEPT_CITE_TODO);
	assert_int_equal(info.n_accepted, 1);
	assert_int_equal(info.n_accepted_uncited, 1);
	assert_string_equal(verdict(&info, r, sizeof(r)), "pass");
	assert_non_null(strstr(r, "1 failed check(s) accepted (accepted.json), some still without"));
	json_decref(wls);
	json_decref(mods);
	/* the same entry for another kernel version accepts nothing */
	json_object_set_new(json_array_get(e, 0), "kernel", json_string("7.4"));
	wls = hb_result_from_stream(text, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "fail");
	hb_expect_set(false, NULL, "");
	json_decref(wls);
	json_decref(mods);
}

/* A known bug that changed in another way fails its workload. */
static void test_known_bug_changed(void **state)
{
	static const char t[] =
		START WL("k")
		"{\"ev\":\"check\",\"workload\":\"k\",\"rep\":0,\"name\":\"kb\",\"pass\":false,"
		"\"known_bug\":{\"id\":\"b\",\"title\":\"t\",\"ref\":\"r\",\"state\":\"changed\"}}\n"
		END("k", "fail") "{\"ev\":\"suite_end\"}\n";
	static const char bad[] =
		START WL("k")
		"{\"ev\":\"check\",\"workload\":\"k\",\"rep\":0,\"name\":\"kb\",\"pass\":true,"
		"\"known_bug\":{\"id\":\"b\",\"state\":\"whatever\"}}\n"
		END("k", "pass") "{\"ev\":\"suite_end\"}\n";
	struct hb_stream_info info;
	json_t *mods, *wls;

	(void)state;
	wls = hb_result_from_stream(t, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "fail");
	assert_int_equal(info.n_known_changed, 1);
	json_decref(wls);
	json_decref(mods);
	/* a state not in the protocol is a bad line: the workload cannot pass */
	wls = hb_result_from_stream(bad, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "error");
	json_decref(wls);
	json_decref(mods);
}

static void write_file(const char *path, const char *body)
{
	assert_int_equal(hb_write_text(path, body), 0);
}

/* The reader: a missing file is empty; a wrong schema or an entry without
 * its strings is one line of error, which never quotes the file; a FIFO
 * is refused at once. */
static void test_load(void **state)
{
	char dir[] = "/tmp/hb-expect-XXXXXX", path[256], err[512];
	json_t *e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.json", dir);
	assert_int_equal(hb_expect_load(path, &e, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(e), 0);
	json_decref(e);
	write_file(path, "{\"schema\":\"x\",\"entries\":[]}");
	assert_int_equal(hb_expect_load(path, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, HB_ACCEPTED_SCHEMA));
	write_file(path, "{\"schema\":\"" HB_ACCEPTED_SCHEMA "\",\"entries\":[{\"kernel\":\"7.3\","
			 "\"workload\":\"w\",\"check\":\"c\",\"observed\":\"o\"}]}");
	assert_int_equal(hb_expect_load(path, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 1 has no \"cite\""));
	/* jansson's own text would quote the file ("near 'password'") */
	write_file(path, "password");
	assert_int_equal(hb_expect_load(path, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not JSON at line 1"));
	assert_null(strstr(err, "password"));
	unlink(path);
	/* a FIFO is refused, not waited on (issue 38) */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(hb_expect_load(path, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	rmdir(dir);
	{
		char mm[16];

		hb_expect_kernel("7.3.13-hb", mm, sizeof(mm));
		assert_string_equal(mm, "7.3");
		hb_expect_kernel("", mm, sizeof(mm));
		assert_string_equal(mm, "");
	}
}

/* The shipped accepted expectations must each cite the commit or source
 * lines that changed the behaviour: the placeholder `hugebench accept`
 * writes cannot be committed. */
static void test_shipped_cited(void **state)
{
	char path[4096], err[4352];
	json_t *entries, *e;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/%s", hb_root(), HB_ACCEPTED_DEFAULT);
	assert_int_equal(hb_expect_load(path, &entries, err, sizeof(err)), 0);
	json_array_foreach(entries, i, e)
		if (strstr(json_string_value(json_object_get(e, "cite")), "TODO"))
			fail_msg("%s: entry %zu (%s.%s) still has no citation", path, i + 1,
				 json_string_value(json_object_get(e, "workload")),
				 json_string_value(json_object_get(e, "check")));
	json_decref(entries);
}

/* hugebench accept on a run whose newest-table check failed: the file it
 * writes holds the entry (observed value, table value, TODO citation), a
 * verified table's failure is not proposed, and the same stream judged with
 * the file passes. A second accept adds nothing. */
static void test_accept_then_pass(void **state)
{
	char dir[] = "/tmp/hb-accept-XXXXXX", res[256], out[256], err[512];
	char *argv[] = { "accept", dir, "--out", out, NULL };
	static const char stream[] =
		START WL("knobs")
		"{\"ev\":\"check\",\"workload\":\"knobs\",\"rep\":0,\"name\":\"c1\",\"pass\":false,"
		"\"expected\":\"e0=huge e1=small\",\"observed\":\"e0=small e1=small\"," NEWEST "}\n"
		"{\"ev\":\"check\",\"workload\":\"knobs\",\"rep\":0,\"name\":\"v1\",\"pass\":true}\n"
		END("knobs", "fail") "{\"ev\":\"suite_end\"}\n";
	struct hb_stream_info info;
	json_t *mods, *wls, *entries, *doc, *e;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(res, sizeof(res), "%s/result.json", dir);
	snprintf(out, sizeof(out), "%s/accepted.json", dir);
	hb_expect_set(false, NULL, "");
	wls = hb_result_from_stream(stream, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "fail");
	/* a verified table's failed check next to it: never proposed */
	json_array_append_new(json_object_get(json_array_get(wls, 0), "checks"),
			      json_pack("{s:s, s:s, s:s, s:b}", "name", "verified", "expected", "1",
					"observed", "0", "pass", 0));
	doc = json_pack("{s:{s:s}, s:o}", "target", "kernel_release", "7.3.13-x", "workloads", wls);
	assert_int_equal(json_dump_file(doc, res, 0), 0);
	json_decref(doc);
	json_decref(mods);
	assert_int_equal(hb_cmd_accept(4, argv), 0);
	assert_int_equal(hb_expect_load(out, &entries, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(entries), 1);
	e = json_array_get(entries, 0);
	assert_string_equal(json_string_value(json_object_get(e, "kernel")), "7.3");
	assert_string_equal(json_string_value(json_object_get(e, "check")), "c1");
	assert_string_equal(json_string_value(json_object_get(e, "observed")), "e0=small e1=small");
	assert_string_equal(json_string_value(json_object_get(e, "table_expected")),
			    "e0=huge e1=small");
	assert_string_equal(json_string_value(json_object_get(e, "cite")), HB_ACCEPT_CITE_TODO);
	/* the same run judged with the file: green */
	hb_expect_set(false, entries, out);
	wls = hb_result_from_stream(stream, &mods, &info);
	assert_string_equal(json_string_value(json_object_get(json_array_get(wls, 0), "status")),
			    "pass");
	assert_int_equal(info.n_accepted, 1);
	json_decref(wls);
	json_decref(mods);
	/* again: nothing new to propose, the file unchanged */
	assert_int_equal(hb_cmd_accept(4, argv), 0);
	assert_int_equal(hb_expect_load(out, &entries, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(entries), 1);
	json_decref(entries);
	hb_expect_set(false, NULL, "");
	unlink(res);
	unlink(out);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest_hard_unverified_soft),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_known_bug_changed),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_shipped_cited),
		cmocka_unit_test(test_accept_then_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
