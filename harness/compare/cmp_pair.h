/* cmp_pair.h - private to compare-report's pairing (cmp_report.c builds the
 * pair and its per-side indexes; cmp_functional.c fills kernel issues,
 * verdicts, workloads and checks into it, cmp_findings.c metrics and
 * snapshots). */
#ifndef HB_CMP_PAIR_H
#define HB_CMP_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "compare.h"

/* A workload of the pair: (name, instance), and its entry in every boot. */
struct hb_cmp_wkey {
	const char *name;
	size_t inst;
	char *label; /* "name", or "name#<inst+1>" */
	const struct hb_cmp_workload **w[2]; /* [side][boot], NULL when absent */
};

struct hb_cmp_chkagg {
	int st; /* 1 all repetitions passed, 0 one failed */
	const char *observed, *expected;
};

struct hb_cmp_snapagg {
	double sum;
	size_t found;
};

struct hb_cmp_sideix {
	const struct hb_cmp_group *g;
	struct hb_cmp_idx met;	/* (workload, name) -> first metric of that name */
	struct hb_cmp_idx chk;	/* (workload, name) -> chks[] */
	struct hb_cmp_idx lab;	/* (workload, label) -> snapshots with that label */
	struct hb_cmp_idx key;	/* (workload, label, source, key) -> sums[] */
	struct hb_cmp_idx kind; /* (run, kernel issue kind) -> count */
	struct hb_cmp_chkagg *chks;
	struct hb_cmp_snapagg *sums;
	size_t n_chks, cap_chks, n_sums, cap_sums;
};

extern const char *const hb_cmp_src[2];

struct hb_cmp_ctx {
	struct hb_cmp_pair *p;
	const struct hb_cmp_thresholds *t;
	const struct hb_cmp_opts *o;
	struct hb_cmp_sideix x[2];
	struct hb_cmp_idx wix;	/* (instance + 1, name) -> p->wk[] */
	struct hb_cmp_idx seen; /* rows already made (checks, metrics, snapshot keys) */
	size_t wk_cap;
	bool oom;
};

static inline const char *hb_cmp_s(const char *s)
{
	return s ? s : "-";
}

static inline bool hb_cmp_streq(const char *a, const char *b)
{
	return !strcmp(hb_cmp_s(a), hb_cmp_s(b));
}

static inline const struct hb_cmp_group *hb_cmp_g(const struct hb_cmp_pair *p, int s)
{
	return s ? p->gb : p->ga;
}

/* cmp_report.c */
void hb_cmp_find(struct hb_cmp_pair *p, enum hb_cmp_fkind kind, bool regression,
		 const char *workload, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* " (in 2 of 5 boots)" for a group, "" for a single boot. */
void hb_cmp_of_boots(char *buf, size_t len, size_t k, size_t n);
/* The first metric called name of workload entry w on side x, or NULL. */
const struct hb_cmp_metric *hb_cmp_metric(const struct hb_cmp_sideix *x,
					  const struct hb_cmp_workload *w, const char *name);

/* A finder: one rule of compare-report. It reads the pair and the indexes
 * of c, appends its rows and findings (hb_cmp_find) to c->p, and sets
 * c->oom when memory runs out. The table, hb_cmp_finders[] in
 * cmp_report.c, runs them in its order; name says what the rule looks at. */
struct hb_cmp_finder {
	const char *name;
	void (*find)(struct hb_cmp_ctx *c);
};

/* The finders of hb_cmp_finders[]: cmp_functional.c */
void hb_cmp_issues(struct hb_cmp_ctx *c);
void hb_cmp_workloads(struct hb_cmp_ctx *c);
void hb_cmp_checks(struct hb_cmp_ctx *c);
/* cmp_findings.c */
void hb_cmp_metrics(struct hb_cmp_ctx *c);
void hb_cmp_snaps(struct hb_cmp_ctx *c);

#endif
