/* nightly.c - `hugebench nightly`: every target of the matrix file booted
 * as a run group, compared with its promoted baseline (baseline.c) or else
 * with the matrix's base target (booted alternately with it: `hugebench
 * ab`), and one folder per night, results/nightly-<stamp>/, with
 * summary.md, junit.xml, kcidb.json and per target run.log, the run
 * groups and the compare reports. Each target runs in a child hugebench,
 * so one that cannot boot is reported and the rest of the matrix goes on.
 * Targets on different libvirt connections (connect=) run at the same
 * time, one per connection; the A/B pair of a target stays on its own. */
#define _GNU_SOURCE
#include "commands.h"
#include "boot.h"
#include "compare.h"
#include "nightly.h"
#include "recipe.h"
#include "target.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct nopts {
	const char *matrix, *results;
	bool auto_promote, dry_run;
};

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench nightly [--matrix FILE] [--results DIR] [--auto-promote] [--dry-run]\n"
		"Runs every target of the matrix (default configs/nightly.matrix) as a run group,\n"
		"compares it with its baseline (DIR/baselines/<target>/current, see hugebench\n"
		"baseline) or else with its base= target booted alternately with it, and writes\n"
		"DIR/nightly-<stamp>/ (DIR: the checkout's results/): summary.md, junit.xml,\n"
		"kcidb.json, <target>/run.log, <target>/compare.{json,html,md,log}; and DIR/trend.html.\n"
		"--auto-promote: when the whole night is clean, each target's group becomes\n"
		"  its baseline. --dry-run: check the matrix, print the commands, boot nothing.\n"
		"exit: 0 clean; 1 a regression, failed check, kernel warning, panic or timeout;\n"
		"      2 bad usage or matrix; 3 no finding, but a target could not run or compare.\n");
	return to == stdout ? 0 : HB_EXIT_USAGE;
}

static int parse(int argc, char **argv, struct nopts *o)
{
	for (int i = 1; i < argc; i++) {
		const char **v = !strcmp(argv[i], "--matrix")	 ? &o->matrix
				 : !strcmp(argv[i], "--results") ? &o->results
								 : NULL;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout) - 1;
		if (!strcmp(argv[i], "--auto-promote")) {
			o->auto_promote = true;
		} else if (!strcmp(argv[i], "--dry-run")) {
			o->dry_run = true;
		} else if (v && i + 1 < argc) {
			*v = argv[++i];
		} else {
			hb_err("nightly: %s '%s'; see hugebench nightly --help",
			       v ? "no value after" : "unexpected", argv[i]);
			return HB_EXIT_USAGE;
		}
	}
	return 0;
}

/* The one folder a child made under dir (a target's results/<name>/). */
static int only_subdir(const char *dir, char *out, size_t outlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && snprintf(out, outlen, "%s/%s", dir, e->d_name) > 0 &&
		    hb_is_dir(out))
			n++;
	closedir(d);
	return n == 1 ? 0 : -1;
}

struct job {
	struct hb_ntarget *t;
	const struct hb_mrow *row;
	char name[96], base_name[96];
	char *argv[32];
	char store[12][PATH_MAX];
	/* a git range (gitrange.c): the good side runs first (phase 0, argv_good
	 * with KSRC its worktree), then the bad side (argv, KSRC src-bad) */
	char *argv_good[32];
	char results_good[PATH_MAX];
	char wt_good[PATH_MAX], wt_bad[PATH_MAX];
	int phase, good_status;
	pid_t pid;
	double t0;
	bool done;
};

