/* result.c - stream aggregation, metric summaries and the verdict rules. */
#define _GNU_SOURCE
#include "result.h"
#include "util.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *hb_result_summary(const double *s, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	json_t *o;

	memcpy(c, s, n * sizeof(*c));
	gsl_sort(c, 1, n);
	o = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)n, "min", c[0],
		      "max", c[n - 1], "mean", gsl_stats_mean(c, 1, n), "stddev",
		      n > 1 ? gsl_stats_sd(c, 1, n) : 0.0, "p50",
		      gsl_stats_quantile_from_sorted_data(c, 1, n, 0.5), "p90",
		      gsl_stats_quantile_from_sorted_data(c, 1, n, 0.9), "p99",
		      gsl_stats_quantile_from_sorted_data(c, 1, n, 0.99));
	free(c);
	return o;
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

/* The latest entry of that name: a suite may list a workload more than once
 * (other parameters); each line gets its own entry, and events always belong
 * to the line running now. */
static json_t *workload_entry(json_t *wls, const char *name, bool fresh)
{
	json_t *w = NULL;
	size_t i, instance = 0;
	json_t *v;

	json_array_foreach(wls, i, v) {
		if (strcmp(json_string_value(json_object_get(v, "name")), name) == 0) {
			w = v;
			instance++;
		}
	}
	if (w && !fresh)
		return w;
	w = json_pack("{s:s, s:s, s:s, s:{}, s:i, s:[], s:[], s:[], s:[]}", "name", name, "status",
		      "incomplete", "reason", "", "params", "reps", 0, "metrics", "checks",
		      "snapshots", "events");
	if (instance)
		json_object_set_new(w, "instance", json_integer((json_int_t)instance));
	json_array_append_new(wls, w);
	return w;
}

static int status_rank(const char *s)
{
	/* Higher is worse; "incomplete" marks a started, unfinished rep. */
	static const char *const order[] = { "skip", "pass", "fail", "error", "incomplete" };

	for (int i = 0; i < 5; i++)
		if (strcmp(s, order[i]) == 0)
			return i;
	return 4;
}

static void add_metric(json_t *w, json_t *ev)
{
	json_t *metrics = json_object_get(w, "metrics");
	const char *name = json_string_value(json_object_get(ev, "name"));
	json_t *m = hb_result_named(metrics, name ?: "");
	json_t *samples = json_object_get(ev, "samples");
	json_t *un = json_object_get(ev, "unavailable");

	if (!name)
		return;
	if (!m) {
		m = json_pack("{s:s, s:s, s:s}", "name", name, "unit",
			      json_string_value(json_object_get(ev, "unit")) ?: "?", "better",
			      json_string_value(json_object_get(ev, "better")) ?: "info");
		json_array_append_new(metrics, m);
	}
	if (un) {
		json_object_set(m, "unavailable", un);
		return;
	}
	if (json_is_array(samples) && json_array_size(samples)) {
		json_t *all = json_object_get(m, "samples");
		json_t *means = json_object_get(m, "rep_means");
		double sum = 0;
		size_t i;
		json_t *v;

		if (!all) {
			all = json_array();
			means = json_array();
			json_object_set_new(m, "samples", all);
			json_object_set_new(m, "rep_means", means);
		}
		json_array_foreach(samples, i, v) {
			sum += json_number_value(v);
			json_array_append(all, v);
		}
		json_array_append_new(means, json_real(sum / (double)json_array_size(samples)));
	}
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

			if (!n)
				continue;
			v = malloc(n * sizeof(*v));
			for (size_t k = 0; k < n; k++)
				v[k] = json_number_value(json_array_get(s, k));
			json_object_set_new(m, "summary", hb_result_summary(v, n));
			free(v);
		}
	}
}

static void end_workload(json_t *w, json_t *ev)
{
	const char *st = json_string_value(json_object_get(ev, "status")) ?: "error";
	const char *cur = json_string_value(json_object_get(w, "status"));
	json_t *params = json_object_get(ev, "params");

	/* Across repetitions the worst status wins; the first rep replaces the
	 * placeholder "incomplete". */
	if (strcmp(cur, "incomplete") == 0 || status_rank(st) > status_rank(cur)) {
		json_object_set_new(w, "status", json_string(st));
		json_object_set_new(w, "reason",
				    json_string(json_string_value(json_object_get(ev, "reason")) ?: ""));
	}
	if (json_is_object(params))
		json_object_set(w, "params", params);
	json_object_set_new(w, "_open", json_false());
}

