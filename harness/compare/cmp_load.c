/* cmp_load.c - read a result.json (hugebench-result/1) for compare-report
 * and table.
 *
 * Every field compare-report relies on is validated here, so that a broken
 * or truncated file is reported once, as "FILE: FIELD: problem" or "FILE:
 * invalid JSON at line L column C: what", and the rest of the comparison
 * can trust the structs. Error lines never quote the file's content (it may
 * be a symlink to a secret): only the path, the field and the position.
 * Duplicate keys, integers out of range and empty names are refused, and so
 * is a metric name that appears twice in one workload (which of the two
 * would be compared?): that one error names the workload and the metric,
 * cleaned and cut short. environment.clock is "virtual" or "wall"; a
 * result written before the field existed ran on the wall clock. Strings
 * point into the jansson tree that the run keeps.
 */
#define _GNU_SOURCE
#include "compare.h"
#include "result.h"
#include "userfile.h"

#include <dirent.h>
#include <malloc.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger files are refused rather than read into memory. */
#define HB_CMP_MAX_FILE (1024L * 1024 * 1024)
#define HB_CMP_JSON_FLAGS JSON_REJECT_DUPLICATES
/* Memory per JSON node (jansson's node and array slot, the loader's copy):
 * measured 73 bytes per value on an array of 5 million zeros. hugebench
 * writes no file denser than one node per 4 bytes (a real is at least
 * "0.0," and a member "k":v,), so a file's tree stays within about 20 times
 * its size (5 times for a real result.json), and within the budget below. */
#define HB_CMP_BYTES_PER_TOKEN 80
#define HB_CMP_MIN_BYTES_PER_TOKEN 4

struct hb_cmp_ld {
	const char *file;
	char *err;
	size_t errlen;
	int failed;
	bool compact; /* a result.compact.json: "samples_f64" allowed */
};

static void hb_cmp_ld_fail(struct hb_cmp_ld *ld, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void hb_cmp_ld_fail(struct hb_cmp_ld *ld, const char *field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (ld->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ld->err, ld->errlen, "%s: %s: %s", ld->file, field, msg);
}

/* obj's key when it has type t ("expected <what>" otherwise); NULL when it
 * is absent or null ("missing" when required). */
static json_t *hb_cmp_ld_typed(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
			       const char *key, bool required, json_type t, const char *what)
{
	json_t *v = json_object_get(obj, key);
	char field[192];

	snprintf(field, sizeof(field), "%s%s", prefix, key);
	if (!v || json_is_null(v)) {
		if (required)
			hb_cmp_ld_fail(ld, field, "missing");
		return NULL;
	}
	if (json_typeof(v) != t) {
		hb_cmp_ld_fail(ld, field, "expected %s", what);
		return NULL;
	}
	return v;
}

static const char *hb_cmp_ld_str(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
				 const char *key, bool required)
{
	return json_string_value(hb_cmp_ld_typed(ld, obj, prefix, key, required, JSON_STRING,
						 "a string"));
}

/* A required, non-empty string: a name that keys rows and lookups. */
static const char *hb_cmp_ld_name(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
				  const char *key)
{
	const char *s = hb_cmp_ld_str(ld, obj, prefix, key, true);
	char field[192];

	if (s && !*s) {
		snprintf(field, sizeof(field), "%s%s", prefix, key);
		hb_cmp_ld_fail(ld, field, "empty");
		return NULL;
	}
	return s;
}

/* An optional integer in [0, INT_MAX] (an integral real such as 3.0 too);
 * `def` when absent. Checked before any conversion: (long)1e300 is
 * undefined behaviour. */
static long hb_cmp_ld_int(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
			  const char *key, long def)
{
	json_t *v = json_object_get(obj, key);
	char field[192];
	double d;

	if (!v || json_is_null(v))
		return def;
	snprintf(field, sizeof(field), "%s%s", prefix, key);
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i >= 0 && i <= INT_MAX)
			return (long)i;
	} else if (json_is_real(v)) {
		d = json_real_value(v);
		if (d >= 0 && d <= INT_MAX && d == floor(d))
			return (long)d;
	} else {
		hb_cmp_ld_fail(ld, field, "expected a number");
		return def;
	}
	hb_cmp_ld_fail(ld, field, "expected an integer from 0 to %d", INT_MAX);
	return def;
}

