/* ext_parse.c - pure parsers of fio json+, stress-ng YAML and kselftest
 * output (see ext_parse.h). Linked into hb-guest and the unit tests. */
#define _GNU_SOURCE
#include "ext_parse.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fio ---------------------------------------------------------------- */

static double num_or_nan(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double pct(json_t *clat, const char *key)
{
	return num_or_nan(json_object_get(clat, "percentile"), key);
}

static void fio_dir(json_t *d, struct hb_fio_dir *o)
{
	json_t *clat = json_object_get(d, "clat_ns");

	o->io_bytes = (long long)json_integer_value(json_object_get(d, "io_bytes"));
	o->total_ios = (long long)json_integer_value(json_object_get(d, "total_ios"));
	o->bw_kib_s = num_or_nan(d, "bw");
	o->iops = num_or_nan(d, "iops");
	o->clat_mean_ns = num_or_nan(clat, "mean");
	o->clat_p50_ns = pct(clat, "50.000000");
	o->clat_p90_ns = pct(clat, "90.000000");
	o->clat_p99_ns = pct(clat, "99.000000");
	o->clat_p999_ns = pct(clat, "99.900000");
}

int hb_fio_parse(const char *text, size_t len, struct hb_fio_result *r, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	json_error_t je;
	json_t *root, *jobs, *j;
	size_t i;

	memset(r, 0, sizeof(*r));
	while (p < end && *p != '{') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	if (p >= end) {
		snprintf(err, errlen, "fio wrote no JSON (no line starts with '{')");
		return -1;
	}
	root = json_loadb(p, (size_t)(end - p), JSON_DISABLE_EOF_CHECK, &je);
	if (!root) {
		snprintf(err, errlen, "fio's JSON does not parse: %s (line %d)", je.text, je.line);
		return -1;
	}
	jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs) || !json_array_size(jobs)) {
		snprintf(err, errlen, "fio's JSON has no \"jobs\" list");
		json_decref(root);
		return -1;
	}
	snprintf(r->version, sizeof(r->version), "%s",
		 json_string_value(json_object_get(root, "fio version")) ?: "");
	json_array_foreach(jobs, i, j) {
		struct hb_fio_job *o;

		if (r->n_jobs >= HB_FIO_MAX_JOBS)
			break;
		o = &r->jobs[r->n_jobs++];
		snprintf(o->name, sizeof(o->name), "%s",
			 json_string_value(json_object_get(j, "jobname")) ?: "");
		o->error = (int)json_integer_value(json_object_get(j, "error"));
		fio_dir(json_object_get(j, "read"), &o->read);
		fio_dir(json_object_get(j, "write"), &o->write);
	}
	json_decref(root);
	return 0;
}

/* ---- stress-ng ----------------------------------------------------------- */

/* "  key: value" -> key and value (trimmed); false for other lines. */
static bool yaml_kv(const char *line, size_t n, char *key, size_t klen, char *val, size_t vlen)
{
	const char *colon, *e = line + n;
	size_t kl, vl;

	while (line < e && (*line == ' ' || *line == '-'))
		line++;
	colon = memchr(line, ':', (size_t)(e - line));
	if (!colon || colon == line)
		return false;
	kl = (size_t)(colon - line);
	if (kl >= klen)
		kl = klen - 1;
	memcpy(key, line, kl);
	key[kl] = 0;
	colon++;
	while (colon < e && *colon == ' ')
		colon++;
	while (e > colon && (e[-1] == ' ' || e[-1] == '\r'))
		e--;
	vl = (size_t)(e - colon);
	if (vl >= vlen)
		vl = vlen - 1;
	memcpy(val, colon, vl);
	val[vl] = 0;
	return true;
}

