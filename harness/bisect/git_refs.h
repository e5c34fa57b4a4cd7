/* git_refs.h - the parts of git mode shared by bisect/git.c (the drive and
 * its steps) and bisect/git_refs.c (git's refs, the answer, the summary).
 * Internal to harness/bisect/. */
#ifndef HB_BISECT_GIT_REFS_H
#define HB_BISECT_GIT_REFS_H

#include "bisect.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* git -C path args... (hb_git, util.h): GIT1 its first line of stdout into
 * out (an array), GITQ stdout dropped; git's stderr shown. Its exit code. */
#define GIT1(path, out, ...)                                                                       \
	hb_git(path, out, sizeof(out), HB_GIT_ONE_LINE, (const char *const[]){ __VA_ARGS__, NULL })
#define GITQ(path, ...)                                                                            \
	hb_git(path, NULL, 0, HB_GIT_ONE_LINE, (const char *const[]){ __VA_ARGS__, NULL })

#define HB_GIT_LIST_MAX 4096 /* candidates listed; a larger range is only counted */

/* Where git's bisect stands (hb_bisect_gstate_read). */
struct hb_bisect_gstate {
	char bad[64];	   /* refs/bisect/bad */
	long n_total;	   /* rev-list bad --not goods: the candidates */
	char *cands[HB_GIT_LIST_MAX]; /* those, newest first, when n_total fits */
	size_t n_cands;
	long n_untested;   /* of those: neither bad nor skipped */
	char goods[1 << 16], skips[1 << 16]; /* refs/bisect/good-*, skip-*: one a line */
};

/* Reads it from git's refs: 0, or -1 (git failed). */
int hb_bisect_gstate_read(const char *path, struct hb_bisect_gstate *g);
void hb_bisect_gstate_free(struct hb_bisect_gstate *g);
/* May sha be tested next: neither judged nor outside the candidates? */
bool hb_bisect_git_testable(const struct hb_bisect_gstate *g, const char *sha);
/* Did git record verdict v of sha (refs/bisect/bad, good-<sha>, skip-<sha>)? */
bool hb_bisect_git_recorded(const char *path, const char *sha, enum hb_bisect_v v);

/* The answer from git's refs once nothing is left to test (outcome, line,
 * commit); bad_skipped: refs/bisect/bad could not be judged itself. */
void hb_bisect_git_answer(const char *path, const struct hb_bisect_gstate *g, bool bad_skipped,
			  struct hb_bisect_answer *a);
/* "<sha12> (<subject>)" of commit sha. */
void hb_bisect_git_describe(const char *path, const char *sha, char *out, size_t len);
/* summary.md and answer.json of o->dir; a's totals (steps, builds, boots). */
void hb_bisect_git_summary(const struct hb_bisect_opts *o, struct hb_bisect_answer *a,
			   const struct hb_bisect_gstate *g, const char *good, const char *bad,
			   const char *log);
/* The recorded steps of commit in steps: how many, the last one's verdict
 * (bisect/git.c). */
int hb_bisect_git_tries(json_t *steps, const char *commit, enum hb_bisect_v *last);

#endif