static void build_argv(struct job *j, const char *self)
{
	const struct hb_mrow *r = j->row;
	int a = 0, s = 0;
	char **v = j->argv;

#define STORE(...) (snprintf(j->store[s], sizeof(j->store[s]), __VA_ARGS__), j->store[s++])
	v[a++] = (char *)self;
	v[a++] = j->t->against_kind[0] == 't' ? "ab" : "run";
	if (j->t->against_kind[0] != 't') {
		v[a++] = "--target";
		v[a++] = (char *)r->target;
	}
	v[a++] = "--suite";
	v[a++] = (char *)r->suite;
	v[a++] = "--boots";
	v[a++] = STORE("%d", r->boots);
	v[a++] = "--results";
	v[a++] = STORE("%s/runs", j->t->dir);
	if (r->timeout_s > 0) {
		v[a++] = "--timeout";
		v[a++] = STORE("%g", r->timeout_s);
	}
	if (r->connect[0]) {
		/* harness/vm/libvirt.c: the run boots through that connection */
		v[a++] = "--backend";
		v[a++] = "libvirt";
		v[a++] = "--connect";
		v[a++] = (char *)r->connect;
	}
	if (j->t->against_kind[0] == 't') {
		v[a++] = "--";
		v[a++] = (char *)r->base;
		v[a++] = (char *)r->target;
	}
	v[a] = NULL;
#undef STORE
	if (r->git[0]) {
		/* the good side: the same run of the same recipe, on the good commit,
		 * into runs-good/ */
		snprintf(j->results_good, sizeof(j->results_good), "%s/runs-good", j->t->dir);
		for (a = 0; v[a]; a++)
			j->argv_good[a] = a && !strcmp(v[a - 1], "--results") ? j->results_good : v[a];
		j->argv_good[a] = NULL;
		snprintf(j->wt_good, sizeof(j->wt_good), "%s/src-good", j->t->dir);
		snprintf(j->wt_bad, sizeof(j->wt_bad), "%s/src-bad", j->t->dir);
	}
}

/* The command by hand: "hugebench run ..." without the night's --results. */
static void words(char *const *argv, char *buf, size_t len)
{
	snprintf(buf, len, "hugebench");
	for (int i = 1; argv[i]; i++) {
		if (!strcmp(argv[i], "--results") && argv[i + 1]) {
			i++;
			continue;
		}
		snprintf(buf + strlen(buf), len - strlen(buf), " %s", argv[i]);
	}
}

/* compare-report BASE NEW into <target>/compare.<ext>, in a child whose
 * messages (why two runs are not comparable) go to <target>/compare.log. */
static int compare(const char *self, const char *tdir, const char *results, const char *base,
		   const char *nw, const char *fmt, const char *out)
{
	char log[PATH_MAX + 16];
	char *argv[] = { (char *)self, "compare-report", "--format", (char *)fmt, "--output",
			 (char *)out, "--results", (char *)results, "--", (char *)base, (char *)nw,
			 NULL };
	struct hb_spawn s = { .argv = argv, .log_path = log };

	snprintf(log, sizeof(log), "%s/compare.log", tdir);
	return hb_run(&s, NULL, NULL);
}

/* compare-report wrote its report: a verdict (0, 1) or nothing tested (4). */
static bool compared(int exit_code)
{
	return exit_code == HB_CMP_OK || exit_code == HB_CMP_REGRESSION ||
	       exit_code == HB_CMP_NOTHING_TESTED;
}

