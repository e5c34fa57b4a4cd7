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
 *  - HB_CMP_USE_ALL never reads it (table needs the events). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_read_by_the_rule),
		cmocka_unit_test(test_stale_compact_ignored),
		cmocka_unit_test(test_broken_compact_ignored),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
