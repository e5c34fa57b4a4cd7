/* trend.c - RESULTS/trend.html: every metric of every target over
 * the last nights (each night's kcidb.json), one small line plot per
 * metric with its first, last and median values, so a slow drift that no
 * single night calls a regression is visible. Rewritten after each night. */
#define _GNU_SOURCE
#include "compare.h"
#include "nightly.h"
#include "util.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NIGHTS 60

struct series {
	char key[320];	/* "<target>\t<metric>" */
	char unit[32];
	double v[MAX_NIGHTS];	/* NAN: not measured that night */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_series(const void *a, const void *b)
{
	return strcmp(((const struct series *)a)->key, ((const struct series *)b)->key);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void html(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static struct series *find(struct series **s, size_t *n, const char *key)
{
	struct series *ns;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*s)[i].key, key))
			return &(*s)[i];
	ns = realloc(*s, (*n + 1) * sizeof(**s));
	if (!ns)
		return NULL;
	*s = ns;
	ns = &(*s)[(*n)++];
	snprintf(ns->key, sizeof(ns->key), "%s", key);
	ns->unit[0] = 0;
	for (int i = 0; i < MAX_NIGHTS; i++)
		ns->v[i] = NAN;
	return ns;
}

/* One night's metrics into column col. */
static void load_night(const char *path, int col, struct series **s, size_t *n)
{
	/* bounded, no key twice (cmp_load.c); an unreadable night is skipped */
	char err[PATH_MAX + 256];
	json_t *doc = hb_cmp_read_json(path, err, sizeof(err)), *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		json_t *misc = json_object_get(t, "misc"), *num = json_object_get(t, "number");
		const char *id = json_string_value(json_object_get(t, "id"));
		const char *kind = json_string_value(json_object_get(misc, "kind"));
		const char *name = json_string_value(json_object_get(misc, "name"));
		const char *a, *b;
		char key[320];
		struct series *x;

		if (!id || !kind || !name || strcmp(kind, "metric") || !json_is_number(json_object_get(num, "value")))
			continue;
		/* hugebench:<stamp>:<target>:<n> */
		a = strchr(id, ':');
		a = a ? strchr(a + 1, ':') : NULL;
		b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		snprintf(key, sizeof(key), "%.*s\t%s", (int)(b - a - 1), a + 1, name);
		if (!(x = find(s, n, key)))
			break;
		x->v[col] = json_number_value(json_object_get(num, "value"));
		snprintf(x->unit, sizeof(x->unit), "%s",
			 json_string_value(json_object_get(num, "unit")) ? json_string_value(json_object_get(num, "unit")) : "");
	}
	json_decref(doc);
}

static void plot(FILE *f, const struct series *x, int nn)
{
	double lo = INFINITY, hi = -INFINITY;
	bool first = true;

	for (int i = 0; i < nn; i++)
		if (isfinite(x->v[i])) {
			lo = fmin(lo, x->v[i]);
			hi = fmax(hi, x->v[i]);
		}
	fprintf(f, "<svg width=\"240\" height=\"40\" viewBox=\"0 0 240 40\"><polyline fill=\"none\" "
		   "stroke=\"#36c\" stroke-width=\"1.5\" points=\"");
	for (int i = 0; i < nn; i++) {
		double y;

		if (!isfinite(x->v[i]))
			continue;
		y = hi > lo ? 36 - 32 * (x->v[i] - lo) / (hi - lo) : 20;
		fprintf(f, "%s%.1f,%.1f", first ? "" : " ", nn > 1 ? 4 + 232.0 * i / (nn - 1) : 120, y);
		first = false;
	}
	fputs("\"/></svg>", f);
}

int hb_trend_write(const char *results, const char *out, char *err, size_t errlen)
{
	char **nights = NULL, path[PATH_MAX + 64], tmp[PATH_MAX + 8];
	struct series *s = NULL;
	size_t n = 0, ns = 0, cap = 0, skip;
	struct dirent *e;
	DIR *d = opendir(results);
	FILE *f;

	if (!d) {
		snprintf(err, errlen, "cannot read %s", results);
		return -1;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "nightly-", 8))
			continue;
		snprintf(path, sizeof(path), "%s/%s/kcidb.json", results, e->d_name);
		if (!hb_is_file(path))
			continue;
		if (n == cap) {
			char **nn = realloc(nights, (cap = cap ? cap * 2 : 32) * sizeof(*nn));

			if (!nn)
				break;
			nights = nn;
		}
		if (!(nights[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(nights, n, sizeof(*nights), cmp_str);
	skip = n > MAX_NIGHTS ? n - MAX_NIGHTS : 0;
	for (size_t i = skip; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/kcidb.json", results, nights[i]);
		load_night(path, (int)(i - skip), &s, &ns);
	}
	if (ns)
		qsort(s, ns, sizeof(*s), cmp_series);
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s", tmp);
		goto fail;
	}
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hugebench nightly "
		   "trend</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;"
		   "text-align:left}td.n{text-align:right}</style></head><body>\n<h1>hugebench "
		   "nightly trend</h1>\n<p>%zu nights", n - skip);
	if (n > skip)
		fprintf(f, ", %s to %s", nights[skip] + 8, nights[n - 1] + 8);
	fputs(". One value per night: the metric's center (the new side's boot center when "
	      "compared, else the mean over the boots). A metric that creeps in one direction "
	      "over many nights is a drift no single comparison flags.</p>\n", f);
	for (size_t i = 0; i < ns; i++) {
		const struct series *x = &s[i];
		const char *tab = strchr(x->key, '\t');
		double vals[MAX_NIGHTS], first = NAN, last = NAN;
		int k = 0, nn = (int)(n - skip);

		if (i == 0 || strncmp(s[i - 1].key, x->key, (size_t)(tab - x->key) + 1)) {
			fprintf(f, "%s<h2>", i ? "</table>\n" : "");
			fwrite(x->key, 1, (size_t)(tab - x->key), f);
			fputs("</h2>\n<table><tr><th>metric</th><th>nights</th><th>first</th><th>median</th>"
			      "<th>last</th><th>last vs median</th></tr>\n", f);
		}
		for (int c = 0; c < nn; c++)
			if (isfinite(x->v[c])) {
				vals[k++] = x->v[c];
				if (!isfinite(first))
					first = x->v[c];
				last = x->v[c];
			}
		qsort(vals, (size_t)k, sizeof(double), cmp_dbl);
		fputs("<tr><td>", f);
		html(f, tab + 1);
		fputs("</td><td>", f);
		plot(f, x, nn);
		{
			double med = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;

			fprintf(f, "</td><td class=\"n\">%.4g</td><td class=\"n\">%.4g</td><td class=\"n\">%.4g ",
				first, med, last);
			html(f, x->unit);
			if (med != 0 && isfinite(med))
				fprintf(f, "</td><td class=\"n\">%+.1f%%</td></tr>\n", (last / med - 1) * 100);
			else
				fputs("</td><td class=\"n\">-</td></tr>\n", f);
		}
	}
	fputs(ns ? "</table>\n</body></html>\n" : "<p>No measurements yet.</p>\n</body></html>\n", f);
	if (fclose(f) || rename(tmp, out)) {
		snprintf(err, errlen, "cannot write %s", out);
		unlink(tmp);
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		free(nights[i]);
	free(nights);
	free(s);
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		free(nights[i]);
	free(nights);
	free(s);
	return -1;
}