/* A child ended: find its groups, compare, collect the cases. */
static void finish(struct job *j, int status, const char *results)
{
	struct hb_ntarget *t = j->t;
	char dir[PATH_MAX + 8], cj[PATH_MAX + 32], out[PATH_MAX + 32];
	static const char *const ext[][2] = { { "json", "json" }, { "html", "html" },
					      { "markdown", "md" } };

	t->run_exit = status;
	t->time_s = hb_mono_s() - j->t0;
	snprintf(dir, sizeof(dir), "%s/runs/%s", t->dir, j->name);
	if (only_subdir(dir, t->group, sizeof(t->group)))
		t->group[0] = 0;
	if (t->against_kind[0] == 't' || t->against_kind[0] == 'g') {
		snprintf(dir, sizeof(dir), "%s/%s/%s", t->dir,
			 t->against_kind[0] == 'g' ? "runs-good" : "runs",
			 t->against_kind[0] == 'g' ? j->name : j->base_name);
		if (only_subdir(dir, t->base_group, sizeof(t->base_group)) ||
		    (t->against_kind[0] == 'g' && j->good_status == HB_EXIT_INFRA)) {
			if (t->against_kind[0] == 'g' && t->group[0]) {
				/* the bad side's own checks still count; nothing compared */
				hb_night_add_case(t, HB_NK_COMPARE, "compare", HB_NS_ERROR,
						  "the good side (%.12s) did not run (hugebench exited "
						  "%d): not compared; see %s/run.log", t->good_commit,
						  j->good_status, t->dir);
				t->state = HB_TS_INFRA;
				snprintf(t->state_reason, sizeof(t->state_reason),
					 "the good side of the git range did not run; see %s/run.log",
					 t->name);
			}
			t->base_group[0] = 0;
		}
	} else if (t->against_kind[0] == 'b') {
		snprintf(t->base_group, sizeof(t->base_group), "%s", t->against);
	}
	if (!t->group[0]) {
		struct hb_ncase *c = hb_night_add_case(
			t, HB_NK_BOOT, "run", HB_NS_ERROR, "%s did not run (hugebench exited %d)%s; see %s/run.log",
			t->name, status,
			status == HB_EXIT_USAGE && t->connect[0]
				? ": connect= needs the libvirt backend (--backend libvirt)"
				: "",
			t->dir);

		t->state = HB_TS_INFRA;
		snprintf(t->state_reason, sizeof(t->state_reason), "%s",
			 c ? c->message : "did not run");
		return;
	}
	if (status == HB_EXIT_INFRA) {
		/* a boot that did not run (no kernel, no connection, a timeout), or
		 * for `ab` a BASE boot that failed (issue 34: an error of the
		 * comparison, not a regression of NEW), makes any comparison of the
		 * groups meaningless: report the boots, compare nothing */
		struct hb_ncase *c = hb_night_add_case(
			t, HB_NK_BOOT, "run", HB_NS_ERROR,
			"not every boot of %s ran%s (hugebench exited %d): not compared; see %s/run.log",
			t->name, t->against_kind[0] == 't' ? ", or a boot of its base failed" : "",
			status, t->dir);

		hb_night_collect(t, t->group, NULL);
		t->state = HB_TS_INFRA;
		snprintf(t->state_reason, sizeof(t->state_reason), "%s",
			 c ? c->message : "not every boot ran");
		return;
	}
	snprintf(cj, sizeof(cj), "%s/compare.json", t->dir);
	if (t->base_group[0]) {
		for (size_t k = 0; k < 3; k++) {
			snprintf(out, sizeof(out), "%s/compare.%s", t->dir, ext[k][1]);
			t->compare_exit = compare(j->argv[0], t->dir, results, t->base_group,
						  t->group, ext[k][0], out);
			if (!compared(t->compare_exit))
				break;
		}
	}
	/* nothing tested (4) is a comparison too: its report is collected, and
	 * collect.c makes the row an error, never green */
	hb_night_collect(t, t->group, compared(t->compare_exit) ? cj : NULL);
	if (t->base_group[0] && !compared(t->compare_exit)) {
		struct hb_ncase *c = hb_night_add_case(
			t, HB_NK_COMPARE, "compare", HB_NS_ERROR,
			"%s and %s could not be compared (compare-report exit %d); see %s/compare.log",
			t->base_group, t->group, t->compare_exit, t->dir);

		if (t->state == HB_TS_CLEAN && c) {
			t->state = HB_TS_INFRA;
			snprintf(t->state_reason, sizeof(t->state_reason),
				 "not compared with its %s (compare-report exit %d); see %s/compare.log",
				 t->against_kind, t->compare_exit, t->name);
		}
	}
	if (t->state == HB_TS_CLEAN && status != 0) {
		t->state = status == HB_EXIT_FAIL ? HB_TS_FINDING : HB_TS_INFRA;
		snprintf(t->state_reason, sizeof(t->state_reason), "hugebench exited %d; see %s/run.log",
			 status, t->dir);
	}
}

