/* recipe.h - kernel recipes (kernels/<name>/): parse, cache key, build.
 *
 * A recipe directory holds a file `recipe` of key=value lines (# comments):
 *   kind=debian   meta=<apt meta package>            (a Debian kernel package)
 *             or  image=<linux-image-* glob>         (the newest matching package)
 *                 archive=<suite>                    (optional: a suite the host's
 *                 apt sources lack, e.g. sid; kernels/apt-archive.sh)
 *                 pin=<version>                      (optional: that version)
 *                 modules=none                       (optional: without the
 *                 modules package, for a kernel whose modules the archive lacks)
 *   kind=source   source=debian:<package>[@<suite>]|ksrc  (built from source;
 *                 @<suite>: from that Debian suite, as archive= above)
 *                 base=<other source recipe>          (optional: inherit its
 *                 source, patches and config; own ones come after)
 *   description=<free text>                           (optional, any kind)
 *   cmdline=<kernel parameters>                       (optional: added to the
 *                 guest's command line; a base's come first)
 *   git=<https:// URL> commit=<40 hex> branch=<name>  (optional, kind=source:
 *                 where the source came from, for reports (KCIDB checkouts);
 *                 never used to fetch; inherited from a base as a set)
 * A source recipe that adds only cmdline= to its base (no patches, no config)
 * boots its base's kernel: one build serves every such variant (build_as).
 * Source recipes may also have patches/series (quilt style: one patch file
 * name per line, optional -p1, # comments) and config (a Kconfig fragment
 * merged onto kernels/base.config).
 *
 * The cache key of a source build is computed here and only here; the build
 * glue (kernels/build-source.sh) receives it in HB_KERNEL_KEY. It is the
 * SHA-256 of this text (all digests lowercase hex):
 *   hugebench-kernel-key/1\n
 *   source <source id>\n        e.g. debian:linux-source-6.1=6.1.192-3
 *   gcc <first line of gcc --version>\n
 *   config <sha256 of the file>\n   per fragment: base.config, base recipes', own
 *   patch <sha256 of the file>\n    per patch in series order, base recipes' first
 * File names are not part of it: renaming a patch does not rebuild.
 * Needs -lcrypto (libssl-dev).
 */
#ifndef HB_RECIPE_H
#define HB_RECIPE_H

#include <stddef.h>

#define HB_RECIPE_NAME_MAX 64
#define HB_RECIPE_STR_MAX 256
#define HB_RECIPE_PATH_MAX 1024
#define HB_RECIPE_BASE_DEPTH 8
/* <cache>/root-builds: the cache of a build that fell back to root, root's
 * own (src/, trees/, builds/, ccache/ belong to the build account) */
#define HB_ROOT_BUILDS "root-builds"

enum hb_recipe_kind {
	HB_RECIPE_NONE = 0,
	HB_RECIPE_DEBIAN,
	HB_RECIPE_SOURCE,
};

struct hb_recipe {
	char name[HB_RECIPE_NAME_MAX];		/* the directory's name */
	char dir[HB_RECIPE_PATH_MAX];		/* absolute */
	char kernels_dir[HB_RECIPE_PATH_MAX];	/* its parent: base.config, build-source.sh */
	enum hb_recipe_kind kind;
	char source[HB_RECIPE_STR_MAX];		/* own or inherited from base */
	char meta[HB_RECIPE_STR_MAX];
	char image[HB_RECIPE_STR_MAX];		/* kind=debian: package glob */
	char archive[HB_RECIPE_NAME_MAX];	/* kind=debian: Debian suite, or "" */
	char pin[HB_RECIPE_NAME_MAX];		/* kind=debian: version, or "" */
	char modules[16];			/* kind=debian: "none" or "" */
	char base[HB_RECIPE_NAME_MAX];
	char description[HB_RECIPE_STR_MAX];
	char cmdline[HB_RECIPE_STR_MAX];	/* base chain's first, then own */
	char debug[8];				/* kind=source: "yes", "no" or "" (debug=) */
	int debug_on;				/* kernels/debug.config is merged (own or a base's) */
	/* kind=source, optional: the source's origin for reports (own, else the
	 * nearest base's), "" when not given */
	char git_url[HB_RECIPE_STR_MAX];
	char commit[48];
	char branch[HB_RECIPE_NAME_MAX * 2];
	/* kind=source: the recipe whose tree builds this kernel: this one, or
	 * the nearest base when this one adds no patch and no config */
	char build_as[HB_RECIPE_PATH_MAX];
	/* kind=source, resolved through the base chain (base first), absolute: */
	char **patches;
	size_t n_patches;
	char **configs;				/* kernels/base.config first */
	size_t n_configs;
	/* identity of the obtained source; filled by hb_recipe_build() (or by
	 * the caller) before hb_recipe_cache_key() */
	char source_id[2 * HB_RECIPE_STR_MAX];
};

/* A built kernel, as build-source.sh reported it. */
struct hb_kernel_build {
	char release[HB_RECIPE_STR_MAX];
	char bzimage[HB_RECIPE_PATH_MAX];
	char modules[HB_RECIPE_PATH_MAX];	/* "" when the kernel has no modules */
	char key[65];
	char built_by[64];	/* the account that ran the compile (build-source.sh) */
};

/* Parses dir/recipe (and, for kind=source, its base chain, patches/series
 * and config). Returns 0, or -1 with a one-line reason in err naming the file
 * and line. On success *out must be released with hb_recipe_free(). */
int hb_recipe_load(const char *dir, struct hb_recipe *out, char *err, size_t errlen);
void hb_recipe_free(struct hb_recipe *r);

/* The cache key (see above) as 64 hex digits. Returns 0, or -1 with errno
 * set (not a source recipe, no source_id, unreadable file, newline in an
 * identity string). */
int hb_recipe_cache_key(const struct hb_recipe *r, const char *gcc_version, char out_hex[65]);

/* Builds (or finds in the cache) the kernel of source recipe r: runs
 * kernels/build-source.sh --fetch, sets r->source_id, computes the key, runs
 * build-source.sh with it. Progress goes to stderr as it happens. ksrc, if not
 * NULL, is passed as KSRC (source=ksrc recipes); else KSRC from the
 * environment is used. Returns 0; or, with a reason in err, -EINVAL for a
 * recipe/patch/config/compile/prerequisite error, -EIO for the machinery. */
int hb_recipe_build(struct hb_recipe *r, const char *cache_dir, const char *ksrc,
		    struct hb_kernel_build *out, char *err, size_t errlen);

#endif
