/* table.c - `hugebench table RUN...`: a markdown table of what a suite found
 * on each run (checks with their observed values, metric medians, KVM
 * mappings), with rows that differ between runs marked. The README's
 * per-kernel tables are produced by this command from real result folders.
 *
 * Runs are read with compare-report's validating loader (cmp_load.c), so
 * both commands accept and refuse the same files; rows are found through
 * hash indexes (linear in the size of the files); every name is escaped
 * for markdown. Exit 0, or 2 for a usage, input or write error (a reader
 * that stops early, as `| head` does, is not an error). */
#define _GNU_SOURCE
#include "protocol.h"
#include "compare.h"
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 8
#define MAX_GLOBS 16
#define CELL 160

static const char table_usage[] =
	"usage: hugebench table [--suite S] [--results DIR] [--only-diff] [--no-metrics]\n"
	"                       [--match GLOB] [--exclude GLOB] RUN|TARGET ...\n"
	"exit: 0 table written, 2 usage, input or write error";

/* Row filters: --match (any may match; none given = all) and --exclude. */
struct row_filter {
	const char *match[MAX_GLOBS], *exclude[MAX_GLOBS];
	int n_match, n_exclude;
};

static bool row_wanted(const struct row_filter *f, const char *label)
{
	bool ok = f->n_match == 0;

	for (int i = 0; i < f->n_match && !ok; i++)
		ok = fnmatch(f->match[i], label, 0) == 0;
	for (int i = 0; i < f->n_exclude && ok; i++)
		ok = fnmatch(f->exclude[i], label, 0) != 0;
	return ok;
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* The runs (each a group of boots, one for a single run) with an index:
 * (workload name, instance) of every boot, first check and first metric of
 * a name within a workload. `r` is the first boot (target, environment). */
struct tbl_run {
	struct hb_cmp_group *g;
	const struct hb_cmp_run *r;
	struct hb_cmp_idx *wl; /* per boot: (instance, name) -> workload */
	struct hb_cmp_idx chk, met;
};

/* A row: workload (name, instance) and a check or metric name. */
struct tbl_key {
	const char *wl;
	size_t inst;
	const char *name;
};

struct tbl {
	struct tbl_run runs[MAX_RUNS];
	int n;
	struct row_filter rf;
	bool oom;
};

/* The tag of a workload instance in an index (compared as a value). */
static void *inst_tag(size_t inst)
{
	return (void *)(uintptr_t)(inst + 1);
}

static int tbl_index(struct tbl_run *t)
{
	t->wl = hb_cmp_xcalloc(t->g->n, sizeof(*t->wl));
	if (!t->wl)
		return -1;
	for (size_t b = 0; b < t->g->n; b++) {
		const struct hb_cmp_run *r = t->g->boots[b];
		struct hb_cmp_idx count = { 0 };

		for (size_t i = 0; i < r->n_workloads; i++) {
			const struct hb_cmp_workload *w = &r->workloads[i];
			size_t *n = hb_cmp_idx_put(&count, NULL, w->name, NULL, NULL, 0, NULL);

			if (!n || !hb_cmp_idx_put(&t->wl[b], inst_tag((*n)++), w->name, NULL, NULL, i,
						  NULL)) {
				hb_cmp_idx_free(&count);
				return -1;
			}
			for (size_t j = 0; j < w->n_checks; j++)
				if (!hb_cmp_idx_put(&t->chk, w, w->checks[j].name, NULL, NULL, j, NULL))
					goto oom;
			for (size_t j = 0; j < w->n_metrics; j++)
				if (!hb_cmp_idx_put(&t->met, w, w->metrics[j].name, NULL, NULL, j, NULL))
					goto oom;
		}
		hb_cmp_idx_free(&count);
		continue;
oom:
		hb_cmp_idx_free(&count);
		return -1;
	}
	return 0;
}

static const struct hb_cmp_workload *tbl_wl(const struct tbl_run *t, size_t boot,
					    const struct tbl_key *k)
{
	const struct hb_cmp_run *r = t->g->boots[boot];
	size_t *v = hb_cmp_idx_get(&t->wl[boot], inst_tag(k->inst), k->wl, NULL, NULL);

	return v ? &r->workloads[*v] : NULL;
}

/* Unique (workload, instance, name) rows of checks (or metrics) over all
 * runs and boots, in first-seen order; NULL when out of memory. */
static struct tbl_key *union_keys(struct tbl *tb, bool metrics, size_t *n)
{
	struct hb_cmp_idx seen = { 0 };
	struct tbl_key *keys = NULL;
	size_t cap = 0;

	*n = 0;
	for (int r = 0; r < tb->n; r++)
		for (size_t b = 0; b < tb->runs[r].g->n; b++) {
			const struct hb_cmp_run *run = tb->runs[r].g->boots[b];
			struct hb_cmp_idx count = { 0 };

			for (size_t i = 0; i < run->n_workloads; i++) {
				const struct hb_cmp_workload *w = &run->workloads[i];
				size_t m = metrics ? w->n_metrics : w->n_checks;
				size_t *inst = hb_cmp_idx_put(&count, NULL, w->name, NULL, NULL, 0, NULL);

				if (!inst) {
					tb->oom = true;
					hb_cmp_idx_free(&count);
					goto out;
				}
				for (size_t j = 0; j < m; j++) {
					struct tbl_key k = { w->name, *inst,
							     metrics ? w->metrics[j].name
								     : w->checks[j].name };
					bool added;

					if (!hb_cmp_idx_put(&seen, inst_tag(k.inst), k.wl, k.name,
							    NULL, 0, &added) ||
					    (added && hb_cmp_append((void **)&keys, n, &cap, sizeof(k), &k))) {
						tb->oom = true;
						hb_cmp_idx_free(&count);
						goto out;
					}
				}
				++*inst;
			}
			hb_cmp_idx_free(&count);
		}
out:
	hb_cmp_idx_free(&seen);
	return keys ? keys : hb_cmp_xcalloc(1, sizeof(*keys));
}

/* One boot's check: 1 pass, 0 fail, -1 absent (*skip when the workload skipped). */
static int check_of(const struct tbl_run *t, size_t b, const struct tbl_key *k,
		    const struct hb_cmp_check **c, bool *skip)
{
	const struct hb_cmp_workload *w = tbl_wl(t, b, k);
	size_t *v = w ? hb_cmp_idx_get(&t->chk, w, k->name, NULL, NULL) : NULL;

	*skip = w && !strcmp(w->status, "skip");
	*c = v ? &w->checks[*v] : NULL;
	return v ? w->checks[*v].pass : -1;
}

/* ✓ / ✗ FAIL with the observed value of the first (failing) boot; for a
 * group, how many boots failed. */
static void cell_check(const struct tbl_run *t, const struct tbl_key *k, char *buf, size_t len)
{
	const struct hb_cmp_check *first = NULL, *fail = NULL, *c;
	size_t ran = 0, failed = 0, skipped = 0;
	bool skip;

	for (size_t b = 0; b < t->g->n; b++) {
		int st = check_of(t, b, k, &c, &skip);

		skipped += skip;
		if (st < 0)
			continue;
		ran++;
		if (!first)
			first = c;
		if (!st) {
			failed++;
			if (!fail)
				fail = c;
		}
	}
	if (!ran)
		snprintf(buf, len, "%s", skipped ? "skip" : "—");
	else if (!failed)
		snprintf(buf, len, "✓ %s", first->observed ? first->observed : "");
	else if (t->g->n == 1)
		snprintf(buf, len, "✗ FAIL %s", fail->observed ? fail->observed : "");
	else
		snprintf(buf, len, "✗ FAIL %s (%zu of %zu boots)", fail->observed ? fail->observed : "",
			 failed, t->g->n);
}

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	if (fabs(v) >= 1e6 || (fabs(v) < 1e-2 && v != 0))
		snprintf(buf, len, "%.3g %s", v, unit ? unit : "");
	else
		snprintf(buf, len, "%.6g %s", v, unit ? unit : "");
}

