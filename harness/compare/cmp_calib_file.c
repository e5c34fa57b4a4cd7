/* cmp_calib_file.c - the calibration file of compare-report (schema
 * hugebench-calibration/2, written by `hugebench calibrate`): writing it,
 * reading and validating it (one line naming the file and the field on
 * error; version 1 files, which record no boot, are refused with a line
 * that says to recalibrate), looking a metric's boot sd up, freeing it.
 * What a calibration holds and when it is used: cmp_calib.c.
 */
#define _DEFAULT_SOURCE
#include "cmp_calib.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hb_cmp_calib_free(struct hb_cmp_calib *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->m[i].key);
		free(c->m[i].centers);
	}
	free(c->m);
	if (c->ix)
		hb_cmp_idx_free(c->ix);
	free(c->ix);
	free(c->path);
	free(c->host_cpu);
	free(c->accelerator);
	free(c->suite);
	free(c->family);
	free(c->target);
	free(c->created);
	free(c->group);
	free(c->clock);
	free(c->host);
	free(c->boots_from);
	free(c->boots_to);
	for (size_t i = 0; c->boot && i < c->boots; i++) {
		free(c->boot[i].run);
		free(c->boot[i].clock);
		free(c->boot[i].qemu_version);
		free(c->boot[i].host_kernel);
		free(c->boot[i].started);
		free(c->boot[i].ended);
	}
	free(c->boot);
	free(c);
}

int hb_cmp_calib_index(struct hb_cmp_calib *c)
{
	c->ix = calloc(1, sizeof(*c->ix));
	if (!c->ix)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		if (!hb_cmp_idx_put(c->ix, NULL, c->m[i].key, NULL, NULL, i, NULL))
			return -1;
	return 0;
}

double hb_cmp_calib_sd(const struct hb_cmp_calib *c, const char *wl_label, const char *metric,
		       size_t *boots)
{
	size_t len, *v;
	char small[256], *key;
	double sd = NAN;

	if (boots)
		*boots = 0;
	if (!c || !c->ix)
		return NAN;
	len = strlen(wl_label) + strlen(metric) + 2;
	key = len <= sizeof(small) ? small : malloc(len);
	if (!key)
		return NAN;
	snprintf(key, len, "%s.%s", wl_label, metric);
	v = hb_cmp_idx_get(c->ix, NULL, key, NULL, NULL);
	if (v) {
		sd = c->m[*v].sd_robust;
		if (boots)
			*boots = c->m[*v].used;
	}
	if (key != small)
		free(key);
	return sd;
}

bool hb_cmp_calib_ref(const struct hb_cmp_calib *c, const char *wl_label, const char *metric,
		      struct hb_cmp_calref *out)
{
	size_t len, *v = NULL;
	char small[256], *key;

	*out = (struct hb_cmp_calref){ .sd = NAN, .lo = NAN, .hi = NAN };
	if (!c || !c->ix)
		return false;
	len = strlen(wl_label) + strlen(metric) + 2;
	key = len <= sizeof(small) ? small : malloc(len);
	if (!key)
		return false;
	snprintf(key, len, "%s.%s", wl_label, metric);
	v = hb_cmp_idx_get(c->ix, NULL, key, NULL, NULL);
	if (key != small)
		free(key);
	if (!v)
		return false;
	out->sd = c->m[*v].sd_robust;
	out->boots = c->m[*v].used;
	if (c->m[*v].centers)
		hb_cmp_calib_span(c->m[*v].centers, c->m[*v].n, c->m[*v].dropped, &out->lo,
				  &out->hi);
	return true;
}

/* ---- the file -------------------------------------------------------------------- */

static json_t *hb_cmp_jstr_or_null(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;

	return j ? j : json_null();
}

static json_t *hb_cmp_jreal_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

