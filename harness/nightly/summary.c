/* summary.c - summary.md of a night, in the form kernel developers
 * read on mailing lists: one subject line ("[hugebench nightly STAMP]
 * 12.3% regression of fault.write_fault_huge on TARGET"), then the
 * targets, the changed metrics (% change and interval), the failed checks,
 * the boots with kernel issues, and the commands to reproduce each target;
 * the compare-report HTML of each target sits next to it. */
#define _GNU_SOURCE
#include "nightly.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *state_word(enum hb_tstate s)
{
	return s == HB_TS_CLEAN ? "clean" : s == HB_TS_FINDING ? "FINDING" : "NOT RUN/COMPARED";
}

/* The subject: the largest regression, else the first failed check or
 * bad boot, else the first target that did not run; and how many more. */
static void subject(const struct hb_night *n, char *buf, size_t len)
{
	const struct hb_ntarget *wt = NULL, *ft = NULL;
	const struct hb_ncase *worst = NULL, *first = NULL;
	size_t findings = 0, infra = 0;

	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];

		findings += t->state == HB_TS_FINDING;
		infra += t->state == HB_TS_INFRA;
		for (size_t j = 0; j < t->n; j++) {
			const struct hb_ncase *c = &t->cases[j];

			if (c->kind == HB_NK_METRIC && c->status == HB_NS_FAIL &&
			    (!worst || fabs(c->change_pct) > fabs(worst->change_pct))) {
				worst = c;
				wt = t;
			}
			if (!first && (c->status == HB_NS_FAIL || c->status == HB_NS_ERROR) &&
			    c->kind != HB_NK_METRIC && c->kind != HB_NK_COMPARE) {
				first = c;
				ft = t;
			}
		}
	}
	if (worst)
		snprintf(buf, len, "%.1f%% regression of %s on %s", fabs(worst->change_pct),
			 worst->name, wt->name);
	else if (first && first->kind == HB_NK_CHECK)
		snprintf(buf, len, "%s failed on %s%s", first->name, ft->name,
			 strstr(first->message, "(regression:") ? " (regression)" : "");
	else if (first)
		snprintf(buf, len, "%s: %.120s", ft->name, first->message);
	else if (findings || infra) {
		for (size_t i = 0; i < n->n; i++)
			if (n->t[i].state != HB_TS_CLEAN) {
				snprintf(buf, len, "%s: %s", n->t[i].name, n->t[i].state_reason);
				break;
			}
	} else {
		snprintf(buf, len, "all %zu targets clean", n->n);
	}
	if (findings + infra > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%zu targets with findings, %zu not run)",
			 findings, infra);
}

static void table_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[]){ *s, 0 }, f);
}

int hb_summary_write(const struct hb_night *n, const char *path, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 8], subj[768];
	bool any;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s", tmp);
		return -1;
	}
	subject(n, subj, sizeof(subj));
	fprintf(f, "Subject: [hugebench nightly %s] %s\n\n", n->stamp, subj);
	fprintf(f, "Night %s on %s, %zu targets, %.0f s; exit %d.\n\n", n->started, n->host, n->n,
		n->time_s, hb_night_exit(n));
	fprintf(f, "| target | suite | boots | compared with | result |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];

		fprintf(f, "| %s | %s | %d | ", t->name, t->suite, t->boots);
		table_cell(f, t->against[0] ? t->against : "nothing (no baseline, no base=)");
		fprintf(f, "%s%s | %s", t->against_kind[0] ? " " : "",
			t->against_kind[0] == 'b' ? "(baseline)" : t->against_kind[0] ? "(target)" : "",
			state_word(t->state));
		if (t->state_reason[0]) {
			fputs(": ", f);
			table_cell(f, t->state_reason);
		}
		fputs(" |\n", f);
	}
	any = false;
	for (size_t i = 0; i < n->n; i++)
		for (size_t j = 0; j < n->t[i].n; j++) {
			const struct hb_ncase *c = &n->t[i].cases[j];

			if (c->kind != HB_NK_METRIC || !c->changed)
				continue;
			if (!any)
				fprintf(f, "\n## Changed metrics\n\n| target | metric | change | "
					   "interval | new value | verdict |\n|---|---|---|---|---|---|\n");
			any = true;
			fprintf(f, "| %s | %s | %+.1f%% | ", n->t[i].name, c->name, c->change_pct);
			if (isfinite(c->ci_lo_pct) && isfinite(c->ci_hi_pct))
				fprintf(f, "%+.1f%% .. %+.1f%%", c->ci_lo_pct, c->ci_hi_pct);
			fprintf(f, " | %.4g %s | %s |\n", c->value, c->unit,
				c->status == HB_NS_FAIL ? "**regression**" : "improvement");
		}
	any = false;
	for (size_t i = 0; i < n->n; i++)
		for (size_t j = 0; j < n->t[i].n; j++) {
			const struct hb_ncase *c = &n->t[i].cases[j];

			if (c->kind != HB_NK_CHECK || c->status != HB_NS_FAIL)
				continue;
			if (!any)
				fprintf(f, "\n## Failed checks\n\n");
			any = true;
			fprintf(f, "- %s: %s\n", n->t[i].name, c->message);
		}
	any = false;
	for (size_t i = 0; i < n->n; i++)
		for (size_t j = 0; j < n->t[i].n; j++) {
			const struct hb_ncase *c = &n->t[i].cases[j];

			if (c->kind != HB_NK_BOOT || (c->status == HB_NS_PASS && !c->output))
				continue;
			if (!any)
				fprintf(f, "\n## Boots and kernel issues\n\n");
			any = true;
			fprintf(f, "- %s %s\n", n->t[i].name, c->message);
			if (c->output)
				fprintf(f, "\n```\n%s```\n\n", c->output);
		}
	fprintf(f, "\n## Reproduce\n\n```\n");
	for (size_t i = 0; i < n->n; i++)
		fprintf(f, "%s\n", n->t[i].reproduce);
	fprintf(f, "```\n\n## Reports\n\n");
	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];

		fprintf(f, "- %s: %s/run.log", t->name, t->name);
		if (t->compare_exit == 0 || t->compare_exit == 1)
			fprintf(f, ", %s/compare.html, %s/compare.md", t->name, t->name);
		if (t->group[0])
			fprintf(f, ", group %s", t->group);
		fputs("\n", f);
	}
	fprintf(f, "\nMachine-readable: junit.xml (JUnit), kcidb.json (KCIDB v5.3). Every metric over "
		   "the nights: ../trend.html.\n");
	if (fclose(f) || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}
