/* test_compact.c - result.compact.json (harness/result/compact.c), the
 * part of result.json the rule reads, written beside it so compare-report
 * parses less (issue 34, item 5):
 *  - hb_result_write() writes both; the rule's loader then reads the
 *    compact file and gets every sample bit for bit, every check, snapshot
 *    and field it reads from result.json; events, params and summaries are
 *    not in it;
 *  - a result.json edited afterwards (another size or hash) makes the
 *    compact file stale: the loader reads result.json, edits included;
 *  - a compact file that is broken, or says another size, is ignored, and
 *    errors still name result.json;
 *  - HB_CMP_USE_ALL never reads it (table needs the events);
 *  - more than 64 samples are kept as "samples_f64" (base64 doubles), read
 *    back bit for bit; refused in a result.json; a compact file whose
 *    samples_f64 is bad (a cut string, a NaN) sends the loader to
 *    result.json; a compact file of the first format ("hash", arrays) is
 *    still read. */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("cmpcompact");
}

/* A generated run with an event, params and a metric summary, written by
 * hb_result_write() into <hbt_dir>/<tag>; the folder. */
static const char *written(const char *tag, unsigned long seed, json_t **doc)
{
	struct hbt_gen g = { .seed = seed, .reps = 3, .per_rep = 40 };
	const char *dir = hbt_path(tag);
	json_t *d = hbt_gen_run(&g), *w0 = json_array_get(json_object_get(d, "workloads"), 0);

	json_object_set_new(w0, "events", json_pack("[{s:s, s:i}]", "ev", "kvm_stats", "rep", 0));
	json_object_set_new(w0, "params", json_pack("{s:s}", "size_mb", "64"));
	json_object_set_new(json_array_get(json_object_get(w0, "metrics"), 0), "summary",
			    json_pack("{s:i}", "n", 120));
	json_object_set_new(d, "modules", json_pack("[s]", "zram"));
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(hb_result_write(dir, d), 0);
	*doc = d;
	return dir;
}

static void same_run(const struct hb_cmp_run *a, const struct hb_cmp_run *b)
{
	assert_string_equal(a->verdict, b->verdict);
	assert_string_equal(a->target, b->target);
	assert_int_equal(a->n_workloads, b->n_workloads);
	for (size_t i = 0; i < a->n_workloads; i++) {
		const struct hb_cmp_workload *x = &a->workloads[i], *y = &b->workloads[i];

		assert_string_equal(x->name, y->name);
		assert_string_equal(x->status, y->status);
		assert_int_equal(x->n_metrics, y->n_metrics);
		assert_int_equal(x->n_checks, y->n_checks);
		assert_int_equal(x->n_snaps, y->n_snaps);
		for (size_t j = 0; j < x->n_metrics; j++) {
			assert_string_equal(x->metrics[j].name, y->metrics[j].name);
			assert_int_equal(x->metrics[j].n, y->metrics[j].n);
			assert_int_equal(x->metrics[j].n_reps, y->metrics[j].n_reps);
			assert_true((x->metrics[j].unavailable == NULL) ==
				    (y->metrics[j].unavailable == NULL));
			if (x->metrics[j].n)
				assert_memory_equal(x->metrics[j].samples, y->metrics[j].samples,
						    x->metrics[j].n * sizeof(double));
		}
		for (size_t j = 0; j < x->n_checks; j++) {
			assert_string_equal(x->checks[j].name, y->checks[j].name);
			assert_int_equal(x->checks[j].pass, y->checks[j].pass);
		}
	}
}