int hb_cmp_calib_save(const struct hb_cmp_calib *c, const char *path, char *err, size_t errlen)
{
	json_t *root = json_object(), *ms = json_object(), *bs = json_array();
	char tmp[4200];
	int ret = -1;

	for (size_t i = 0; i < c->n; i++) {
		json_t *cs = json_array();

		for (size_t k = 0; c->m[i].centers && k < c->m[i].n; k++)
			json_array_append_new(cs, json_real(c->m[i].centers[k]));
		json_object_set_new(ms, c->m[i].key,
				    json_pack("{s:f, s:f, s:I, s:o, s:f, s:o}", "sd_log", c->m[i].sd_log,
					      "center", c->m[i].center, "boots", (json_int_t)c->m[i].n,
					      "centers", cs, "sd_log_robust", c->m[i].sd_robust,
					      "dropped_boot", c->m[i].dropped < c->m[i].n
								  ? json_integer((json_int_t)c->m[i].dropped + 1)
								  : json_null()));
	}
	for (size_t i = 0; i < c->boots; i++) {
		const struct hb_cmp_calib_boot *b = &c->boot[i];

		json_array_append_new(bs, json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:[o, o]}",
						    "run",
						    hb_cmp_jstr_or_null(b->run), "clock", b->clock,
						    "vcpus", b->vcpus >= 0 ? json_integer(b->vcpus)
									   : json_null(),
						    "memory_mb", b->memory_mb >= 0
								 ? json_integer(b->memory_mb) : json_null(),
						    "qemu_version", hb_cmp_jstr_or_null(b->qemu_version),
						    "host_kernel", hb_cmp_jstr_or_null(b->host_kernel),
						    "started", hb_cmp_jstr_or_null(b->started),
						    "ended", hb_cmp_jstr_or_null(b->ended),
						    "load1", hb_cmp_jreal_or_null(b->load1[0]),
						    hb_cmp_jreal_or_null(b->load1[1])));
	}
	json_object_set_new(root, "schema", json_string(HB_CMP_CALIB_SCHEMA));
	json_object_set_new(root, "host_cpu", json_string(c->host_cpu));
	json_object_set_new(root, "accelerator", json_string(c->accelerator));
	json_object_set_new(root, "clock", json_string(c->clock));
	json_object_set_new(root, "suite", json_string(c->suite));
	json_object_set_new(root, "kernel_family", json_string(c->family));
	json_object_set_new(root, "target", json_string(c->target));
	json_object_set_new(root, "group", json_string(c->group));
	json_object_set_new(root, "boots", json_integer((json_int_t)c->boots));
	json_object_set_new(root, "boot_env", bs);
	json_object_set_new(root, "created", json_string(c->created));
	json_object_set_new(root, "center_rule", json_integer(c->center_rule));
	json_object_set_new(root, "made",
			    json_pack("{s:o, s:o, s:[o, o, o], s:o, s:o, s:s, s:o, s:I, s:s}", "host",
				      hb_cmp_jstr_or_null(c->host), "host_cpus",
				      c->host_cpus > 0 ? json_integer(c->host_cpus) : json_null(),
				      "loadavg", hb_cmp_jreal_or_null(c->load[0]),
				      hb_cmp_jreal_or_null(c->load[1]), hb_cmp_jreal_or_null(c->load[2]),
				      "boots_from", hb_cmp_jstr_or_null(c->boots_from), "boots_to",
				      hb_cmp_jstr_or_null(c->boots_to), "boots_span",
				      c->boots_span_exact
					      ? "exact: the first boot's start to the last boot's end"
					      : "run start only: these boots recorded no start or end "
						"(their created is their run's start)",
				      "boots_load1",
				      isnan(c->boots_load1[0])
					      ? json_null()
					      : json_pack("[f, f]", c->boots_load1[0], c->boots_load1[1]),
				      "boots_with_load", (json_int_t)c->boots_with_load,
				      "by", "hugebench calibrate"));
	json_object_set_new(root, "made_note",
			    json_string("made.loadavg: the host's load when this file was written; "
					"made.boots_load1: the lowest and highest 1-minute load "
					"average the boots recorded at their start and end (null: "
					"they recorded none)"));
	json_object_set_new(root, "sd_log",
			    json_string("per metric: sample sd of log(boot center) over the boots "
					"(sd_log_robust: without an outlier boot, what the rule uses); "
					"boot center = the mean of the boot's samples; the median for "
					">= 5 per repetition on the wall clock (center_rule 2)"));
	json_object_set_new(root, "metrics", ms);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_dump_file(root, tmp, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8)))
		snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
	else if (rename(tmp, path))
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	else
		ret = 0;
	if (ret)
		unlink(tmp);
	json_decref(root);
	return ret;
}

static const char *hb_cmp_cstr(json_t *root, const char *key, const char *path, char *err,
			       size_t errlen)
{
	json_t *v = json_object_get(root, key);

	if (json_is_string(v) && *json_string_value(v))
		return json_string_value(v);
	if (!err[0])
		snprintf(err, errlen, "%s: %s: %s", path, key,
			 !v ? "missing" : json_is_string(v) ? "empty" : "expected a string");
	return NULL;
}

static bool hb_cmp_is_clock(const char *s)
{
	return s && (!strcmp(s, "virtual") || !strcmp(s, "wall"));
}

/* boot_env[i]: its fields into b; -1 with err. */
static int hb_cmp_calib_load_boot(json_t *e, size_t i, const char *path,
				  struct hb_cmp_calib_boot *b, char *err, size_t errlen)
{
	static const char *const strs[5] = { "run", "qemu_version", "host_kernel", "started",
					     "ended" };
	char **dst[5] = { &b->run, &b->qemu_version, &b->host_kernel, &b->started, &b->ended };
	json_t *clock = json_object_get(e, "clock");
	json_t *l1 = json_object_get(e, "load1");

