/* recipe_build.c - drive kernels/build-source.sh for a source recipe
 * (hb_recipe_build in recipe.h): the environment it gets, its one key=value
 * output contract, and the cache handed to the invoking user. */
#define _GNU_SOURCE
#include "recipe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* Who the build steps run as (hb_build_user()). */
struct builder {
	bool drop;		/* run as uid/gid instead of ourselves */
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* Runs argv with env, stdout captured into *outbuf (malloc'd), stderr
 * inherited; as the builder when b->drop. Returns the exit status, or
 * 128+signal, or -1 (spawn failed). */
static int run_capture(char *const argv[], char *const env[], const struct builder *b,
		       char **outbuf)
{
	struct hb_spawn sp = { .argv = argv, .envp = env, .capture = true, .as_user = b->drop,
			       .uid = b->uid, .gid = b->gid };

	return hb_run(&sp, outbuf, NULL);
}

/* The paths joined by newlines, malloc'd. */
static char *join_paths(char **v, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(s, v[i]);
		strcat(s, "\n");
	}
	return s;
}

/* The script's own "error=<reason>" line (stdout) becomes the one error
 * line the user sees; without one, say which step failed. */
static int script_failed(int rc, const char *what, const char *buf, char *err, size_t errlen)
{
	char reason[1024];

	if (rc < 0) {
		hb_set_err(err, errlen, "cannot run bash for %s: %s", what, strerror(errno));
		return -EIO;
	}
	if (buf && hb_kv_get(buf, "error", reason, sizeof(reason)))
		hb_set_err(err, errlen, "%s", reason);
	else
		hb_set_err(err, errlen, "%s failed (exit %d; its messages are above)", what, rc);
	return rc == HB_EXIT_USAGE ? -EINVAL : -EIO;
}

/* The script's result: release=, image= (absolute) and modules= (absolute
 * or empty) lines. */
static int parse_result(const char *buf, struct hb_kernel_build *out)
{
	if (!hb_kv_get(buf, "release", out->release, sizeof(out->release)) ||
	    !hb_kv_get(buf, "image", out->bzimage, sizeof(out->bzimage)) ||
	    !hb_kv_get(buf, "modules", out->modules, sizeof(out->modules)) || !out->release[0] ||
	    out->bzimage[0] != '/' || (out->modules[0] && out->modules[0] != '/'))
		return -1;
	return 0;
}

/* <cache>/.owned-by-<uid>: written once every folder the build writes was
 * found (or made) the account's; a build that falls back to root removes
 * it, so the next unprivileged build scans again. */
static void owner_stamp(const char *cache_dir, unsigned uid, char *path, size_t len)
{
	snprintf(path, len, "%s/.owned-by-%u", cache_dir, uid);
}

/* The folders the build writes must be the builder's (a one-time chown of
 * what an earlier root build made). src too: build-source.sh hardlinks
 * the pristine trees, which fs.protected_hardlinks allows only to their
 * owner. The scan (`find ! -user`, 4.6 s over this machine's src/ and
 * trees/) runs until the stamp says it was done and no root build came
 * after. */
static int give_cache_to_builder(const char *cache_dir, const struct builder *b, char *err,
				 size_t errlen)
{
	static const char *const sub[] = { "src", "trees", "builds", "ccache" };
	char stamp[HB_RECIPE_PATH_MAX + 32];
	int fd;

	if (!b->drop)
		return 0;
	owner_stamp(cache_dir, (unsigned)b->uid, stamp, sizeof(stamp));
	if (access(stamp, F_OK) == 0) {
		/* the stamp holds only while the folders are still ours: another
		 * account's build (a sudo user's, with a cache several share) may
		 * have taken them since; a stat each is cheap, the scan is not */
		bool ours = true;

		for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
			char path[HB_RECIPE_PATH_MAX + 16];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", cache_dir, sub[i]);
			if (lstat(path, &st) == 0 && st.st_uid != b->uid)
				ours = false;
		}
		if (ours)
			return 0;
		unlink(stamp);
	}
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		char path[HB_RECIPE_PATH_MAX + 16], owner[32];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", cache_dir, sub[i]);
		if (hb_mkdir_p(path) || lstat(path, &st)) {
			hb_set_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		snprintf(owner, sizeof(owner), "%u", (unsigned)b->uid);
		if (st.st_uid == b->uid) {
			/* anything inside made by a build as root (before this
			 * account existed, or an older hugebench)? */
			char *const argv[] = { "find", path, "!", "-user", owner, "-print", "-quit",
					       NULL };
			char found[HB_RECIPE_PATH_MAX + 16];

			if (hb_spawn_capture(argv, found, sizeof(found)) == 0 && !found[0])
				continue;
		}
		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)b->uid, (unsigned)b->gid);
		{
			char *const argv[] = { "chown", "-R", "-h", owner, "--", path, NULL };

			if (hb_spawn_capture(argv, NULL, 0) != 0) {
				hb_set_err(err, errlen, "cannot give %s to %s (chown failed)", path,
					   b->name);
				return -1;
			}
		}
	}
	fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0)
		close(fd); /* without it the next build scans again: no harm */
	return 0;
}