/* One run: the median of the metric's samples (as the run's summary.p50).
 * A group: the median over its boots of each boot's center (the median of
 * the boot's samples for a distribution, else their mean), as
 * compare-report takes them. */
static void cell_metric(const struct tbl_run *t, const struct tbl_key *k, char *buf, size_t len)
{
	const struct hb_cmp_metric *m = NULL, *any = NULL;
	double *c = hb_cmp_xcalloc(t->g->n, sizeof(*c));
	size_t nc = 0, unavailable = 0;
	bool dist = true;

	if (!c) {
		snprintf(buf, len, "—");
		return;
	}
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t b = 0; b < t->g->n; b++) {
			const struct hb_cmp_workload *w = tbl_wl(t, b, k);
			size_t *v = w ? hb_cmp_idx_get(&t->met, w, k->name, NULL, NULL) : NULL;

			m = v ? &w->metrics[*v] : NULL;
			if (!m)
				continue;
			any = m;
			if (pass == 0) {
				unavailable += m->unavailable != NULL;
				if (!m->unavailable && m->n)
					dist &= hb_cmp_metric_is_dist(m);
			} else if (!m->unavailable && m->n) {
				c[nc++] = dist ? hb_stats_median(m->samples, m->n)
					       : hb_stats_mean(m->samples, m->n);
			}
		}
	if (!any)
		snprintf(buf, len, "—");
	else if (!nc && unavailable)
		snprintf(buf, len, "unavailable");
	else if (!nc)
		snprintf(buf, len, "—");
	else if (t->g->n == 1) {
		fmt_value(buf, len, hb_stats_median(any->samples, any->n), any->unit);
		if (any->n > 1) {
			size_t l = strlen(buf);

			snprintf(buf + l, len - l, " (n=%zu)", any->n);
		}
	} else {
		size_t l;

		fmt_value(buf, len, hb_stats_median(c, nc), any->unit);
		l = strlen(buf);
		snprintf(buf + l, len - l, " (%zu boots)", nc);
	}
	free(c);
}