/* An optional array of numbers; NULL/0 when absent. */
static double *hb_cmp_ld_nums(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
			      const char *key, size_t *n)
{
	json_t *v = json_object_get(obj, key), *e;
	char field[192];
	double *out;
	size_t i;

	*n = 0;
	snprintf(field, sizeof(field), "%s%s", prefix, key);
	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_array(v)) {
		hb_cmp_ld_fail(ld, field, "expected an array of numbers");
		return NULL;
	}
	out = malloc((json_array_size(v) + 1) * sizeof(*out));
	if (!out) {
		hb_cmp_ld_fail(ld, field, "out of memory");
		return NULL;
	}
	json_array_foreach(v, i, e) {
		if (!json_is_number(e) || !isfinite(json_number_value(e))) {
			snprintf(field, sizeof(field), "%s%s[%zu]", prefix, key, i);
			hb_cmp_ld_fail(ld, field, "expected a finite number");
			free(out);
			return NULL;
		}
		out[i] = json_number_value(e);
	}
	*n = json_array_size(v);
	return out;
}

/* host_loadavg.<key>: three finite load averages >= 0, or NAN x 3 when
 * absent (a result written before they were recorded). */
static void hb_cmp_ld_loadavg(struct hb_cmp_ld *ld, json_t *h, const char *key, double out[3])
{
	char pre[32];
	double *v;
	size_t n = 0;

	out[0] = out[1] = out[2] = NAN;
	if (!h || json_is_null(h))
		return;
	if (!json_is_object(h)) {
		hb_cmp_ld_fail(ld, "host_loadavg", "expected an object");
		return;
	}
	snprintf(pre, sizeof(pre), "host_loadavg.");
	v = hb_cmp_ld_nums(ld, h, pre, key, &n);
	if (v && (n != 3 || !(v[0] >= 0 && v[1] >= 0 && v[2] >= 0))) {
		char field[64];

		snprintf(field, sizeof(field), "host_loadavg.%s", key);
		hb_cmp_ld_fail(ld, field, "expected three load averages >= 0 (1, 5, 15 min)");
	} else if (v) {
		out[0] = v[0];
		out[1] = v[1];
		out[2] = v[2];
	}
	free(v);
}

/* A compact file's "samples_f64" (compact.c): base64 of little-endian
 * doubles, every one finite; NULL/0 when absent. */
static double *hb_cmp_ld_f64(struct hb_cmp_ld *ld, json_t *obj, const char *prefix, size_t *n)
{
	json_t *v = json_object_get(obj, "samples_f64");
	const char *s = json_string_value(v);
	size_t len = json_string_length(v), pad = 0, bytes;
	unsigned char *raw;
	double *out;
	char field[192];

	*n = 0;
	snprintf(field, sizeof(field), "%ssamples_f64", prefix);
	if (!v)
		return NULL;
	if (!ld->compact) {
		hb_cmp_ld_fail(ld, field, "only a result.compact.json has it");
		return NULL;
	}
	if (json_object_get(obj, "samples")) {
		hb_cmp_ld_fail(ld, field, "given beside samples");
		return NULL;
	}
	if (!s || !len || len % 4 || len / 4 * 3 > HB_RESULT_F64_MAX * 8 + 2) {
		hb_cmp_ld_fail(ld, field, "expected base64 of 8-byte doubles");
		return NULL;
	}
	pad = s[len - 1] == '=' ? 1 + (s[len - 2] == '=') : 0;
	bytes = len / 4 * 3 - pad;
	if (bytes % 8) {
		hb_cmp_ld_fail(ld, field, "expected base64 of 8-byte doubles");
		return NULL;
	}
	raw = malloc(len / 4 * 3);
	out = malloc((bytes / 8 + 1) * sizeof(*out));
	if (!raw || !out) {
		free(raw);
		free(out);
		hb_cmp_ld_fail(ld, field, "out of memory");
		return NULL;
	}
	if (EVP_DecodeBlock(raw, (const unsigned char *)s, (int)len) != (int)(len / 4 * 3)) {
		free(raw);
		free(out);
		hb_cmp_ld_fail(ld, field, "expected base64 of 8-byte doubles");
		return NULL;
	}
	for (size_t i = 0; i < bytes / 8; i++) {
		uint64_t u = 0;

		for (int b = 7; b >= 0; b--)
			u = u << 8 | raw[8 * i + (size_t)b];
		memcpy(&out[i], &u, 8);
		if (!isfinite(out[i])) {
			snprintf(field, sizeof(field), "%ssamples_f64[%zu]", prefix, i);
			hb_cmp_ld_fail(ld, field, "expected a finite number");
			free(raw);
			free(out);
			return NULL;
		}
	}
	free(raw);
	*n = bytes / 8;
	return out;
}

