/* recipe.c - kernel recipes: parse kernels/<name>/recipe, resolve base
 * chains, patches/series and config fragments, compute the build cache key
 * (the one implementation of it); recipe_build.c drives build-source.sh.
 * See recipe.h for the file formats and the key definition.
 */
#define _GNU_SOURCE
#include "recipe.h"
#include "util.h"
#include "userfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#define RECIPE_LINE_MAX 1024
/* /2: builds before it may hold another recipe's kernel (a cached piggy.o,
 * kernels/build-source.sh "ccache") and are not reused. */
#define KEY_FORMAT "hugebench-kernel-key/2"


/* A recipe file is named by whoever sent the recipe: a regular file of
 * bounded size (userfile.h), never a FIFO that blocks; "cannot open PATH:
 * why" in err. */
static FILE *user_fopen(const char *path, char *err, size_t errlen)
{
	char why[HB_RECIPE_PATH_MAX + 160];
	int fd = hb_userfile_open(path, HB_USERFILE_TEXT_MAX, why, sizeof(why)), e;
	FILE *f;

	if (fd < 0) {
		e = errno;
		hb_set_err(err, errlen, "cannot open %s", why);
		errno = e;
		return NULL;
	}
	{
		/* a NUL byte would end the line there and the rest be ignored:
		 * refused, as in every other text file a user names */
		char buf[4096];
		ssize_t k;
		off_t at = 0;

		while ((k = pread(fd, buf, sizeof(buf), at)) > 0) {
			const char *nul = memchr(buf, 0, (size_t)k);

			if (nul) {
				hb_set_err(err, errlen, "%s: a NUL byte at offset %lld: not a text file",
					   path, (long long)(at + (nul - buf)));
				close(fd);
				errno = EINVAL;
				return NULL;
			}
			at += k;
		}
	}
	if (!(f = fdopen(fd, "r"))) {
		e = errno;
		hb_set_err(err, errlen, "cannot open %s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

static bool word_ok(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* A recipe name: also a path component and part of a file name. */
static bool name_ok(const char *s)
{
	return s[0] != '.' && strlen(s) < HB_RECIPE_NAME_MAX && word_ok(s, "._-");
}

/* Debian's spelling of package and suite names: [s, end) (end NULL: the
 * whole string) is non-empty lowercase letters, digits and extra. */
static bool debian_word_ok(const char *s, const char *end, const char *extra)
{
	if (s == end || !*s)
		return false;
	for (; *s && s != end; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* A Debian suite name (sid, trixie-backports). */
static bool suite_ok(const char *s)
{
	return debian_word_ok(s, NULL, "-");
}

/* source=debian:<package>[@<suite>] or source=ksrc */
static bool source_ok(const char *s)
{
	const char *at;

	if (!strcmp(s, "ksrc"))
		return true;
	if (strncmp(s, "debian:", 7))
		return false;
	at = strchr(s + 7, '@');
	return debian_word_ok(s + 7, at, ".+-") && (!at || suite_ok(at + 1));
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int push_path(char ***v, size_t *n, const char *path)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	*v = nv;
	nv[*n] = strdup(path);
	if (!nv[*n])
		return -1;
	(*n)++;
	return 0;
}

static void free_paths(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void hb_recipe_free(struct hb_recipe *r)
{
	if (!r)
		return;
	free_paths(r->patches, r->n_patches);
	free_paths(r->configs, r->n_configs);
	r->patches = r->configs = NULL;
	r->n_patches = r->n_configs = 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Kernel parameters as QEMU's -append passes them (argv, no shell): words
 * of printable ASCII; no quotes, so that the kernel's own parser and ours
 * agree on the words. */
static bool cmdline_ok(const char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~' || *s == '"' || *s == '\'' || *s == '\\')
			return false;
	return true;
}

/* git=, commit=, branch= (the source's origin, for KCIDB): an https URL
 * (KCIDB takes only those), a full commit hash, a git branch name. 0, or -1
 * with one line in err. */
static int origin_bad(const char *key, const char *val, char *err, size_t errlen,
		      const char *path, int lineno)
{
	size_t n = strlen(val);

	if (!strcmp(key, "git") &&
	    (strncmp(val, "https://", 8) || n == 8 || !cmdline_ok(val) || strchr(val, ' '))) {
		hb_set_err(err, errlen, "%s:%d: git '%s': give the repository's https:// URL "
			   "(no blanks), e.g. https://git.kernel.org/pub/scm/linux/kernel/git/"
			   "torvalds/linux.git", path, lineno, val);
		return -1;
	}
	if (!strcmp(key, "commit") && (n != 40 || strspn(val, "0123456789abcdef") != 40)) {
		hb_set_err(err, errlen, "%s:%d: commit '%s': give the full 40-digit lowercase hash "
			   "(git rev-parse HEAD)", path, lineno, val);
		return -1;
	}
	if (!strcmp(key, "branch") && (!word_ok(val, "._/-") || val[0] == '-' || val[0] == '/' ||
				       val[n - 1] == '/' || strstr(val, "..") || strstr(val, "//"))) {
		hb_set_err(err, errlen, "%s:%d: branch '%s': a git branch name (letters, digits, "
			   "'.', '_', '-', '/'), e.g. master", path, lineno, val);
		return -1;
	}
	return 0;
}

/* The key=value lines of dir/recipe into r. */
static int parse_recipe_file(const char *path, struct hb_recipe *r, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off, size;
	} keys[] = {
		{ "kind", 0, 0 }, /* handled apart: an enum */
		{ "source", offsetof(struct hb_recipe, source), sizeof(r->source) },
		{ "meta", offsetof(struct hb_recipe, meta), sizeof(r->meta) },
		{ "base", offsetof(struct hb_recipe, base), sizeof(r->base) },
		{ "description", offsetof(struct hb_recipe, description), sizeof(r->description) },
		{ "cmdline", offsetof(struct hb_recipe, cmdline), sizeof(r->cmdline) },
		{ "image", offsetof(struct hb_recipe, image), sizeof(r->image) },
		{ "archive", offsetof(struct hb_recipe, archive), sizeof(r->archive) },
		{ "pin", offsetof(struct hb_recipe, pin), sizeof(r->pin) },
		{ "modules", offsetof(struct hb_recipe, modules), sizeof(r->modules) },
		{ "git", offsetof(struct hb_recipe, git_url), sizeof(r->git_url) },
		{ "commit", offsetof(struct hb_recipe, commit), sizeof(r->commit) },
		{ "branch", offsetof(struct hb_recipe, branch), sizeof(r->branch) },
		{ "debug", offsetof(struct hb_recipe, debug), sizeof(r->debug) },
	};
	bool seen[sizeof(keys) / sizeof(keys[0])] = { false };
	char line[RECIPE_LINE_MAX + 2];
	int lineno = 0, rc = -1;
	FILE *f = user_fopen(path, err, errlen);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *key, *val, ex[4 * HB_EXCERPT_MAX + 4];
		size_t i, len;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			hb_set_err(err, errlen, "%s:%d: line longer than %d characters", path, lineno,
				RECIPE_LINE_MAX);
			goto out;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			/* a recipe may be a link to any file root can read: its text
			 * is quoted as a short escaped excerpt only (issue 38) */
			hb_excerpt(s, (size_t)-1, ex, sizeof(ex));
			hb_set_err(err, errlen, "%s:%d: expected key=value, got '%s'", path, lineno, ex);
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		len = strlen(val);
		if (len >= 2 && (val[0] == '"' || val[0] == '\'') && val[len - 1] == val[0]) {
			val[len - 1] = '\0';
			val++;
		}
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i].key))
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			hb_excerpt(key, (size_t)-1, ex, sizeof(ex));
			hb_set_err(err, errlen,
				"%s:%d: unknown key '%s' (known: kind, source, meta, image, archive, "
				"pin, modules, base, description, cmdline, git, commit, branch, debug)",
				path, lineno, ex);
			goto out;
		}
		if (seen[i]) {
			hb_set_err(err, errlen, "%s:%d: key '%s' given twice", path, lineno, key);
			goto out;
		}
		seen[i] = true;
		if (!*val) {
			hb_set_err(err, errlen, "%s:%d: key '%s' has an empty value", path, lineno, key);
			goto out;
		}
		if (!strcmp(key, "kind")) {
			if (!strcmp(val, "debian")) {
				r->kind = HB_RECIPE_DEBIAN;
			} else if (!strcmp(val, "source")) {
				r->kind = HB_RECIPE_SOURCE;
			} else {
				hb_excerpt(val, (size_t)-1, ex, sizeof(ex));
				hb_set_err(err, errlen, "%s:%d: kind must be debian or source, not '%s'",
					path, lineno, ex);
				goto out;
			}
			continue;
		}
		if (strlen(val) >= keys[i].size) {
			hb_set_err(err, errlen, "%s:%d: value of '%s' longer than %zu characters", path,
				lineno, key, keys[i].size - 1);
			goto out;
		}
		if (!strcmp(key, "cmdline") && !cmdline_ok(val)) {
			hb_excerpt(val, (size_t)-1, ex, sizeof(ex));
			hb_set_err(err, errlen,
				"%s:%d: cmdline '%s': kernel parameters are printable ASCII words "
				"without quotes or backslashes",
				path, lineno, ex);
			goto out;
		}
		if (origin_bad(key, val, err, errlen, path, lineno))
			goto out;
		if (!strcmp(key, "debug") && strcmp(val, "yes") && strcmp(val, "no")) {
			hb_excerpt(val, (size_t)-1, ex, sizeof(ex));
			hb_set_err(err, errlen, "%s:%d: debug '%s': yes (merge kernels/debug.config: "
				   "DEBUG_VM, KASAN, PROVE_LOCKING, DEBUG_LIST) or no", path, lineno, ex);
			goto out;
		}
		strcpy((char *)r + keys[i].off, val);
	}
	if (ferror(f)) {
		hb_set_err(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

/* patches/series of one recipe, appended to r->patches. */
static int load_series(const char *dir, struct hb_recipe *r, char *err, size_t errlen)
{
	char path[HB_RECIPE_PATH_MAX + 32], pfile[2 * HB_RECIPE_PATH_MAX];
	char line[RECIPE_LINE_MAX + 2];
	int lineno = 0, rc = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/patches/series", dir);
	f = user_fopen(path, err, errlen);
	if (!f) {
		if (errno == ENOENT)
			return 0; /* no series: no patches */
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *hash, *name, *opt, *more, *save = NULL;

		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		name = strtok_r(s, " \t", &save);
		opt = strtok_r(NULL, " \t", &save);
		more = strtok_r(NULL, " \t", &save);
		if ((opt && strcmp(opt, "-p1")) || more) {
			hb_set_err(err, errlen, "%s:%d: only '<patch> [-p1]' is supported, got extra '%s'",
				path, lineno, more ? more : opt);
			goto out;
		}
		if (name[0] == '/' || strstr(name, "..") || strchr(name, '\n')) {
			hb_set_err(err, errlen, "%s:%d: patch '%s' must be a file under patches/", path,
				lineno, name);
			goto out;
		}
		snprintf(pfile, sizeof(pfile), "%s/patches/%s", dir, name);
		if (!is_file(pfile)) {
			hb_set_err(err, errlen, "%s:%d: patch '%s' not found (%s)", path, lineno, name,
				pfile);
			goto out;
		}
		if (push_path(&r->patches, &r->n_patches, pfile)) {
			hb_set_err(err, errlen, "out of memory reading %s", path);
			goto out;
		}
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

/* Own config fragment, appended to r->configs when present. */
static int load_config(const char *dir, struct hb_recipe *r, char *err, size_t errlen)
{
	char path[HB_RECIPE_PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/config", dir);
	if (!is_file(path))
		return 0;
	if (push_path(&r->configs, &r->n_configs, path)) {
		hb_set_err(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	return 0;
}

static int load_depth(const char *dir, struct hb_recipe *out, int depth, char *err, size_t errlen);

/* debug=yes: kernels/debug.config after every other fragment (once, also
 * when a base has it already); debug=no under a debug base is refused (a
 * fragment cannot undo another). */
static int add_debug_config(struct hb_recipe *r, char *err, size_t errlen)
{
	char path[HB_RECIPE_PATH_MAX + 16];

	if (!strcmp(r->debug, "no") && r->debug_on) {
		hb_set_err(err, errlen, "%s/recipe: debug=no, but base '%s' is a debug kernel "
			   "(debug=yes): base the recipe on a kernel without it", r->dir, r->base);
		return -1;
	}
	if (strcmp(r->debug, "yes") || r->debug_on)
		return 0;
	snprintf(path, sizeof(path), "%s/debug.config", r->kernels_dir);
	if (!is_file(path)) {
		hb_set_err(err, errlen, "%s missing (debug=yes merges it)", path);
		return -1;
	}
	if (push_path(&r->configs, &r->n_configs, path)) {
		hb_set_err(err, errlen, "out of memory");
		return -1;
	}
	r->debug_on = 1;
	return 0;
}

/* Source recipe: inherit the base chain, then add own patches and config. */
static int resolve_source(struct hb_recipe *r, int depth, char *err, size_t errlen)
{
	char path[HB_RECIPE_PATH_MAX + HB_RECIPE_NAME_MAX + 2];
	bool own_source = false; /* a source other than the base's */

	if (r->meta[0] || r->image[0] || r->archive[0] || r->pin[0] || r->modules[0]) {
		hb_set_err(err, errlen,
			   "%s/recipe: meta=, image=, archive=, pin= and modules= are for kind=debian recipes "
			   "(a source package from another suite: source=debian:<package>@<suite>)",
			   r->dir);
		return -1;
	}
	if (r->source[0] && !source_ok(r->source)) {
		hb_set_err(err, errlen, "%s/recipe: source '%s' must be debian:<package>[@<suite>] or ksrc", r->dir,
			r->source);
		return -1;
	}
	if (r->base[0]) {
		struct hb_recipe b;

		if (!name_ok(r->base) || !strcmp(r->base, r->name)) {
			hb_set_err(err, errlen, "%s/recipe: base '%s' is not another recipe's name", r->dir,
				r->base);
			return -1;
		}
		if (depth >= HB_RECIPE_BASE_DEPTH) {
			hb_set_err(err, errlen, "%s/recipe: base chain deeper than %d (a cycle?)", r->dir,
				HB_RECIPE_BASE_DEPTH);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%s", r->kernels_dir, r->base);
		if (load_depth(path, &b, depth + 1, err, errlen))
			return -1;
		if (b.kind != HB_RECIPE_SOURCE) {
			hb_set_err(err, errlen, "%s/recipe: base '%s' is not a kind=source recipe", r->dir,
				r->base);
			hb_recipe_free(&b);
			return -1;
		}
		if (!r->source[0])
			snprintf(r->source, sizeof(r->source), "%s", b.source);
		own_source = strcmp(r->source, b.source) != 0;
		if (!own_source && !r->git_url[0] && !r->commit[0] && !r->branch[0]) {
			/* the origin of the base's source is this one's too */
			snprintf(r->git_url, sizeof(r->git_url), "%s", b.git_url);
			snprintf(r->commit, sizeof(r->commit), "%s", b.commit);
			snprintf(r->branch, sizeof(r->branch), "%s", b.branch);
		}
		if (b.cmdline[0]) {
			char own[sizeof(r->cmdline)];
			int n;

			snprintf(own, sizeof(own), "%s", r->cmdline);
			n = snprintf(r->cmdline, sizeof(r->cmdline), "%s%s%s", b.cmdline,
				     own[0] ? " " : "", own);
			if (n < 0 || (size_t)n >= sizeof(r->cmdline)) {
				hb_set_err(err, errlen, "%s/recipe: cmdline with its base's longer "
					   "than %zu characters", r->dir, sizeof(r->cmdline) - 1);
				hb_recipe_free(&b);
				return -1;
			}
		}
		snprintf(r->build_as, sizeof(r->build_as), "%s", b.build_as);
		r->debug_on = b.debug_on;
		/* take over the base's resolved lists: base.config is in them */
		r->patches = b.patches;
		r->n_patches = b.n_patches;
		r->configs = b.configs;
		r->n_configs = b.n_configs;
	} else {
		snprintf(path, sizeof(path), "%s/base.config", r->kernels_dir);
		if (!is_file(path)) {
			hb_set_err(err, errlen, "%s missing (every source recipe starts from it)", path);
			return -1;
		}
		if (push_path(&r->configs, &r->n_configs, path)) {
			hb_set_err(err, errlen, "out of memory");
			return -1;
		}
	}
	if (!r->source[0]) {
		hb_set_err(err, errlen, "%s/recipe: kind=source needs source=debian:<package> or source=ksrc",
			r->dir);
		return -1;
	}
	{
		size_t np = r->n_patches, nc = r->n_configs;

		if (load_series(r->dir, r, err, errlen) || load_config(r->dir, r, err, errlen))
			return -1;
		if (add_debug_config(r, err, errlen))
			return -1;
		/* own patches, config or source (minimal-ksrc: another tree with
		 * minimal-6.1's config): this recipe's tree builds it, never the
		 * base's, whose object dir other recipes are seeded from */
		if (!r->base[0] || own_source || r->n_patches != np || r->n_configs != nc)
			snprintf(r->build_as, sizeof(r->build_as), "%s", r->dir);
	}
	return 0;
}

static int load_depth(const char *dir, struct hb_recipe *out, int depth, char *err, size_t errlen)
{
	char real[PATH_MAX], path[PATH_MAX + 16], *slash;

	memset(out, 0, sizeof(*out));
	if (!realpath(dir, real)) {
		hb_set_err(err, errlen, "recipe directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (strlen(real) >= sizeof(out->dir) - 32 || strchr(real, '\n')) {
		hb_set_err(err, errlen, "recipe directory %s: path too long or odd", dir);
		return -1;
	}
	snprintf(out->dir, sizeof(out->dir), "%s", real);
	slash = strrchr(real, '/');
	if (!slash || !name_ok(slash + 1)) {
		hb_set_err(err, errlen, "recipe directory %s: name must be letters, digits, '.', '_', '-'",
			dir);
		return -1;
	}
	snprintf(out->name, sizeof(out->name), "%s", slash + 1);
	*slash = '\0';
	snprintf(out->kernels_dir, sizeof(out->kernels_dir), "%s", real[0] ? real : "/");
	snprintf(path, sizeof(path), "%s/recipe", out->dir);
	if (parse_recipe_file(path, out, err, errlen))
		goto fail;
	switch (out->kind) {
	case HB_RECIPE_DEBIAN:
		if (!out->meta[0] == !out->image[0]) {
			hb_set_err(err, errlen,
				   "%s: kind=debian needs one of meta=<meta package> or "
				   "image=<linux-image package glob>",
				   path);
			goto fail;
		}
		if (out->source[0] || out->base[0]) {
			hb_set_err(err, errlen, "%s: source= and base= are for kind=source recipes", path);
			goto fail;
		}
		if (out->debug[0]) {
			hb_set_err(err, errlen, "%s: debug= is for kind=source recipes (a Debian "
				   "package is built as it is)", path);
			goto fail;
		}
		if (out->git_url[0] || out->commit[0] || out->branch[0]) {
			hb_set_err(err, errlen, "%s: git=, commit= and branch= are for kind=source "
				   "recipes (a Debian package is reported by its package version)", path);
			goto fail;
		}
		if (out->meta[0] && !word_ok(out->meta, ".+-")) {
			hb_set_err(err, errlen, "%s: meta '%s' is not a package name", path, out->meta);
			goto fail;
		}
		if (out->image[0] && (strncmp(out->image, "linux-image-", 12) ||
				      !word_ok(out->image, ".+-*"))) {
			hb_set_err(err, errlen,
				   "%s: image '%s' is not a linux-image-* package name or glob "
				   "(letters, digits, '.', '+', '-', '*')",
				   path, out->image);
			goto fail;
		}
		if (out->archive[0] && !suite_ok(out->archive)) {
			hb_set_err(err, errlen, "%s: archive '%s' is not a Debian suite name (e.g. sid)",
				   path, out->archive);
			goto fail;
		}
		if (out->modules[0] && strcmp(out->modules, "none")) {
			hb_set_err(err, errlen, "%s: modules= takes only 'none' (boot without them)",
				   path);
			goto fail;
		}
		if (out->pin[0] && !word_ok(out->pin, ".+~:-")) {
			hb_set_err(err, errlen, "%s: pin '%s' is not a Debian version", path, out->pin);
			goto fail;
		}
		return 0;
	case HB_RECIPE_SOURCE:
		if (resolve_source(out, depth, err, errlen))
			goto fail;
		return 0;
	default:
		hb_set_err(err, errlen, "%s: no kind= line (kind=debian or kind=source)", path);
		goto fail;
	}
fail:
	hb_recipe_free(out);
	return -1;
}

int hb_recipe_load(const char *dir, struct hb_recipe *out, char *err, size_t errlen)
{
	return load_depth(dir, out, 0, err, errlen);
}

/* ---- cache key ----------------------------------------------------------- */

static int md_line(EVP_MD_CTX *ctx, const char *tag, const char *val)
{
	return EVP_DigestUpdate(ctx, tag, strlen(tag)) && EVP_DigestUpdate(ctx, " ", 1) &&
	       EVP_DigestUpdate(ctx, val, strlen(val)) && EVP_DigestUpdate(ctx, "\n", 1);
}

int hb_recipe_cache_key(const struct hb_recipe *r, const char *gcc_version, char out_hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char fhex[65];
	EVP_MD_CTX *ctx;
	int rc = -1;

	out_hex[0] = '\0';
	if (!r || r->kind != HB_RECIPE_SOURCE || !r->source_id[0] || !gcc_version ||
	    !gcc_version[0] || strchr(r->source_id, '\n') || strchr(gcc_version, '\n')) {
		errno = EINVAL;
		return -1;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		errno = ENOMEM;
		return -1;
	}
	errno = EIO;
	if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(ctx, KEY_FORMAT "\n", strlen(KEY_FORMAT) + 1) ||
	    !md_line(ctx, "source", r->source_id) || !md_line(ctx, "gcc", gcc_version))
		goto out;
	for (size_t i = 0; i < r->n_configs; i++)
		if (hb_sha256_file(r->configs[i], fhex) || !md_line(ctx, "config", fhex))
			goto out;
	for (size_t i = 0; i < r->n_patches; i++)
		if (hb_sha256_file(r->patches[i], fhex) || !md_line(ctx, "patch", fhex))
			goto out;
	if (!EVP_DigestFinal_ex(ctx, md, &mdlen))
		goto out;
	hb_hex(md, mdlen, out_hex);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

