/* baseline.c - `hugebench baseline promote|show`: the runs a nightly
 * compares against. A baseline is a copy of a green run or run group under
 * results/baselines/<target>/<folder>/, `current` a symlink to the one in
 * use, and history.jsonl one line per promotion (when, from where, why).
 * Green: every boot's verdict is pass and the console had no kernel issue.
 * The copy keeps the baseline when old nightly folders are deleted. */
#define _GNU_SOURCE
#include "commands.h"
#include "compare.h"
#include "nightly.h"
#include "sysinfo.h"
#include "userfile.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool name_ok(const char *w)
{
	if (!*w || *w == '.' || *w == '-' || strlen(w) > 95)
		return false;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("._+-", *w))
			return false;
	return true;
}

int hb_baseline_current(const char *results, const char *target, char *out, size_t outlen)
{
	char link[PATH_MAX], real[PATH_MAX], f[PATH_MAX + 16];

	snprintf(link, sizeof(link), "%s/baselines/%s/current", results, target);
	if (!realpath(link, real) || !hb_is_dir(real))
		return -1;
	snprintf(f, sizeof(f), "%s/group.json", real);
	if (!hb_is_file(f)) {
		snprintf(f, sizeof(f), "%s/result.json", real);
		if (!hb_is_file(f))
			return -1;
	}
	snprintf(out, outlen, "%s", real);
	return 0;
}

/* 0 when a run folder or a group folder is green, else -1 with why; the
 * target of its first boot into target when that is "". Everything goes
 * through compare-report's validating loader (cmp_load.c, cmp_group.c): a
 * result.json that is only {"verdict":"pass"}, has a key twice, hides its
 * kernel_issues in an object, or is of another schema is not a run; nor is
 * a verdict pass beside a workload that failed. A group.json must say it
 * exited 0 (no exit_code: not green). */
