/* recipe.c - kernel recipes: parse kernels/<name>/recipe, resolve base
 * chains, patches/series and config fragments, compute the build cache key
 * (the one implementation of it) and drive kernels/build-source.sh.
 * See recipe.h for the file formats and the key definition.
 */
#define _GNU_SOURCE
#include "recipe.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>

#define RECIPE_LINE_MAX 1024
#define KEY_FORMAT "hugebench-kernel-key/1"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
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

/* source=debian:<package> or source=ksrc */
static bool source_ok(const char *s)
{
	if (!strcmp(s, "ksrc"))
		return true;
	if (strncmp(s, "debian:", 7))
		return false;
	for (const char *p = s + 7; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && !strchr(".+-", *p))
			return false;
	return s[7] != '\0';
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
	};
	bool seen[sizeof(keys) / sizeof(keys[0])] = { false };
	char line[RECIPE_LINE_MAX + 2];
	int lineno = 0, rc = -1;
	FILE *f = fopen(path, "r");

	if (!f) {
		set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *key, *val;
		size_t i, len;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			set_err(err, errlen, "%s:%d: line longer than %d characters", path, lineno,
				RECIPE_LINE_MAX);
			goto out;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			set_err(err, errlen, "%s:%d: expected key=value, got '%s'", path, lineno, s);
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
			set_err(err, errlen,
				"%s:%d: unknown key '%s' (known: kind, source, meta, base, description)",
				path, lineno, key);
			goto out;
		}
		if (seen[i]) {
			set_err(err, errlen, "%s:%d: key '%s' given twice", path, lineno, key);
			goto out;
		}
		seen[i] = true;
		if (!*val) {
			set_err(err, errlen, "%s:%d: key '%s' has an empty value", path, lineno, key);
			goto out;
		}
		if (!strcmp(key, "kind")) {
			if (!strcmp(val, "debian")) {
				r->kind = HB_RECIPE_DEBIAN;
			} else if (!strcmp(val, "source")) {
				r->kind = HB_RECIPE_SOURCE;
			} else {
				set_err(err, errlen, "%s:%d: kind must be debian or source, not '%s'",
					path, lineno, val);
				goto out;
			}
			continue;
		}
		if (strlen(val) >= keys[i].size) {
			set_err(err, errlen, "%s:%d: value of '%s' longer than %zu characters", path,
				lineno, key, keys[i].size - 1);
			goto out;
		}
		strcpy((char *)r + keys[i].off, val);
	}
	if (ferror(f)) {
		set_err(err, errlen, "cannot read %s: %s", path, strerror(errno));
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
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0; /* no series: no patches */
		set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
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
			set_err(err, errlen, "%s:%d: only '<patch> [-p1]' is supported, got extra '%s'",
				path, lineno, more ? more : opt);
			goto out;
		}
		if (name[0] == '/' || strstr(name, "..") || strchr(name, '\n')) {
			set_err(err, errlen, "%s:%d: patch '%s' must be a file under patches/", path,
				lineno, name);
			goto out;
		}
		snprintf(pfile, sizeof(pfile), "%s/patches/%s", dir, name);
		if (!is_file(pfile)) {
			set_err(err, errlen, "%s:%d: patch '%s' not found (%s)", path, lineno, name,
				pfile);
			goto out;
		}
		if (push_path(&r->patches, &r->n_patches, pfile)) {
			set_err(err, errlen, "out of memory reading %s", path);
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
		set_err(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	return 0;
}

static int load_depth(const char *dir, struct hb_recipe *out, int depth, char *err, size_t errlen);

/* Source recipe: inherit the base chain, then add own patches and config. */
static int resolve_source(struct hb_recipe *r, int depth, char *err, size_t errlen)
{
	char path[HB_RECIPE_PATH_MAX + HB_RECIPE_NAME_MAX + 2];

	if (r->meta[0]) {
		set_err(err, errlen, "%s/recipe: meta= is for kind=debian recipes", r->dir);
		return -1;
	}
	if (r->source[0] && !source_ok(r->source)) {
		set_err(err, errlen, "%s/recipe: source '%s' must be debian:<package> or ksrc", r->dir,
			r->source);
		return -1;
	}
	if (r->base[0]) {
		struct hb_recipe b;

		if (!name_ok(r->base) || !strcmp(r->base, r->name)) {
			set_err(err, errlen, "%s/recipe: base '%s' is not another recipe's name", r->dir,
				r->base);
			return -1;
		}
		if (depth >= HB_RECIPE_BASE_DEPTH) {
			set_err(err, errlen, "%s/recipe: base chain deeper than %d (a cycle?)", r->dir,
				HB_RECIPE_BASE_DEPTH);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%s", r->kernels_dir, r->base);
		if (load_depth(path, &b, depth + 1, err, errlen))
			return -1;
		if (b.kind != HB_RECIPE_SOURCE) {
			set_err(err, errlen, "%s/recipe: base '%s' is not a kind=source recipe", r->dir,
				r->base);
			hb_recipe_free(&b);
			return -1;
		}
		if (!r->source[0])
			snprintf(r->source, sizeof(r->source), "%s", b.source);
		/* take over the base's resolved lists: base.config is in them */
		r->patches = b.patches;
		r->n_patches = b.n_patches;
		r->configs = b.configs;
		r->n_configs = b.n_configs;
	} else {
		snprintf(path, sizeof(path), "%s/base.config", r->kernels_dir);
		if (!is_file(path)) {
			set_err(err, errlen, "%s missing (every source recipe starts from it)", path);
			return -1;
		}
		if (push_path(&r->configs, &r->n_configs, path)) {
			set_err(err, errlen, "out of memory");
			return -1;
		}
	}
	if (!r->source[0]) {
		set_err(err, errlen, "%s/recipe: kind=source needs source=debian:<package> or source=ksrc",
			r->dir);
		return -1;
	}
	if (load_series(r->dir, r, err, errlen) || load_config(r->dir, r, err, errlen))
		return -1;
	return 0;
}

static int load_depth(const char *dir, struct hb_recipe *out, int depth, char *err, size_t errlen)
{
	char real[PATH_MAX], path[PATH_MAX + 16], *slash;

	memset(out, 0, sizeof(*out));
	if (!realpath(dir, real)) {
		set_err(err, errlen, "recipe directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (strlen(real) >= sizeof(out->dir) - 32 || strchr(real, '\n')) {
		set_err(err, errlen, "recipe directory %s: path too long or odd", dir);
		return -1;
	}
	snprintf(out->dir, sizeof(out->dir), "%s", real);
	slash = strrchr(real, '/');
	if (!slash || !name_ok(slash + 1)) {
		set_err(err, errlen, "recipe directory %s: name must be letters, digits, '.', '_', '-'",
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
		if (!out->meta[0]) {
			set_err(err, errlen, "%s: kind=debian needs meta=<package>", path);
			goto fail;
		}
		if (out->source[0] || out->base[0]) {
			set_err(err, errlen, "%s: source= and base= are for kind=source recipes", path);
			goto fail;
		}
		if (!word_ok(out->meta, ".+-")) {
			set_err(err, errlen, "%s: meta '%s' is not a package name", path, out->meta);
			goto fail;
		}
		return 0;
	case HB_RECIPE_SOURCE:
		if (resolve_source(out, depth, err, errlen))
			goto fail;
		return 0;
	default:
		set_err(err, errlen, "%s: no kind= line (kind=debian or kind=source)", path);
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

/* ---- driving build-source.sh ---------------------------------------------- */

extern char **environ;

struct env_add {
	const char *name;
	const char *value; /* NULL: leave the inherited one */
};

struct spawn_env {
	char **v;
	size_t kept; /* v[0..kept) are environ's, the rest are ours */
};

static void free_env(struct spawn_env *e)
{
	for (size_t i = e->kept; e->v && e->v[i]; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
}

/* environ minus the names in add[] that have a value, plus those. */
static int make_env(const struct env_add *add, size_t nadd, struct spawn_env *e)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	e->v = calloc(n + nadd + 1, sizeof(*e->v));
	e->kept = 0;
	if (!e->v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		bool drop = false;

		for (size_t j = 0; j < nadd && !drop; j++) {
			size_t len = strlen(add[j].name);

			drop = add[j].value && !strncmp(environ[i], add[j].name, len) &&
			       environ[i][len] == '=';
		}
		if (!drop)
			e->v[k++] = environ[i];
	}
	e->kept = k;
	for (size_t j = 0; j < nadd; j++) {
		if (!add[j].value)
			continue;
		if (asprintf(&e->v[k], "%s=%s", add[j].name, add[j].value) < 0) {
			e->v[k] = NULL;
			free_env(e);
			return -1;
		}
		k++;
	}
	return 0;
}

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
		set_err(err, errlen, "cannot run bash for %s: %s", what, strerror(errno));
		return 3;
	}
	if (buf && hb_kv_get(buf, "error", reason, sizeof(reason)))
		set_err(err, errlen, "%s", reason);
	else
		set_err(err, errlen, "%s failed (exit %d; its messages are above)", what, rc);
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
			set_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		if (st.st_uid == uid)
			continue;
		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)uid, (unsigned)gid);
		{
			char *const argv[] = { "chown", "-R", "-h", owner, "--", path, NULL };

			if (hb_spawn_capture(argv, NULL, 0) != 0) {
				set_err(err, errlen, "cannot give %s to uid %u (chown failed)", path,
					(unsigned)uid);
				return -1;
			}
		}
	}
	return 0;
}

int hb_recipe_build(struct hb_recipe *r, const char *cache_dir, const char *ksrc,
		    struct hb_kernel_build *out, char *err, size_t errlen)
{
	char script[HB_RECIPE_PATH_MAX + 32], gcc[HB_RECIPE_STR_MAX], key[65];
	char *series = NULL, *configs = NULL, *buf = NULL;
	struct spawn_env env = { NULL, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (r->kind != HB_RECIPE_SOURCE) {
		set_err(err, errlen, "recipe %s is not kind=source: nothing to build", r->name);
		return 2;
	}
	if (!cache_dir[0] || strpbrk(cache_dir, " \t\n")) {
		/* kbuild itself cannot build in a path with blanks (make O=) */
		set_err(err, errlen,
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
		set_err(err, errlen, "out of memory");
		rc = 3;
		goto out;
	}

	{
		char *const argv[] = { "bash", script, "--fetch", r->dir, (char *)cache_dir, NULL };
		const struct env_add add[] = {
			{ "HB_SOURCE", r->source },
			{ "KSRC", ksrc },
		};

		if (make_env(add, sizeof(add) / sizeof(add[0]), &env)) {
			set_err(err, errlen, "out of memory");
			rc = 3;
			goto out;
		}
		rc = run_capture(argv, env.v, &buf);
		if (rc) {
			rc = script_failed(rc, "build-source.sh --fetch", buf, err, errlen);
			goto out;
		}
		if (!hb_kv_get(buf, "source", r->source_id, sizeof(r->source_id)) ||
		    !hb_kv_get(buf, "gcc", gcc, sizeof(gcc))) {
			set_err(err, errlen, "build-source.sh --fetch printed no source= and gcc= lines");
			rc = 3;
			goto out;
		}
		free(buf);
		buf = NULL;
		free_env(&env);
	}
	if (hb_recipe_cache_key(r, gcc, key)) {
		set_err(err, errlen, "cannot compute the cache key of %s: %s", r->name, strerror(errno));
		rc = 2;
		goto out;
	}
	{
		char *const argv[] = { "bash", script, r->dir, (char *)cache_dir, NULL };
		const struct env_add add[] = {
			{ "HB_SOURCE", r->source },   { "HB_SOURCE_ID", r->source_id },
			{ "HB_KERNEL_KEY", key },     { "HB_SERIES", series },
			{ "HB_CONFIGS", configs },    { "KSRC", ksrc },
		};

		if (make_env(add, sizeof(add) / sizeof(add[0]), &env)) {
			set_err(err, errlen, "out of memory");
			rc = 3;
			goto out;
		}
		rc = run_capture(argv, env.v, &buf);
		if (rc) {
			rc = script_failed(rc, "build-source.sh", buf, err, errlen);
			goto out;
		}
		if (parse_result(buf, out)) {
			set_err(err, errlen,
				"build-source.sh printed no release=, image= and modules= lines");
			rc = 3;
			goto out;
		}
		snprintf(out->key, sizeof(out->key), "%s", key);
	}
	rc = 0;
out:
	free(buf);
	free_env(&env);
	free(series);
	free(configs);
	return rc;
}