/* As root: the build runs as hb_build_user(), if that account can reach
 * what the build reads and writes (a clone under /root, mode 0700, is
 * closed to it); else as root, with one line saying why. The check runs
 * test(1) as the account: the kernel's own answer, ACLs included. */
static int choose_builder(const struct hb_recipe *r, const char *cache_dir, const char *ksrc,
			  struct builder *b, char *err, size_t errlen)
{
	char conf[HB_RECIPE_PATH_MAX + 16], script[HB_RECIPE_PATH_MAX + 32];
	char recipe[HB_RECIPE_PATH_MAX + 16], mk[HB_RECIPE_PATH_MAX + 16];
	char stamp[HB_RECIPE_PATH_MAX + 32];
	int rc;

	memset(b, 0, sizeof(*b));
	/* the system cache is every sudo user's: one build account owns it */
	rc = hb_build_user(strcmp(cache_dir, HB_SYSTEM_CACHE) == 0, &b->uid, &b->gid, b->name,
			   sizeof(b->name), err, errlen);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return 0; /* not root: we are the builder */
	b->drop = true;
	/* a clean clone has no cache folder yet: test(1) must find it */
	if (hb_mkdir_p(cache_dir)) {
		hb_set_err(err, errlen, "cannot create %s: %s", cache_dir, strerror(errno));
		return -1;
	}
	snprintf(conf, sizeof(conf), "%s/base.config", r->kernels_dir);
	snprintf(script, sizeof(script), "%s/build-source.sh", r->kernels_dir);
	snprintf(recipe, sizeof(recipe), "%s/recipe", r->dir);
	snprintf(mk, sizeof(mk), "%s/Makefile", ksrc && ksrc[0] ? ksrc : r->kernels_dir);
	{
		char *const argv[] = { "test", "-x", (char *)cache_dir, "-a", "-r", recipe, "-a",
				       "-r", conf, "-a", "-r", script, "-a", "(", "!", "-e", mk,
				       "-o", "-r", mk, ")", NULL };
		struct hb_spawn sp = { .argv = argv, .as_user = true, .uid = b->uid, .gid = b->gid };

		if (hb_run(&sp, NULL, NULL) != 0) {
			/* name what is closed: the cache (shared by every clone), the
			 * clone, or KSRC */
			char *const tc[] = { "test", "-x", (char *)cache_dir, NULL };
			char *const tr[] = { "test", "-r", recipe, "-a", "-r", script, NULL };
			struct hb_spawn sc = { .argv = tc, .as_user = true, .uid = b->uid,
					       .gid = b->gid };
			struct hb_spawn sr = { .argv = tr, .as_user = true, .uid = b->uid,
					       .gid = b->gid };
			const char *what = hb_run(&sc, NULL, NULL) != 0	  ? "the cache"
					   : hb_run(&sr, NULL, NULL) != 0 ? "the clone at"
									  : "KSRC";
			const char *where = !strcmp(what, "the cache")	  ? cache_dir
					    : !strcmp(what, "the clone at") ? r->kernels_dir
									    : (ksrc ? ksrc : "");

			fprintf(stderr,
				"hugebench: warning: building %s as root: the account %s cannot reach "
				"%s %s (a folder on the way is closed to other users); a clone, "
				"HUGEBENCH_CACHE and KSRC outside /root build unprivileged "
				"(docs/privileges.md)\n",
				r->name, b->name, what, where);
			/* what this build writes is root's: scan again next time */
			owner_stamp(cache_dir, (unsigned)b->uid, stamp, sizeof(stamp));
			if (unlink(stamp) && errno != ENOENT) {
				hb_set_err(err, errlen, "cannot remove %s: %s", stamp, strerror(errno));
				return -1;
			}
			memset(b, 0, sizeof(*b));
			snprintf(b->name, sizeof(b->name), "root");
		}
	}
	return 0;
}

