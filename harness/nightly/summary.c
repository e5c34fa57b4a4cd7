/* summary.c - summary.md of a night, in the form kernel developers
 * read on mailing lists (the shape of LKP's reports): one subject line
 * ("[hugebench nightly STAMP] +12.3% regression of fault.write_fault_huge
 * on TARGET", ", due to patch 3/5 "subject"" when the auto-bisect found
 * it), then per target with a finding: the change and its culprit, commit
 * and base (or package versions), kernel release, test machine,
 * parameters, and the %stddev / %change table of its metrics and failed
 * checks; then the targets, the changed metrics (% change and interval),
 * the failed checks, the boots with kernel issues, the bisects, and the
 * commands to reproduce each target; the compare-report HTML of each
 * target sits next to it. */
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
			    c->kind != HB_NK_METRIC && c->kind != HB_NK_COMPARE &&
			    c->kind != HB_NK_BISECT) {
				first = c;
				ft = t;
			}
		}
	}
	if (worst)
		snprintf(buf, len, "%+.1f%% regression of %s on %s", worst->change_pct, worst->name,
			 wt->name);
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
	/* the change named: the culprit of the subject's target */
	if ((worst || (first && (first->kind == HB_NK_CHECK || first->kind == HB_NK_BOOT))) &&
	    (worst ? wt : ft)->culprit.found) {
		const struct hb_nculprit *cu = &(worst ? wt : ft)->culprit;

		if (cu->commit[0])
			snprintf(buf + strlen(buf), len - strlen(buf), ", due to commit %.12s \"%s\"",
				 cu->commit, cu->subject);
		else
			snprintf(buf + strlen(buf), len - strlen(buf), ", due to patch %d/%d \"%s\"",
				 cu->index, cu->n, cu->subject[0] ? cu->subject : cu->patch);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s",
			 cu->verified ? " (verified)" : cu->revert_conflicts
			 ? " (unverified: revert conflicts)" : " (not verified)");
	}
	if (findings + infra > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%zu targets with findings, %zu not run)",
			 findings, infra);
}

/* "  1234 ±  2%" as LKP prints a side: the value and its boot-to-boot sd. */
static void side(FILE *f, double v, double sd_pct)
{
	if (isfinite(sd_pct))
		fprintf(f, "%10.4g \u00b1%3.0f%%", v, sd_pct);
	else
		fprintf(f, "%10.4g      ", v);
}

/* The target's change in LKP's words: what changed, its culprit, commit
 * and base, kernel, machine, parameters; then the %stddev table. */