static json_t *hb_cmp_ld_array(struct hb_cmp_ld *ld, json_t *obj, const char *prefix,
			       const char *key, bool required)
{
	return hb_cmp_ld_typed(ld, obj, prefix, key, required, JSON_ARRAY, "an array");
}

static void hb_cmp_ld_metric(struct hb_cmp_ld *ld, json_t *j, const char *pre,
			     struct hb_cmp_metric *m)
{
	const char *better;
	char field[192];

	if (!json_is_object(j)) {
		snprintf(field, sizeof(field), "%.*s", (int)strlen(pre) - 1, pre);
		hb_cmp_ld_fail(ld, field, "expected an object");
		return;
	}
	m->name = hb_cmp_ld_name(ld, j, pre, "name");
	m->unit = hb_cmp_ld_str(ld, j, pre, "unit", false);
	m->unavailable = hb_cmp_ld_str(ld, j, pre, "unavailable", false);
	/* measured across a guest clock jump (run's clock_decide): no value */
	if (!m->unavailable)
		m->unavailable = hb_cmp_ld_str(ld, j, pre, "untrusted", false);
	better = hb_cmp_ld_str(ld, j, pre, "better", true);
	snprintf(field, sizeof(field), "%sbetter", pre);
	if (!better)
		return;
	if (!strcmp(better, "lower"))
		m->better = HB_CMP_LOWER;
	else if (!strcmp(better, "higher"))
		m->better = HB_CMP_HIGHER;
	else if (!strcmp(better, "info"))
		m->better = HB_CMP_INFO;
	else
		hb_cmp_ld_fail(ld, field, "not one of lower|higher|info");
	m->samples = hb_cmp_ld_nums(ld, j, pre, "samples", &m->n);
	/* the tree is kept for its strings, never read for the numbers again:
	 * a million samples are 40-50 MB of JSON values (issue 38), freed here
	 * for the next file's tree */
	if (m->samples)
		json_object_del(j, "samples");
	if (!m->samples && !ld->failed)
		m->samples = hb_cmp_ld_f64(ld, j, pre, &m->n);
	m->rep_means = hb_cmp_ld_nums(ld, j, pre, "rep_means", &m->n_reps);
	if (!m->samples && !m->unavailable) {
		snprintf(field, sizeof(field), "%ssamples", pre);
		hb_cmp_ld_fail(ld, field, "missing (and the metric is not marked unavailable)");
	}
}

static struct hb_cmp_kv *hb_cmp_ld_kvs(struct hb_cmp_ld *ld, json_t *obj, const char *pre,
				       const char *key, size_t *n)
{
	json_t *v = json_object_get(obj, key), *e;
	struct hb_cmp_kv *kv;
	char field[192];
	const char *k;
	size_t i = 0;

	*n = 0;
	if (!v)
		return NULL;
	snprintf(field, sizeof(field), "%s%s", pre, key);
	if (!json_is_object(v)) {
		hb_cmp_ld_fail(ld, field, "expected an object");
		return NULL;
	}
	kv = calloc(json_object_size(v) + 1, sizeof(*kv));
	if (!kv) {
		hb_cmp_ld_fail(ld, field, "out of memory");
		return NULL;
	}
	json_object_foreach(v, k, e) {
		if (!json_is_number(e)) {
			snprintf(field, sizeof(field), "%s%s.%s", pre, key, k);
			hb_cmp_ld_fail(ld, field, "expected a number");
			break;
		}
		kv[i].key = k;
		kv[i++].val = json_number_value(e);
	}
	*n = i;
	return kv;
}

static const char *const hb_cmp_statuses[] = { "pass", "fail", "skip", "error", NULL };

static void hb_cmp_ld_workload(struct hb_cmp_ld *ld, json_t *j, size_t wi,
			       struct hb_cmp_workload *w)
{
	char pre[96], sub[160];
	json_t *arr, *e;
	size_t i;
	int ok = 0;