static bool parse_num(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return false;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static void sng_set(struct hb_sng_stressor *s, const char *key, const char *val)
{
	double v;

	if (!parse_num(val, &v))
		return;
	if (!strcmp(key, "bogo-ops"))
		s->bogo_ops = v;
	else if (!strcmp(key, "bogo-ops-per-second-real-time"))
		s->ops_s_real = v;
	else if (!strcmp(key, "bogo-ops-per-second-usr-sys-time"))
		s->ops_s_cpu = v;
	else if (!strcmp(key, "wall-clock-time"))
		s->wall_s = v;
	else if (!strncmp(key, "nanosecs-per-", 13) && s->n_extra < HB_SNG_MAX_EXTRA) {
		snprintf(s->extra[s->n_extra].key, sizeof(s->extra[0].key), "%s", key);
		s->extra[s->n_extra++].val = v;
	}
}

int hb_sng_parse_yaml(const char *text, struct hb_sng_result *r, char *err, size_t errlen)
{
	enum { NONE, INFO, METRICS } sect = NONE;
	struct hb_sng_stressor *cur = NULL;
	const char *p = text;
	bool seen = false;

	memset(r, 0, sizeof(*r));
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char key[64], val[128];

		if (n && p[0] != ' ' && p[0] != '-' && p[0] != '.') {
			sect = !strncmp(p, "system-info:", 12) ? INFO
			     : !strncmp(p, "metrics:", 8)     ? METRICS
							      : NONE;
			seen |= sect != NONE;
			cur = NULL;
		} else if (sect != NONE && yaml_kv(p, n, key, sizeof(key), val, sizeof(val))) {
			bool item = memchr(p, '-', n) && strspn(p, " ") < n && p[strspn(p, " ")] == '-';

			if (sect == INFO && !strcmp(key, "stress-ng-version")) {
				snprintf(r->version, sizeof(r->version), "%s", val);
			} else if (sect == METRICS && item && !strcmp(key, "stressor")) {
				cur = r->n < HB_SNG_MAX ? &r->s[r->n++] : NULL;
				if (cur) {
					snprintf(cur->name, sizeof(cur->name), "%s", val);
					cur->bogo_ops = cur->ops_s_real = cur->ops_s_cpu = cur->wall_s = NAN;
				}
			} else if (sect == METRICS && cur) {
				sng_set(cur, key, val);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!seen) {
		snprintf(err, errlen, "not stress-ng YAML (no system-info: or metrics: section)");
		return -1;
	}
	return 0;
}

int hb_sng_count_fail(const char *log, char *first, size_t len)
{
	const char *p = log;
	int n = 0;

	if (len)
		first[0] = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);

		if (ll >= 17 && !strncmp(p, "stress-ng: fail:", 16)) {
			if (!n++ && len)
				snprintf(first, len, "%.*s", (int)ll, p);
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

const char *hb_sng_exit_meaning(int code)
{
	switch (code) {
	case 0: return "success";
	case 1: return "error in the arguments or an internal error";
	case 2: return "a stressor failed";
	case 3: return "a stressor ran out of resources";
	case 4: return "a stressor is not implemented on this system";
	case 5: return "killed by a signal";
	case 6: return "stress-ng was killed by an unexpected signal";
	case 7: return "metrics failed (bogo ops counter corrupted)";
	}
	return "";
}

/* ---- kselftest ------------------------------------------------------------- */

/* name from text: [A-Za-z0-9_.-], other runs as one '_', trimmed. */
static void clean_name(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c == '.' && o && dst[o - 1] == '_') {
			dst[o - 1] = '.';
		} else if (isalnum(c) || c == '.' || c == '-') {
			dst[o++] = (char)c;
		} else if (o && dst[o - 1] != '_') {
			dst[o++] = '_';
		}
	}
	while (o && (dst[o - 1] == '_' || dst[o - 1] == '.'))
		o--;
	dst[o] = 0;
	if (!o)
		snprintf(dst, len, "unnamed");
}

static void add_case(struct hb_kst_result *r, const char *name, size_t nlen,
		     enum hb_kst_status st, const char *reason, size_t rlen)
{
	struct hb_kst_case *c;

	if (r->n >= HB_KST_MAX) {
		r->truncated = true;
		return;
	}
	c = &r->c[r->n++];
	clean_name(c->name, sizeof(c->name), name, nlen);
	c->st = st;
	snprintf(c->reason, sizeof(c->reason), "%.*s", (int)rlen, reason);
}

/* Parser state across lines: the last "# [RUN] what" line names the next
 * result (kselftest_harness-style programs print the test there and only a
 * reason on the result line), and a "check dmesg" line turns the next ok
 * into a skip: such a test verified nothing itself. */
struct kst_state {
	char run[96];
	bool vacuous, tap;
};

static void add_numbered(struct hb_kst_result *r, const char *num, size_t numlen, const char *name,
			 size_t nlen, enum hb_kst_status st, const char *reason, size_t rlen)
{
	char buf[200];
	int w = snprintf(buf, sizeof(buf), "%.*s-%.*s", (int)numlen, num, (int)nlen, name);

	add_case(r, buf, w < 0 ? 0 : (size_t)w >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)w, st,
		 reason, rlen);
}