/* Cells differ when their text does, except that addresses ("0x...") are
 * per-run noise: only their pass mark is compared. */
static bool cells_differ(const char *a, const char *b)
{
	const char *xa = strstr(a, " 0x"), *xb = strstr(b, " 0x");

	if (xa && xb)
		return (xa - a) != (xb - b) || strncmp(a, b, (size_t)(xa - a));
	return strcmp(a, b) != 0;
}

static bool row_differs(char cells[][CELL], int n)
{
	for (int r = 1; r < n; r++)
		if (cells_differ(cells[r], cells[0]))
			return true;
	return false;
}

/* "| label[ **≠**] | cell | ... |": label and cells escaped for markdown; a
 * second instance of a workload is "name#2". */
static void print_row(const char *w, size_t inst, const char *label, char cells[][CELL], int n,
		      bool mark_diff)
{
	fputs("| ", stdout);
	if (w) {
		hb_cmp_md_puts(stdout, w);
		if (inst)
			printf("#%zu", inst + 1);
		fputc('.', stdout);
	}
	hb_cmp_md_puts(stdout, label);
	printf("%s |", mark_diff && row_differs(cells, n) ? " **≠**" : "");
	for (int r = 0; r < n; r++) {
		fputc(' ', stdout);
		hb_cmp_md_puts(stdout, cells[r]);
		fputs(" |", stdout);
	}
	fputc('\n', stdout);
}

static void header(const struct tbl *tb, const char *first)
{
	printf("| %s |", first);
	for (int r = 0; r < tb->n; r++) {
		fputc(' ', stdout);
		hb_cmp_md_puts(stdout, tb->runs[r].r->target);
		if (tb->runs[r].g->n > 1)
			printf(" (%zu boots)", tb->runs[r].g->n);
		fputs(" |", stdout);
	}
	printf("\n|---|");
	for (int r = 0; r < tb->n; r++)
		printf("---|");
	printf("\n");
}

/* "workload.name" (or "workload#2.name") for --match/--exclude; NULL when
 * out of memory. */
static char *row_label(const struct tbl_key *k)
{
	char *s = NULL;

	if (k->inst)
		return asprintf(&s, "%s#%zu.%s", k->wl, k->inst + 1, k->name) < 0 ? NULL : s;
	return asprintf(&s, "%s.%s", k->wl, k->name) < 0 ? NULL : s;
}

static void keyed_rows(struct tbl *tb, bool metrics, bool only_diff)
{
	size_t n;
	struct tbl_key *keys = union_keys(tb, metrics, &n);

	for (size_t i = 0; keys && i < n; i++) {
		char cells[MAX_RUNS][CELL], *label = row_label(&keys[i]);

		if (!label) {
			tb->oom = true;
			break;
		}
		for (int r = 0; r < tb->n; r++)
			(metrics ? cell_metric : cell_check)(&tb->runs[r], &keys[i], cells[r], CELL);
		if (row_wanted(&tb->rf, label) && !(only_diff && !row_differs(cells, tb->n)))
			print_row(keys[i].wl, keys[i].inst, keys[i].name, cells, tb->n, !metrics);
		free(label);
	}
	if (!keys)
		tb->oom = true;
	free(keys);
}

/* The kvm-map phases worth a row: mapped, hole punched, mapped again. */
static bool kvm_phase_shown(const char *phase)
{
	return strcmp(phase, "after_write") == 0 || strcmp(phase, "after_punch_2m") == 0 ||
	       strcmp(phase, "after_punch_2m_retouch") == 0;
}

/* Calls fn for every kvm_stats event of a shown phase in the run's
 * workloads (events are not validated by the loader: anything else there
 * is skipped). */
