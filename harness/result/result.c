/* result.c - stream aggregation into result.json's workloads, and metric
 * summaries (the line reader: stream.c; the verdict: verdict.c).
 *
 * stream.jsonl is whatever the guest (a kernel under test, maybe dying)
 * wrote to its serial port: lines are found by length, and every event is
 * checked against docs/result-schema.md before it reaches result.json. A
 * line that fails is counted (stream_bad_lines) and the next one read. */
#define _GNU_SOURCE
#include "guestclock.h"
#include "protocol.h"
#include "stats.h"
#include "result.h"
#include "expect.h"
#include "suite.h"
#include "util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Guest text copied into result.json (reasons, expected/observed) is cut
 * to this many bytes. */
#define TEXT_MAX 1024

/* A finite stand-in for a statistic that overflowed. */
static double finite_or_max(double v)
{
	if (isnan(v))
		return 0;
	if (isinf(v))
		return copysign(DBL_MAX, v);
	return v;
}

/* The per-run summary of a metric's samples, from the statistics module
 * compare-report uses (harness/common/stats.c): one implementation, so the
 * numbers agree. JSON has no NaN: one sample has no spread, so its stddev
 * is written as 0 (docs/result-schema.md); an overflow is clamped. */
json_t *hb_result_summary(const double *s, size_t n)
{
	struct hb_stats_desc d;

	if (!n)
		return NULL;
	hb_stats_describe(s, n, &d);
	if (isnan(d.mean)) /* allocation failed */
		return NULL;
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)n, "min",
			 d.min, "max", d.max, "mean", finite_or_max(d.mean), "stddev",
			 n < 2 ? 0.0 : finite_or_max(d.sd), "p50", finite_or_max(d.p50), "p90",
			 finite_or_max(d.p90), "p99", finite_or_max(d.p99));
}

json_t *hb_result_named(json_t *arr, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		if (strcmp(json_string_value(json_object_get(v, "name")) ?: "", name) == 0)
			return v;
	}
	return NULL;
}

/* ---- what a guest may send -------------------------------------------------- */

/* 1..HB_RESULT_NAME_MAX bytes of letters, digits and _-.:+()/%=,@ (what
 * the guest's names and /proc keys use): no blanks, no control bytes, and
 * nothing that is markup in a markdown or HTML report (<>&|`"'\[]*). */
static bool name_ok(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; s[n]; n++)
		if (n >= HB_RESULT_NAME_MAX ||
		    !(((s[n] | 0x20) >= 'a' && (s[n] | 0x20) <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
		      strchr("_-.:+()/%=,@", s[n])))
			return false;
	return n > 0;
}

/* A kernel release (uname -r): 1..127 bytes of printable ASCII without
 * blanks or markup. */
static bool release_ok(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; s[n]; n++)
		if (n >= 127 || (unsigned char)s[n] <= 0x20 || (unsigned char)s[n] >= 0x7f ||
		    strchr("<>&|`\"'\\", s[n]))
			return false;
	return n > 0;
}