/* Resolve every row (targets, bases, baselines) before anything boots. */
static int plan(const struct hb_matrix *m, const struct nopts *o, struct hb_night *n,
		struct job *jobs, const char *self)
{
	char kdir[PATH_MAX], err[1024];

	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	for (size_t i = 0; i < m->n; i++) {
		const struct hb_mrow *r = &m->rows[i];
		struct hb_ntarget *t = &n->t[i];
		struct hb_target tg, tb;

		if (hb_target_parse(r->target, kdir, &tg, err, sizeof(err)) ||
		    (r->base[0] && hb_target_parse(r->base, kdir, &tb, err, sizeof(err)))) {
			hb_err("%s:%d: %s", o->matrix, r->line, err);
			return HB_EXIT_USAGE;
		}
		if (tg.kind == HB_TARGET_HOST || (r->base[0] && tb.kind == HB_TARGET_HOST)) {
			hb_err("%s:%d: target host does not belong in a nightly matrix (it changes this "
			       "machine's THP knobs); use kernels",
			       o->matrix, r->line);
			return HB_EXIT_USAGE;
		}
		if (r->base[0] && !strcmp(tb.name, tg.name)) {
			hb_err("%s:%d: base %s and target %s are the same kernel", o->matrix, r->line,
			       r->base, r->target);
			return HB_EXIT_USAGE;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(jobs[k].name, tg.name)) {
				hb_err("%s:%d: %s is the kernel of line %d too; one line per target",
				       o->matrix, r->line, tg.name, m->rows[k].line);
				return HB_EXIT_USAGE;
			}
		{
			/* the suite gets run's checks here, --dry-run too (issue 38:
			 * suite=/etc/shadow passed the dry run); once per suite, as
			 * each check runs hb-guest --describe */
			char where[PATH_MAX + 32];
			bool checked = false;
			int src;

			for (size_t k = 0; k < i && !checked; k++)
				checked = !strcmp(m->rows[k].suite, r->suite);
			snprintf(where, sizeof(where), "%s:%d", o->matrix, r->line);
			src = checked ? 0 : hb_boot_check_suite(where, r->suite);
			if (src)
				return src;
		}
		snprintf(jobs[i].name, sizeof(jobs[i].name), "%s", tg.name);
		snprintf(jobs[i].base_name, sizeof(jobs[i].base_name), "%s", r->base[0] ? tb.name : "");
		jobs[i].t = t;
		jobs[i].row = r;
		snprintf(t->name, sizeof(t->name), "%s", tg.name);
		snprintf(t->suite, sizeof(t->suite), "%s", r->suite);
		snprintf(t->connect, sizeof(t->connect), "%s", r->connect);
		snprintf(t->dir, sizeof(t->dir), "%s/%s", n->dir, tg.name);
		t->boots = r->boots;
		t->compare_exit = -1;
		if (tg.kind == HB_TARGET_RECIPE)
			hb_night_origin(t, tg.path);
		if (r->git[0]) {
			struct hb_recipe rc;
			bool ksrc = tg.kind == HB_TARGET_RECIPE &&
				    !hb_recipe_load(tg.path, &rc, err, sizeof(err));

			if (ksrc) {
				ksrc = rc.kind == HB_RECIPE_SOURCE && !strcmp(rc.source, "ksrc");
				hb_recipe_free(&rc);
			}
			if (!ksrc) {
				hb_err("%s:%d: git= needs a source=ksrc recipe (one that builds the tree "
				       "at KSRC, such as minimal-ksrc); %s is not one",
				       o->matrix, r->line, tg.name);
				return HB_EXIT_USAGE;
			}
			hb_night_git_origin(t, r);
		}
		if (r->bisect_budget && t->n_patches < 1 && !r->git[0]) {
			hb_err("%s:%d: bisect-budget= needs a source recipe with patches/series of its "
			       "own; %s has none (set bisect-budget=0 on this line)",
			       o->matrix, r->line, tg.name);
			return HB_EXIT_USAGE;
		}
		/* the test machine: this one unless a libvirt host boots it */
		t->host_cores = r->connect[0] ? 0 : (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (r->git[0]) {
			/* the good commit, never a baseline (that was another tree) */
			snprintf(t->against, sizeof(t->against), "%s at %.12s (good=%s)", tg.name,
				 r->good_sha, r->good);
			snprintf(t->against_kind, sizeof(t->against_kind), "good");
		} else if (!hb_baseline_current(o->results, tg.name, t->against, sizeof(t->against))) {
			snprintf(t->against_kind, sizeof(t->against_kind), "baseline");
		} else if (r->base[0]) {
			snprintf(t->against, sizeof(t->against), "%s", r->base);
			snprintf(t->against_kind, sizeof(t->against_kind), "target");
		} else {
			t->against[0] = 0;
		}
		build_argv(&jobs[i], self);
		words(jobs[i].argv, t->reproduce, sizeof(t->reproduce));
		if (r->git[0]) {
			char w[1024];

			snprintf(w, sizeof(w), "%s", t->reproduce);
			snprintf(t->reproduce, sizeof(t->reproduce),
				 "KSRC=<worktree of %s at %.12s> %s && KSRC=<worktree at %.12s> %s && "
				 "hugebench compare-report <good group> <bad group>", r->git,
				 r->good_sha, w, r->bad_sha, w);
		}
		if (t->against_kind[0] == 'b')
			snprintf(t->reproduce + strlen(t->reproduce),
				 sizeof(t->reproduce) - strlen(t->reproduce),
				 " && hugebench compare-report %s results/%s", t->against, tg.name);
	}
	return 0;
}

/* A git range's side: its worktree (made now, at the side's commit; the
 * good side's is removed once it has run) and KSRC in env for the child. 0,
 * or -1 with why. */
static int git_side(struct job *j, struct hb_spawn *s, struct hb_env *env, char *why,
		    size_t len)
{
	const struct hb_mrow *r = j->row;
	const char *wt = j->phase ? j->wt_bad : j->wt_good;
	struct hb_env_add add[] = { { "KSRC", wt } };

	if (hb_night_worktree_add(r->git, wt, j->phase ? r->bad_sha : r->good_sha, why, len))
		return -1;
	if (hb_env_make(add, 1, env)) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	s->envp = env->v;
	if (!j->phase)
		s->argv = j->argv_good;
	return 0;
}

/* Start the next waiting job of every connection that has none running. */
static void start_jobs(struct job *jobs, size_t n, const char *night_dir)
{
	for (size_t i = 0; i < n && !hb_interrupted; i++) {
		struct hb_spawn s = { .argv = jobs[i].argv };
		char log[PATH_MAX + 16], why[PATH_MAX + 256];
		struct hb_env env = { NULL, 0 };
		bool busy = false;

		if (jobs[i].pid || jobs[i].done)
			continue;
		for (size_t k = 0; k < n; k++)
			busy |= jobs[k].pid > 0 && !strcmp(jobs[k].row->connect, jobs[i].row->connect);
		if (busy)
			continue;
		if (hb_mkdir_p(jobs[i].t->dir)) {
			hb_errno("cannot create %s", jobs[i].t->dir);
			jobs[i].done = true;
			continue;
		}
		snprintf(log, sizeof(log), "%s/run.log", jobs[i].t->dir);
		s.log_path = log;
		if (jobs[i].row->git[0] && git_side(&jobs[i], &s, &env, why, sizeof(why))) {
			hb_err("nightly: %s: %s", jobs[i].t->name, why);
			hb_night_add_case(jobs[i].t, HB_NK_BOOT, "run", HB_NS_ERROR, "%s not run: %s",
					  jobs[i].t->name, why);
			jobs[i].t->state = HB_TS_INFRA;
			snprintf(jobs[i].t->state_reason, sizeof(jobs[i].t->state_reason),
				 "not run: %s", why);
			jobs[i].done = true;
			continue;
		}
		if (!jobs[i].phase) {
			hb_utc_iso(jobs[i].t->started, sizeof(jobs[i].t->started));
			jobs[i].t0 = hb_mono_s();
		}
		jobs[i].pid = hb_start(&s);
		hb_env_free(&env);
		printf("nightly %s: %s started%s: %s (log %s)\n", night_dir, jobs[i].t->name,
		       !jobs[i].row->git[0] ? "" : jobs[i].phase ? " (the bad side)" : " (the good side)",
		       jobs[i].t->reproduce, log);
		fflush(stdout);
		if (jobs[i].pid < 0) {
			jobs[i].pid = 0;
			jobs[i].done = true;
			hb_errno("cannot start hugebench for %s", jobs[i].t->name);
		}
	}
}

static void run_jobs(struct job *jobs, size_t n, const char *results, const char *night_dir)
{
	bool stopped = false;

	for (;;) {
		size_t running = 0;
		int st;
		pid_t p;

		start_jobs(jobs, n, night_dir);
		for (size_t i = 0; i < n; i++)
			running += jobs[i].pid > 0;
		if (!running)
			break;
		p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (hb_interrupted && !stopped) {
				for (size_t i = 0; i < n; i++)
					hb_stop(jobs[i].pid, SIGTERM);
				stopped = true;
			}
			if (errno == ECHILD)
				break;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (jobs[i].pid != p)
				continue;
			jobs[i].pid = 0;
			if (jobs[i].row->git[0] && !jobs[i].phase) {
				/* the good side ran: the bad side next (start_jobs) */
				jobs[i].good_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				jobs[i].phase = 1;
				hb_night_worktree_remove(jobs[i].row->git, jobs[i].wt_good);
				continue;
			}
			jobs[i].done = true;
			finish(&jobs[i], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), results);
			printf("nightly: %s: %s%s%s\n", jobs[i].t->name,
			       jobs[i].t->state == HB_TS_CLEAN	   ? "clean"
			       : jobs[i].t->state == HB_TS_FINDING ? "FINDING"
								   : "NOT RUN/COMPARED",
			       jobs[i].t->state_reason[0] ? ": " : "", jobs[i].t->state_reason);
			fflush(stdout);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!jobs[i].done) {
			hb_night_add_case(jobs[i].t, HB_NK_BOOT, "run", HB_NS_MISS,
					  "%s not run: the night was interrupted", jobs[i].t->name);
			/* (a case that cannot be added for want of memory is only missing) */
			jobs[i].t->state = HB_TS_INFRA;
			snprintf(jobs[i].t->state_reason, sizeof(jobs[i].t->state_reason),
				 "not run: the night was interrupted");
		}
}