static void test_compact_read_by_the_rule(void **state)
{
	char rp[512], cp[512], err[512];
	json_t *doc, *c;
	const char *dir = written("ok", 11, &doc);
	struct hb_cmp_run *full, *rule;
	json_t *w0;

	(void)state;
	snprintf(rp, sizeof(rp), "%s/result.json", dir);
	snprintf(cp, sizeof(cp), "%s/%s", dir, HB_RESULT_COMPACT_NAME);
	assert_int_equal(access(cp, R_OK), 0);
	/* what was left out */
	c = hb_cmp_read_json(cp, err, sizeof(err));
	assert_non_null(c);
	w0 = json_array_get(json_object_get(c, "workloads"), 0);
	assert_null(json_object_get(w0, "events"));
	assert_null(json_object_get(w0, "params"));
	assert_null(json_object_get(json_array_get(json_object_get(w0, "metrics"), 0), "summary"));
	assert_null(json_object_get(c, "modules"));
	assert_non_null(json_object_get(c, "compact_of"));
	/* 3 x 40 samples: packed, not an array */
	assert_null(json_object_get(json_array_get(json_object_get(w0, "metrics"), 0), "samples"));
	assert_true(json_is_string(
		json_object_get(json_array_get(json_object_get(w0, "metrics"), 0), "samples_f64")));
	/* marked, so a test can tell which file was read */
	json_object_set_new(c, "run_id", json_string("from-compact"));
	{
		char *s = json_dumps(c, JSON_COMPACT);

		hbt_write(cp, s);
		free(s);
	}
	json_decref(c);
	/* hbt_write changed only the compact file: result.json's size and
	 * hash still match */
	full = hb_cmp_load_for(rp, HB_CMP_USE_ALL, err, sizeof(err));
	assert_non_null(full);
	rule = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_non_null(rule);
	assert_string_equal(rule->run_id, "from-compact");
	assert_string_not_equal(full->run_id, "from-compact");
	assert_string_equal(rule->path, rp);
	same_run(full, rule);
	/* the events the full reader keeps (table) */
	assert_non_null(json_object_get(json_array_get(json_object_get(full->root, "workloads"), 0),
					"events"));
	hb_cmp_run_free(full);
	hb_cmp_run_free(rule);
	json_decref(doc);
}

static void test_stale_compact_ignored(void **state)
{
	char rp[512], cp[512], err[512];
	json_t *doc;
	const char *dir = written("stale", 12, &doc);
	struct hb_cmp_run *r;
	char *s;

	(void)state;
	snprintf(rp, sizeof(rp), "%s/result.json", dir);
	snprintf(cp, sizeof(cp), "%s/%s", dir, HB_RESULT_COMPACT_NAME);
	/* result.json edited by hand after the run, same size (pass -> fail),
	 * within the same timer tick: its verdict is what counts */
	json_object_set_new(doc, "verdict", json_string("fail"));
	s = json_dumps(doc, JSON_INDENT(1));
	hbt_write(rp, s);
	free(s);
	r = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(r->verdict, "fail");
	hb_cmp_run_free(r);
	/* result.json broken: its error, not the compact file's content */
	hbt_write(rp, "{\"schema\": ");
	r = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, rp));
	assert_non_null(strstr(err, "invalid JSON"));
	json_decref(doc);
}

static void test_broken_compact_ignored(void **state)
{
	char rp[512], cp[512], err[512];
	json_t *doc;
	const char *dir = written("broken", 13, &doc);
	struct hb_cmp_run *r;

	(void)state;
	snprintf(rp, sizeof(rp), "%s/result.json", dir);
	snprintf(cp, sizeof(cp), "%s/%s", dir, HB_RESULT_COMPACT_NAME);
	hbt_write(cp, "{\"compact_of\": ");
	r = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(r->verdict, json_string_value(json_object_get(doc, "verdict")));
	hb_cmp_run_free(r);
	/* a directory in its place: ignored, not an error */
	assert_int_equal(unlink(cp), 0);
	assert_int_equal(mkdir(cp, 0755), 0);
	r = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_non_null(r);
	hb_cmp_run_free(r);
	json_decref(doc);
}