static void report(FILE *f, const struct hb_night *n, const struct hb_ntarget *t)
{
	const struct hb_nculprit *cu = &t->culprit;
	const struct hb_ncase *worst = NULL, *check = NULL;
	size_t rows = 0, more = 0;

	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (c->kind == HB_NK_METRIC && c->status == HB_NS_FAIL &&
		    (!worst || fabs(c->change_pct) > fabs(worst->change_pct)))
			worst = c;
		if (!check && c->kind == HB_NK_CHECK && c->status == HB_NS_FAIL)
			check = c;
	}
	fprintf(f, "## %s\n\n", t->name);
	if (worst)
		fprintf(f, "hugebench nightly noticed a %+.1f%% regression of %s", worst->change_pct,
			worst->name);
	else if (check)
		fprintf(f, "hugebench nightly noticed %s failing%s", check->name,
			strstr(check->message, "(regression:") ? " (it passed on the base side)" : "");
	else
		fprintf(f, "hugebench nightly noticed: %s", t->state_reason);
	fprintf(f, "%s\n\n```\n", cu->found ? " due to:" : ":");
	fprintf(f, "change:          %s", t->name);
	if (t->n_patches > 0)
		fprintf(f, " (a series of %d patch%s on its base recipe)", t->n_patches,
			t->n_patches == 1 ? "" : "es");
	if (t->good_commit[0])
		fprintf(f, " (the git range %.12s..%.12s)", t->good_commit, t->commit);
	fputc('\n', f);
	if (cu->found && cu->commit[0]) {
		fprintf(f, "culprit:         commit %s (\"%s\"), %d of %d in the range\n",
			cu->commit, cu->subject, cu->index, cu->n);
		fprintf(f, "                 %s\n", cu->verify);
	} else if (cu->found) {
		fprintf(f, "culprit:         patch %d/%d %s%s%s%s\n", cu->index, cu->n, cu->patch,
			cu->subject[0] ? " (\"" : "", cu->subject, cu->subject[0] ? "\")" : "");
		fprintf(f, "                 %s\n", cu->verify);
	} else if (cu->tried) {
		fprintf(f, "bisect:          %s\n", cu->result);
	}
	if (t->commit[0])
		fprintf(f, "commit:          %s%s%s\n", t->commit, t->branch[0] ? " " : "", t->branch);
	else if (t->branch[0])
		fprintf(f, "branch:          %s\n", t->branch);
	if (t->git_url[0] || t->git_tree[0])
		fprintf(f, "repository:      %s\n", t->git_url[0] ? t->git_url : t->git_tree);
	if (t->source_id[0])
		fprintf(f, "source:          %s%s\n", t->source_id,
			t->commit[0] ? "" : " (a Debian source package: no git commit)");
	else if (t->package[0])
		fprintf(f, "package:         %s%s\n", t->package,
			t->commit[0] ? "" : " (a Debian package: no git commit)");
	if (t->patchset_hash[0])
		fprintf(f, "patchset sha256: %s\n", t->patchset_hash);
	fprintf(f, "base:            %s (%s)\n", t->against[0] ? t->against : "none",
		t->against_kind[0] == 'b'   ? "promoted baseline"
		: t->against_kind[0] == 't' ? "target booted alternately with it"
		: t->against_kind[0] == 'g' ? "the git range's good commit, run before it"
					    : "no baseline, no base=");
	fprintf(f, "kernel:          %s (uname -r in the guest)\n",
		t->kernel_release[0] ? t->kernel_release : "unknown");
	if (t->base_release[0])
		fprintf(f, "base kernel:     %s\n", t->base_release);
	if (t->base_source_id[0])
		fprintf(f, "base source:     %s\n", t->base_source_id);
	else if (t->base_package[0])
		fprintf(f, "base package:    %s\n", t->base_package);
	fprintf(f, "\nin testcase: hugebench %s suite\non test machine: %s, ",
		t->suite, t->host_cpu[0] ? t->host_cpu : "unknown CPU");
	if (t->host_cores > 0)
		fprintf(f, "%d cores", t->host_cores);
	else
		fprintf(f, "cores unknown (%s)", t->connect[0] ? t->connect : "not recorded");
	fprintf(f, ", accelerator %s", t->accel[0] ? t->accel : "unknown");
	if (t->qemu_version[0])
		fprintf(f, " (QEMU %s)", t->qemu_version);
	if (t->vcpus > 0)
		fprintf(f, "; guest %d vCPU%s, %d MiB", t->vcpus, t->vcpus == 1 ? "" : "s",
			t->memory_mb);
	fprintf(f, "\nwith following parameters:\n\n\tsuite: %s\n\tboots: %d per side\n"
		"\tclock: %s\n\nreproduce:\n\n\t%s\n", t->suite, t->boots,
		t->clock[0] ? t->clock : "unknown", t->reproduce);
	if (cu->tried && cu->reproduce[0])
		fprintf(f, "\t%s\n", cu->reproduce);
	fprintf(f, "\n=========================================================================="
		   "===============\n");
	fprintf(f, "base: %s (%s)\nnew:  %s (%s)\n\n", t->against[0] ? t->against : "-",
		t->base_release[0] ? t->base_release : "-", t->name,
		t->kernel_release[0] ? t->kernel_release : "-");
	fprintf(f, "      base                    new\n---------------- ---------------------------\n"
		   "         %%stddev     %%change         %%stddev\n"
		   "             \\          |                \\\n");
	/* the changed metrics first, then the others compare-report measured */
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < t->n; j++) {
			const struct hb_ncase *c = &t->cases[j];

			if (c->kind != HB_NK_METRIC || !c->has_base || !c->has_value ||
			    c->changed != (pass == 0))
				continue;
			if (rows++ >= 40) {
				more++;
				continue;
			}
			side(f, c->base_value, c->base_sd_pct);
			fprintf(f, "   %+8.1f%%  ", c->change_pct);
			side(f, c->value, c->new_sd_pct);
			fprintf(f, "  %s%s\n", c->name,
				c->status == HB_NS_FAIL ? "  [regression]"
				: c->changed		? "  [improvement]"
				: c->judged		? ""
							: "  (not judged)");
		}
	if (!rows)
		fprintf(f, "         (no metric compared with a base side)\n");
	if (more)
		fprintf(f, "         ... %zu more in %s/compare.md\n", more, t->name);
	rows = 0;
	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (c->kind != HB_NK_CHECK || (!c->new_failed && !c->base_failed) || !c->has_counts)
			continue;
		if (!rows++)
			fprintf(f, "\n      fail:runs  %%reproduction    fail:runs\n"
				   "          |             |             |\n");
		fprintf(f, "        %3d:%-3d     %6.0f%%        %3d:%-3d   %s\n", c->base_failed,
			c->base_ran, c->new_ran ? 100.0 * c->new_failed / c->new_ran : 0.0,
			c->new_failed, c->new_ran, c->name);
	}
	fprintf(f, "```\n\n");
	(void)n;
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
		n->time_s, n->exit_code);
	for (size_t i = 0; i < n->n; i++)
		if (n->t[i].state == HB_TS_FINDING)
			report(f, n, &n->t[i]);
	fprintf(f, "## Targets\n\n");
	fprintf(f, "| target | suite | boots | compared with | result |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];

		fprintf(f, "| %s | %s | %d | ", t->name, t->suite, t->boots);
		table_cell(f, t->against[0] ? t->against : "nothing (no baseline, no base=)");
		fprintf(f, "%s%s | %s", t->against_kind[0] ? " " : "",
			t->against_kind[0] == 'b' ? "(baseline)" : t->against_kind[0] == 'g' ? "(good commit)"
			: t->against_kind[0] ? "(target)" : "",
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
	any = false;
	for (size_t i = 0; i < n->n; i++) {
		const struct hb_nculprit *cu = &n->t[i].culprit;

		if (!cu->tried)
			continue;
		if (!any)
			fprintf(f, "\n## Bisect\n\n| target | bisected | result | verified | steps, "
				   "builds, boots | folder |\n|---|---|---|---|---|---|\n");
		any = true;
		fprintf(f, "| %s | %s %s | ", n->t[i].name, cu->metric ? "metric" : "check",
			cu->what);
		table_cell(f, cu->result);
		fputs(" | ", f);
		table_cell(f, !cu->found ? "-" : cu->verify);
		fprintf(f, " | %d, %d, %d (budget %d steps; %.0f s) | %s |\n", cu->steps, cu->builds,
			cu->boots, cu->budget, cu->time_s, cu->dir[0] ? cu->dir : "-");
	}
	fprintf(f, "\n## Reproduce\n\n```\n");
	for (size_t i = 0; i < n->n; i++) {
		fprintf(f, "%s\n", n->t[i].reproduce);
		if (n->t[i].culprit.tried && n->t[i].culprit.reproduce[0])
			fprintf(f, "%s\n", n->t[i].culprit.reproduce);
	}
	fprintf(f, "```\n\n## Reports\n\n");
	for (size_t i = 0; i < n->n; i++) {
		const struct hb_ntarget *t = &n->t[i];

		fprintf(f, "- %s: %s/run.log", t->name, t->name);
		if (t->culprit.tried)
			fprintf(f, ", %s/bisect.log", t->name);
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