/* A folder of root's that no other account can write: root may work in
 * it by name (docs/privileges.md). */
static bool roots_own(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* A build that fell back to root must not work in the folders the build
 * account owns (src/, trees/, builds/, ccache/: a link it planted there is
 * followed by root, and its tree, ccache objects and Makefiles would run
 * as root). It gets a cache of root's own inside the cache folder,
 * <cache>/root-builds, which is never handed to the account; the cache
 * folder itself must be root's. */
static int root_build_cache(const char *cache_dir, char *out, size_t len, char *err,
			    size_t errlen)
{
	if (!roots_own(cache_dir)) {
		hb_set_err(err, errlen,
			   "cannot build as root in %s: the cache folder is not root's or others "
			   "can write it (docs/privileges.md)",
			   cache_dir);
		return -1;
	}
	if ((size_t)snprintf(out, len, "%s/" HB_ROOT_BUILDS, cache_dir) >= len) {
		hb_set_err(err, errlen, "cache path too long: %s", cache_dir);
		return -1;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		hb_set_err(err, errlen, "cannot create %s: %s", out, strerror(errno));
		return -1;
	}
	if (!roots_own(out)) {
		hb_set_err(err, errlen,
			   "cannot build as root in %s: not a folder of root's closed to others' "
			   "writes (docs/privileges.md)",
			   out);
		return -1;
	}
	return 0;
}

/* build-source.sh with argv and the environment plus add: 0 with *buf its
 * output, else -EINVAL (the script said: exit 2, bad input) or -EIO (err
 * filled, *buf may hold output). */
static int run_script(char *const argv[], const struct hb_env_add *add, size_t nadd,
		      const struct builder *b, const char *what, char **buf, char *err,
		      size_t errlen)
{
	struct hb_env env = { NULL, 0 };
	int rc;

	if (hb_env_make(add, nadd, &env)) {
		hb_set_err(err, errlen, "out of memory");
		return -EIO;
	}
	rc = run_capture(argv, env.v, b, buf);
	hb_env_free(&env);
	return rc ? script_failed(rc, what, *buf, err, errlen) : 0;
}

int hb_recipe_build(struct hb_recipe *r, const char *cache_dir, const char *ksrc,
		    struct hb_kernel_build *out, char *err, size_t errlen)
{
	char script[HB_RECIPE_PATH_MAX + 32], gcc[HB_RECIPE_STR_MAX], key[65];
	char *series = NULL, *configs = NULL, *buf = NULL, owner[32] = "";
	char rcache[HB_RECIPE_PATH_MAX + 32];
	struct builder bu, root = { .name = "root" };
	int rc;

	memset(out, 0, sizeof(*out));
	if (r->kind != HB_RECIPE_SOURCE) {
		hb_set_err(err, errlen, "recipe %s is not kind=source: nothing to build", r->name);
		return -EINVAL;
	}
	if (!cache_dir[0] || strpbrk(cache_dir, " \t\n")) {
		/* kbuild itself cannot build in a path with blanks (make O=) */
		hb_set_err(err, errlen,
			"cache directory '%s' holds a blank, which the kernel's build system "
			"cannot handle; set HUGEBENCH_CACHE to a path without blanks",
			cache_dir);
		return -EINVAL;
	}
	if (choose_builder(r, cache_dir, ksrc, &bu, err, errlen) ||
	    give_cache_to_builder(cache_dir, &bu, err, errlen))
		return -EIO;
	if (geteuid() == 0 && !bu.drop) {
		/* the fallback to root: a cache of root's own */
		if (root_build_cache(cache_dir, rcache, sizeof(rcache), err, errlen))
			return -EIO;
		cache_dir = rcache;
	}
	if (bu.drop)
		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)bu.uid, (unsigned)bu.gid);
	snprintf(script, sizeof(script), "%s/build-source.sh", r->kernels_dir);
	series = join_paths(r->patches, r->n_patches);
	configs = join_paths(r->configs, r->n_configs);
	if (!series || !configs) {
		hb_set_err(err, errlen, "out of memory");
		rc = -EIO;
		goto out;
	}

	{
		char *const argv[] = { "bash", script, "--fetch", r->dir, (char *)cache_dir, NULL };
		const struct hb_env_add add[] = {
			{ "HB_SOURCE", r->source },
			{ "KSRC", ksrc },
			{ "HB_SRC_OWNER", owner[0] ? owner : NULL },
		};
		/* Fetching a Debian source runs apt (its _apt sandbox wants
		 * root), dpkg-deb and tar on signed archives: no code of the
		 * recipe's. Root unpacks in a staging folder of its own in the
		 * cache folder and renames the tree into src/: only where that
		 * folder is root's (a sudo user's HUGEBENCH_CACHE is theirs:
		 * there the fetch runs as the builder, the sudo user). A KSRC
		 * tree is the user's: git reads it as them. */
		const struct builder *fb =
			strcmp(r->source, "ksrc") == 0 || !roots_own(cache_dir) ? &bu : &root;

		rc = run_script(argv, add, sizeof(add) / sizeof(add[0]), fb,
				"build-source.sh --fetch", &buf, err, errlen);
		if (rc)
			goto out;
		if (!hb_kv_get(buf, "source", r->source_id, sizeof(r->source_id)) ||
		    !hb_kv_get(buf, "gcc", gcc, sizeof(gcc))) {
			hb_set_err(err, errlen, "build-source.sh --fetch printed no source= and gcc= lines");
			rc = -EIO;
			goto out;
		}
		free(buf);
		buf = NULL;
	}
	if (hb_recipe_cache_key(r, gcc, key)) {
		hb_set_err(err, errlen, "cannot compute the cache key of %s: %s", r->name, strerror(errno));
		rc = -EINVAL;
		goto out;
	}
	{
		/* a cmdline-only variant builds (and finds) its base's kernel */
		char *const argv[] = { "bash", script, r->build_as[0] ? r->build_as : r->dir,
				       (char *)cache_dir, NULL };
		const struct hb_env_add add[] = {
			{ "HB_SOURCE", r->source },   { "HB_SOURCE_ID", r->source_id },
			{ "HB_KERNEL_KEY", key },     { "HB_SERIES", series },
			{ "HB_CONFIGS", configs },    { "KSRC", ksrc },
		};

		/* the recipe's patches and the kernel's Makefiles: as the builder */
		rc = run_script(argv, add, sizeof(add) / sizeof(add[0]), &bu, "build-source.sh", &buf,
				err, errlen);
		if (rc)
			goto out;
		if (parse_result(buf, out)) {
			hb_set_err(err, errlen,
				"build-source.sh printed no release=, image= and modules= lines");
			rc = -EIO;
			goto out;
		}
		snprintf(out->key, sizeof(out->key), "%s", key);
		if (!hb_kv_get(buf, "built_by", out->built_by, sizeof(out->built_by)))
			snprintf(out->built_by, sizeof(out->built_by), "unknown");
	}
	rc = 0;
out:
	free(buf);
	free(series);
	free(configs);
	return rc;
}

