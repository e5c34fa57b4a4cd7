/* collect.c - one nightly target's cases, the model the JUnit,
 * KCIDB and summary writers read: a case per boot (its verdict and kernel
 * issues), per workload check (failed when it failed on any boot) and per
 * metric (judged by compare-report when there was a comparison; a plain
 * measurement otherwise), plus the comparison's own regressions. */
#define _GNU_SOURCE
#include "compare.h"
#include "nightly.h"
#include "recipe.h"
#include "sysinfo.h"
#include "util.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *hb_nstatus_name(enum hb_nstatus s)
{
	static const char *const n[] = { "PASS", "FAIL", "ERROR", "MISS", "SKIP", "DONE" };

	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "ERROR";
}

struct hb_ncase *hb_night_add_case(struct hb_ntarget *t, enum hb_nkind kind, const char *name,
				   enum hb_nstatus st, const char *fmt, ...)
{
	struct hb_ncase *c;
	va_list ap;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct hb_ncase *nc = realloc(t->cases, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		t->cases = nc;
		t->cap = cap;
	}
	c = &t->cases[t->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->status = st;
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(c->message, sizeof(c->message), fmt, ap);
		va_end(ap);
	}
	return c;
}

static struct hb_ncase *find_case(struct hb_ntarget *t, enum hb_nkind kind, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->cases[i].kind == kind && !strcmp(t->cases[i].name, name))
			return &t->cases[i];
	return NULL;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void append_output(struct hb_ncase *c, const char *line)
{
	size_t have = c->output ? strlen(c->output) : 0, add = strlen(line);
	char *n;

	if (have > 65536)
		return; /* enough for a report */
	n = realloc(c->output, have + add + 2);
	if (!n)
		return;
	memcpy(n + have, line, add);
	n[have + add] = '\n';
	n[have + add + 1] = 0;
	c->output = n;
}

static void worse_state(struct hb_ntarget *t, enum hb_tstate s, const char *why)
{
	/* a finding outranks an infrastructure problem: it is what a reader acts on */
	static const int rank[] = { [HB_TS_CLEAN] = 0, [HB_TS_INFRA] = 1, [HB_TS_FINDING] = 2 };

	if (rank[s] > rank[t->state]) {
		t->state = s;
		snprintf(t->state_reason, sizeof(t->state_reason), "%s", why);
	}
}

static void wl_label(json_t *w, char *buf, size_t len)
{
	json_int_t inst = json_integer_value(json_object_get(w, "instance"));

	if (inst > 1)
		snprintf(buf, len, "%s#%lld", jstr(w, "name"), (long long)inst);
	else
		snprintf(buf, len, "%s", jstr(w, "name"));
}

/* The first line of `git -C tree a1 a2 a3` into out; "" when git fails. */
static void git_line(const char *tree, const char *a1, const char *a2, const char *a3, char *out,
		     size_t len)
{
	char *argv[] = { "git", "-C", (char *)tree, (char *)a1, (char *)a2, (char *)a3, NULL };

	out[0] = 0;
	if (hb_spawn_capture(argv, out, len))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
}

/* KSRC's git (a source=ksrc recipe without git=/commit=/branch=): commit,
 * branch, and the origin's URL when it is an https one (KCIDB takes no
 * other). Nothing when KSRC is not a git tree. */
static void ksrc_origin(struct hb_ntarget *t)
{
	const char *k = getenv("KSRC");
	char hash[128], br[256], url[512];

	if (!k || !*k)
		return;
	snprintf(url, sizeof(url), "%s/.git", k);
	if (access(url, F_OK))
		return; /* not a git tree: nothing to ask git */
	git_line(k, "rev-parse", "--verify", "HEAD", hash, sizeof(hash));
	if (strlen(hash) != 40 || strspn(hash, "0123456789abcdef") != 40)
		return;
	snprintf(t->commit, sizeof(t->commit), "%s", hash);
	git_line(k, "symbolic-ref", "--short", "HEAD", br, sizeof(br));
	snprintf(t->branch, sizeof(t->branch), "%s", br);
	git_line(k, "remote", "get-url", "origin", url, sizeof(url));
	if (!strncmp(url, "https://", 8) && !strchr(url, '@') && !strchr(url, ' '))
		snprintf(t->git_url, sizeof(t->git_url), "%s", url);
}

/* A recipe target's facts for the reports: KCIDB's patchset_hash (sha256
 * over the newline-terminated sha256 of each patch, in order; "" without
 * patches), its own series' length, and the source's origin (git=,
 * commit=, branch= of the recipe, else KSRC's git for source=ksrc). */