/* The compact file of dir, edited by edit(), written back. */
static void edit_compact(const char *dir, void (*edit)(json_t *m0, json_t *c))
{
	char cp[512], err[512], *s;
	json_t *c;

	snprintf(cp, sizeof(cp), "%s/%s", dir, HB_RESULT_COMPACT_NAME);
	c = hb_cmp_read_json(cp, err, sizeof(err));
	assert_non_null(c);
	json_object_set_new(c, "run_id", json_string("from-compact"));
	edit(json_array_get(json_object_get(json_array_get(json_object_get(c, "workloads"), 0),
					    "metrics"),
			    0),
	     c);
	s = json_dumps(c, JSON_COMPACT);
	hbt_write(cp, s);
	free(s);
	json_decref(c);
}

static void cut_f64(json_t *m0, json_t *c)
{
	const char *b = json_string_value(json_object_get(m0, "samples_f64"));
	char *cut = strndup(b, strlen(b) - 4); /* 3 bytes fewer: not 8-byte doubles */

	(void)c;
	json_object_set_new(m0, "samples_f64", json_string(cut));
	free(cut);
}

static void nan_f64(json_t *m0, json_t *c)
{
	/* the first double's bytes as a quiet NaN: 00 00 00 00 00 00 f8 7f */
	const char *b = json_string_value(json_object_get(m0, "samples_f64"));
	char *s = strdup(b);

	(void)c;
	memcpy(s, "AAAAAAAA+H8", 11);
	json_object_set_new(m0, "samples_f64", json_string(s));
	free(s);
}

static void first_format(json_t *m0, json_t *c)
{
	json_t *of = json_object_get(c, "compact_of");

	(void)m0;
	json_object_set(of, "hash", json_object_get(of, "hash64"));
	json_object_del(of, "hash64");
}

/* The rule's reader after edit() of dir's fresh compact file: the run of
 * the compact file (from_compact) or of result.json, the same as full. */
static void rule_reads(const char *dir, json_t *doc, void (*edit)(json_t *, json_t *),
		       bool from_compact, const struct hb_cmp_run *full)
{
	char rp[512], err[512];
	struct hb_cmp_run *r;

	snprintf(rp, sizeof(rp), "%s/result.json", dir);
	assert_int_equal(hb_result_write(dir, doc), 0);
	edit_compact(dir, edit);
	r = hb_cmp_load_for(rp, HB_CMP_USE_RULE, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(!strcmp(r->run_id, "from-compact"), from_compact);
	same_run(full, r);
	hb_cmp_run_free(r);
}

static void test_samples_f64(void **state)
{
	char rp[512], err[512];
	json_t *doc, *bad, *m0;
	const char *dir = written("f64", 14, &doc);
	struct hb_cmp_run *full, *r;
	char *s;

	(void)state;
	snprintf(rp, sizeof(rp), "%s/result.json", dir);
	full = hb_cmp_load_for(rp, HB_CMP_USE_ALL, err, sizeof(err));
	assert_non_null(full);
	assert_true(full->workloads[0].metrics[0].n > HB_RESULT_F64_MIN);
	/* a bad samples_f64: the compact file is not used, result.json is */
	rule_reads(dir, doc, cut_f64, false, full);
	rule_reads(dir, doc, nan_f64, false, full);
	/* the first format's key: still read (its samples here are packed,
	 * which that format never wrote; the key is what is tested) */
	rule_reads(dir, doc, first_format, true, full);

	/* in a result.json: refused, named */
	bad = json_deep_copy(doc);
	m0 = json_array_get(
		json_object_get(json_array_get(json_object_get(bad, "workloads"), 0), "metrics"), 0);
	json_object_set_new(m0, "samples_f64", json_string("AAAAAAAAAAA="));
	json_object_del(m0, "samples");
	s = json_dumps(bad, JSON_INDENT(1));
	r = hb_cmp_load_buf(s, strlen(s), "x/result.json", err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "samples_f64"));
	assert_non_null(strstr(err, "only a result.compact.json"));
	free(s);
	json_decref(bad);
	hb_cmp_run_free(full);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_read_by_the_rule),
		cmocka_unit_test(test_stale_compact_ignored),
		cmocka_unit_test(test_broken_compact_ignored),
		cmocka_unit_test(test_samples_f64),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