/* "ok 3 desc # SKIP why" / "not ok 3 desc"; true when the line is one. */
static bool tap_line(struct hb_kst_result *r, struct kst_state *ks, const char *p, size_t n)
{
	bool ok = true;
	const char *e = p + n, *hash, *d, *num, *why = NULL, *name;
	size_t numlen, dlen, nlen;
	enum hb_kst_status st;

	if (n >= 7 && !strncmp(p, "not ok ", 7)) {
		ok = false;
		p += 7;
	} else if (n >= 3 && !strncmp(p, "ok ", 3)) {
		p += 3;
	} else {
		return false;
	}
	num = p;
	while (p < e && isdigit((unsigned char)*p))
		p++;
	numlen = (size_t)(p - num);
	while (p < e && *p == ' ')
		p++;
	d = p;
	hash = memmem(d, (size_t)(e - d), " # ", 3);
	if (!hash && e - d >= 2 && !strncmp(d, "# ", 2))
		hash = d - 1;
	dlen = hash ? (size_t)(hash > d ? hash - d : 0) : (size_t)(e - d);
	st = ok ? HB_KST_PASS : HB_KST_FAIL;
	if (hash && (size_t)(e - hash) >= 7 && !strncasecmp(hash + 3, "SKIP", 4)) {
		st = HB_KST_SKIP;
		why = hash + 7;
		while (why < e && (*why == ' ' || *why == ':'))
			why++;
	}
	/* the name: the [RUN] line when there was one, else the description */
	name = ks->run[0] ? ks->run : d;
	nlen = ks->run[0] ? strlen(ks->run) : dlen;
	if (!nlen && why) {
		name = why;
		nlen = (size_t)(e - why);
	}
	if (st == HB_KST_SKIP)
		add_numbered(r, num, numlen, name, nlen, st, why < e ? why : "skipped",
			     why < e ? (size_t)(e - why) : 7);
	else if (st == HB_KST_PASS && ks->vacuous)
		add_numbered(r, num, numlen, name, nlen, HB_KST_SKIP,
			     "the test verified nothing itself (it says: check dmesg)", 55);
	else if (st == HB_KST_FAIL)
		add_numbered(r, num, numlen, name, nlen, st, dlen && ks->run[0] ? d : "not ok",
			     dlen && ks->run[0] ? dlen : 6);
	else
		add_numbered(r, num, numlen, name, nlen, st, "", 0);
	ks->run[0] = 0;
	ks->vacuous = false;
	return true;
}

/* A result of the untagged forms: named "<ordinal>-<Run test context>.<desc>"
 * (6.1's khugepaged repeats each description once per context). */
static void add_untagged(struct hb_kst_result *r, const struct kst_state *ks, const char *d,
			 size_t dlen, enum hb_kst_status st, const char *reason, size_t rlen)
{
	char num[16];
	char buf[200];
	int w = snprintf(buf, sizeof(buf), "%s%s%.*s", ks->run, ks->run[0] ? "." : "", (int)dlen, d);

	snprintf(num, sizeof(num), "%d", r->n + 1);
	add_numbered(r, num, strlen(num), buf,
		     w < 0 ? 0 : (size_t)w >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)w, st, reason,
		     rlen);
}

/* 6.1's khugepaged: "<desc>... \e[32mOK\e[0m" (31m Fail, 33m Skip). */
static bool color_line(struct hb_kst_result *r, const struct kst_state *ks, const char *p, size_t n)
{
	static const struct {
		const char *code;
		enum hb_kst_status st;
	} codes[] = { { "\x1b[32m", HB_KST_PASS }, { "\x1b[31m", HB_KST_FAIL }, { "\x1b[33m", HB_KST_SKIP } };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *m = memmem(p, n, codes[i].code, 5), *w, *we;

		if (!m)
			continue;
		w = m + 5;
		we = memmem(w, n - (size_t)(w - p), "\x1b[0m", 4);
		if (!we)
			we = p + n;
		add_untagged(r, ks, p, (size_t)(m - p), codes[i].st,
			     codes[i].st == HB_KST_PASS ? "" : w,
			     codes[i].st == HB_KST_PASS ? 0 : (size_t)(we - w));
		return true;
	}
	return false;
}

static bool has(const char *p, size_t n, const char *s)
{
	return memmem(p, n, s, strlen(s)) != NULL;
}