/* A unit: up to 32 bytes of printable ASCII (blanks allowed). */
static bool unit_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (n >= 32 || (unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	return true;
}

/* An optional text field: absent is "", a string is made ASCII-safe and cut
 * to TEXT_MAX bytes, anything else is refused (NULL). */
static json_t *text_field(json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);
	char buf[TEXT_MAX + 1];

	if (!v)
		return json_string("");
	if (!json_is_string(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", json_string_value(v));
	return hb_json_text(buf);
}

/* "rep": absent is 0, else an integer in 0..HB_MAX_REPEAT-1. */
static bool rep_ok(json_t *ev, int *rep)
{
	json_t *v = json_object_get(ev, "rep");

	*rep = 0;
	if (!v)
		return true;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) >= HB_MAX_REPEAT)
		return false;
	*rep = (int)json_integer_value(v);
	return true;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

static const char *const statuses[] = { "pass", "fail", "skip", "error", NULL };
static const char *const betters[] = { "lower", "higher", "info", NULL };

/* An object of name -> number (meminfo_kb, vmstat), or absent. */
static bool counters_ok(json_t *v)
{
	const char *k;
	json_t *x;

	if (!v)
		return true;
	if (!json_is_object(v))
		return false;
	json_object_foreach(v, k, x)
		if (!name_ok(k) || !json_is_number(x))
			return false;
	return true;
}

/* ---- aggregation ------------------------------------------------------------ */

/* The aggregation under way: the entries, and the latest entry of each
 * name (lookups stay O(1) however many events a guest sends). */
struct agg {
	json_t *wls;
	json_t *latest;
};

/* The latest entry of that name: a suite may list a workload more than once
 * (other parameters); each line gets its own entry (fresh: rep 0 starts),
 * and events always belong to the line running now. NULL when the cap on
 * entries is reached. */
static json_t *workload_entry(struct agg *a, const char *name, bool fresh)
{
	json_t *w = json_object_get(a->latest, name);
	json_int_t instance = 0;

	if (w && !fresh)
		return w;
	if (json_array_size(a->wls) >= HB_RESULT_MAX_WORKLOADS)
		return NULL;
	if (w)
		instance = json_integer_value(json_object_get(w, "instance")) + 1;
	w = json_pack("{s:s, s:s, s:s, s:{}, s:i, s:[], s:[], s:[], s:[], s:{}}", "name", name,
		      "status", "incomplete", "reason", "", "params", "reps", 0, "metrics", "checks",
		      "snapshots", "events", "_metric");
	if (instance)
		json_object_set_new(w, "instance", json_integer(instance));
	json_array_append_new(a->wls, w);
	json_object_set(a->latest, name, w);
	return w;
}

/* An event for a workload with no workload_start: the start line was lost
 * or corrupted, so nothing about this workload can be trusted. */
static json_t *orphan_entry(struct agg *a, const char *name)
{
	json_t *w = workload_entry(a, name, false);

	if (w && !json_object_get(w, "_open")) {
		json_object_set_new(w, "status", json_string("error"));
		json_object_set_new(w, "reason",
				    json_string("the stream has events for this workload without "
						"its workload_start (a lost or corrupted line)"));
		json_object_set_new(w, "_open", json_false());
	}
	return w;
}

/* Higher is worse; an unknown status counts as "incomplete". */
static int status_rank(const char *s)
{
	int r = hb_status_rank(s);

	return r < 0 ? hb_status_rank("incomplete") : r;
}

static bool metric_ok(json_t *ev)
{
	json_t *samples = json_object_get(ev, "samples"), *un = json_object_get(ev, "unavailable");
	json_t *unit = json_object_get(ev, "unit"), *better = json_object_get(ev, "better");
	json_t *dropped = json_object_get(ev, "dropped_non_finite");
	size_t i;
	json_t *v;

	if (!name_ok(json_string_value(json_object_get(ev, "name"))))
		return false;
	if (unit && !(json_is_string(unit) && unit_ok(json_string_value(unit))))
		return false;
	if (better && !one_of(json_string_value(better), betters))
		return false;
	if (dropped && !(json_is_integer(dropped) && json_integer_value(dropped) >= 0 &&
			 json_integer_value(dropped) <= INT_MAX))
		return false;
	if (un)
		return json_is_string(un);
	if (samples && !json_is_array(samples))
		return false;
	json_array_foreach(samples, i, v)
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return false;
	return true;
}

/* false when the workload already has HB_RESULT_MAX_METRICS metrics */
static bool add_metric(json_t *w, json_t *ev)
{
	json_t *metrics = json_object_get(w, "metrics"), *index = json_object_get(w, "_metric");
	const char *name = json_string_value(json_object_get(ev, "name"));
	json_t *m = json_object_get(index, name);
	json_t *samples = json_object_get(ev, "samples");
	json_t *un = json_object_get(ev, "unavailable");
	json_t *all, *means;
	size_t i, n;
	double mean = 0;
	json_t *v;

	if (!m) {
		if (json_array_size(metrics) >= HB_RESULT_MAX_METRICS)
			return false;
		m = json_pack("{s:s, s:s, s:s}", "name", name, "unit",
			      json_string_value(json_object_get(ev, "unit")) ?: "?", "better",
			      json_string_value(json_object_get(ev, "better")) ?: "info");
		json_array_append_new(metrics, m);
		json_object_set(index, name, m);
	}
	if (un) {
		json_object_set_new(m, "unavailable", text_field(ev, "unavailable"));
		return true;
	}
	n = json_array_size(samples);
	if (!n) {
		/* recorded as what it is, so that the metric is not without both */
		if (!json_object_get(m, "samples") && !json_object_get(m, "unavailable"))
			json_object_set_new(m, "unavailable",
					    json_string("the guest sent this metric without samples"));
		return true;
	}
	if (json_object_get(ev, "dropped_non_finite")) {
		json_int_t d = json_integer_value(json_object_get(m, "dropped_non_finite")) +
			       json_integer_value(json_object_get(ev, "dropped_non_finite"));

		json_object_set_new(m, "dropped_non_finite", json_integer(d < INT_MAX ? d : INT_MAX));
	}
	all = json_object_get(m, "samples");
	means = json_object_get(m, "rep_means");
	if (!all) {
		all = json_array();
		means = json_array();
		json_object_set_new(m, "samples", all);
		json_object_set_new(m, "rep_means", means);
	}
	json_array_foreach(samples, i, v) {
		mean += json_number_value(v) / (double)n;
		json_array_append(all, v);
	}
	json_array_append_new(means, json_real(finite_or_max(mean)));
	return true;
}

static bool check_ok(json_t *ev)
{
	json_t *e = json_object_get(ev, "expected"), *o = json_object_get(ev, "observed");

	json_t *b = json_object_get(ev, "basis"), *x = json_object_get(ev, "expectation");
	json_t *kb = json_object_get(ev, "known_bug");
	static const char *const kinds[] = { "unverified", "newest", NULL };
	static const char *const states[] = { "present", "fixed", "changed", NULL };

	return name_ok(json_string_value(json_object_get(ev, "name"))) &&
	       json_is_boolean(json_object_get(ev, "pass")) && (!e || json_is_string(e)) &&
	       (!o || json_is_string(o)) && (!b || json_is_string(b)) &&
	       (!x || (b && one_of(json_string_value(x), kinds))) &&
	       (!kb || (name_ok(json_string_value(json_object_get(kb, "id"))) &&
			one_of(json_string_value(json_object_get(kb, "state")), states)));
}

static void add_check(json_t *w, json_t *ev, int rep)
{
	json_t *c = json_pack("{s:s, s:o, s:o, s:b, s:i}", "name",
			      json_string_value(json_object_get(ev, "name")), "expected",
			      text_field(ev, "expected"), "observed", text_field(ev, "observed"),
			      "pass", json_is_true(json_object_get(ev, "pass")), "rep", rep);

	json_t *basis = json_object_get(ev, "basis"), *kb = json_object_get(ev, "known_bug");

	/* an expectation not read for this kernel (hb_check_basis): "newest"
	 * (hard) or "unverified" (soft); a stream from before issue 36 has no
	 * "expectation", and its basis was always soft */
	if (basis) {
		json_object_set_new(c, "basis", text_field(ev, "basis"));
		json_object_set_new(c, "expectation",
				    json_string(json_string_value(json_object_get(ev, "expectation"))
						?: "unverified"));
	}
	if (kb)
		json_object_set_new(c, "known_bug",
				    json_pack("{s:s, s:o, s:o, s:s}", "id",
					      json_string_value(json_object_get(kb, "id")), "title",
					      text_field(kb, "title"), "ref", text_field(kb, "ref"),
					      "state", json_string_value(json_object_get(kb, "state"))));
	json_array_append_new(json_object_get(w, "checks"), c);
}

static bool snapshot_ok(json_t *ev)
{
	return name_ok(json_string_value(json_object_get(ev, "label"))) &&
	       counters_ok(json_object_get(ev, "meminfo_kb")) &&
	       counters_ok(json_object_get(ev, "vmstat"));
}

static void add_snapshot(json_t *w, json_t *ev, int rep)
{
	json_t *s = json_pack("{s:s, s:i}", "label", json_string_value(json_object_get(ev, "label")),
			      "rep", rep);

	if (json_object_get(ev, "meminfo_kb"))
		json_object_set(s, "meminfo_kb", json_object_get(ev, "meminfo_kb"));
	if (json_object_get(ev, "vmstat"))
		json_object_set(s, "vmstat", json_object_get(ev, "vmstat"));
	json_array_append_new(json_object_get(w, "snapshots"), s);
}

static void end_workload(json_t *w, json_t *ev)
{
	json_t *stv = json_object_get(ev, "status"), *reason = text_field(ev, "reason");
	const char *st = json_string_value(stv);
	const char *cur = json_string_value(json_object_get(w, "status"));
	json_t *params = json_object_get(ev, "params");

	if (!stv) {
		st = "error";
	} else if (!one_of(st, statuses)) {
		/* recorded, not dropped: this line did end the workload */
		st = "error";
		json_decref(reason);
		reason = json_string("the guest ended this workload with a status that is not "
				     "pass|fail|skip|error");
	}
	if (!reason)
		reason = json_string("");
	/* Across repetitions the worst status wins; the first rep replaces the
	 * placeholder "incomplete". */
	if (strcmp(cur, "incomplete") == 0 || status_rank(st) > status_rank(cur)) {
		json_object_set_new(w, "status", json_string(st));
		json_object_set(w, "reason", reason);
	}
	json_decref(reason);
	if (json_is_object(params))
		json_object_set(w, "params", params);
	json_object_set_new(w, "_open", json_false());
}

/* A malformed event about a workload: that workload's results cannot be
 * trusted, so it ends in error saying which line (it is a bad line too). */
static void malformed(struct agg *a, const char *wname, const char *type, int line)
{
	json_t *w = workload_entry(a, wname, false);
	char why[200];

	if (!w || !strcmp(json_string_value(json_object_get(w, "status")), "error"))
		return;
	snprintf(why, sizeof(why),
		 "the guest sent a malformed %.40s event for this workload (stream.jsonl line %d)",
		 type, line);
	json_object_set_new(w, "status", json_string("error"));
	json_object_set_new(w, "reason", json_string(why));
	if (!json_object_get(w, "_open"))
		json_object_set_new(w, "_open", json_false());
}

static bool workload_event_ok(const char *type, json_t *ev, int *rep)
{
	if (!rep_ok(ev, rep))
		return false;
	if (strcmp(type, HB_EV_WORKLOAD_START) == 0)
		return json_is_integer(json_object_get(ev, "rep"));
	if (strcmp(type, HB_EV_METRIC) == 0)
		return metric_ok(ev);
	if (strcmp(type, HB_EV_CHECK) == 0)
		return check_ok(ev);
	if (strcmp(type, HB_EV_SNAPSHOT) == 0)
		return snapshot_ok(ev);
	return true;
}

/* One event about a workload; false when it is malformed. */
static bool workload_event(struct agg *a, const char *type, const char *wname, json_t *ev,
			   int line, struct hb_stream_info *info)
{
	json_t *w;
	int rep;

	if (!name_ok(wname))
		return false;
	if (!workload_event_ok(type, ev, &rep)) {
		malformed(a, wname, type, line);
		return false;
	}
	if (strcmp(type, HB_EV_WORKLOAD_START) == 0) {
		w = workload_entry(a, wname, rep == 0);
		if (!w)
			goto full;
		if (rep + 1 > json_integer_value(json_object_get(w, "reps")))
			json_object_set_new(w, "reps", json_integer(rep + 1));
		json_object_set_new(w, "_open", json_true());
		if (rep > info->max_rep)
			info->max_rep = rep;
		return true;
	}
	w = orphan_entry(a, wname);
	if (!w)
		goto full;
	if (strcmp(type, HB_EV_METRIC) == 0) {
		if (!add_metric(w, ev)) {
			malformed(a, wname, "metric (one metric too many)", line);
			return false;
		}
	} else if (strcmp(type, HB_EV_CHECK) == 0) {
		add_check(w, ev, rep);
	} else if (strcmp(type, HB_EV_SNAPSHOT) == 0) {
		add_snapshot(w, ev, rep);
	} else if (strcmp(type, HB_EV_WORKLOAD_END) == 0) {
		end_workload(w, ev);
	} else {
		json_object_del(ev, "workload");
		json_array_append(json_object_get(w, "events"), ev);
	}
	return true;
full:
	if (!info->suite_error[0])
		snprintf(info->suite_error, sizeof(info->suite_error),
			 "the stream names more than %d workload runs", HB_RESULT_MAX_WORKLOADS);
	return false;
}

/* One event; false when it is malformed (a bad line). */
static bool take_event(struct agg *a, json_t *modules, json_t *ev, int line,
		       struct hb_stream_info *info)
{
	const char *type = json_string_value(json_object_get(ev, HB_EV_KEY));
	json_t *wname = json_object_get(ev, "workload");

	if (!name_ok(type))
		return false;
	info->booted = true;
	if (strcmp(type, HB_EV_SUITE_START) == 0) {
		const char *kr = json_string_value(json_object_get(ev, "kernel_release"));

		info->suite_started = true;
		/* a release that is not a plain word is left out (a bad line) */
		if (json_object_get(ev, "kernel_release") && !release_ok(kr))
			return false;
		snprintf(info->kernel_release, sizeof(info->kernel_release), "%s", kr ?: "");
	} else if (strcmp(type, HB_EV_SUITE_END) == 0) {
		info->suite_end = true;
	} else if (strcmp(type, HB_EV_SUITE_ERROR) == 0) {
		json_t *r = text_field(ev, "reason");

		if (!r)
			return false;
		snprintf(info->suite_error, sizeof(info->suite_error), "%s",
			 json_string_length(r) ? json_string_value(r) : "(no reason given)");
		json_decref(r);
	} else if (strcmp(type, HB_EV_MODULE) == 0) {
		json_object_del(ev, HB_EV_KEY);
		json_array_append(modules, ev);
	} else if (wname) {
		return workload_event(a, type, json_string_value(wname), ev, line, info);
	}
	/* boot and other global events carry nothing we keep */
	return true;
}

static void finish_summaries(json_t *wls)
{
	size_t i, j;
	json_t *w, *m;

	json_array_foreach(wls, i, w) {
		json_array_foreach(json_object_get(w, "metrics"), j, m) {
			json_t *s = json_object_get(m, "samples");
			size_t n = json_array_size(s);
			double *v;

			if (!n || !(v = malloc(n * sizeof(*v))))
				continue;
			for (size_t k = 0; k < n; k++)
				v[k] = json_number_value(json_array_get(s, k));
			json_object_set_new(m, "summary", hb_result_summary(v, n));
			free(v);
		}
	}
}

/* The runner's clock event of each repetition (guest and host seconds):
 * a repetition whose guest time ran far ahead of host time measured across
 * a clock jump, so every metric of the workload is marked "untrusted" with
 * the reason (compare-report leaves such metrics out) and the workload
 * gets "clock_jump". Its checks stand: they assert outcomes, not times. */
static void clock_decide(json_t *w, struct hb_stream_info *info)
{
	json_t *ev, *m;
	size_t i, j;
	char why[256];

	json_array_foreach(json_object_get(w, "events"), i, ev) {
		json_t *g = json_object_get(ev, "guest_s"), *h = json_object_get(ev, "host_s");
		const char *type = json_string_value(json_object_get(ev, HB_EV_KEY));

		if (!type || strcmp(type, HB_EV_CLOCK) || !json_is_number(g) || !json_is_number(h) ||
		    !hb_clock_jumped(json_number_value(g), json_number_value(h), why, sizeof(why)))
			continue;
		if (!info->n_clock_jumps++)
			snprintf(info->clock_jump, sizeof(info->clock_jump), "%s rep %lld: %s",
				 json_string_value(json_object_get(w, "name")),
				 (long long)json_integer_value(json_object_get(ev, "rep")), why);
		if (json_object_get(w, "clock_jump"))
			continue;
		json_object_set_new(w, "clock_jump", json_string(why));
		json_array_foreach(json_object_get(w, "metrics"), j, m)
			json_object_set_new(m, "untrusted", json_string(why));
	}
}

static bool is_kind(json_t *c, const char *kind)
{
	const char *x = json_string_value(json_object_get(c, "expectation"));

	return x && !strcmp(x, kind);
}

static void add_id(char *list, size_t len, const char *id)
{
	size_t n = strlen(list), k = strlen(id);

	/* each id once */
	for (const char *p = list; (p = strstr(p, id)); p += k)
		if ((p == list || p[-1] == ' ') && (p[k] == 0 || p[k] == ','))
			return;
	snprintf(list + n, len - n, "%s%s", n ? ", " : "", id);
}

/* The checks whose expectation is not a verified table's (issue 36),
 * counted, and the failed ones an accepted expectations entry covers
 * turned into passes ("accepted": the entry's citation). */
static void expect_decide(json_t *w, struct hb_stream_info *info)
{
	json_t *c, *entries = hb_expect_entries();
	const char *wname = json_string_value(json_object_get(w, "name"));
	size_t i;

	json_array_foreach(json_object_get(w, "checks"), i, c) {
		bool pass = json_is_true(json_object_get(c, "pass"));
		json_t *kb = json_object_get(c, "known_bug"), *e;

		if (kb) {
			const char *st = json_string_value(json_object_get(kb, "state"));
			const char *id = json_string_value(json_object_get(kb, "id"));

			if (!strcmp(st, "present")) {
				info->n_known_present++;
				add_id(info->known_present, sizeof(info->known_present), id);
			} else if (!strcmp(st, "fixed")) {
				info->n_known_fixed++;
				add_id(info->known_fixed, sizeof(info->known_fixed), id);
			} else {
				info->n_known_changed++;
			}
			continue;
		}
		if (is_kind(c, "unverified")) {
			info->n_unverified++;
			info->n_unverified_disagree += !pass;
		} else if (is_kind(c, "newest")) {
			info->n_newest++;
			info->n_newest_disagree += !pass;
		}
		if (pass || !json_object_get(c, "expectation") || !entries)
			continue;
		e = hb_expect_accepted(entries, info->kernel_mm, wname,
				       json_string_value(json_object_get(c, "name")),
				       json_string_value(json_object_get(c, "observed")));
		if (!e)
			continue;
		json_object_set_new(c, "pass", json_true());
		json_object_set(c, "accepted", json_object_get(e, "cite"));
		info->n_accepted++;
		info->n_accepted_uncited +=
			!strcmp(json_string_value(json_object_get(e, "cite")), HB_ACCEPT_CITE_TODO);
	}
}

/* Whether a check fails its workload: a failed check, unless its
 * expectation is unverified (a kernel between two verified tables that
 * differ, hb_check_basis) and the run is not --strict. */
static bool check_fails(json_t *c)
{
	if (json_is_true(json_object_get(c, "pass")))
		return false;
	return !is_kind(c, "unverified") || hb_expect_strict();
}

/* The host decides a workload's status from its checks, not from what the
 * guest's workload_end says: a failed check makes a pass or a skip a fail
 * (an error stays an error, it is worse). An unverified expectation fails
 * nothing unless --strict; a guest "fail" none of whose checks fails any
 * more (every failed one accepted) is a pass. */
static void checks_decide(json_t *w)
{
	const char *st = json_string_value(json_object_get(w, "status"));
	json_t *c;
	size_t i;
	int accepted = 0;

	if (!strcmp(st, "fail")) {
		json_array_foreach(json_object_get(w, "checks"), i, c) {
			if (check_fails(c))
				return;
			accepted += json_object_get(c, "accepted") != NULL;
		}
		if (accepted) {
			char why[256];

			snprintf(why, sizeof(why), "%d failed check(s) accepted (%s); the guest's "
				 "workload_end said fail", accepted, hb_expect_path());
			json_object_set_new(w, "status", json_string("pass"));
			json_object_set_new(w, "reason", json_string(why));
		}
		return;
	}
	if (strcmp(st, "pass") && strcmp(st, "skip"))
		return;
	json_array_foreach(json_object_get(w, "checks"), i, c) {
		char why[256];

		if (!check_fails(c))
			continue;
		snprintf(why, sizeof(why), "check %s failed (rep %lld)%s; the guest's workload_end "
			 "said %s", json_string_value(json_object_get(c, "name")),
			 (long long)json_integer_value(json_object_get(c, "rep")),
			 is_kind(c, "unverified") ? " (an unverified expectation, failed by --strict)"
						  : "",
			 st);
		json_object_set_new(w, "status", json_string("fail"));
		json_object_set_new(w, "reason", json_string(why));
		return;
	}
}

/* A line dropped while a workload is open (not JSON, a NUL, a duplicate
 * key, an event that does not parse) may have been one of its checks: a
 * `"pass":false,"pass":true` check followed by a clean workload_end must
 * not read as a pass. The workload is marked, and unread_decides turns its
 * pass or skip into an error. A line without a '{' (NULs, serial noise)
 * cannot be an event, and lines dropped outside a workload (a cut last line
 * after suite_end) are only counted. */
static void mark_open_unread(json_t *wls)
{
	json_t *w;
	size_t i;

	json_array_foreach(wls, i, w)
		if (json_is_true(json_object_get(w, "_open")))
			json_object_set_new(w, "_unread",
					    json_integer(json_integer_value(json_object_get(w, "_unread")) + 1));
}

static void unread_decides(json_t *w)
{
	json_int_t n = json_integer_value(json_object_get(w, "_unread"));
	const char *st = json_string_value(json_object_get(w, "status"));
	char why[256];

	json_object_del(w, "_unread");
	if (!n || (strcmp(st, "pass") && strcmp(st, "skip")))
		return;
	snprintf(why, sizeof(why), "%lld stream line(s) inside this workload could not be read "
		 "(not JSON, a NUL, a duplicate key or a bad event): its checks are not known; "
		 "the guest's workload_end said %s", (long long)n, st);
	json_object_set_new(w, "status", json_string("error"));
	json_object_set_new(w, "reason", json_string(why));
}

json_t *hb_result_from_stream_n(const char *stream, size_t len, json_t **modules,
				struct hb_stream_info *info)
{
	struct agg a = { json_array(), json_object() };
	json_t *wls = a.wls, *ev, *w;
	struct hb_stream_reader r;
	size_t i;
	int got;

	memset(info, 0, sizeof(*info));
	*modules = json_array();
	hb_stream_reader_init(&r, stream, len);
	while ((got = hb_stream_next(&r, &ev)) >= 0) {
		if ((!got || !take_event(&a, *modules, ev, r.line, info)) && info->bad_lines < INT_MAX) {
			info->bad_lines++;
			if (got || r.maybe_event)
				mark_open_unread(wls);
		}
		json_decref(ev);
	}
	json_decref(a.latest);
	hb_expect_kernel(info->kernel_release, info->kernel_mm, sizeof(info->kernel_mm));
	json_array_foreach(wls, i, w) {
		const char *st;

		if (json_is_true(json_object_get(w, "_open"))) {
			json_object_set_new(w, "status", json_string("error"));
			json_object_set_new(w, "reason",
					    json_string("no workload_end: the guest died, hung or "
							"timed out during this workload"));
		}
		json_object_del(w, "_open");
		json_object_del(w, "_metric");
		expect_decide(w, info);
		checks_decide(w);
		unread_decides(w);
		clock_decide(w, info);
		st = json_string_value(json_object_get(w, "status"));
		if (strcmp(st, "pass") == 0)
			info->n_pass++;
		else if (strcmp(st, "fail") == 0)
			info->n_fail++;
		else if (strcmp(st, "skip") == 0)
			info->n_skip++;
		else
			info->n_error++;
	}
	finish_summaries(wls);
	return wls;
}

json_t *hb_result_from_stream(const char *stream, json_t **modules, struct hb_stream_info *info)
{
	return hb_result_from_stream_n(stream, stream ? strlen(stream) : 0, modules, info);
}