void hb_night_origin(struct hb_ntarget *t, const char *recipe_dir)
{
	struct hb_recipe r, b;
	char err[512], hex[65], *all = NULL;
	size_t len = 0;
	unsigned char md[32];
	unsigned int mdlen = 0;

	t->patchset_hash[0] = 0;
	if (hb_recipe_load(recipe_dir, &r, err, sizeof(err)))
		return;
	if (r.kind == HB_RECIPE_SOURCE) {
		snprintf(t->git_url, sizeof(t->git_url), "%s", r.git_url);
		snprintf(t->commit, sizeof(t->commit), "%s", r.commit);
		snprintf(t->branch, sizeof(t->branch), "%s", r.branch);
		if (!r.git_url[0] && !r.commit[0] && !r.branch[0] && !strcmp(r.source, "ksrc"))
			ksrc_origin(t);
		t->n_patches = (int)r.n_patches;
		if (r.base[0]) {
			char bdir[2 * HB_RECIPE_PATH_MAX];

			snprintf(bdir, sizeof(bdir), "%s/%s", r.kernels_dir, r.base);
			if (!hb_recipe_load(bdir, &b, err, sizeof(err))) {
				t->n_patches -= (int)b.n_patches;
				hb_recipe_free(&b);
			}
		}
	}
	if (r.n_patches && (all = calloc(r.n_patches, 65) ) != NULL) {
		for (size_t i = 0; i < r.n_patches; i++) {
			if (hb_sha256_file(r.patches[i], hex))
				goto out;
			memcpy(all + len, hex, 64);
			all[len + 64] = '\n';
			len += 65;
		}
		if (EVP_Digest(all, len, md, &mdlen, EVP_sha256(), NULL) && mdlen == 32)
			hb_hex(md, mdlen, t->patchset_hash);
	}
out:
	free(all);
	hb_recipe_free(&r);
}

void hb_night_file_url(const char *path, char *out, size_t len)
{
	size_t o;

	o = (size_t)snprintf(out, len, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < len; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/._~-", *p))
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02X", *p);
	}
	if (o < len)
		out[o] = 0;
}

/* A source build's source, from its cache folder's inputs (package=version);
 * "" for anything else. */
static void source_of(json_t *tg, char *out, size_t len)
{
	char path[PATH_MAX], *text, *line;
	const char *img = jstr(tg, "image");

	out[0] = 0;
	if (strcmp(jstr(tg, "kind"), "source") || !strrchr(img, '/'))
		return;
	snprintf(path, sizeof(path), "%.*s/inputs", (int)(strrchr(img, '/') - img), img);
	text = hb_is_file(path) ? hb_slurp(path, NULL) : NULL;
	if (text && (line = strstr(text, "\nsource ")) != NULL) {
		line += 8;
		line[strcspn(line, "\n")] = 0;
		snprintf(out, len, "%s", line);
	}
	free(text);
}

/* The first boot's description of the kernel and the machine, and every
 * boot's folder (the log URLs). */
static void boot_facts(struct hb_ntarget *t, json_t *res, const char *result_path)
{
	json_t *tg = json_object_get(res, "target"), *env = json_object_get(res, "environment");
	char **nd;

	if (result_path && (nd = realloc(t->boot_dir, (t->n_boot_dir + 1) * sizeof(*nd)))) {
		const char *slash = strrchr(result_path, '/');
		char abs[PATH_MAX];

		t->boot_dir = nd;
		nd[t->n_boot_dir] = slash ? strndup(result_path, (size_t)(slash - result_path))
					  : strdup(".");
		if (nd[t->n_boot_dir] && realpath(nd[t->n_boot_dir], abs)) {
			free(nd[t->n_boot_dir]);
			nd[t->n_boot_dir] = strdup(abs);
		}
		if (nd[t->n_boot_dir])
			t->n_boot_dir++;
	}
	if (t->package[0] || !json_is_object(tg))
		return;
	snprintf(t->package, sizeof(t->package), "%s", jstr(tg, "package"));
	snprintf(t->host_cpu, sizeof(t->host_cpu), "%s", jstr(env, "host_cpu"));
	snprintf(t->accel, sizeof(t->accel), "%s", jstr(env, "accelerator"));
	snprintf(t->qemu_version, sizeof(t->qemu_version), "%s", jstr(env, "qemu_version"));
	snprintf(t->clock, sizeof(t->clock), "%s", jstr(env, "clock"));
	t->vcpus = (int)json_integer_value(json_object_get(env, "vcpus"));
	t->memory_mb = (int)json_integer_value(json_object_get(env, "memory_mb"));
	source_of(tg, t->source_id, sizeof(t->source_id));
}

