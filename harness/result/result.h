/* result.h - turns the guest's event stream into result.json
 * (docs/result-schema.md) and decides the run verdict. */
#ifndef HB_RESULT_H
#define HB_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "console.h"

/* What the aggregator takes from the guest is checked: a workload run has
 * at most HB_RESULT_MAX_WORKLOADS entries, each at most
 * HB_RESULT_MAX_METRICS metrics; names are 1..HB_RESULT_NAME_MAX bytes of
 * letters, digits and _-.:+()/%=,@ (no blanks, control bytes or markup);
 * reps are 0..HB_MAX_REPEAT-1. */
#define HB_RESULT_MAX_WORKLOADS 1024
#define HB_RESULT_MAX_METRICS 1024
#define HB_RESULT_NAME_MAX 128

struct hb_stream_info {
	bool booted;		/* the guest's init spoke at all */
	bool suite_started;
	bool suite_end;
	int n_error, n_fail, n_skip, n_pass;
	int bad_lines;		/* lines dropped: not JSON (e.g. a cut last line), a NUL
				 * byte, or an event whose fields are not as documented */
	char kernel_release[128];
	char suite_error[256];
	int max_rep;		/* 0..HB_MAX_REPEAT-1 */
	/* checks with an unverified expectation (a kernel between two verified
	 * tables that differ, "expectation": "unverified"), and those of them
	 * the kernel disagreed with (they fail no workload unless --strict) */
	int n_unverified, n_unverified_disagree;
	/* checks judged by the newest verified table on a newer kernel
	 * ("expectation": "newest"; they fail on disagreement) */
	int n_newest, n_newest_disagree;
	/* failed checks that an accepted expectations entry turned into a pass,
	 * and of them those whose citation is still the placeholder */
	int n_accepted, n_accepted_uncited;
	/* known-bug checks by state, and the ids seen present / fixed */
	int n_known_present, n_known_fixed, n_known_changed;
	char known_present[256], known_fixed[256];
	char kernel_mm[16]; /* major.minor of kernel_release */
	/* repetitions whose guest time ran far ahead of host time (a clock
	 * jump, guestclock.h): their workload's metrics are marked untrusted;
	 * the first one's words */
	int n_clock_jumps;
	char clock_jump[256];
};

/* Build the "workloads" array (and "modules") from len bytes of stream
 * text: one JSON event per line (docs/result-schema.md). Any bytes are
 * safe: a line with a NUL byte, that is not a JSON object or whose event is
 * malformed is counted in bad_lines and the lines after it still count;
 * events for a workload that never started make that workload an error.
 * Every status is pass|fail|skip|error and every metric has samples or an
 * "unavailable" reason, so compare-report can load what run writes. */
json_t *hb_result_from_stream_n(const char *stream, size_t len, json_t **modules,
				struct hb_stream_info *info);
/* The same for a NUL-terminated string (tests, literals). Text read from a
 * file must go through hb_result_from_stream_n with the length read. */
json_t *hb_result_from_stream(const char *stream, json_t **modules, struct hb_stream_info *info);

/* The stream's line reader, for every reader of stream.jsonl. */
struct hb_stream_reader {
	const char *p, *end;
	int line;		/* 1-based number of the line last returned */
	bool maybe_event;	/* the last bad line had a '{': it may have been an
				 * event (a line of NULs or noise cannot) */
};
void hb_stream_reader_init(struct hb_stream_reader *r, const char *buf, size_t len);
/* Next non-blank line: 1 with *ev a JSON object whose "ev" is a string
 * (the caller json_decref()s it); 0 for a bad line (*ev NULL: a NUL byte,
 * not JSON, not an object, no "ev"); -1 at the end. */
int hb_stream_next(struct hb_stream_reader *r, json_t **ev);
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

/* result.compact.json (compact.c): res without events, params, modules and
 * metric summaries, with "compact_of" {size, hash} of the result.json text
 * it stands for; NULL when out of memory. _matches: text (result.json's
 * bytes) is still that file. */
#define HB_RESULT_COMPACT_NAME "result.compact.json"
/* A metric with more samples than this keeps them in the compact file as
 * "samples_f64" (base64 of little-endian doubles); at most _MAX of them. */
#define HB_RESULT_F64_MIN 64
#define HB_RESULT_F64_MAX (64u * 1024 * 1024)
uint64_t hb_result_text_hash(const char *buf, size_t len);
json_t *hb_result_compact(json_t *res, size_t size, uint64_t hash);
bool hb_result_compact_matches(json_t *compact, const char *text, size_t len);
/* dir/result.json (indented, written whole or not at all), then
 * dir/result.compact.json for it; 0, or -1 with errno when result.json
 * could not be written (the compact file is best effort). */
int hb_result_write(const char *dir, json_t *res);

#endif