	snprintf(pre, sizeof(pre), "workloads[%zu].", wi);
	if (!json_is_object(j)) {
		pre[strlen(pre) - 1] = 0;
		hb_cmp_ld_fail(ld, pre, "expected an object");
		return;
	}
	w->name = hb_cmp_ld_name(ld, j, pre, "name");
	w->status = hb_cmp_ld_str(ld, j, pre, "status", true);
	w->reason = hb_cmp_ld_str(ld, j, pre, "reason", false);
	w->reps = hb_cmp_ld_int(ld, j, pre, "reps", 1);
	for (i = 0; w->status && hb_cmp_statuses[i]; i++)
		ok |= !strcmp(w->status, hb_cmp_statuses[i]);
	if (w->status && !ok) {
		snprintf(sub, sizeof(sub), "%sstatus", pre);
		hb_cmp_ld_fail(ld, sub, "not one of pass|fail|skip|error");
	}
	if ((arr = hb_cmp_ld_array(ld, j, pre, "metrics", false))) {
		w->metrics = calloc(json_array_size(arr) + 1, sizeof(*w->metrics));
		if (!w->metrics) {
			arr = NULL;
			hb_cmp_ld_fail(ld, pre, "out of memory");
		}
		json_array_foreach(arr, i, e) {
			snprintf(sub, sizeof(sub), "%smetrics[%zu].", pre, i);
			hb_cmp_ld_metric(ld, e, sub, &w->metrics[w->n_metrics++]);
		}
	}
	if (w->n_metrics > 1 && !ld->failed) {
		struct hb_cmp_idx ix = { 0 };

		for (i = 0; i < w->n_metrics && !ld->failed; i++) {
			bool added;
			size_t *first = hb_cmp_idx_put(&ix, NULL, w->metrics[i].name, NULL, NULL, i,
						       &added);
			char wn[64], mn[64];

			if (!first) {
				hb_cmp_ld_fail(ld, pre, "out of memory");
			} else if (!added) {
				hb_cmp_clean(wn, sizeof(wn), w->name);
				hb_cmp_clean(mn, sizeof(mn), w->metrics[i].name);
				snprintf(sub, sizeof(sub), "%smetrics[%zu].name", pre, i);
				hb_cmp_ld_fail(ld, sub, "workload \"%s\" has metric \"%s\" twice (also "
					       "metrics[%zu]): which one to compare is unknown", wn, mn,
					       *first);
			}
		}
		hb_cmp_idx_free(&ix);
	}
	if ((arr = hb_cmp_ld_array(ld, j, pre, "checks", false))) {
		w->checks = calloc(json_array_size(arr) + 1, sizeof(*w->checks));
		if (!w->checks) {
			arr = NULL;
			hb_cmp_ld_fail(ld, pre, "out of memory");
		}
		json_array_foreach(arr, i, e) {
			struct hb_cmp_check *c = &w->checks[w->n_checks++];
			json_t *pass = json_object_get(e, "pass");

			snprintf(sub, sizeof(sub), "%schecks[%zu].", pre, i);
			c->name = hb_cmp_ld_name(ld, e, sub, "name");
			c->expected = hb_cmp_ld_str(ld, e, sub, "expected", false);
			c->observed = hb_cmp_ld_str(ld, e, sub, "observed", false);
			c->rep = hb_cmp_ld_int(ld, e, sub, "rep", 0);
			if (!json_is_boolean(pass)) {
				strncat(sub, "pass", sizeof(sub) - strlen(sub) - 1);
				hb_cmp_ld_fail(ld, sub, pass ? "expected true or false" : "missing");
			}
			c->pass = json_is_true(pass);
		}
	}
	if ((arr = hb_cmp_ld_array(ld, j, pre, "snapshots", false))) {
		w->snaps = calloc(json_array_size(arr) + 1, sizeof(*w->snaps));
		if (!w->snaps) {
			arr = NULL;
			hb_cmp_ld_fail(ld, pre, "out of memory");
		}
		json_array_foreach(arr, i, e) {
			struct hb_cmp_snap *s = &w->snaps[w->n_snaps++];

			snprintf(sub, sizeof(sub), "%ssnapshots[%zu].", pre, i);
			s->label = hb_cmp_ld_name(ld, e, sub, "label");
			s->rep = hb_cmp_ld_int(ld, e, sub, "rep", 0);
			s->meminfo = hb_cmp_ld_kvs(ld, e, sub, "meminfo_kb", &s->n_meminfo);
			s->vmstat = hb_cmp_ld_kvs(ld, e, sub, "vmstat", &s->n_vmstat);
		}
	}
}