/* One boot's verdict, kernel issues and checks. */
static void collect_boot(struct hb_ntarget *t, json_t *res, int k, bool metrics,
			 const char *result_path)
{
	const char *v = jstr(res, "verdict");
	json_t *issues = json_object_get(res, "kernel_issues"), *w, *x;
	char name[32], key[192], line[768];
	enum hb_nstatus st = HB_NS_PASS;
	struct hb_ncase *c;
	size_t i, j;

	if (!t->kernel_release[0])
		snprintf(t->kernel_release, sizeof(t->kernel_release), "%s",
			 jstr(json_object_get(res, "target"), "kernel_release"));
	boot_facts(t, res, result_path);
	snprintf(name, sizeof(name), "boot-%d", k);
	if (!strcmp(v, "panic") || !strcmp(v, "timeout") || !strcmp(v, "kernel-warning"))
		st = HB_NS_FAIL;
	else if (strcmp(v, "pass") && strcmp(v, "fail"))
		st = HB_NS_ERROR; /* error, incomplete, or unreadable */
	c = hb_night_add_case(t, HB_NK_BOOT, name, st, "%s: %s%s%s", name, v[0] ? v : "no verdict",
			      jstr(res, "verdict_reason")[0] ? ": " : "", jstr(res, "verdict_reason"));
	if (!c)
		return;
	c->boot = k;
	c->has_value = json_is_number(json_object_get(json_object_get(res, "timing"), "total_s"));
	c->value = json_number_value(json_object_get(json_object_get(res, "timing"), "total_s"));
	snprintf(c->unit, sizeof(c->unit), "s");
	json_array_foreach(issues, i, x) {
		snprintf(line, sizeof(line), "%s at console line %lld%s%s: %s", jstr(x, "kind"),
			 (long long)json_integer_value(json_object_get(x, "line")),
			 jstr(x, "workload")[0] ? " during " : "", jstr(x, "workload"),
			 jstr(x, "excerpt"));
		append_output(c, line);
	}
	if (st == HB_NS_FAIL)
		worse_state(t, HB_TS_FINDING, c->message);
	else if (st == HB_NS_ERROR)
		worse_state(t, HB_TS_INFRA, c->message);
	else if (!strcmp(v, "fail"))
		worse_state(t, HB_TS_FINDING, "a check failed");

	json_array_foreach(json_object_get(res, "workloads"), i, w) {
		char wl[96];

		wl_label(w, wl, sizeof(wl));
		json_array_foreach(json_object_get(w, "checks"), j, x) {
			bool pass = json_is_true(json_object_get(x, "pass"));

			snprintf(key, sizeof(key), "%s.%s", wl, jstr(x, "name"));
			c = find_case(t, HB_NK_CHECK, key);
			if (!c && !(c = hb_night_add_case(t, HB_NK_CHECK, key, HB_NS_PASS, NULL)))
				return;
			if (pass)
				continue;
			snprintf(line, sizeof(line), "%s failed on boot %d (rep %lld): expected %s, observed %s",
				 key, k, (long long)json_integer_value(json_object_get(x, "rep")),
				 jstr(x, "expected"), jstr(x, "observed"));
			if (c->status != HB_NS_FAIL) {
				snprintf(c->message, sizeof(c->message), "%s", line);
				c->boot = k;
			}
			c->status = HB_NS_FAIL;
			append_output(c, line);
		}
		if (!metrics)
			continue;
		/* no comparison: each metric is a measurement (mean over the boots) */
		json_array_foreach(json_object_get(w, "metrics"), j, x) {
			json_t *mean = json_object_get(json_object_get(x, "summary"), "mean");

			if (!json_is_number(mean))
				continue;
			snprintf(key, sizeof(key), "%s.%s", wl, jstr(x, "name"));
			c = find_case(t, HB_NK_METRIC, key);
			if (!c) {
				c = hb_night_add_case(t, HB_NK_METRIC, key, HB_NS_DONE,
						      "measured, not compared (no baseline or base)");
				if (!c)
					return;
				c->has_value = true;
				c->value = 0;
				snprintf(c->unit, sizeof(c->unit), "%s", jstr(x, "unit"));
			}
			/* running mean over the boots that have it */
			c->n_values++;
			c->value += (json_number_value(mean) - c->value) / c->n_values;
		}
	}
}