json_t *hb_result_from_stream(const char *stream, json_t **modules, struct hb_stream_info *info)
{
	json_t *wls = json_array();
	const char *p = stream;
	size_t i;
	json_t *w;

	memset(info, 0, sizeof(*info));
	*modules = json_array();
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		json_error_t jerr;
		json_t *ev = len ? json_loadb(p, len, 0, &jerr) : NULL;
		const char *type = json_string_value(json_object_get(ev, "ev"));
		const char *wname = json_string_value(json_object_get(ev, "workload"));

		if (len && !type) {
			info->bad_lines++;
		} else if (type) {
			info->booted = true;
			w = wname ? workload_entry(wls, wname,
						   strcmp(type, "workload_start") == 0 &&
							   json_integer_value(json_object_get(ev, "rep")) == 0)
				  : NULL;
			if (strcmp(type, "suite_start") == 0) {
				info->suite_started = true;
				snprintf(info->kernel_release, sizeof(info->kernel_release), "%s",
					 json_string_value(json_object_get(ev, "kernel_release")) ?: "");
			} else if (strcmp(type, "suite_end") == 0) {
				info->suite_end = true;
			} else if (strcmp(type, "suite_error") == 0) {
				snprintf(info->suite_error, sizeof(info->suite_error), "%s",
					 json_string_value(json_object_get(ev, "reason")) ?: "");
			} else if (strcmp(type, "module") == 0) {
				json_object_del(ev, "ev");
				json_array_append(*modules, ev);
			} else if (!w) {
				/* boot and other global events carry nothing we keep */
			} else if (strcmp(type, "workload_start") == 0) {
				json_int_t rep = json_integer_value(json_object_get(ev, "rep"));

				json_object_set_new(w, "reps", json_integer(rep + 1));
				json_object_set_new(w, "_open", json_true());
				if ((int)rep > info->max_rep)
					info->max_rep = (int)rep;
			} else if (strcmp(type, "metric") == 0) {
				add_metric(w, ev);
			} else if (strcmp(type, "check") == 0) {
				json_object_del(ev, "ev");
				json_object_del(ev, "workload");
				json_array_append(json_object_get(w, "checks"), ev);
			} else if (strcmp(type, "snapshot") == 0) {
				json_object_del(ev, "ev");
				json_object_del(ev, "workload");
				json_array_append(json_object_get(w, "snapshots"), ev);
			} else if (strcmp(type, "workload_end") == 0) {
				end_workload(w, ev);
			} else {
				json_object_del(ev, "workload");
				json_array_append(json_object_get(w, "events"), ev);
			}
		}
		json_decref(ev);
		if (!eol)
			break;
		p = eol + 1;
	}
	json_array_foreach(wls, i, w) {
		const char *st;

		if (json_is_true(json_object_get(w, "_open"))) {
			json_object_set_new(w, "status", json_string("error"));
			json_object_set_new(w, "reason",
					    json_string("no workload_end: the guest died, hung or "
							"timed out during this workload"));
		}
		json_object_del(w, "_open");
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

const char *hb_result_verdict(enum hb_run_end end, const struct hb_stream_info *info,
			      const struct hb_kissue *issues, size_t n_issues, char *reason,
			      size_t rlen)
{
	size_t n = n_issues;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(issues[i].kind, "panic") == 0) {
			snprintf(reason, rlen, "kernel panic at console.log line %d", issues[i].line);
			return "panic";
		}
	}
	if (end == HB_END_TIMEOUT) {
		snprintf(reason, rlen, "the run hit its time limit; QEMU was killed");
		return "timeout";
	}
	if (end == HB_END_INTERRUPTED) {
		snprintf(reason, rlen, "interrupted by a signal; QEMU was killed");
		return "incomplete";
	}
	if (end == HB_END_INFRA) {
		snprintf(reason, rlen, "infrastructure error before the suite ran");
		return "error";
	}
	if (info->suite_error[0]) {
		snprintf(reason, rlen, "suite error in the guest: %s", info->suite_error);
		return "error";
	}
	if (!info->suite_end) {
		snprintf(reason, rlen, "%s",
			 !info->booted ? "the guest never reported (boot failed or no init)"
				       : "the guest stopped before suite_end");
		return "incomplete";
	}
	if (info->n_error) {
		snprintf(reason, rlen, "%d workload(s) ended in error", info->n_error);
		return "error";
	}
	if (info->n_fail) {
		snprintf(reason, rlen, "%d workload(s) failed a check", info->n_fail);
		return "fail";
	}
	if (n_issues) {
		snprintf(reason, rlen, "%zu kernel issue(s) on the console, first: %s at line %d",
			 n_issues, issues[0].kind, issues[0].line);
		return "kernel-warning";
	}
	snprintf(reason, rlen, "%d passed, %d skipped", info->n_pass, info->n_skip);
	return "pass";
}

int hb_result_exit_code(const char *v)
{
	if (strcmp(v, "pass") == 0)
		return HB_EXIT_OK;
	if (strcmp(v, "fail") == 0 || strcmp(v, "kernel-warning") == 0 || strcmp(v, "panic") == 0)
		return HB_EXIT_FAIL;
	return HB_EXIT_INFRA;
}

json_t *hb_result_issues_json(const struct hb_kissue *is, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:o}", "kind", is[i].kind, "line",
						   is[i].line, "excerpt",
						   hb_json_text(is[i].excerpt)));
	return a;
}
