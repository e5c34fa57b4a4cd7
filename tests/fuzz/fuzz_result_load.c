/* fuzz_result_load.c - libFuzzer target: compare-report's result.json reader
 * (hb_cmp_load_buf() in cmp_load.c) and everything a loaded run reaches:
 * pairing (cmp_report.c), the decision rule and statistics (cmp_rule.c,
 * stats.c) and the four renderers.
 *
 * An input is one result.json, compared with itself, or two separated by a
 * line holding only a form feed ("\n\f\n"), compared BASE vs NEW. A refused
 * input must say why in one line that names the input. Seeds:
 * tests/fuzz/corpus/result_load/ (`make fuzz`, `make fuzz-regress`).
 */
#include "compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

static struct hb_cmp_run *fuzz_load(const char *buf, size_t len, const char *name)
{
	char err[1024] = "";
	struct hb_cmp_run *r = hb_cmp_load_buf(buf, len, name, err, sizeof(err));

	/* refused: one line, naming the input */
	if (!r && (strncmp(err, name, strlen(name)) || strchr(err, '\n')))
		abort();
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *sep = NULL;
	struct hb_cmp_run *a, *b = NULL;
	struct hb_cmp_thresholds th;
	struct hb_cmp_report rep = { 0 };
	struct hb_cmp_pair p;
	json_t *j;

	hb_stats_init();
	for (size_t i = 0; i + 3 <= size && !sep; i++)
		if (!memcmp(buf + i, "\n\f\n", 3))
			sep = buf + i;
	a = fuzz_load(buf, sep ? (size_t)(sep - buf) : size, "base.json");
	if (!a)
		return 0;
	if (sep && !(b = fuzz_load(sep + 3, size - (size_t)(sep + 3 - buf), "new.json"))) {
		hb_cmp_run_free(a);
		return 0;
	}
	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&rep.opts);
	rep.opts.boot_B = 50; /* the statistics' paths, not their precision */
	rep.opts.boot_cap = 256;
	if (!hb_cmp_pair_build(a, b ? b : a, &th, &rep.opts, &p)) {
		rep.pairs = &p;
		rep.n_pairs = 1;
		hb_cmp_render_text(fuzz_null(), &rep);
		hb_cmp_render_markdown(fuzz_null(), &rep);
		hb_cmp_render_html(fuzz_null(), &rep);
		j = hb_cmp_report_json(&rep);
		/* every finding reaches the JSON report */
		if (json_array_size(json_object_get(json_array_get(json_object_get(j, "comparisons"), 0),
						    "findings")) != p.n_f)
			abort();
		json_decref(j);
	}
	hb_cmp_pair_free(&p);
	hb_cmp_run_free(a);
	hb_cmp_run_free(b);
	return 0;
}
