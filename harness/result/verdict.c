/* verdict.c - a run's verdict from how it ended, its stream and its console
 * (docs/protocol.md "Verdict rules"), the exit code of that verdict, and the
 * kernel_issues array of result.json. */
#define _GNU_SOURCE
#include "protocol.h"
#include "result.h"
#include "expect.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the verdict line adds about expectations that are not a verified
 * table's (issue 36): unverified ones that disagree (which --strict fails),
 * the newest table's disagreements, accepted entries, known bugs. */
static void expect_words(const struct hb_stream_info *info, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
#define ADD(...)                                                                  \
	do {                                                                       \
		if (n < len)                                                       \
			n += (size_t)snprintf(out + n, len - n, __VA_ARGS__);     \
	} while (0)
	if (info->n_unverified_disagree)
		ADD("; %d unverified expectation(s) disagree (between two verified tables whose "
		    "rules differ: this kernel's rule is unknown%s)",
		    info->n_unverified_disagree, hb_expect_strict() ? ", --strict: failed"
								    : "; --strict fails them");
	if (info->n_newest)
		ADD("; %d check(s) per the newest verified table on Linux %s, %d disagree",
		    info->n_newest, info->kernel_mm, info->n_newest_disagree);
	if (info->n_accepted)
		ADD("; %d failed check(s) accepted (%s)%s", info->n_accepted, hb_expect_path(),
		    info->n_accepted_uncited ? ", some still without a citation" : "");
	if (info->n_known_present)
		ADD("; known bug(s) present: %s", info->known_present);
	if (info->n_known_fixed)
		ADD("; known bug(s) fixed: %s", info->known_fixed);
	if (info->n_known_changed)
		ADD("; %d known-bug check(s) changed otherwise (failed)", info->n_known_changed);
#undef ADD
}

const char *hb_result_verdict(enum hb_run_end end, const struct hb_stream_info *info,
			      const struct hb_kissue *issues, size_t n_issues, char *reason,
			      size_t rlen)
{
	char ex[768];
	size_t n = n_issues;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(issues[i].kind, "panic") == 0) {
			snprintf(reason, rlen, "kernel panic at console.log line %d during %s: %s",
				 issues[i].line, issues[i].workload, issues[i].report);
			return "panic";
		}
	}
	if (end == HB_END_TIMEOUT) {
		snprintf(reason, rlen, "the run hit its time limit; QEMU was killed");
		return "timeout";
	}
	if (end == HB_END_INTERRUPTED) {
		snprintf(reason, rlen, "interrupted by a signal; QEMU was killed");
		return "incomplete";
	}
	if (end == HB_END_INFRA) {
		snprintf(reason, rlen, "infrastructure error before the suite ran");
		return "error";
	}
	if (info->suite_error[0]) {
		snprintf(reason, rlen, "suite error in the guest: %s", info->suite_error);
		return "error";
	}
	if (!info->suite_end) {
		snprintf(reason, rlen, "%s",
			 !info->booted ? "the guest never reported (boot failed or no init)"
				       : "the guest stopped before suite_end");
		return "incomplete";
	}
	if (info->n_error) {
		snprintf(reason, rlen, "%d workload(s) ended in error", info->n_error);
		return "error";
	}
	expect_words(info, ex, sizeof(ex));
	if (info->n_fail) {
		/* a kernel report beside failed checks is named too: it is often
		 * the cause, and the checks only its consequence */
		if (n_issues)
			snprintf(reason, rlen, "%d workload(s) failed a check%s; %zu kernel issue(s) "
				 "on the console, first: %s during %s at line %d: %s", info->n_fail,
				 ex, n_issues, issues[0].kind, issues[0].workload, issues[0].line,
				 issues[0].report);
		else
			snprintf(reason, rlen, "%d workload(s) failed a check%s", info->n_fail, ex);
		return "fail";
	}
	if (n_issues) {
		snprintf(reason, rlen, "%zu kernel issue(s) on the console, first: %s during %s at "
			 "line %d: %s", n_issues, issues[0].kind, issues[0].workload, issues[0].line,
			 issues[0].report);
		return "kernel-warning";
	}
	snprintf(reason, rlen, "%d passed, %d skipped%s", info->n_pass, info->n_skip, ex);
	return "pass";
}

int hb_result_exit_code(const char *v)
{
	if (strcmp(v, "pass") == 0)
		return HB_EXIT_OK;
	if (strcmp(v, "fail") == 0 || strcmp(v, "kernel-warning") == 0 || strcmp(v, "panic") == 0)
		return HB_EXIT_FAIL;
	return HB_EXIT_INFRA;
}

json_t *hb_result_issues_json(const struct hb_kissue *is, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:o, s:o, s:o}", "kind", is[i].kind,
						   "line", is[i].line, "report",
						   hb_json_text(is[i].report), "workload",
						   hb_json_text(is[i].workload), "excerpt",
						   hb_json_text(is[i].excerpt)));
	return a;
}

