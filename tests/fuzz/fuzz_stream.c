/* fuzz_stream.c - libFuzzer target for stream.jsonl readers: the aggregator
 * (hb_result_from_stream_n), the verdict and exit-code rules, and the KVM
 * probe's readers in accel.c. The input is the stream's bytes as QEMU wrote
 * them. Besides crashes it checks the promise of result.c: whatever the
 * guest sent, the result.json built from it loads with compare-report's own
 * reader (cmp_load.c), else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "compare.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_loads(json_t *wls, json_t *mods, const struct hb_stream_info *info,
			const char *verdict, const char *reason)
{
	json_t *res = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}, s:s, s:I, s:O, s:O, s:[], "
				"s:s, s:s, s:i}",
				"schema", "hugebench-result/1", "run_id", "host/x-fuzz", "target",
				"name", "host", "kind", "host", "environment", "accelerator", "none",
				"suite", "fuzz", "repeat", (json_int_t)info->max_rep + 1, "workloads",
				wls, "modules", mods, "kernel_issues", "verdict", verdict,
				"verdict_reason", reason, "stream_bad_lines", info->bad_lines);
	char *text = json_dumps(res, JSON_COMPACT);
	json_error_t je;
	json_t *back = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : NULL;
	char err[512];
	struct hb_cmp_run *run;

	if (!back) {
		fprintf(stderr, "result.json does not dump or reload: %s\n", text ? je.text : "");
		abort();
	}
	run = hb_cmp_load_json(back, "result.json", err, sizeof(err));
	if (!run) {
		fprintf(stderr, "compare-report refuses it: %s\n", err);
		abort();
	}
	hb_cmp_run_free(run);
	free(text);
	json_decref(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum hb_run_end ends[] = { HB_END_NORMAL, HB_END_TIMEOUT, HB_END_INTERRUPTED,
						HB_END_INFRA };
	const char *s = (const char *)data;
	struct hb_stream_info info;
	char reason[512];
	json_t *mods, *wls = hb_result_from_stream_n(s, size, &mods, &info);
	json_t *env = json_object();
	const char *v = NULL;

	if (info.max_rep < 0 || info.max_rep >= 1000 || info.bad_lines < 0)
		abort();
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		v = hb_result_verdict(ends[i], &info, NULL, 0, reason, sizeof(reason));
		if (hb_verdict_rank(v) < 0 || hb_result_exit_code(v) < 0)
			abort();
	}
	v = hb_result_verdict(HB_END_NORMAL, &info, NULL, 0, reason, sizeof(reason));
	check_loads(wls, mods, &info, v, reason);
	hb_accel_guest_env_n(s, size, env);
	if (!json_is_string(json_object_get(env, "nested_virt")))
		abort();
	(void)hb_accel_stream_finished(s, size);
	json_decref(env);
	json_decref(wls);
	json_decref(mods);
	return 0;
}