static int green(const char *dir, char *target, size_t tlen, char *why, size_t wlen)
{
	char p[PATH_MAX + 16], err[PATH_MAX + 512];
	struct hb_cmp_group *g;
	json_t *root, *ec;

	if (wlen)
		why[0] = 0;
	snprintf(p, sizeof(p), "%s/group.json", dir);
	if (!access(p, F_OK)) {
		if (!(root = hb_cmp_read_json(p, err, sizeof(err)))) {
			snprintf(why, wlen, "%s", err);
			return -1;
		}
		ec = json_object_get(root, "exit_code");
		if (!json_is_integer(ec) || json_integer_value(ec) != 0) {
			if (json_is_integer(ec))
				snprintf(why, wlen, "%s: the group exited %lld, not 0", dir,
					 (long long)json_integer_value(ec));
			else
				snprintf(why, wlen, "%s: exit_code: %s", p,
					 ec ? "expected an integer" : "missing");
			json_decref(root);
			return -1;
		}
		json_decref(root);
	} else {
		snprintf(p, sizeof(p), "%s/result.json", dir);
	}
	if (!(g = hb_cmp_group_load(p, err, sizeof(err)))) {
		snprintf(why, wlen, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct hb_cmp_run *r = g->boots[i];

		if (strcmp(r->verdict, "pass")) {
			snprintf(why, wlen, "%s: verdict %s, not pass", r->path, r->verdict);
			break;
		}
		if (r->n_issues) {
			snprintf(why, wlen, "%s: the console has kernel issues", r->path);
			break;
		}
		/* a verdict pass beside a failed workload is not a run hugebench
		 * wrote (run derives the verdict from the workloads): refused */
		for (size_t w = 0; w < r->n_workloads && !*why; w++)
			if (strcmp(r->workloads[w].status, "pass") && strcmp(r->workloads[w].status, "skip"))
				snprintf(why, wlen, "%s: verdict pass, but workload %s is %s", r->path,
					 r->workloads[w].name, r->workloads[w].status);
		if (*why)
			break;
		if (i && strcmp(r->target, g->boots[0]->target)) {
			snprintf(why, wlen, "%s: target %s, not the group's %s", r->path, r->target,
				 g->boots[0]->target);
			break;
		}
		if (i + 1 == g->n) {
			if (target && !target[0])
				snprintf(target, tlen, "%s", g->boots[0]->target);
			hb_cmp_group_free(g);
			return 0;
		}
	}
	hb_cmp_group_free(g);
	return -1;
}

/* Removes a folder tree this command made (argv, no shell). */
static void remove_tree(const char *path)
{
	char *rm[] = { "rm", "-rf", "--", (char *)path, NULL };
	struct hb_spawn sp = { .argv = rm };

	hb_run(&sp, NULL, NULL);
}

/* a and b hold the same files with the same bytes (diff -r, links not
 * followed): a run promoted again, not another run of the same name. */
static bool same_tree(const char *a, const char *b)
{
	char *diff[] = { "diff", "-rq", "--no-dereference", "--", (char *)a, (char *)b, NULL };
	struct hb_spawn sp = { .argv = diff, .capture = true, .quiet = true };
	char *out = NULL;
	int rc = hb_run(&sp, &out, NULL);

	free(out);
	return rc == 0;
}

int hb_baseline_promote(const char *results, const char *src, const char *target,
			const char *why)
{
	char real[PATH_MAX], tgt[128] = "", tdir[PATH_MAX], dst[PATH_MAX + 300],
		tmp[PATH_MAX + 310], link[PATH_MAX + 16], ltmp[PATH_MAX + 32], whynot[PATH_MAX + 64],
		base[PATH_MAX], iso[32], hist[PATH_MAX + 32];
	char *cp[] = { "cp", "-a", "-T", "--", real, tmp, NULL };
	struct hb_spawn sp = { .argv = cp };
	json_t *line;
	char *text;
	FILE *f;

	if (!realpath(src, real) || !hb_is_dir(real)) {
		hb_err("baseline promote %s: not a run or group folder; give results/<target>/<stamp>-<suite>",
		       src);
		return HB_EXIT_USAGE;
	}
	if (target)
		snprintf(tgt, sizeof(tgt), "%s", target);
	if (green(real, tgt, sizeof(tgt), whynot, sizeof(whynot))) {
		hb_err("not promoted: %s; only a green run (every boot pass, no kernel issue) becomes a baseline",
		       whynot);
		return HB_EXIT_FAIL;
	}
	if (!name_ok(tgt)) {
		hb_err("baseline promote: target '%s' is not a name; give --target NAME", tgt);
		return HB_EXIT_USAGE;
	}
	snprintf(base, sizeof(base), "%s", real);
	/* the folder's name becomes the baseline's: `current` (the link),
	 * `history.jsonl` and names of our own temporary files are not run
	 * names (issue 38: a folder named current made `current` a link to
	 * itself; one named history.jsonl took the history's place) */
	if (!name_ok(basename(base)) || !strcmp(basename(base), "current") ||
	    !strcmp(basename(base), "history.jsonl")) {
		hb_err("baseline promote %s: the folder name '%s' cannot name a baseline (letters, "
		       "digits, ._+-, not 'current' nor 'history.jsonl'); rename the folder and "
		       "promote again",
		       src, basename(base));
		return HB_EXIT_USAGE;
	}
	snprintf(tdir, sizeof(tdir), "%s/baselines/%s", results, tgt);
	snprintf(dst, sizeof(dst), "%s/%s", tdir, basename(base));
	if (hb_is_dir(dst) && !same_tree(real, dst)) {
		/* issue 38: another run of the same name exited 0, was recorded in
		 * the history, and the first one stayed the baseline */
		hb_err("not promoted: %s holds another run named %s; rename the folder "
		       "(or remove that baseline) and promote again", tdir, basename(base));
		return HB_EXIT_USAGE;
	}
	if (hb_mkdir_p(tdir)) {
		hb_errno("cannot create %s", tdir);
		return HB_EXIT_INFRA;
	}
	if (!hb_is_dir(dst)) {
		int rc;

		/* a fresh folder of our own (never a leftover <stamp>.tmp, which
		 * cp would copy into, nesting the run), filled with cp -T, checked
		 * green again and renamed into place only if nothing is there */
		snprintf(tmp, sizeof(tmp), "%s/.%s.tmp-XXXXXX", tdir, basename(base));
		if (!mkdtemp(tmp)) {
			hb_errno("cannot create a folder in %s", tdir);
			return HB_EXIT_INFRA;
		}
		rc = hb_run(&sp, NULL, NULL);
		if (rc) {
			hb_err("cannot copy %s to %s (cp exited %d); check the free space", real, tmp, rc);
			remove_tree(tmp);
			return HB_EXIT_INFRA;
		}
		if (green(tmp, NULL, 0, whynot, sizeof(whynot))) {
			hb_err("not promoted: the copy is not the run that was checked: %s", whynot);
			remove_tree(tmp);
			return HB_EXIT_INFRA;
		}
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE)) {
			/* EEXIST: a promote of the same name got there first; the
			 * one there stays, nothing of ours is left */
			hb_errno("cannot rename %s to %s", tmp, dst);
			remove_tree(tmp);
			return HB_EXIT_INFRA;
		}
	} else if (green(dst, NULL, 0, whynot, sizeof(whynot))) {
		/* promoted before: the copy there must still be the green run */
		hb_err("not promoted: %s is there and is not green: %s; remove it and promote again",
		       dst, whynot);
		return HB_EXIT_INFRA;
	}
	/* the switch of `current` is atomic: a nightly starting now sees the
	 * old baseline or the new one */
	snprintf(link, sizeof(link), "%s/current", tdir);
	snprintf(ltmp, sizeof(ltmp), "%s/.current.%d", tdir, (int)getpid());
	unlink(ltmp);
	if (symlink(basename(base), ltmp) || rename(ltmp, link)) {
		hb_errno("cannot point %s at %s", link, dst);
		unlink(ltmp);
		return HB_EXIT_INFRA;
	}
	hb_utc_iso(iso, sizeof(iso));
	line = json_pack("{s:s, s:o, s:o, s:o, s:o}", "promoted", iso, "target", hb_json_text(tgt),
			 "from", hb_json_text(real), "baseline", hb_json_text(basename(base)), "why",
			 hb_json_text(why ? why : "manual"));
	text = json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII);
	snprintf(hist, sizeof(hist), "%s/history.jsonl", tdir);
	f = fopen(hist, "a");
	if (!f || !text || fprintf(f, "%s\n", text) < 0 || fclose(f)) {
		hb_errno("cannot append to %s", hist);
		free(text);
		json_decref(line);
		return HB_EXIT_INFRA;
	}
	free(text);
	json_decref(line);
	printf("baseline of %s: %s (from %s)\n", tgt, dst, real);
	return 0;
}

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench baseline promote [--results DIR] [--target NAME] [--why TEXT] RUN_OR_GROUP\n"
		"       hugebench baseline show [--results DIR] TARGET\n"
		"promote: copy a green run or run group (every boot pass, no kernel issue)\n"
		"  to DIR/baselines/<target>/ (DIR: the checkout's results/) and make it the\n"
		"  one `hugebench nightly` compares TARGET with; --target NAME makes it the\n"
		"  baseline of another target (e.g. a patched kernel against its base).\n"
		"show: the current baseline and the history of promotions.\n");
	return to == stdout ? 0 : HB_EXIT_USAGE;
}