/* root is a result.compact.json's tree when compact is set. */
static struct hb_cmp_run *hb_cmp_load_tree(json_t *root, const char *name, bool compact,
					   char *err, size_t errlen)
{
	struct hb_cmp_ld ld = { name, err, errlen, 0, compact };
	struct hb_cmp_run *r = calloc(1, sizeof(*r));
	json_t *t, *env, *arr, *e;
	size_t i;

	if (!r || !(r->path = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		free(r);
		json_decref(root);
		return NULL;
	}
	r->root = root;
	if (!json_is_object(root)) {
		hb_cmp_ld_fail(&ld, "(top level)", "expected a JSON object");
		goto bad;
	}
	r->schema = hb_cmp_ld_str(&ld, root, "", "schema", true);
	/* another version's fields may mean other things: refused, not guessed */
	if (r->schema && strcmp(r->schema, HB_CMP_RESULT_SCHEMA))
		hb_cmp_ld_fail(&ld, "schema", "not %s (a result of another hugebench version)",
			       HB_CMP_RESULT_SCHEMA);
	r->run_id = hb_cmp_ld_str(&ld, root, "", "run_id", false);
	r->created = hb_cmp_ld_str(&ld, root, "", "created", false);
	r->started = hb_cmp_ld_str(&ld, root, "", "started", false);
	r->ended = hb_cmp_ld_str(&ld, root, "", "ended", false);
	hb_cmp_ld_loadavg(&ld, json_object_get(root, "host_loadavg"), "started", r->load_started);
	hb_cmp_ld_loadavg(&ld, json_object_get(root, "host_loadavg"), "ended", r->load_ended);
	r->suite = hb_cmp_ld_str(&ld, root, "", "suite", true);
	r->repeat = hb_cmp_ld_int(&ld, root, "", "repeat", 1);
	r->verdict = hb_cmp_ld_str(&ld, root, "", "verdict", true);
	r->verdict_reason = hb_cmp_ld_str(&ld, root, "", "verdict_reason", false);
	if (r->verdict && hb_verdict_rank(r->verdict) < 0)
		hb_cmp_ld_fail(&ld, "verdict",
			       "not one of pass|fail|kernel-warning|panic|timeout|incomplete|error");
	r->pmu = -1;
	t = json_object_get(root, "target");
	if (!json_is_object(t)) {
		hb_cmp_ld_fail(&ld, "target", t ? "expected an object" : "missing");
	} else {
		r->target = hb_cmp_ld_name(&ld, t, "target.", "name");
		r->kernel_release = hb_cmp_ld_str(&ld, t, "target.", "kernel_release", false);
		r->cmdline = hb_cmp_ld_str(&ld, t, "target.", "cmdline", false);
		r->package = hb_cmp_ld_str(&ld, t, "target.", "package", false);
		r->image_sha256 = hb_cmp_ld_str(&ld, t, "target.", "image_sha256", false);
	}
	env = json_object_get(root, "environment");
	if (!json_is_object(env)) {
		hb_cmp_ld_fail(&ld, "environment", env ? "expected an object" : "missing");
	} else {
		json_t *pmu = json_object_get(env, "pmu");

		r->accelerator = hb_cmp_ld_str(&ld, env, "environment.", "accelerator", true);
		r->qemu_version = hb_cmp_ld_str(&ld, env, "environment.", "qemu_version", false);
		r->nested_virt = hb_cmp_ld_str(&ld, env, "environment.", "nested_virt", false);
		r->host_kernel = hb_cmp_ld_str(&ld, env, "environment.", "host_kernel", false);
		r->host_cpu = hb_cmp_ld_str(&ld, env, "environment.", "host_cpu", false);
		r->clock = hb_cmp_ld_str(&ld, env, "environment.", "clock", false);
		if (r->clock && strcmp(r->clock, "virtual") && strcmp(r->clock, "wall"))
			hb_cmp_ld_fail(&ld, "environment.clock", "not one of virtual|wall");
		r->vcpus = hb_cmp_ld_int(&ld, env, "environment.", "vcpus", -1);
		r->memory_mb = hb_cmp_ld_int(&ld, env, "environment.", "memory_mb", -1);
		if (json_is_boolean(pmu))
			r->pmu = json_is_true(pmu);
	}
	if ((arr = hb_cmp_ld_array(&ld, root, "", "workloads", true))) {
		r->workloads = calloc(json_array_size(arr) + 1, sizeof(*r->workloads));
		if (!r->workloads) {
			arr = NULL;
			hb_cmp_ld_fail(&ld, "workloads", "out of memory");
		}
		json_array_foreach(arr, i, e)
			hb_cmp_ld_workload(&ld, e, i, &r->workloads[r->n_workloads++]);
	}
	if ((arr = hb_cmp_ld_array(&ld, root, "", "kernel_issues", false))) {
		r->issues = calloc(json_array_size(arr) + 1, sizeof(*r->issues));
		if (!r->issues) {
			arr = NULL;
			hb_cmp_ld_fail(&ld, "kernel_issues", "out of memory");
		}
		json_array_foreach(arr, i, e) {
			char pre[64];
			struct hb_cmp_issue *is = &r->issues[r->n_issues++];

			snprintf(pre, sizeof(pre), "kernel_issues[%zu].", i);
			is->kind = hb_cmp_ld_name(&ld, e, pre, "kind");
			is->excerpt = hb_cmp_ld_str(&ld, e, pre, "excerpt", false);
			is->line = hb_cmp_ld_int(&ld, e, pre, "line", 0);
		}
	}
	if (!r->clock)
		r->clock = "wall"; /* written before the field: the wall clock */
	if (!ld.failed)
		return r;
bad:
	hb_cmp_run_free(r);
	return NULL;
}

/* What jansson found, in our words: its own text quotes the input ("near
 * 'password'"), which must not reach an error line. */
static const char *hb_cmp_json_problem(const json_error_t *je)
{
	switch (json_error_code(je)) {
	case json_error_out_of_memory: return "out of memory";
	case json_error_stack_overflow: return "nested too deeply";
	case json_error_cannot_open_file: return "cannot be read";
	case json_error_invalid_utf8: return "not valid UTF-8";
	case json_error_premature_end_of_input: return "the document ends too early (truncated?)";
	case json_error_end_of_input_expected: return "text after the end of the document";
	case json_error_null_character: return "a NUL character";
	case json_error_null_byte_in_key: return "a NUL character in a key";
	case json_error_duplicate_key: return "a key appears twice in one object";
	case json_error_numeric_overflow: return "a number too large to represent";
	default: return "not valid JSON syntax (a JSON object is expected)";
	}
}

/* buf parsed as JSON; NULL with "NAME: invalid JSON at line L column C:
 * problem" (never a quote of buf). */
static json_t *hb_cmp_parse(const char *buf, size_t len, const char *name, char *err,
			    size_t errlen)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, HB_CMP_JSON_FLAGS, &je);

	if (!root)
		snprintf(err, errlen, "%s: invalid JSON at line %d column %d: %s", name, je.line,
			 je.column, hb_cmp_json_problem(&je));
	return root;
}