/* A ratio as a change in %; NAN when compare-report wrote null. */
static double pct_of(json_t *ratio)
{
	return json_is_number(ratio) ? (json_number_value(ratio) - 1) * 100 : NAN;
}

/* The boot-to-boot sd of a side's centers in % of their mean; NAN < 2. */
static double sd_pct(json_t *centers)
{
	double sum = 0, ss = 0, mean;
	size_t i, n = 0;
	json_t *x;

	json_array_foreach(centers, i, x)
		if (json_is_number(x)) {
			sum += json_number_value(x);
			n++;
		}
	if (n < 2 || sum == 0)
		return NAN;
	mean = sum / (double)n;
	json_array_foreach(centers, i, x)
		if (json_is_number(x))
			ss += (json_number_value(x) - mean) * (json_number_value(x) - mean);
	return sqrt(ss / (double)(n - 1)) / fabs(mean) * 100;
}

/* The compare-report JSON: each metric's verdict, and every regression. */
static void collect_compare(struct hb_ntarget *t, json_t *rep)
{
	json_t *pair = json_array_get(json_object_get(rep, "comparisons"), 0), *m, *f;
	char key[192], what[512] = "";
	struct hb_ncase *c;
	size_t i, nreg = 0;

	json_array_foreach(json_object_get(pair, "metrics"), i, m) {
		const char *v = jstr(m, "verdict");
		json_t *center = json_object_get(json_object_get(m, "new"), "center");
		double pct = json_number_value(json_object_get(m, "change_pct"));
		enum hb_nstatus st = HB_NS_DONE;
		bool judged = false;

		snprintf(key, sizeof(key), "%s.%s", jstr(m, "workload"), jstr(m, "name"));
		if (!strcmp(v, "regression")) {
			st = HB_NS_FAIL;
			judged = true;
		} else if (!strcmp(v, "same") || !strcmp(v, "improvement") || !strcmp(v, "small")) {
			/* small: certain but below the minimum effect, its why says */
			st = HB_NS_PASS;
			judged = true;
		}
		if (judged)
			c = hb_night_add_case(t, HB_NK_METRIC, key, st, "%s: %s%+.1f%% (%s)%s%s", key,
					      st == HB_NS_FAIL ? "regression " : "", pct,
					      jstr(m, "test"), jstr(m, "why")[0] ? "; " : "", jstr(m, "why"));
		else
			c = hb_night_add_case(t, HB_NK_METRIC, key, st, "%s: not judged (%s)%s%s", key,
					      v, jstr(m, "why")[0] ? ": " : "", jstr(m, "why"));
		if (!c)
			return;
		c->judged = judged;
		c->changed = judged && st == HB_NS_FAIL ? true : !strcmp(v, "improvement");
		c->change_pct = pct;
		c->ci_lo_pct = pct_of(json_array_get(json_object_get(m, "interval"), 0));
		c->ci_hi_pct = pct_of(json_array_get(json_object_get(m, "interval"), 1));
		c->has_value = json_is_number(center);
		c->value = json_number_value(center);
		snprintf(c->unit, sizeof(c->unit), "%s", jstr(m, "unit"));
		center = json_object_get(json_object_get(m, "base"), "center");
		c->has_base = json_is_number(center);
		c->base_value = json_number_value(center);
		c->base_sd_pct = sd_pct(json_object_get(m, "base_centers"));
		c->new_sd_pct = sd_pct(json_object_get(m, "new_centers"));
	}
	if (!t->base_release[0]) {
		/* the base side's first boot: what it was (package or source) */
		const char *bp = jstr(json_object_get(pair, "base"), "path");
		char lerr[PATH_MAX + 256];
		struct hb_cmp_run *b = bp[0] ? hb_cmp_load(bp, lerr, sizeof(lerr)) : NULL;

		snprintf(t->base_release, sizeof(t->base_release), "%s",
			 jstr(json_object_get(pair, "base"), "kernel_release"));
		if (b) {
			snprintf(t->base_package, sizeof(t->base_package), "%s",
				 b->package ? b->package : "");
			source_of(json_object_get(b->root, "target"), t->base_source_id,
				  sizeof(t->base_source_id));
			hb_cmp_run_free(b);
		}
	}
	json_array_foreach(json_object_get(pair, "checks"), i, m) {
		snprintf(key, sizeof(key), "%s.%s", jstr(m, "workload"), jstr(m, "name"));
		if (!t->base_clean_check[0] && json_integer_value(json_object_get(m, "base_ran")) > 0 &&
		    !json_integer_value(json_object_get(m, "base_failed")))
			snprintf(t->base_clean_check, sizeof(t->base_clean_check), "%s", key);
		if (!(c = find_case(t, HB_NK_CHECK, key)))
			continue;
		c->has_counts = true;
		c->base_failed = (int)json_integer_value(json_object_get(m, "base_failed"));
		c->base_ran = (int)json_integer_value(json_object_get(m, "base_ran"));
		c->new_failed = (int)json_integer_value(json_object_get(m, "new_failed"));
		c->new_ran = (int)json_integer_value(json_object_get(m, "new_ran"));
	}
	json_array_foreach(json_object_get(pair, "findings"), i, f) {
		char line[512];

		if (!json_is_true(json_object_get(f, "regression")))
			continue;
		snprintf(line, sizeof(line), "%s%s%s", jstr(f, "workload"),
			 jstr(f, "workload")[0] ? "." : "", jstr(f, "what"));
		if (nreg++ < 6)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
				 nreg > 1 ? ", " : "", line);
		if (!strcmp(jstr(f, "kind"), "check") && (c = find_case(t, HB_NK_CHECK, line)) &&
		    !strstr(c->message, "regression"))
			snprintf(c->message + strlen(c->message),
				 sizeof(c->message) - strlen(c->message),
				 " (regression: passed on the base side)");
	}
	if (nreg)
		c = hb_night_add_case(t, HB_NK_COMPARE, "compare", HB_NS_FAIL, "%zu regression%s: %s%s",
				      nreg, nreg == 1 ? "" : "s", what, nreg > 6 ? ", ..." : "");
	else if (!strcmp(jstr(pair, "result"), "untested")) {
		/* no metric could be tested: not a pass (issue 34) */
		c = hb_night_add_case(t, HB_NK_COMPARE, "compare", HB_NS_ERROR, "against %s: %s",
				      t->against, jstr(pair, "verdict"));
		if (c)
			worse_state(t, HB_TS_INFRA, c->message);
		return;
	} else
		c = hb_night_add_case(t, HB_NK_COMPARE, "compare", HB_NS_PASS,
				      "no regression against %s", t->against);
	if (!c)
		return;
	json_array_foreach(json_object_get(pair, "findings"), i, f)
		if (json_is_true(json_object_get(f, "regression")))
			append_output(c, jstr(f, "text"));
	if (nreg)
		worse_state(t, HB_TS_FINDING, c->message);
}

