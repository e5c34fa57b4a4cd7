/* hb_core.c - implementation of the workload API in hb.h: context, emitters,
 * checks and outcome bookkeeping. Every event is one JSON line written with a
 * single write() so a crash never leaves half a line from this process. */
#define _GNU_SOURCE
#include "protocol.h"
#include "hb_runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hb_ctx {
	const struct hb_workload *w;
	int rep;
	int fd;
	enum hb_status status;
	char reason[512];
	json_t *params;	     /* effective parameters (defaults included) */
	json_t *given;	     /* parameters from the suite line */
	int n_checks, n_failed;
};

struct hb_ctx *hb_ctx_new(const struct hb_workload *w, int rep, int out_fd)
{
	struct hb_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	c->w = w;
	c->rep = rep;
	c->fd = out_fd;
	c->status = HB_PASS;
	c->params = json_object();
	c->given = json_object();
	return c;
}

void hb_ctx_set_param(struct hb_ctx *ctx, const char *key, const char *value)
{
	json_object_set_new(ctx->given, key, json_string(value));
}

void hb_ctx_free(struct hb_ctx *ctx)
{
	json_decref(ctx->params);
	json_decref(ctx->given);
	free(ctx);
}

enum hb_status hb_ctx_status(const struct hb_ctx *ctx)
{
	return ctx->status;
}

bool hb_failed(const struct hb_ctx *ctx)
{
	return ctx->status == HB_SKIP || ctx->status == HB_ERROR;
}