struct hb_cmp_run *hb_cmp_load_json(json_t *root, const char *name, char *err, size_t errlen)
{
	return hb_cmp_load_tree(root, name, false, err, errlen);
}

struct hb_cmp_run *hb_cmp_load_buf(const char *buf, size_t len, const char *name, char *err,
				   size_t errlen)
{
	json_t *root = hb_cmp_parse(buf, len, name, err, errlen);

	return root ? hb_cmp_load_json(root, name, err, errlen) : NULL;
}

/* Tokens that start a JSON node outside strings ('[' '{' ',' ':'): an upper
 * bound near the number of values and keys jansson will allocate. */
static size_t hb_cmp_tokens(const char *b, size_t len)
{
	size_t n = 1;
	bool in = false;

	for (size_t i = 0; i < len; i++) {
		char ch = b[i];

		if (in) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in = false;
		} else if (ch == '"') {
			in = true;
		} else if (ch == '[' || ch == '{' || ch == ',' || ch == ':') {
			n++;
		}
	}
	return n;
}

/* What all documents held at once may take: HUGEBENCH_COMPARE_MEM_MB, or
 * half the machine's memory; 0 with err set for a bad variable. */
static size_t hb_cmp_mem_budget(char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	const char *v = getenv("HUGEBENCH_COMPARE_MEM_MB");
	unsigned long long mb;
	char *end;

	if (v) {
		errno = 0;
		mb = strtoull(v, &end, 10);
		if (errno || end == v || *end || *v == '-' || !mb || mb > (1ULL << 30)) {
			snprintf(err, errlen, "HUGEBENCH_COMPARE_MEM_MB: not a number of MB from 1 "
				 "to 1073741824; unset it for half of this machine's memory");
			return 0;
		}
		return (size_t)mb << 20;
	}
	return pages > 0 && psz > 0 ? (size_t)pages / 2 * (size_t)psz : (size_t)4 << 30;
}