void hb_night_collect(struct hb_ntarget *t, const char *group_dir, const char *compare_json)
{
	char path[PATH_MAX + 32], err[PATH_MAX + 512];
	struct hb_cmp_group *g;
	json_t *rep = NULL;

	/* compare-report's JSON and every boot's result.json through the
	 * validating readers (cmp_load.c): bounded, no key twice, every field
	 * checked; a boot that does not load is one error case saying why */
	if (compare_json && hb_is_file(compare_json))
		rep = hb_cmp_read_json(compare_json, err, sizeof(err));
	snprintf(path, sizeof(path), "%s/group.json", group_dir);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/result.json", group_dir);
	g = hb_cmp_group_load(path, err, sizeof(err));
	if (g) {
		for (size_t i = 0; i < g->n; i++)
			collect_boot(t, g->boots[i]->root, (int)i + 1, !rep, g->boots[i]->path);
		hb_cmp_group_free(g);
	} else {
		json_t *res = json_pack("{s:s, s:o}", "verdict", "error", "verdict_reason",
					hb_json_text(err));

		collect_boot(t, res, 1, !rep, NULL);
		json_decref(res);
	}
	if (rep)
		collect_compare(t, rep);
	json_decref(rep);
}

enum hb_tstate hb_night_state(const struct hb_night *n)
{
	bool finding = false, infra = false;

	for (size_t i = 0; i < n->n; i++) {
		finding |= n->t[i].state == HB_TS_FINDING;
		infra |= n->t[i].state == HB_TS_INFRA;
	}
	return finding ? HB_TS_FINDING : infra ? HB_TS_INFRA : HB_TS_CLEAN;
}

void hb_night_free(struct hb_night *n)
{
	for (size_t i = 0; i < n->n; i++) {
		for (size_t j = 0; j < n->t[i].n; j++)
			free(n->t[i].cases[j].output);
		free(n->t[i].cases);
		for (size_t j = 0; j < n->t[i].n_boot_dir; j++)
			free(n->t[i].boot_dir[j]);
		free(n->t[i].boot_dir);
	}
	free(n->t);
	n->t = NULL;
	n->n = 0;
}