void hb_kst_parse(const char *out, int exit_code, struct hb_kst_result *r)
{
	struct kst_state ks = { .tap = false };
	const char *p = out, *last = NULL;
	size_t lastlen = 0;
	int failed = 0;

	memset(r, 0, sizeof(*r));
	r->planned = -1;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *run;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		while (n && p[n - 1] == '\r')
			n--;
		if (n >= 12 && !strncmp(p, "TAP version ", 12)) {
			ks.tap = true;
		} else if (n > 3 && !strncmp(p, "1..", 3) && isdigit((unsigned char)p[3])) {
			long plan = strtol(p + 3, NULL, 10);

			r->planned = plan > INT_MAX ? INT_MAX : (int)plan;
		} else if (n > 8 && (run = memmem(p, n, "# [RUN] ", 8))) {
			snprintf(ks.run, sizeof(ks.run), "%.*s", (int)(n - (size_t)(run + 8 - p)),
				 run + 8);
		} else if (!ks.tap && n > 10 && !strncmp(p, "Run test: ", 10)) {
			/* 6.1 khugepaged: "Run test: collapse_full (khugepaged:shmem)" */
			snprintf(ks.run, sizeof(ks.run), "%.*s", (int)(n - 10), p + 10);
		} else if (tap_line(r, &ks, p, n) || color_line(r, &ks, p, n)) {
			/* recorded */
		} else if (has(p, n, "No THP is allocated")) {
			add_case(r, "thp_allocated", 13, HB_KST_FAIL,
				 "exercised nothing: \"No THP is allocated\"", 40);
		} else if (has(p, n, "check dmesg")) {
			/* TAP: the next ok is vacuous; 6.1: the line is the result */
			if (ks.tap)
				ks.vacuous = true;
			else
				add_untagged(r, &ks, p, n, HB_KST_SKIP,
					     "the test verified nothing itself (it says: check dmesg)",
					     55);
		} else if (!ks.tap && n > 10 && !strncmp(p + n - 10, "successful", 10)) {
			add_untagged(r, &ks, p, n, HB_KST_PASS, "", 0);
		}
		if (n && (p[0] != '#' || n > 2)) {
			last = p;
			lastlen = n;
		}
		p = nl ? nl + 1 : NULL;
	}
	for (int i = 0; i < r->n; i++)
		failed += r->c[i].st == HB_KST_FAIL;
	if (r->planned >= 0 && r->n < r->planned && !r->truncated)
		add_case(r, "plan", 4, HB_KST_FAIL, "the TAP plan was not met (the test stopped early)",
			 49);
	if (exit_code != 0 && exit_code != 4 && !failed) {
		char why[160];
		int w = snprintf(why, sizeof(why), exit_code < 0 ? "killed or timed out" : "exit status %d",
				 exit_code);

		/* the program's last words say why, e.g. "Failed to allocate VMA at ..." */
		if (last && lastlen && w > 0 && (size_t)w < sizeof(why))
			w += snprintf(why + w, sizeof(why) - (size_t)w, " after \"%.*s\"",
				      (int)(lastlen > 100 ? 100 : lastlen), last);
		if (w < 0 || (size_t)w >= sizeof(why))
			w = (int)strlen(why);

		add_case(r, "exit", 4, HB_KST_FAIL, why, (size_t)w);
	} else if (exit_code == 4 && !r->n) {
		add_case(r, "exit", 4, HB_KST_SKIP, "exit status 4 (KSFT_SKIP) without a result", 43);
	} else if (exit_code == 0 && !r->n) {
		add_case(r, "exit", 4, HB_KST_SKIP, "exit 0 without printing a result (exercised nothing)",
			 52);
	}
}

int hb_kst_thp_stress(const char *out, double *mib_s, long *succeed, long *failed)
{
	const char *p = out;
	double sum = 0;
	int n = 0;

	*mib_s = NAN;
	*succeed = *failed = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *m = strstr(p, " s/loop,"), *q;
		double sl, ms, rate;
		long s, f;

		if (m && (!nl || m < nl)) {
			for (q = m; q > p && (isdigit((unsigned char)q[-1]) || q[-1] == '.'); q--)
				;
			/* counts a real line can hold (an int in the program): a bigger
			 * one is not a progress line, and summing it would overflow */
			if (sscanf(q, "%lf s/loop, %lf ms/page, %lf MiB/s %ld succeed, %ld failed", &sl,
				   &ms, &rate, &s, &f) == 5 && isfinite(rate) && s >= 0 && f >= 0 &&
			    s <= INT_MAX && f <= INT_MAX) {
				sum += rate;
				*succeed += s;
				*failed += f;
				n++;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	if (n)
		*mib_s = sum / n;
	return n;
}