/* Refuses, before parsing, a document whose tree would be out of proportion
 * to its bytes or would not fit beside what is already held (issue 38: a
 * 100 MB file of small values cost 4.1 GB, a 100 000-run group 3.3 GB). */
static bool hb_cmp_fits(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	size_t tok = hb_cmp_tokens(buf, len), need = tok * HB_CMP_BYTES_PER_TOKEN + len;
	size_t held = mallinfo2().uordblks, budget = hb_cmp_mem_budget(err, errlen);

	if (!budget)
		return false;
	if (tok > len / HB_CMP_MIN_BYTES_PER_TOKEN + 64) {
		snprintf(err, errlen, "%s: %zu JSON values in %zu bytes, more than one per %d bytes: "
			 "not a file hugebench writes (its tree would take %zu MB), not read", path,
			 tok, len, HB_CMP_MIN_BYTES_PER_TOKEN, need >> 20);
		return false;
	}
	if (need > budget || held > budget - need) {
		snprintf(err, errlen, "%s: reading it would take about %zu MB beside the %zu MB "
			 "already held, over the limit of %zu MB (HUGEBENCH_COMPARE_MEM_MB, "
			 "default half of this machine's memory): compare fewer or smaller runs",
			 path, need >> 20, held >> 20, budget >> 20);
		return false;
	}
	return true;
}

/* A file's bytes parsed, once hb_cmp_fits() allows it; NULL with err. */
static json_t *hb_cmp_parse_file(const char *path, const char *buf, size_t len, char *err,
				 size_t errlen)
{
	return hb_cmp_fits(path, buf, len, err, errlen) ? hb_cmp_parse(buf, len, path, err, errlen)
							 : NULL;
}

json_t *hb_cmp_read_json(const char *path, char *err, size_t errlen)
{
	/* the one gate of user-named files: regular, no FIFO wait, bounded;
	 * read whole, then parsed from memory (json_loadf() takes one getc()
	 * per byte, json_loadfd() one read()) */
	size_t len = 0;
	char *buf = hb_userfile_read(path, HB_CMP_MAX_FILE, &len, err, errlen);
	json_t *root = buf ? hb_cmp_parse_file(path, buf, len, err, errlen) : NULL;

	free(buf);
	return root;
}

struct hb_cmp_run *hb_cmp_load(const char *path, char *err, size_t errlen)
{
	json_t *root = hb_cmp_read_json(path, err, errlen);

	return root ? hb_cmp_load_json(root, path, err, errlen) : NULL;
}

struct hb_cmp_run *hb_cmp_load_for(const char *path, enum hb_cmp_use use, char *err,
				   size_t errlen)
{
	static const char base[] = "result.json";
	size_t plen = strlen(path), bl = sizeof(base) - 1, len = 0;
	char cerr[64], *cpath = NULL, *text;
	json_t *c = NULL, *root;

	if (use != HB_CMP_USE_RULE || plen < bl || strcmp(path + plen - bl, base) ||
	    (plen > bl && path[plen - bl - 1] != '/'))
		return hb_cmp_load(path, err, errlen);
	/* result.json is read once: hashed against the compact file, and
	 * parsed itself when that is absent, unreadable, broken or stale */
	if (!(text = hb_userfile_read(path, HB_CMP_MAX_FILE, &len, err, errlen)))
		return NULL;
	if (asprintf(&cpath, "%.*s%s", (int)(plen - bl), path, HB_RESULT_COMPACT_NAME) >= 0) {
		c = hb_cmp_read_json(cpath, cerr, sizeof(cerr));
		free(cpath);
	}
	if (c && hb_result_compact_matches(c, text, len)) {
		/* a cache: one the loader refuses sends it to result.json too */
		struct hb_cmp_run *r = hb_cmp_load_tree(c, path, true, err, errlen);

		if (r) {
			free(text);
			return r;
		}
		c = NULL; /* the run took it and freed it */
	}
	json_decref(c);
	root = hb_cmp_parse_file(path, text, len, err, errlen);
	free(text);
	return root ? hb_cmp_load_json(root, path, err, errlen) : NULL;
}

