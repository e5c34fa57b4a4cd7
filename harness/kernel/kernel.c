/* kernel.c - resolves targets to kernels (see kernel.h). The download and
 * build steps are packaging glue in kernels/fetch-debian.sh and build-source.sh, called with argv arrays;
 * each prints one line "release image modules-dir [package]" on stdout. */
#define _GNU_SOURCE
#include "kernel.h"
#include "modules.h"
#include "recipe.h"
#include "userfile.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fetch-debian.sh's key=value lines (util.h: hb_kv_get). */
static int parse_script_line(const char *out, struct hb_kernel *k)
{
	if (!hb_kv_get(out, "release", k->release, sizeof(k->release)) ||
	    !hb_kv_get(out, "image", k->image, sizeof(k->image)) ||
	    !hb_kv_get(out, "modules", k->moddir, sizeof(k->moddir)) || !k->release[0] ||
	    k->image[0] != '/')
		return -1;
	if (!hb_kv_get(out, "package", k->package, sizeof(k->package)))
		k->package[0] = 0;
	if (!hb_kv_get(out, "packages", k->packages, sizeof(k->packages)))
		k->packages[0] = 0;
	if (!hb_kv_get(out, "archive", k->archive, sizeof(k->archive)))
		k->archive[0] = 0;
	return 0;
}

int hb_kernel_modules_check(const char *dir, char *err, size_t errlen)
{
	char dep[PATH_MAX + 16], why[PATH_MAX + 160];
	int fd;

	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	fd = hb_userfile_open(dep, HB_MODULES_DEP_MAX, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "--modules: %s; give the kernel's modules folder (run depmod there first)",
			 why);
		return -1;
	}
	close(fd);
	return 0;
}

int hb_kernel_resolve(const struct hb_target *t, const char *modules_override, struct hb_kernel *k,
		      char *err, size_t errlen)
{
	char out[8192], script[PATH_MAX], cache[PATH_MAX];
	struct hb_recipe r;
	int rc;

	memset(k, 0, sizeof(*k));
	if (t->kind == HB_TARGET_HOST) {
		snprintf(k->kind, sizeof(k->kind), "host");
		return 0;
	}
	if (modules_override && hb_kernel_modules_check(modules_override, err, errlen))
		return -EINVAL;
	if (t->kind == HB_TARGET_BZIMAGE) {
		snprintf(k->kind, sizeof(k->kind), "bzimage");
		snprintf(k->image, sizeof(k->image), "%s", t->path);
		/* "6.1.0-57-cloud-amd64 (debian-kernel@…) #1 SMP …": first word */
		sscanf(t->image_version, "%159s", k->release);
		if (modules_override)
			snprintf(k->moddir, sizeof(k->moddir), "%s", modules_override);
		return 0;
	}
	if (hb_recipe_load(t->path, &r, err, errlen))
		return -EINVAL;
	if (hb_cache_ensure()) {
		snprintf(err, errlen, "cannot create the cache %s (%s): %s", hb_cache_dir(),
			 hb_cache_origin(), strerror(errno));
		hb_recipe_free(&r);
		return -EIO;
	}
	snprintf(k->cmdline, sizeof(k->cmdline), "%s", r.cmdline);
	if (r.kind == HB_RECIPE_DEBIAN) {
		/* the recipe's values reach the script as its environment */
		const struct hb_env_add add[] = {
			{ "HB_META", r.meta },	       { "HB_IMAGE", r.image },
			{ "HB_ARCHIVE", r.archive },   { "HB_PIN", r.pin },
			{ "HB_MODULES", r.modules },
		};
		char *argv[] = { "bash", script, cache, NULL };
		struct hb_spawn sp = { .argv = argv, .capture = true };
		struct hb_env env = { NULL, 0 };
		char *got = NULL;

		snprintf(k->kind, sizeof(k->kind), "debian");
		snprintf(script, sizeof(script), "%s/kernels/fetch-debian.sh", hb_root());
		snprintf(cache, sizeof(cache), "%s/kernels", hb_cache_dir());
		rc = hb_env_make(add, sizeof(add) / sizeof(add[0]), &env);
		if (!rc) {
			sp.envp = env.v;
			rc = hb_run(&sp, &got, NULL);
			hb_env_free(&env);
		}
		hb_recipe_free(&r);
		snprintf(out, sizeof(out), "%s", got ? got : "");
		free(got);
		if (rc != 0) {
			snprintf(err, errlen, "fetching kernel %s failed (exit %d); see above", t->name,
				 rc);
			return rc == HB_EXIT_USAGE ? -EINVAL : -EIO;
		}
		if (parse_script_line(out, k)) {
			snprintf(err, errlen, "kernels/fetch-debian.sh printed no release=, image= and modules= lines");
			return -EIO;
		}
	} else {
		struct hb_kernel_build b;
		char *slash;

		snprintf(k->kind, sizeof(k->kind), "source");
		rc = hb_recipe_build(&r, hb_cache_dir(), getenv("KSRC"), &b, err, errlen);
		hb_recipe_free(&r);
		if (rc)
			return rc;
		snprintf(k->release, sizeof(k->release), "%s", b.release);
		snprintf(k->image, sizeof(k->image), "%s", b.bzimage);
		snprintf(k->moddir, sizeof(k->moddir), "%s", b.modules);
		snprintf(k->package, sizeof(k->package), "build key %.12s", b.key);
		snprintf(k->built_by, sizeof(k->built_by), "%s", b.built_by);
		slash = strrchr(k->image, '/');
		if (slash)
			snprintf(k->build_log, sizeof(k->build_log), "%.*s/build.log",
				 (int)(slash - k->image), k->image);
	}
	if (modules_override)
		snprintf(k->moddir, sizeof(k->moddir), "%s", modules_override);
	return 0;
}