static int make_night_dir(const char *results, struct hb_night *n)
{
	if (hb_mkdir_p(results)) {
		hb_errno("cannot create %s", results);
		return HB_EXIT_INFRA;
	}
	hb_utc_stamp(n->stamp, sizeof(n->stamp));
	hb_utc_iso(n->started, sizeof(n->started));
	for (int try = 1;; try++) {
		if (try > 1)
			snprintf(n->stamp + 16, sizeof(n->stamp) - 16, ".%d", try);
		snprintf(n->dir, sizeof(n->dir), "%s/nightly-%s", results, n->stamp);
		if (mkdir(n->dir, 0755) == 0)
			return 0;
		if (errno != EEXIST || try > 100) {
			hb_errno("cannot create %s", n->dir);
			return HB_EXIT_INFRA;
		}
	}
}

static int write_outputs(struct hb_night *n, const char *results)
{
	char p[PATH_MAX + 32], err[PATH_MAX + 64];
	int rc = 0;

	snprintf(p, sizeof(p), "%s/junit.xml", n->dir);
	if (hb_junit_write(n, p, err, sizeof(err)))
		hb_err("%s", err), rc = -1;
	snprintf(p, sizeof(p), "%s/kcidb.json", n->dir);
	if (hb_kcidb_write(n, p, err, sizeof(err)))
		hb_err("%s", err), rc = -1;
	snprintf(p, sizeof(p), "%s/summary.md", n->dir);
	if (hb_summary_write(n, p, err, sizeof(err)))
		hb_err("%s", err), rc = -1;
	/* after kcidb.json: tonight is on it */
	snprintf(p, sizeof(p), "%s/trend.html", results);
	if (hb_trend_write(results, p, err, sizeof(err)))
		hb_err("%s", err), rc = -1;
	return rc;
}

