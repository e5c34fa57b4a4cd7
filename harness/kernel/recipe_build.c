/* recipe_build.c - drive kernels/build-source.sh for a source recipe
 * (hb_recipe_build in recipe.h): the environment it gets, its one key=value
 * output contract, and the cache handed to the invoking user. */
#define _GNU_SOURCE
#include "recipe.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* Runs argv with env, stdout captured into *outbuf (malloc'd), stderr
 * inherited; as the user who ran sudo, where there is one (a kernel build
 * and a user's KSRC tree need no root). Returns the exit status, or
 * 128+signal, or -1 (spawn failed). */
static int run_capture(char *const argv[], char *const env[], char **outbuf)
{
	struct hb_spawn sp = { .argv = argv, .envp = env, .capture = true, .as_user = true };

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
		return 3;
	}
	if (buf && hb_kv_get(buf, "error", reason, sizeof(reason)))
		hb_set_err(err, errlen, "%s", reason);
	else
		hb_set_err(err, errlen, "%s failed (exit %d; its messages are above)", what, rc);
	return rc == 2 ? 2 : 3;
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

/* Under sudo the build runs as the invoking user: the folders it writes
 * must be theirs (a one-time chown of what an earlier root build made). */
static int give_cache_to_user(const char *cache_dir, char *err, size_t errlen)
{
	static const char *const sub[] = { "src", "trees", "builds", "ccache" };
	uid_t uid;
	gid_t gid;

	if (hb_invoking_user(&uid, &gid))
		return 0;
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		char path[HB_RECIPE_PATH_MAX + 16], owner[32];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", cache_dir, sub[i]);
		if (hb_mkdir_p(path) || lstat(path, &st)) {
			hb_set_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		if (st.st_uid == uid)
			continue;
		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)uid, (unsigned)gid);
		{
			char *const argv[] = { "chown", "-R", "-h", owner, "--", path, NULL };

			if (hb_spawn_capture(argv, NULL, 0) != 0) {
				hb_set_err(err, errlen, "cannot give %s to uid %u (chown failed)", path,
					(unsigned)uid);
				return -1;
			}
		}
	}
	return 0;
}

/* build-source.sh with argv and the environment plus add: 0 with *buf its
 * output, else the exit code to return (err filled, *buf may hold output). */
static int run_script(char *const argv[], const struct hb_env_add *add, size_t nadd,
		      const char *what, char **buf, char *err, size_t errlen)
{
	struct hb_env env = { NULL, 0 };
	int rc;

	if (hb_env_make(add, nadd, &env)) {
		hb_set_err(err, errlen, "out of memory");
		return 3;
	}
	rc = run_capture(argv, env.v, buf);
	hb_env_free(&env);
	return rc ? script_failed(rc, what, *buf, err, errlen) : 0;
}

int hb_recipe_build(struct hb_recipe *r, const char *cache_dir, const char *ksrc,
		    struct hb_kernel_build *out, char *err, size_t errlen)
{
	char script[HB_RECIPE_PATH_MAX + 32], gcc[HB_RECIPE_STR_MAX], key[65];
	char *series = NULL, *configs = NULL, *buf = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (r->kind != HB_RECIPE_SOURCE) {
		hb_set_err(err, errlen, "recipe %s is not kind=source: nothing to build", r->name);
		return 2;
	}
	if (!cache_dir[0] || strpbrk(cache_dir, " \t\n")) {
		/* kbuild itself cannot build in a path with blanks (make O=) */
		hb_set_err(err, errlen,
			"cache directory '%s' holds a blank, which the kernel's build system "
			"cannot handle; set HUGEBENCH_CACHE to a path without blanks",
			cache_dir);
		return 2;
	}
	if (give_cache_to_user(cache_dir, err, errlen))
		return 3;
	snprintf(script, sizeof(script), "%s/build-source.sh", r->kernels_dir);
	series = join_paths(r->patches, r->n_patches);
	configs = join_paths(r->configs, r->n_configs);
	if (!series || !configs) {
		hb_set_err(err, errlen, "out of memory");
		rc = 3;
		goto out;
	}

	{
		char *const argv[] = { "bash", script, "--fetch", r->dir, (char *)cache_dir, NULL };
		const struct hb_env_add add[] = {
			{ "HB_SOURCE", r->source },
			{ "KSRC", ksrc },
		};

		rc = run_script(argv, add, sizeof(add) / sizeof(add[0]), "build-source.sh --fetch",
				&buf, err, errlen);
		if (rc)
			goto out;
		if (!hb_kv_get(buf, "source", r->source_id, sizeof(r->source_id)) ||
		    !hb_kv_get(buf, "gcc", gcc, sizeof(gcc))) {
			hb_set_err(err, errlen, "build-source.sh --fetch printed no source= and gcc= lines");
			rc = 3;
			goto out;
		}
		free(buf);
		buf = NULL;
	}
	if (hb_recipe_cache_key(r, gcc, key)) {
		hb_set_err(err, errlen, "cannot compute the cache key of %s: %s", r->name, strerror(errno));
		rc = 2;
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

		rc = run_script(argv, add, sizeof(add) / sizeof(add[0]), "build-source.sh", &buf, err,
				errlen);
		if (rc)
			goto out;
		if (parse_result(buf, out)) {
			hb_set_err(err, errlen,
				"build-source.sh printed no release=, image= and modules= lines");
			rc = 3;
			goto out;
		}
		snprintf(out->key, sizeof(out->key), "%s", key);
	}
	rc = 0;
out:
	free(buf);
	free(series);
	free(configs);
	return rc;
}