	b->vcpus = b->memory_mb = -1;
	for (int k = 0; k < 2; k++) {
		json_t *x = json_array_get(l1, (size_t)k);

		b->load1[k] = json_is_number(x) ? json_number_value(x) : NAN;
	}
	if (!json_is_object(e)) {
		snprintf(err, errlen, "%s: boot_env[%zu]: expected an object", path, i);
		return -1;
	}
	if (!hb_cmp_is_clock(json_string_value(clock))) {
		snprintf(err, errlen, "%s: boot_env[%zu].clock: %s", path, i,
			 clock ? "not one of virtual|wall" : "missing");
		return -1;
	}
	if (!(b->clock = strdup(json_string_value(clock))))
		goto oom;
	for (int k = 0; k < 5; k++) {
		json_t *v = json_object_get(e, strs[k]);

		if (!v || json_is_null(v))
			continue;
		if (!json_is_string(v)) {
			snprintf(err, errlen, "%s: boot_env[%zu].%s: expected a string or null", path, i,
				 strs[k]);
			return -1;
		}
		if (!(*dst[k] = strdup(json_string_value(v))))
			goto oom;
	}
	for (int k = 0; k < 2; k++) {
		json_t *x = json_object_get(e, k ? "memory_mb" : "vcpus");

		if (!x || json_is_null(x))
			continue;
		if (!json_is_integer(x) || json_integer_value(x) < 1 ||
		    json_integer_value(x) > 1 << 30) {
			snprintf(err, errlen, "%s: boot_env[%zu].%s: expected a positive integer or "
				 "null", path, i, k ? "memory_mb" : "vcpus");
			return -1;
		}
		*(k ? &b->memory_mb : &b->vcpus) = (long)json_integer_value(x);
	}
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
	return -1;
}

struct hb_cmp_calib *hb_cmp_calib_load(const char *path, char *err, size_t errlen)
{
	json_t *root = hb_cmp_read_json(path, err, errlen), *ms, *v, *bs;
	struct hb_cmp_calib *c;
	const char *key, *s[8];
	size_t cap = 0;