void hb_emit_raw(int fd, json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len, off = 0;

	json_decref(obj);
	if (!s)
		return;
	len = strlen(s);
	s = realloc(s, len + 2);
	if (!s)
		return;
	s[len++] = '\n';
	while (off < len) {
		ssize_t n = write(fd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(s);
}

void hb_emit_event(struct hb_ctx *ctx, const char *ev, json_t *obj)
{
	json_object_set_new(obj, HB_EV_KEY, json_string(ev));
	json_object_set_new(obj, "workload", json_string(ctx->w->name));
	json_object_set_new(obj, "rep", json_integer(ctx->rep));
	hb_emit_raw(ctx->fd, obj);
}

/* The spec of key in the workload's table (or the common one) when it has
 * one of the types; else NULL after hb_error(). */
static const struct hb_param *param_spec(struct hb_ctx *ctx, const char *key, unsigned types)
{
	const struct hb_param *p = hb_param_find(ctx->w->params, key);

	if (!p || !(types & (1u << p->type))) {
		hb_error_rc(ctx, 0,
			    "parameter %s is not in %s's table with that type (a bug in the workload)",
			    key, ctx->w->name);
		return NULL;
	}
	return p;
}

/* The given value if it suits p (the runner checked it; a test may not
 * have), else the default; NULL when neither. */
static const char *param_text(struct hb_ctx *ctx, const struct hb_param *p)
{
	const char *v = json_string_value(json_object_get(ctx->given, p->name));
	char why[384];

	if (v && hb_param_check(p, v, why, sizeof(why))) {
		hb_error_rc(ctx, 0, "parameter %s", why);
		v = NULL;
	}
	return v ? v : p->def;
}

long hb_param_long(struct hb_ctx *ctx, const char *key)
{
	const struct hb_param *p = param_spec(ctx, key, 1u << HB_PARAM_LONG | 1u << HB_PARAM_BOOL);
	const char *v = p ? param_text(ctx, p) : NULL;
	long r = 0;

	if (v && hb_param_parse_long(v, &r))
		r = 0;
	json_object_set_new(ctx->params, key, json_integer(r));
	return r;
}

bool hb_param_bool(struct hb_ctx *ctx, const char *key)
{
	return hb_param_long(ctx, key) != 0;
}

const char *hb_param_str(struct hb_ctx *ctx, const char *key)
{
	const struct hb_param *p = param_spec(
		ctx, key, 1u << HB_PARAM_ENUM | 1u << HB_PARAM_LIST | 1u << HB_PARAM_STR);
	const char *v = p ? param_text(ctx, p) : "";

	if (!v)
		return NULL;
	json_object_set_new(ctx->params, key, json_string(v));
	return json_string_value(json_object_get(ctx->params, key));
}

static const char *better_str(enum hb_better b)
{
	return b == HB_LOWER ? "lower" : b == HB_HIGHER ? "higher" : "info";
}

static json_t *metric_obj(const char *name, const char *unit, enum hb_better better)
{
	return json_pack("{s:s, s:s, s:s}", "name", name, "unit", unit, "better",
			 better_str(better));
}

void hb_metric(struct hb_ctx *ctx, const char *name, const char *unit, enum hb_better better,
	       const double *samples, size_t n)
{
	json_t *m = metric_obj(name, unit, better);
	json_t *arr = json_array();
	size_t dropped = 0;

	/* JSON has no NaN or infinity: such samples are counted, not sent */
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_real(samples[i]);

		if (v)
			json_array_append_new(arr, v);
		else
			dropped++;
	}
	if (json_array_size(arr) == 0 && n) {
		json_decref(arr);
		json_decref(m);
		hb_metric_unavailable(ctx, name, unit, better,
				      "every sample was NaN or infinite (a measurement bug)");
		return;
	}
	json_object_set_new(m, "samples", arr);
	if (dropped)
		json_object_set_new(m, "dropped_non_finite", json_integer((json_int_t)dropped));
	hb_emit_event(ctx, HB_EV_METRIC, m);
}

void hb_metric1(struct hb_ctx *ctx, const char *name, const char *unit, enum hb_better better,
		double value)
{
	hb_metric(ctx, name, unit, better, &value, 1);
}

void hb_metric_unavailable(struct hb_ctx *ctx, const char *name, const char *unit,
			   enum hb_better better, const char *reason)
{
	json_t *m = metric_obj(name, unit, better);

	json_object_set_new(m, "unavailable", json_string(reason));
	hb_emit_event(ctx, HB_EV_METRIC, m);
}

/* How a check's expectation was obtained (hb.h, hb_check_basis): a basis
 * starting with HB_BASIS_UNVERIFIED is soft, any other basis is hard. */
static bool basis_soft(const char *basis)
{
	return basis && !strncmp(basis, HB_BASIS_UNVERIFIED, strlen(HB_BASIS_UNVERIFIED));
}

static void fail_with(struct hb_ctx *ctx, const char *name, const char *expected, const char *obs)
{
	ctx->n_failed++;
	if (ctx->status == HB_PASS) {
		ctx->status = HB_FAIL;
		snprintf(ctx->reason, sizeof(ctx->reason), "check %s: expected %s, observed %s", name,
			 expected, obs);
	}
}

static bool check_v(struct hb_ctx *ctx, const char *name, bool pass, const char *basis,
		    const char *expected, const char *observed_fmt, va_list ap)
{
	char obs[512];
	json_t *ev;

	vsnprintf(obs, sizeof(obs), observed_fmt, ap);
	ctx->n_checks++;
	/* an expectation whose rule is unknown for this kernel (between two
	 * verified tables that differ) cannot fail the workload: it is reported
	 * as unverified (host: checks_decide, `run --strict`) */
	if (!pass && !basis_soft(basis))
		fail_with(ctx, name, expected, obs);
	ev = json_pack("{s:s, s:s, s:s, s:b}", "name", name, "expected", expected, "observed", obs,
		       "pass", pass);
	if (basis) {
		json_object_set_new(ev, "basis", json_string(basis));
		json_object_set_new(ev, "expectation",
				    json_string(basis_soft(basis) ? "unverified" : "newest"));
	}
	hb_emit_event(ctx, HB_EV_CHECK, ev);
	return pass;
}

bool hb_check(struct hb_ctx *ctx, const char *name, bool pass, const char *expected,
	      const char *observed_fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, observed_fmt);
	r = check_v(ctx, name, pass, NULL, expected, observed_fmt, ap);
	va_end(ap);
	return r;
}

bool hb_check_basis(struct hb_ctx *ctx, const char *name, bool pass, const char *basis,
		    const char *expected, const char *observed_fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, observed_fmt);
	r = check_v(ctx, name, pass, basis && *basis ? basis : NULL, expected, observed_fmt, ap);
	va_end(ap);
	return r;
}