int hb_cmd_baseline(int argc, char **argv)
{
	const char *results = NULL, *target = NULL, *why = NULL, *arg = NULL;
	char rdir[PATH_MAX], cur[PATH_MAX], hist[PATH_MAX + 64];
	bool promote;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	if (strcmp(argv[1], "promote") && strcmp(argv[1], "show")) {
		hb_err("baseline %s: use promote or show; see hugebench baseline --help", argv[1]);
		return HB_EXIT_USAGE;
	}
	promote = !strcmp(argv[1], "promote");
	for (int i = 2; i < argc; i++) {
		const char **opt = !strcmp(argv[i], "--results") ? &results
				   : !strcmp(argv[i], "--target") ? &target
				   : !strcmp(argv[i], "--why")	  ? &why
								  : NULL;

		if (opt) {
			if (i + 1 >= argc) {
				hb_err("%s needs a value; see hugebench baseline --help", argv[i]);
				return HB_EXIT_USAGE;
			}
			*opt = argv[++i];
		} else if (argv[i][0] == '-' || arg) {
			hb_err("baseline: unexpected '%s'; see hugebench baseline --help", argv[i]);
			return HB_EXIT_USAGE;
		} else {
			arg = argv[i];
		}
	}
	if (!arg) {
		hb_err("baseline %s needs %s; see hugebench baseline --help", argv[1],
		       promote ? "a run or group folder" : "a target");
		return HB_EXIT_USAGE;
	}
	if (!results) {
		snprintf(rdir, sizeof(rdir), "%s/results", hb_root());
		results = rdir;
	}
	if (target && !name_ok(target)) {
		hb_err("--target '%s': use a target name (letters, digits, ._+-)", target);
		return HB_EXIT_USAGE;
	}
	if (promote)
		return hb_baseline_promote(results, arg, target, why);
	if (!name_ok(arg)) {
		hb_err("baseline show '%s': use a target name (letters, digits, ._+-)", arg);
		return HB_EXIT_USAGE;
	}
	if (hb_baseline_current(results, arg, cur, sizeof(cur))) {
		printf("%s: no baseline (promote one: hugebench baseline promote GROUP)\n", arg);
		return HB_EXIT_OK;
	}
	printf("%s: baseline %s\n", arg, cur);
	snprintf(hist, sizeof(hist), "%s/baselines/%s/history.jsonl", results, arg);
	if (!access(hist, F_OK)) {
		char err[PATH_MAX + 160];
		size_t n;
		char *h = hb_userfile_read(hist, HB_USERFILE_ANY_MAX, &n, err, sizeof(err));

		if (!h) {
			hb_err("baseline show: %s; history.jsonl must be a regular file: move it away",
			       err);
			return HB_EXIT_USAGE;
		}
		fwrite(h, 1, n, stdout);
		free(h);
	}
	return HB_EXIT_OK;
}
