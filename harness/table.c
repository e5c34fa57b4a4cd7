/* table.c - `hugebench table RUN...`: a markdown table of what a suite found
 * on each run (checks with their observed values, metric medians, KVM
 * mappings), with rows that differ between runs marked. The README's
 * per-kernel tables are produced by this command from real result folders. */
#define _GNU_SOURCE
#include "compare.h"
#include "result.h"
#include "table.h"
#include "util.h"

#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 8
#define MAX_GLOBS 16

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

/* Unique "workload\tname" keys over all runs, in first-seen order. */
static json_t *union_keys(json_t **runs, int n, const char *arrname)
{
	json_t *keys = json_array(), *seen = json_object();

	for (int r = 0; r < n; r++) {
		size_t i, j;
		json_t *w, *c;

		json_array_foreach(json_object_get(runs[r], "workloads"), i, w) {
			json_array_foreach(json_object_get(w, arrname), j, c) {
				char key[256];

				snprintf(key, sizeof(key), "%s\t%s", str(w, "name"), str(c, "name"));
				if (json_object_get(seen, key))
					continue;
				json_object_set_new(seen, key, json_true());
				json_array_append_new(keys, json_string(key));
			}
		}
	}
	json_decref(seen);
	return keys;
}

static void cell_check(json_t *run, const char *wl, const char *name, char *buf, size_t len)
{
	json_t *w = hb_result_named(json_object_get(run, "workloads"), wl);
	json_t *c = w ? hb_result_named(json_object_get(w, "checks"), name) : NULL;

	if (!w)
		snprintf(buf, len, "—");
	else if (!c)
		snprintf(buf, len, "%s", strcmp(str(w, "status"), "skip") ? "—" : "skip");
	else
		snprintf(buf, len, "%s %s", json_is_true(json_object_get(c, "pass")) ? "✓" : "✗ FAIL",
			 str(c, "observed"));
}