bool hb_check_known_bug(struct hb_ctx *ctx, const char *name, const struct hb_known_bug *kb,
			bool buggy, bool correct, const char *observed_fmt, ...)
{
	char obs[512], exp[512];
	const char *state = buggy ? "present" : correct ? "fixed" : "changed";
	bool pass = buggy || correct;
	va_list ap;
	json_t *ev;

	va_start(ap, observed_fmt);
	vsnprintf(obs, sizeof(obs), observed_fmt, ap);
	va_end(ap);
	snprintf(exp, sizeof(exp), "known bug %s: %s (bug) or %s (fixed)", kb->id, kb->buggy,
		 kb->correct);
	ctx->n_checks++;
	if (!pass)
		fail_with(ctx, name, exp, obs);
	ev = json_pack("{s:s, s:s, s:s, s:b, s:{s:s, s:s, s:s, s:s}}", "name", name, "expected", exp,
		       "observed", obs, "pass", pass, "known_bug", "id", kb->id, "title", kb->title,
		       "ref", kb->ref, "state", state);
	hb_emit_event(ctx, HB_EV_CHECK, ev);
	hb_note(ctx, "%s: known bug %s %s (%s)", name, kb->id,
		buggy ? "present" : correct ? "fixed: the correct behaviour was seen"
					    : "CHANGED: neither the bug nor the fix",
		kb->ref);
	return pass;
}

bool hb_check_eq(struct hb_ctx *ctx, const char *name, long long expected, long long observed)
{
	char e[64];

	snprintf(e, sizeof(e), "== %lld", expected);
	return hb_check(ctx, name, expected == observed, e, "%lld", observed);
}

bool hb_check_ge(struct hb_ctx *ctx, const char *name, long long min, long long observed)
{
	char e[64];

	snprintf(e, sizeof(e), ">= %lld", min);
	return hb_check(ctx, name, observed >= min, e, "%lld", observed);
}

bool hb_check_le(struct hb_ctx *ctx, const char *name, long long max, long long observed)
{
	char e[64];

	snprintf(e, sizeof(e), "<= %lld", max);
	return hb_check(ctx, name, observed <= max, e, "%lld", observed);
}

static void set_outcome(struct hb_ctx *ctx, enum hb_status st, const char *fmt, va_list ap,
			int err)
{
	char msg[448];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* The first skip or error wins: later ones are usually consequences.
	 * A skip does not hide a failed check either (issue 25): the workload
	 * stays failed, the reason of its first failed check kept. */
	if (ctx->status == HB_SKIP || ctx->status == HB_ERROR ||
	    (st == HB_SKIP && ctx->status == HB_FAIL))
		return;
	ctx->status = st;
	if (err)
		snprintf(ctx->reason, sizeof(ctx->reason), "%s: %s", msg, strerror(err));
	else
		snprintf(ctx->reason, sizeof(ctx->reason), "%s", msg);
}

void hb_skip(struct hb_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_outcome(ctx, HB_SKIP, fmt, ap, 0);
	va_end(ap);
}

void hb_error(struct hb_ctx *ctx, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	set_outcome(ctx, HB_ERROR, fmt, ap, err);
	va_end(ap);
}

void hb_error_rc(struct hb_ctx *ctx, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_outcome(ctx, HB_ERROR, fmt, ap, rc < 0 ? -rc : rc);
	va_end(ap);
}

void hb_note(struct hb_ctx *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hb_emit_event(ctx, HB_EV_NOTE, json_pack("{s:s}", "text", msg));
}

static const char *status_str(enum hb_status s)
{
	static const char *const names[] = { "pass", "fail", "skip", "error" };

	return names[s];
}

void hb_ctx_finish(struct hb_ctx *ctx)
{
	hb_emit_event(ctx, HB_EV_WORKLOAD_END,
		      json_pack("{s:s, s:s, s:O, s:i, s:i}", "status", status_str(ctx->status),
				"reason", ctx->reason, "params", ctx->params, "checks",
				ctx->n_checks, "failed_checks", ctx->n_failed));
}

/* ---- subject-present helpers (see hb.h) ---------------------------------- */

const char *hb_param_given(struct hb_ctx *ctx, const char *key)
{
	const struct hb_param *p = param_spec(ctx, key, ~0u);
	json_t *v = json_object_get(ctx->given, key);
	char why[384];

	if (!p || !v)
		return NULL;
	if (hb_param_check(p, json_string_value(v), why, sizeof(why))) {
		hb_error_rc(ctx, 0, "parameter %s", why);
		return NULL;
	}
	json_object_set(ctx->params, key, v);
	return json_string_value(v);
}

void hb_metric_subject(struct hb_ctx *ctx, const char *name, const char *unit,
		       enum hb_better better, const double *samples, size_t n,
		       const char *absent_why)
{
	char why[512];

	if (!absent_why) {
		hb_metric(ctx, name, unit, better, samples, n);
		return;
	}
	snprintf(why, sizeof(why), "subject absent: %s", absent_why);
	hb_metric_unavailable(ctx, name, unit, better, why);
}