static void kvm_events(const struct hb_cmp_run *run, void (*fn)(void *, json_t *), void *arg)
{
	json_t *w, *e;
	size_t i, j;

	json_array_foreach(json_object_get(run->root, "workloads"), i, w) {
		json_array_foreach(json_object_get(w, "events"), j, e) {
			if (json_is_object(e) && !strcmp(str(e, HB_EV_KEY), HB_EV_KVM_STATS) &&
			    kvm_phase_shown(str(e, "phase")))
				fn(arg, e);
		}
	}
}

struct kvm_ctx {
	struct hb_cmp_idx keys; /* (backing, phase) -> row */
	struct tbl_key *rows;	/* wl = backing, name = phase */
	size_t n, cap;
	char (*cells)[CELL];	/* the current run's cell of each row */
	bool oom;
};

static void kvm_collect(void *arg, json_t *e)
{
	struct kvm_ctx *k = arg;
	struct tbl_key row = { str(e, "backing"), 0, str(e, "phase") };
	bool added;

	if (!hb_cmp_idx_put(&k->keys, NULL, row.wl, row.name, NULL, k->n, &added) ||
	    (added && hb_cmp_append((void **)&k->rows, &k->n, &k->cap, sizeof(row), &row)))
		k->oom = true;
}

/* The last event of a (backing, phase) wins. */
static void kvm_fill(void *arg, json_t *e)
{
	struct kvm_ctx *k = arg;
	size_t *v = hb_cmp_idx_get(&k->keys, NULL, str(e, "backing"), str(e, "phase"), NULL);
	json_t *st = json_object_get(e, "vm");

	if (!v)
		return;
	if (!st)
		st = e;
	snprintf(k->cells[*v], CELL, "%lld / %lld",
		 (long long)json_integer_value(json_object_get(st, "pages_4k")),
		 (long long)json_integer_value(json_object_get(st, "pages_2m")));
}

/* KVM stage-2 mappings reported by kvm-map, per backing and phase. */
static void kvm_rows(struct tbl *tb)
{
	struct kvm_ctx k = { 0 };
	char (*all)[MAX_RUNS][CELL] = NULL;

	for (int r = 0; r < tb->n; r++)
		kvm_events(tb->runs[r].r, kvm_collect, &k);
	if (k.n && !k.oom)
		all = calloc(k.n, sizeof(*all));
	if (k.n && !all)
		k.oom = true;
	if (all) {
		char (*col)[CELL] = malloc(k.n * sizeof(*col));

		if (!col)
			k.oom = true;
		for (int r = 0; col && r < tb->n; r++) {
			for (size_t i = 0; i < k.n; i++)
				snprintf(col[i], CELL, "—");
			k.cells = col;
			kvm_events(tb->runs[r].r, kvm_fill, &k);
			for (size_t i = 0; i < k.n; i++)
				memcpy(all[i][r], col[i], CELL);
		}
		if (col) {
			printf("\n**KVM stage-2 mappings (kvm-map): pages_4k / pages_2m**\n\n");
			header(tb, "backing / phase");
			for (size_t i = 0; i < k.n; i++) {
				char *label = NULL;

				if (asprintf(&label, "%s / %s", k.rows[i].wl, k.rows[i].name) < 0) {
					k.oom = true;
					break;
				}
				print_row(NULL, 0, label, all[i], tb->n, true);
				free(label);
			}
		}
		free(col);
	}
	tb->oom |= k.oom;
	free(all);
	free(k.rows);
	hb_cmp_idx_free(&k.keys);
}

