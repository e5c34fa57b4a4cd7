/* gitrange.c - a nightly matrix line for a git range (issue 22):
 *
 *   minimal-ksrc git=/src/linux good=v6.1 bad=mm-next bisect-budget=6
 *
 * on a source=ksrc recipe's line. The matrix checks the keys here as it
 * reads the line (git= an absolute path to the top of a work tree, good=
 * and bad= commits in it, good an ancestor of bad); the night (nightly.c)
 * runs the bad side as the target and the good side as its base, each in a
 * scratch worktree under the night's folder (`git worktree add --detach`),
 * so the user's tree is never checked out; the auto-bisect (autobisect.c)
 * bisects and verifies in the bad side's worktree. Every git call is an
 * argv array. As bisect --git does, git runs as the caller with no
 * safe.directory exception (a tree of another owner would run its hooks
 * and config as root): such a tree is refused as not a work tree.
 */
#define _GNU_SOURCE
#include "nightly.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rev resolved to a commit of tree into sha (41): 0, or -1 with why. */
static int resolve(const char *tree, const char *key, const char *rev, char *sha, char *why,
		   size_t len)
{
	char spec[160];

	if (rev[0] == '-' || strlen(rev) >= 128) {
		snprintf(why, len, "%s=%s: give a branch, tag or commit of %s (not an option)", key,
			 rev, tree);
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	if (HB_NGIT(tree, sha, 41, "rev-parse", "--verify", "-q", spec) || strlen(sha) != 40) {
		snprintf(why, len, "%s=%s is not a commit in %s; see git -C %s log", key, rev, tree,
			 tree);
		return -1;
	}
	return 0;
}

int hb_mrow_git_resolve(struct hb_mrow *r, char *why, size_t len)
{
	char real[PATH_MAX], top[PATH_MAX + 1];

	if (!r->git[0] && !r->good[0] && !r->bad[0])
		return 0;
	if (!r->git[0] || !r->good[0] || !r->bad[0]) {
		snprintf(why, len, "a git range needs all of git=PATH good=REV bad=REV (%s missing)",
			 !r->git[0] ? "git=" : !r->good[0] ? "good=" : "bad=");
		return -1;
	}
	if (r->git[0] != '/') {
		snprintf(why, len, "git=%s: give the work tree's absolute path", r->git);
		return -1;
	}
	if (!realpath(r->git, real) || !hb_is_dir(real)) {
		snprintf(why, len, "git=%s: no such folder", r->git);
		return -1;
	}
	if (HB_NGIT(real, top, sizeof(top), "rev-parse", "--show-toplevel") || strcmp(top, real)) {
		snprintf(why, len, "git=%s is not the top of a git work tree%s%s", r->git,
			 top[0] ? "; its top is " : " (git rev-parse --show-toplevel failed: no "
			 "repository, or one of another owner, which git refuses to root; see "
			 "docs/bisect.md)", top);
		return -1;
	}
	if (strlen(real) >= sizeof(r->git)) {
		snprintf(why, len, "git=%s: the path is too long", r->git);
		return -1;
	}
	snprintf(r->git, sizeof(r->git), "%s", real);
	if (resolve(r->git, "good", r->good, r->good_sha, why, len) ||
	    resolve(r->git, "bad", r->bad, r->bad_sha, why, len))
		return -1;
	if (!strcmp(r->good_sha, r->bad_sha) ||
	    HB_NGIT(r->git, NULL, 0, "merge-base", "--is-ancestor", r->good_sha, r->bad_sha)) {
		snprintf(why, len, "good=%s must be an ancestor of bad=%s (and not the same commit); "
			 "see git -C %s log %s..%s", r->good, r->bad, r->git, r->good, r->bad);
		return -1;
	}
	return 0;
}

int hb_night_worktree_add(const char *repo, const char *dir, const char *sha, char *why,
			  size_t len)
{
	if (HB_NGIT(repo, NULL, 0, "worktree", "add", "-q", "--detach", dir, sha)) {
		snprintf(why, len, "git -C %s worktree add --detach %s %.12s failed", repo, dir, sha);
		return -1;
	}
	return 0;
}

void hb_night_worktree_remove(const char *repo, const char *dir)
{
	HB_NGIT(repo, NULL, 0, "worktree", "remove", "--force", dir);
	HB_NGIT(repo, NULL, 0, "worktree", "prune");
}

void hb_night_git_origin(struct hb_ntarget *t, const struct hb_mrow *r)
{
	char ref[256] = "", url[512] = "";

	snprintf(t->git_tree, sizeof(t->git_tree), "%s", r->git);
	snprintf(t->commit, sizeof(t->commit), "%s", r->bad_sha);
	snprintf(t->good_commit, sizeof(t->good_commit), "%s", r->good_sha);
	t->branch[0] = t->git_url[0] = 0;
	if (!HB_NGIT(r->git, ref, sizeof(ref), "rev-parse", "--symbolic-full-name", r->bad) &&
	    !strncmp(ref, "refs/heads/", 11))
		snprintf(t->branch, sizeof(t->branch), "%s", ref + 11);
	else if (!HB_NGIT(r->git, ref, sizeof(ref), "for-each-ref", "--count=1",
			  "--format=%(refname:short)", "--points-at", r->bad_sha, "refs/heads/"))
		snprintf(t->branch, sizeof(t->branch), "%s", ref);
	/* KCIDB takes an https:// URL only; a local tree is named in misc */
	if (!HB_NGIT(r->git, url, sizeof(url), "remote", "get-url", "origin") &&
	    !strncmp(url, "https://", 8) && !strchr(url, '@') && !strchr(url, ' '))
		snprintf(t->git_url, sizeof(t->git_url), "%s", url);
}
