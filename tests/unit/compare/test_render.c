/* test_render.c - compare-report's renderers (harness/compare/cmp_json.c,
 * cmp_html.c, cmp_text.c, cmp_table.c): every format renders a regression
 * with what a reader needs (JSON that parses, an HTML page with its
 * plots and no script, markdown and text tables), and names from a run
 * cannot inject markup, links or terminal controls (issue 9). */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <stdlib.h>
#include <string.h>

/* The report rendered by fn holds every string of want and none of
 * forbid (NULL-terminated lists). */
static void expect_render(const struct hb_cmp_report *rep,
			  int (*fn)(FILE *, const struct hb_cmp_report *),
			  const char *const want[], const char *const forbid[])
{
	char *s = hbt_render(rep, fn);

	for (; want && *want; want++)
		if (!strstr(s, *want))
			fail_msg("no \"%s\" in:\n%s", *want, s);
	for (; forbid && *forbid; forbid++)
		if (strstr(s, *forbid))
			fail_msg("\"%s\" in:\n%s", *forbid, s);
	free(s);
}

static void test_formats(void **state)
{
	struct hbt_gen ga = { .seed = 71, .reps = 3, .per_rep = 128 };
	struct hbt_gen gb = { .seed = 72, .reps = 3, .per_rep = 128, .shift_metric = "lat2", .shift = 1.25 };
	struct hb_cmp_report rep = { 0 };
	struct hbt_pair x;
	json_error_t je;
	json_t *j;
	char *s;

	(void)state;
	hbt_pair_groups(&x, hbt_gen_group(&ga, 4), hbt_gen_group(&gb, 4));
	rep.pairs = &x.p;
	rep.n_pairs = 1;
	hb_cmp_opts_default(&rep.opts);

	s = hbt_render(&rep, hb_cmp_render_json);
	j = json_loads(s, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), HB_CMP_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(j, "result")), "regression");
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j,
		"comparisons"), 0), "metrics")), x.p.n_m);
	json_decref(j);
	free(s);

	/* an HTML page with a CDF plot, no script, nothing fetched */
	expect_render(&rep, hb_cmp_render_html,
		      (const char *[]){ "<svg", "<polyline", "REGRESSION", NULL },
		      (const char *[]){ "<script", "http://cdn", NULL });
	expect_render(&rep, hb_cmp_render_markdown,
		      (const char *[]){ "| --- |", "| fault.lat2 |", NULL }, NULL);
	expect_render(&rep, hb_cmp_render_text,
		      (const char *[]){ "!! REGRESSION", "fault.lat2", "boots: 4 BASE, 4 NEW", NULL },
		      NULL);
	hbt_pair_free(&x);
}

static json_t *hostile_run(bool fail_check)
{
	json_t *j = hbt_run_json("lower", "[1, 2, 3]", NULL);
	json_t *w = json_array_get(json_object_get(j, "workloads"), 0);
	char name[400] = "check ";

	for (int i = 0; i < 150; i++)
		strcat(name, "\xc3\xa9"); /* é: a finding's text is cut inside one */
	json_object_set_new(w, "name", json_string("<script>alert(1)</script>|w\x1b[2J"));
	json_object_set_new(json_array_get(json_object_get(w, "metrics"), 0), "unit",
			    json_string("<script>u</script>"));
	json_object_set_new(w, "checks", json_pack("[{s:s, s:s, s:b}]", "name", name + 6,
						   "observed", "x\x1b]0;t\x07|`[l](javascript:y)`",
						   "pass", !fail_check));
	json_object_set_new(j, "run_id", json_string("<img src=x onerror=alert(2)>\x1b[31m"));
	return j;
}

static void test_render_escapes(void **state)
{
	struct hb_cmp_report rep = { 0 };
	struct hbt_pair x;
	char *s;

	(void)state;
	hbt_pair_runs(&x, hostile_run(false), hostile_run(true), 400);
	rep.pairs = &x.p;
	rep.n_pairs = 1;
	hb_cmp_opts_default(&rep.opts);

	s = hbt_render(&rep, hb_cmp_render_markdown);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_non_null(strstr(s, "\\[l\\](javascript")); /* no link */
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x07'));
	/* every table row keeps its column count: no raw '|' from a name */
	for (char *line = s, *end; *line; line = end + 1) {
		int bars = 0;
		char *hit;

		end = strchr(line, '\n');
		if (!end)
			break;
		hit = strstr(line, "script");
		if (strncmp(line, "| ", 2) || !hit || hit > end)
			continue;
		for (char *c = line; c < end; c++)
			bars += *c == '|' && (c == line || c[-1] != '\\');
		/* the metrics table has 14 columns since it shows the boot noise */
		if (bars != 5 && bars != 7 && bars != 10 && bars != 15)
			fail_msg("%d bars: %.*s", bars, (int)(end - line), line);
	}
	free(s);

	expect_render(&rep, hb_cmp_render_text, NULL, (const char *[]){ "\x1b", "\x07", NULL });
	expect_render(&rep, hb_cmp_render_html, NULL,
		      (const char *[]){ "<script", "<img", "\x1b", NULL });

	/* the check finding's text was cut inside a UTF-8 character and the
	 * JSON report dropped it */
	s = hbt_render(&rep, hb_cmp_render_json);
	{
		json_error_t je;
		json_t *j = json_loads(s, 0, &je), *f;

		assert_non_null(j);
		f = json_object_get(json_array_get(json_object_get(j, "comparisons"), 0), "findings");
		assert_int_equal(json_array_size(f), x.p.n_f);
		assert_true(x.p.n_regressions >= 1);
		json_decref(j);
	}
	free(s);
	hbt_pair_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_render_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