/* "pass 9, fail 1": the verdicts of a group's boots. */
static void verdict_summary(const struct hb_cmp_group *g, char *buf, size_t len)
{
	static const char *const v[] = { "pass", "kernel-warning", "fail", "error", "incomplete",
					 "timeout", "panic" };
	size_t o = 0;

	buf[0] = 0;
	for (int k = 0; k < 7; k++) {
		size_t c = 0;

		for (size_t b = 0; b < g->n; b++)
			c += hb_verdict_rank(g->boots[b]->verdict) == k;
		if (c && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %zu", o ? ", " : "", v[k], c);
	}
}

/* 0, or 2 after saying why; a closed pipe is not an error (`| head`). */
static int finish_output(void)
{
	if (!fflush(stdout) && !ferror(stdout))
		return HB_EXIT_OK;
	if (errno == EPIPE || hb_cmp_broken_pipe(stdout))
		return HB_EXIT_OK;
	hb_errno("table: writing the table to stdout");
	return HB_EXIT_USAGE;
}

static void tbl_free(struct tbl *tb)
{
	for (int r = 0; r < tb->n; r++) {
		for (size_t b = 0; tb->runs[r].wl && b < tb->runs[r].g->n; b++)
			hb_cmp_idx_free(&tb->runs[r].wl[b]);
		free(tb->runs[r].wl);
		hb_cmp_group_free(tb->runs[r].g);
		hb_cmp_idx_free(&tb->runs[r].chk);
		hb_cmp_idx_free(&tb->runs[r].met);
	}
}

static int table_load(struct tbl *tb, const char *arg, const char *results, const char *suite)
{
	char err[1024], dflt[4096];
	struct tbl_run *t = &tb->runs[tb->n];

	if (tb->n == MAX_RUNS) {
		hb_err("table: at most %d runs", MAX_RUNS);
		return -1;
	}
	if (!results) {
		snprintf(dflt, sizeof(dflt), "%s/results", hb_root());
		results = dflt;
	}
	memset(t, 0, sizeof(*t));
	t->g = hb_cmp_group_open(arg, results, suite, HB_CMP_USE_ALL, err, sizeof(err));
	if (!t->g) {
		hb_err("table: %s", err);
		return -1;
	}
	t->r = t->g->boots[0];
	tb->n++;
	if (tbl_index(t)) {
		hb_err("table: out of memory");
		return -1;
	}
	return 0;
}

int hb_cmd_table(int argc, char **argv)
{
	struct tbl tb;
	bool only_diff = false, no_metrics = false;
	const char *suite = NULL, *results = NULL, *args[MAX_RUNS + 1];
	int nargs = 0, ret;

	hb_stats_init();
	memset(&tb, 0, sizeof(tb));
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--only-diff") == 0) {
			only_diff = true;
		} else if (strcmp(argv[a], "--no-metrics") == 0) {
			no_metrics = true;
		} else if (strcmp(argv[a], "--suite") == 0 && a + 1 < argc) {
			suite = argv[++a];
		} else if (strcmp(argv[a], "--results") == 0 && a + 1 < argc) {
			results = argv[++a];
		} else if ((strcmp(argv[a], "--match") == 0 || strcmp(argv[a], "--exclude") == 0) &&
			   a + 1 < argc) {
			bool m = argv[a][2] == 'm';
			int *cnt = m ? &tb.rf.n_match : &tb.rf.n_exclude;

			if (*cnt == MAX_GLOBS) {
				hb_err("table: at most %d --match/--exclude patterns each", MAX_GLOBS);
				return HB_EXIT_USAGE;
			}
			(m ? tb.rf.match : tb.rf.exclude)[(*cnt)++] = argv[++a];
		} else if (argv[a][0] == '-' && argv[a][1]) {
			hb_err("table: unknown option or missing value: %s\n%s", argv[a], table_usage);
			return HB_EXIT_USAGE;
		} else if (nargs == MAX_RUNS) {
			hb_err("table: at most %d runs", MAX_RUNS);
			return HB_EXIT_USAGE;
		} else {
			args[nargs++] = argv[a];
		}
	}
	if (nargs == 0) {
		hb_err("%s", table_usage);
		return HB_EXIT_USAGE;
	}
	/* options apply wherever they stand: resolve after parsing them all */
	for (int i = 0; i < nargs; i++)
		if (table_load(&tb, args[i], results, suite)) {
			tbl_free(&tb);
			return HB_EXIT_USAGE;
		}

	header(&tb, "run");
	{
		char cells[MAX_RUNS][CELL];
		static const char *const rows[] = { "kernel_release", "accelerator", "suite",
						    "verdict" };

		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			for (int x = 0; x < tb.n; x++) {
				const struct hb_cmp_run *run = tb.runs[x].r;
				const char *v[] = { run->kernel_release, run->accelerator, run->suite,
						    run->verdict };

				snprintf(cells[x], CELL, "%s", v[r] ? v[r] : "");
				if (r == 3 && tb.runs[x].g->n > 1)
					verdict_summary(tb.runs[x].g, cells[x], CELL);
			}
			print_row(NULL, 0, rows[r], cells, tb.n, false);
		}
	}

	printf("\n**Checks** (✓ pass, ✗ fail; observed value)%s\n\n",
	       only_diff ? ", only rows that differ" : "");
	header(&tb, "workload.check");
	keyed_rows(&tb, false, only_diff);
	if (!no_metrics) {
		printf("\n**Metrics** (median of the samples; for a group of boots, the median of the boots' centers)\n\n");
		header(&tb, "workload.metric");
		keyed_rows(&tb, true, false);
	}
	kvm_rows(&tb);
	ret = finish_output();
	if (tb.oom) {
		hb_err("table: out of memory");
		ret = HB_EXIT_USAGE;
	}
	tbl_free(&tb);
	return ret;
}