int hb_cmd_nightly(int argc, char **argv)
{
	struct nopts o = { 0 };
	char mdef[PATH_MAX], rdef[PATH_MAX], err[1024], self[PATH_MAX];
	struct hb_matrix m;
	struct hb_night n = { 0 };
	struct job *jobs = NULL;
	double t0 = hb_mono_s();
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	snprintf(mdef, sizeof(mdef), "%s/configs/nightly.matrix", hb_root());
	snprintf(rdef, sizeof(rdef), "%s/results", hb_root());
	if (!o.matrix)
		o.matrix = mdef;
	if (!o.results)
		o.results = rdef;
	if (hb_matrix_load(o.matrix, &m, err, sizeof(err))) {
		hb_err("%s", err);
		return HB_EXIT_USAGE;
	}
	if (!realpath("/proc/self/exe", self)) {
		hb_errno("cannot find the hugebench binary");
		hb_matrix_free(&m);
		return HB_EXIT_INFRA;
	}
	n.t = calloc(m.n, sizeof(*n.t));
	jobs = calloc(m.n, sizeof(*jobs));
	if (!n.t || !jobs) {
		rc = HB_EXIT_INFRA;
		goto out;
	}
	n.n = m.n;
	gethostname(n.host, sizeof(n.host) - 1);
	snprintf(n.dir, sizeof(n.dir), "%s/nightly-<stamp>", o.results);
	rc = plan(&m, &o, &n, jobs, self);
	if (rc)
		goto out;
	if (o.dry_run) {
		for (size_t i = 0; i < n.n; i++)
			printf("%s: %s%s%s\n", n.t[i].name, n.t[i].reproduce,
			       n.t[i].against[0] ? "   # compared with " : "", n.t[i].against);
		goto out;
	}
	rc = make_night_dir(o.results, &n);
	if (rc)
		goto out;
	/* the children write under the real night folder */
	for (size_t i = 0; i < n.n; i++) {
		snprintf(n.t[i].dir, sizeof(n.t[i].dir), "%s/%s", n.dir, n.t[i].name);
		build_argv(&jobs[i], self);
	}
	hb_signals_install();
	printf("hugebench %s: nightly %s, %zu targets -> %s\n", HB_VERSION, o.matrix, n.n, n.dir);
	run_jobs(jobs, n.n, o.results, n.dir);
	/* after every target: a bisect boots with this machine's QEMU, and the
	 * night's own boots should not wait behind it */
	for (size_t i = 0; i < n.n && !hb_interrupted; i++)
		hb_night_autobisect(&n.t[i], &m.rows[i]);
	/* the bad side's worktree served the bisect too: the user's repository
	 * keeps no worktree of the night's */
	for (size_t i = 0; i < n.n; i++)
		if (m.rows[i].git[0]) {
			hb_night_worktree_remove(m.rows[i].git, jobs[i].wt_good);
			hb_night_worktree_remove(m.rows[i].git, jobs[i].wt_bad);
		}
	n.time_s = hb_mono_s() - t0;
	{
		enum hb_tstate worst = hb_night_state(&n);

		rc = worst == HB_TS_FINDING ? HB_EXIT_FAIL
		     : worst == HB_TS_INFRA ? HB_EXIT_INFRA
					    : HB_EXIT_OK;
	}
	n.exit_code = rc;
	if (hb_interrupted && rc == 0)
		rc = HB_EXIT_INFRA;
	if (write_outputs(&n, o.results) && rc == 0)
		rc = HB_EXIT_INFRA;
	if (o.auto_promote && rc == 0) {
		char why[PATH_MAX + 64];

		snprintf(why, sizeof(why), "auto: %s was clean", n.dir);
		for (size_t i = 0; i < n.n; i++)
			if (hb_baseline_promote(o.results, n.t[i].group, n.t[i].name, why))
				rc = HB_EXIT_INFRA;
	} else if (o.auto_promote) {
		printf("nightly: not clean (exit %d): no baseline promoted\n", rc);
	}
	printf("nightly: %s/summary.md, junit.xml, kcidb.json; exit %d (%.0f s)\n", n.dir, rc,
	       n.time_s);
out:
	hb_night_free(&n);
	free(jobs);
	hb_matrix_free(&m);
	return rc;
}
