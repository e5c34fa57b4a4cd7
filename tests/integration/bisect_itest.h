/* bisect_itest.h - integration tests of `hugebench bisect` (issues 14, 22; bisect_itest.c). */
#ifndef HB_BISECT_ITEST_H
#define HB_BISECT_ITEST_H

void test_bisect_bad_input(void **state);
void test_bisect_series_check(void **state);
void test_bisect_series_metric(void **state);
void test_bisect_git_metric(void **state);
void test_bisect_hang_is_bad(void **state);
/* <cache>/itest/bisect-git-<source>-<recipe>: the source tree as one commit,
 * then one commit per patch of the recipe's series (fixed dates: the same
 * commits every time), kept between runs; sha[0] the base, sha[1..n] the
 * patches. Returns n. The repository is a fixture of every clone on the
 * machine (the cache is shared) and a bisect moves its HEAD: the caller holds
 * an exclusive lock on it (flock on <repo>.lock, waited for) from here until
 * hb_itest_series_repo_done() or the process's end, so two clones' `make
 * test` at once take turns instead of bisecting one work tree together. */
int hb_itest_series_repo(const char *recipe, char *repo, size_t len, char sha[][64], int max);
void hb_itest_series_repo_done(void);
/* The first line of git -C repo ARGS' stdout ("" when git fails). */
void hb_itest_git_line(const char *repo, char *out, size_t len, const char *const *args);
#define GITLINE(repo, out, ...)                                                                    \
	hb_itest_git_line(repo, out, sizeof(out), (const char *const[]){ __VA_ARGS__, NULL })

#endif