void hb_cmp_run_free(struct hb_cmp_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_workloads; i++) {
		struct hb_cmp_workload *w = &r->workloads[i];

		for (size_t j = 0; j < w->n_metrics; j++) {
			free(w->metrics[j].samples);
			free(w->metrics[j].rep_means);
		}
		for (size_t j = 0; j < w->n_snaps; j++) {
			free(w->snaps[j].meminfo);
			free(w->snaps[j].vmstat);
		}
		free(w->metrics);
		free(w->checks);
		free(w->snaps);
	}
	free(r->workloads);
	free(r->issues);
	json_decref(r->root);
	free(r->path);
	free(r);
}

/* ---- resolving a user argument to a result.json ----------------------------- */

static bool hb_cmp_is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static bool hb_cmp_is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Exists but is neither a regular file nor a folder (FIFO, device...). */
static bool hb_cmp_is_other(const char *p)
{
	struct stat st;

	return !stat(p, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The run of a folder: its result.json, else its group.json (a run group),
 * written to buf; false when it has neither. */
static bool hb_cmp_entry(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/result.json", dir);
	if (hb_cmp_is_file(buf))
		return true;
	snprintf(buf, len, "%s/group.json", dir);
	return hb_cmp_is_file(buf);
}

/* Lexically greatest subfolder of dir holding a result.json or a group.json
 * ("<UTC>-<suite>", optionally only that suite): a run or a run group. */
static char *hb_cmp_latest(const char *dir, const char *suite)
{
	char best[256] = "", cand[4096], sub[4096];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		const char *dash = strchr(de->d_name, '-');

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(best))
			continue;
		if (suite && (!dash || strcmp(dash + 1, suite)))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (hb_cmp_entry(sub, cand, sizeof(cand)) && strcmp(de->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return NULL;
	snprintf(sub, sizeof(sub), "%s/%s", dir, best);
	hb_cmp_entry(sub, cand, sizeof(cand));
	return strdup(cand);
}

char *hb_cmp_resolve(const char *arg, const char *results_dir, const char *suite, char *err,
		     size_t errlen)
{
	char buf[4096];
	char *p;

	if (hb_cmp_is_file(arg))
		return strdup(arg);
	if (hb_cmp_is_other(arg)) {
		snprintf(err, errlen, "%s: not a regular file", arg);
		return NULL;
	}
	if (hb_cmp_is_dir(arg)) {
		if (hb_cmp_entry(arg, buf, sizeof(buf)))
			return strdup(buf);
		snprintf(buf, sizeof(buf), "%s/result.json", arg);
		if (hb_cmp_is_other(buf) || hb_cmp_is_dir(buf)) {
			snprintf(err, errlen, "%s: not a regular file", buf);
			return NULL;
		}
		/* results/<target>: take its latest run */
		if ((p = hb_cmp_latest(arg, suite)))
			return p;
		snprintf(err, errlen, "%s: no result.json or group.json in this folder%s%s", arg,
			 suite ? " nor a run of suite " : "", suite ? suite : "");
		return NULL;
	}
	if (!strchr(arg, '/')) {
		snprintf(buf, sizeof(buf), "%s/%s", results_dir, arg);
		if ((p = hb_cmp_latest(buf, suite)))
			return p;
		if (hb_cmp_is_dir(buf))
			snprintf(err, errlen, "%s: target has no run%s%s under %s", arg,
				 suite ? " of suite " : "", suite ? suite : "", buf);
		else
			snprintf(err, errlen,
				 "%s: not a result folder, a result.json, nor a target with runs "
				 "under %s/", arg, results_dir);
		return NULL;
	}
	snprintf(err, errlen, "%s: %s", arg, strerror(ENOENT));
	return NULL;
}
