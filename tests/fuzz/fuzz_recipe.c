/* fuzz_recipe.c - libFuzzer target for the kernel recipe parser
 * (hb_recipe_load in harness/kernel/recipe.c) and the cache key over what it
 * resolved. The input is the recipe file, optionally followed by a line
 * "%%series" and the patches/series text, and a line "%%config" and a
 * config fragment. They are written to a private kernels folder holding
 * base.config, a source recipe b (for base=b) and c (base=r: a cycle
 * through the fuzzed recipe r), and r/patches/0001.patch. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void put(const char *rel, const char *text, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (len && fwrite(text, 1, len, f) != len)
		abort();
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	static const char *const dirs[] = { "", "/b", "/c", "/r", "/r/patches" };
	char path[256];

	/* mkdtemp, not /tmp/hb-fuzz-recipe-<pid>: unguessable, and removed at exit */
	snprintf(root, sizeof(root), "/tmp/hb-fuzz-recipe-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	for (size_t i = 1; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	put("base.config", "CONFIG_SHMEM=y\n", 15);
	put("b/recipe", "kind=source\nsource=ksrc\n", 24);
	put("c/recipe", "kind=source\nbase=r\n", 19);
	put("r/patches/0001.patch", "--- a/x\n+++ b/x\n", 16);
}

/* The part of [p, end) up to the line mark (whole line), or all of it. */
static size_t part(const char *p, const char *end, const char *mark, const char **next)
{
	size_t ml = strlen(mark);

	for (const char *q = p; q + ml <= end; q++) {
		if ((q == p || q[-1] == '\n') && !memcmp(q, mark, ml) &&
		    (q + ml == end || q[ml] == '\n')) {
			*next = q + ml < end ? q + ml + 1 : end;
			return (size_t)(q - p);
		}
	}
	*next = NULL;
	return (size_t)(end - p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *series = NULL, *config = NULL;
	size_t lr = part(p, end, "%%series", &series), ls = 0;
	struct hb_recipe r;
	char err[512], path[256], key[65];

	if (!root[0])
		setup();
	if (!series)
		lr = part(p, end, "%%config", &config);
	else
		ls = part(series, end, "%%config", &config);
	put("r/recipe", p, lr);
	snprintf(path, sizeof(path), "%s/r/patches/series", root);
	unlink(path);
	if (series)
		put("r/patches/series", series, ls);
	snprintf(path, sizeof(path), "%s/r/config", root);
	unlink(path);
	if (config)
		put("r/config", config, (size_t)(end - config));
	snprintf(path, sizeof(path), "%s/r", root);
	err[0] = 0;
	if (hb_recipe_load(path, &r, err, sizeof(err))) {
		if (!err[0])
			abort();
		return 0;
	}
	if (r.kind != HB_RECIPE_DEBIAN && r.kind != HB_RECIPE_SOURCE)
		abort();
	if (r.kind == HB_RECIPE_SOURCE) {
		if (!r.source[0] || !r.n_configs)
			abort();
		snprintf(r.source_id, sizeof(r.source_id), "%s=1.0", r.source);
		if (hb_recipe_cache_key(&r, "gcc (Debian 12.2.0-14) 12.2.0", key) == 0 &&
		    strlen(key) != 64)
			abort();
	}
	hb_recipe_free(&r);
	return 0;
}
