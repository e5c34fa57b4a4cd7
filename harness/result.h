/* result.h - turns the guest's event stream into result.json
 * (docs/result-schema.md) and decides the run verdict. */
#ifndef HB_RESULT_H
#define HB_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "console.h"

struct hb_stream_info {
	bool booted;		/* the guest's init spoke at all */
	bool suite_started;
	bool suite_end;
	int n_error, n_fail, n_skip, n_pass;
	int bad_lines;		/* lines that were not JSON (e.g. a cut last line) */
	char kernel_release[128];
	char suite_error[256];
	int max_rep;
};

/* Build the "workloads" array (and "modules") from stream text. */
json_t *hb_result_from_stream(const char *stream, json_t **modules, struct hb_stream_info *info);
/* The first element of arr whose "name" is name, or NULL. */
json_t *hb_result_named(json_t *arr, const char *name);
/* {n,min,max,mean,stddev,p50,p90,p99} of samples (n > 0). */
json_t *hb_result_summary(const double *s, size_t n);

enum hb_run_end { HB_END_NORMAL, HB_END_TIMEOUT, HB_END_INTERRUPTED, HB_END_INFRA };
/* Verdict and reason from how the run ended, the stream and the console. */
const char *hb_result_verdict(enum hb_run_end end, const struct hb_stream_info *info,
			      const struct hb_kissue *issues, size_t n_issues, char *reason,
			      size_t rlen);
/* Exit code of `hugebench run` for a verdict. */
int hb_result_exit_code(const char *verdict);
/* kernel_issues array; excerpts are made ASCII-safe. */
json_t *hb_result_issues_json(const struct hb_kissue *is, size_t n);

#endif