static void cell_metric(json_t *run, const char *wl, const char *name, char *buf, size_t len)
{
	json_t *w = hb_result_named(json_object_get(run, "workloads"), wl);
	json_t *m = w ? hb_result_named(json_object_get(w, "metrics"), name) : NULL;
	json_t *s = json_object_get(m, "summary");

	if (!m)
		snprintf(buf, len, "—");
	else if (json_object_get(m, "unavailable"))
		snprintf(buf, len, "unavailable");
	else if (s) {
		double v = json_number_value(json_object_get(s, "p50"));
		long long n = json_integer_value(json_object_get(s, "n"));

		if (fabs(v) >= 1e6 || (fabs(v) < 1e-2 && v != 0))
			snprintf(buf, len, "%.3g %s", v, str(m, "unit"));
		else
			snprintf(buf, len, "%.6g %s", v, str(m, "unit"));
		if (n > 1) {
			size_t l = strlen(buf);

			snprintf(buf + l, len - l, " (n=%lld)", n);
		}
	} else
		snprintf(buf, len, "—");
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

static void print_row(const char *label, char cells[][160], int n, bool mark_diff)
{
	bool differ = false;

	for (int r = 1; r < n; r++)
		if (cells_differ(cells[r], cells[0]))
			differ = true;
	printf("| %s%s |", label, mark_diff && differ ? " **≠**" : "");
	for (int r = 0; r < n; r++)
		printf(" %s |", cells[r]);
	printf("\n");
}

static void header(json_t **runs, int n, const char *first)
{
	printf("| %s |", first);
	for (int r = 0; r < n; r++)
		printf(" %s |", str(json_object_get(runs[r], "target"), "name"));
	printf("\n|---|");
	for (int r = 0; r < n; r++)
		printf("---|");
	printf("\n");
}

/* The kvm-map phases worth a row: mapped, hole punched, mapped again. */
static bool kvm_phase_shown(const char *phase)
{
	return strcmp(phase, "after_write") == 0 || strcmp(phase, "after_punch_2m") == 0 ||
	       strcmp(phase, "after_punch_2m_retouch") == 0;
}

/* KVM stage-2 mappings reported by kvm-map, per backing and phase. */
static void kvm_rows(json_t **runs, int n)
{
	json_t *keys = json_array(), *seen = json_object();
	size_t i, j;
	json_t *w, *e, *k;

	for (int r = 0; r < n; r++) {
		json_array_foreach(json_object_get(runs[r], "workloads"), i, w) {
			json_array_foreach(json_object_get(w, "events"), j, e) {
				char key[160];

				if (strcmp(str(e, "ev"), "kvm_stats") || !kvm_phase_shown(str(e, "phase")))
					continue;
				snprintf(key, sizeof(key), "%s / %s", str(e, "backing"), str(e, "phase"));
				if (!json_object_get(seen, key)) {
					json_object_set_new(seen, key, json_true());
					json_array_append_new(keys, json_string(key));
				}
			}
		}
	}
	if (json_array_size(keys)) {
		printf("\n**KVM stage-2 mappings (kvm-map): pages_4k / pages_2m**\n\n");
		header(runs, n, "backing / phase");
	}
	json_array_foreach(keys, i, k) {
		char cells[MAX_RUNS][160];

		for (int r = 0; r < n; r++) {
			snprintf(cells[r], sizeof(cells[r]), "—");
			json_array_foreach(json_object_get(runs[r], "workloads"), j, w) {
				size_t m;

				json_array_foreach(json_object_get(w, "events"), m, e) {
					char key[160];
					json_t *st = json_object_get(e, "vm");

					snprintf(key, sizeof(key), "%s / %s", str(e, "backing"),
						 str(e, "phase"));
					if (strcmp(str(e, "ev"), "kvm_stats") ||
					    strcmp(key, json_string_value(k)))
						continue;
					if (!st)
						st = e;
					snprintf(cells[r], sizeof(cells[r]), "%lld / %lld",
						 json_integer_value(json_object_get(st, "pages_4k")),
						 json_integer_value(json_object_get(st, "pages_2m")));
				}
			}
		}
		print_row(json_string_value(k), cells, n, true);
	}
	json_decref(keys);
	json_decref(seen);
}

int hb_cmd_table(int argc, char **argv)
{
	json_t *runs[MAX_RUNS];
	int n = 0;
	bool only_diff = false, no_metrics = false;
	const char *suite = NULL;
	struct row_filter rf = { 0 };
	json_t *keys;
	size_t i;
	json_t *k;

	for (int a = 1; a < argc; a++) {
		char err[512];
		char *path;
		json_error_t je;

		if (strcmp(argv[a], "--only-diff") == 0) {
			only_diff = true;
			continue;
		}
		if (strcmp(argv[a], "--suite") == 0 && a + 1 < argc) {
			suite = argv[++a];
			continue;
		}
		if (strcmp(argv[a], "--no-metrics") == 0) {
			no_metrics = true;
			continue;
		}
		if ((strcmp(argv[a], "--match") == 0 || strcmp(argv[a], "--exclude") == 0) &&
		    a + 1 < argc) {
			bool m = argv[a][2] == 'm';
			int *cnt = m ? &rf.n_match : &rf.n_exclude;

			if (*cnt == MAX_GLOBS) {
				hb_err("table: at most %d --match/--exclude patterns each", MAX_GLOBS);
				return HB_EXIT_USAGE;
			}
			(m ? rf.match : rf.exclude)[(*cnt)++] = argv[++a];
			continue;
		}
		if (n == MAX_RUNS) {
			hb_err("table: at most %d runs", MAX_RUNS);
			return HB_EXIT_USAGE;
		}
		path = hb_cmp_resolve(argv[a], "results", suite, err, sizeof(err));
		if (!path) {
			hb_err("%s", err);
			return HB_EXIT_USAGE;
		}
		runs[n] = json_load_file(path, 0, &je);
		if (!runs[n]) {
			hb_err("%s: invalid JSON at line %d: %s", path, je.line, je.text);
			free(path);
			return HB_EXIT_USAGE;
		}
		free(path);
		n++;
	}
	if (n == 0) {
		hb_err("usage: hugebench table [--suite S] [--only-diff] [--no-metrics] "
		       "[--match GLOB] [--exclude GLOB] RUN|TARGET ...");
		return HB_EXIT_USAGE;
	}

	header(runs, n, "run");
	{
		char cells[MAX_RUNS][160];
		const char *const rows[][2] = { { "target", "kernel_release" },
						{ "environment", "accelerator" },
						{ NULL, "suite" },
						{ NULL, "verdict" } };

		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			for (int x = 0; x < n; x++) {
				json_t *o = rows[r][0] ? json_object_get(runs[x], rows[r][0]) : runs[x];

				snprintf(cells[x], sizeof(cells[x]), "%s", str(o, rows[r][1]));
			}
			print_row(rows[r][1], cells, n, false);
		}
	}

	printf("\n**Checks** (✓ pass, ✗ fail; observed value)%s\n\n",
	       only_diff ? ", only rows that differ" : "");
	header(runs, n, "workload.check");
	keys = union_keys(runs, n, "checks");
	json_array_foreach(keys, i, k) {
		char wl[128], name[128], label[260], cells[MAX_RUNS][160];
		bool differ = false;

		sscanf(json_string_value(k), "%127[^\t]\t%127s", wl, name);
		for (int r = 0; r < n; r++) {
			cell_check(runs[r], wl, name, cells[r], sizeof(cells[r]));
			differ |= r && cells_differ(cells[r], cells[0]);
		}
		snprintf(label, sizeof(label), "%s.%s", wl, name);
		if ((only_diff && !differ) || !row_wanted(&rf, label))
			continue;
		print_row(label, cells, n, true);
	}
	json_decref(keys);

	keys = no_metrics ? json_array() : union_keys(runs, n, "metrics");
	if (!no_metrics) {
		printf("\n**Metrics** (median of the samples)\n\n");
		header(runs, n, "workload.metric");
	}
	json_array_foreach(keys, i, k) {
		char wl[128], name[128], label[260], cells[MAX_RUNS][160];

		sscanf(json_string_value(k), "%127[^\t]\t%127s", wl, name);
		snprintf(label, sizeof(label), "%s.%s", wl, name);
		if (!row_wanted(&rf, label))
			continue;
		for (int r = 0; r < n; r++)
			cell_metric(runs[r], wl, name, cells[r], sizeof(cells[r]));
		print_row(label, cells, n, false);
	}
	json_decref(keys);
	kvm_rows(runs, n);
	for (int r = 0; r < n; r++)
		json_decref(runs[r]);
	return 0;
}