	if (!root)
		return NULL;
	err[0] = 0;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto bad;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: (top level): expected a JSON object", path);
		goto bad;
	}
	s[0] = hb_cmp_cstr(root, "schema", path, err, errlen);
	if (s[0] && !strcmp(s[0], "hugebench-calibration/1")) {
		snprintf(err, errlen, "%s: schema hugebench-calibration/1 records no boot's clock, "
			 "vCPUs, memory, QEMU or host kernel: recalibrate (hugebench calibrate TARGET "
			 "--boots 10 --suite S, or hugebench calibrate --from GROUP)", path);
		goto bad;
	}
	if (s[0] && strcmp(s[0], HB_CMP_CALIB_SCHEMA)) {
		snprintf(err, errlen, "%s: schema: not %s", path, HB_CMP_CALIB_SCHEMA);
		goto bad;
	}
	s[1] = hb_cmp_cstr(root, "host_cpu", path, err, errlen);
	s[2] = hb_cmp_cstr(root, "accelerator", path, err, errlen);
	s[3] = hb_cmp_cstr(root, "suite", path, err, errlen);
	s[4] = hb_cmp_cstr(root, "kernel_family", path, err, errlen);
	s[7] = hb_cmp_cstr(root, "clock", path, err, errlen);
	s[5] = json_string_value(json_object_get(root, "target"));
	s[6] = json_string_value(json_object_get(root, "created"));
	if (!err[0] && !hb_cmp_is_clock(s[7]))
		snprintf(err, errlen, "%s: clock: not one of virtual|wall", path);
	v = json_object_get(root, "boots");
	if (!err[0] && !(json_is_integer(v) && json_integer_value(v) >= 2 &&
			 json_integer_value(v) <= 1000000))
		snprintf(err, errlen, "%s: boots: expected an integer >= 2", path);
	bs = json_object_get(root, "boot_env");
	if (!err[0] && !(json_is_array(bs) && json_array_size(bs) == (size_t)json_integer_value(v)))
		snprintf(err, errlen, "%s: boot_env: %s", path,
			 !bs ? "missing" : "expected an array of one object per boot");
	ms = json_object_get(root, "metrics");
	if (!err[0] && !json_is_object(ms))
		snprintf(err, errlen, "%s: metrics: %s", path, ms ? "expected an object" : "missing");
	if (err[0])
		goto bad;
	c->boots = (size_t)json_integer_value(v);
	c->boot = calloc(c->boots, sizeof(*c->boot));
	c->host_cpu = strdup(s[1]);
	c->accelerator = strdup(s[2]);
	c->suite = strdup(s[3]);
	c->family = strdup(s[4]);
	c->clock = strdup(s[7]);
	c->target = hb_cmp_calib_dup(s[5]);
	c->created = hb_cmp_calib_dup(s[6]);
	c->group = hb_cmp_calib_dup(json_string_value(json_object_get(root, "group")));
	v = json_object_get(root, "center_rule");
	if (v && !(json_is_integer(v) && json_integer_value(v) >= 1 &&
		   json_integer_value(v) <= HB_CMP_CENTER_RULE)) {
		snprintf(err, errlen, "%s: center_rule: expected an integer from 1 to %d", path,
			 HB_CMP_CENTER_RULE);
		goto bad;
	}
	c->center_rule = v ? (int)json_integer_value(v) : 1;
	{
		json_t *made = json_object_get(root, "made"), *la = json_object_get(made, "loadavg");
		const char *h = json_string_value(json_object_get(made, "host"));
		const char *bf = json_string_value(json_object_get(made, "boots_from"));
		const char *bt = json_string_value(json_object_get(made, "boots_to"));
		json_t *cpus = json_object_get(made, "host_cpus");

		c->host = h ? strdup(h) : NULL;
		c->boots_from = bf ? strdup(bf) : NULL;
		c->boots_to = bt ? strdup(bt) : NULL;
		c->host_cpus = json_is_integer(cpus) ? (long)json_integer_value(cpus) : -1;
		c->boots_span_exact = json_is_string(json_object_get(made, "boots_span")) &&
				      !strncmp(json_string_value(json_object_get(made, "boots_span")),
					       "exact", 5);
		for (int k = 0; k < 2; k++) {
			json_t *x = json_array_get(json_object_get(made, "boots_load1"), (size_t)k);

			c->boots_load1[k] = json_is_number(x) ? json_number_value(x) : NAN;
		}
		c->boots_with_load = json_is_integer(json_object_get(made, "boots_with_load"))
					     ? (size_t)json_integer_value(
						       json_object_get(made, "boots_with_load"))
					     : 0;
		for (int k = 0; k < 3; k++) {
			json_t *x = json_array_get(la, (size_t)k);

			c->load[k] = json_is_number(x) ? json_number_value(x) : NAN;
		}
	}
	if (!c->boot || !c->host_cpu || !c->accelerator || !c->suite || !c->family || !c->clock ||
	    !c->target || !c->created || !c->group) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto bad;
	}
	for (size_t i = 0; i < c->boots; i++)
		if (hb_cmp_calib_load_boot(json_array_get(bs, i), i, path, &c->boot[i], err, errlen))
			goto bad;
	json_object_foreach(ms, key, v) {
		struct hb_cmp_calib_metric m = { 0 };
		json_t *sd = json_object_get(v, "sd_log"), *nb = json_object_get(v, "boots");
		json_t *center = json_object_get(v, "center"), *cs = json_object_get(v, "centers");

		if (!json_is_object(v) || !json_is_number(sd) || !isfinite(json_number_value(sd)) ||
		    json_number_value(sd) < 0 || json_number_value(sd) > 100 ||
		    !json_is_integer(nb) || json_integer_value(nb) < 2 ||
		    json_integer_value(nb) > 1000000) {
			/* the key is a metric name from a result file: not quoted */
			snprintf(err, errlen, "%s: metrics: an entry without a valid sd_log (a number "
				 "from 0 to 100) and boots (an integer >= 2)", path);
			goto bad;
		}
		m.key = strdup(key);
		m.sd_log = json_number_value(sd);
		m.n = (size_t)json_integer_value(nb);
		m.center = json_is_number(center) ? json_number_value(center) : NAN;
		if (m.key && json_is_array(cs) && json_array_size(cs) == m.n) {
			m.centers = malloc(m.n * sizeof(double));
			for (size_t k = 0; m.centers && k < m.n; k++)
				m.centers[k] = json_number_value(json_array_get(cs, k));
		}
		/* the robust scale is recomputed from the centers (a file written
		 * before it existed holds the plain sd only); without centers the
		 * plain sd is all there is */
		m.sd_robust = m.centers ? hb_cmp_calib_scale(m.centers, m.n, &m.used, &m.dropped)
					: NAN;
		if (isnan(m.sd_robust)) {
			m.sd_robust = m.sd_log;
			m.used = m.dropped = m.n;
		}
		if (!m.key || hb_cmp_append((void **)&c->m, &c->n, &cap, sizeof(m), &m)) {
			free(m.key);
			free(m.centers);
			snprintf(err, errlen, "%s: out of memory", path);
			goto bad;
		}
	}
	if (hb_cmp_calib_index(c)) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto bad;
	}
	json_decref(root);
	return c;
bad:
	json_decref(root);
	hb_cmp_calib_free(c);
	return NULL;
}
