/* params.c - checks suite parameters against the workloads' tables
 * (params.h), and writes and reads those tables as JSON (hb-guest
 * --describe). Linked by the guest runner and by the host, so a bad suite
 * gets the same one line from both. */
#define _GNU_SOURCE
#include "params.h"
#include "suite.h"
#include "userfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct hb_param hb_common_params[] = {
	{ .name = "repeat", .type = HB_PARAM_LONG, .def = "1", .min = 1, .max = 1000, .runner = true,
	  .help = "repetitions of this line, each in a fresh process" },
	{ .name = "timeout_s", .type = HB_PARAM_LONG, .def = "300", .min = 1, .max = 7 * 24 * 3600,
	  .runner = true, .help = "seconds before a repetition is killed and recorded as an error" },
	HB_PARAM_END,
};

static const char *const type_names[] = { "long", "bool", "enum", "list", "string" };

bool hb_wl_name_eq(const char *a, const char *b)
{
	while (*a && *b && (*a == *b || (*a == '_' && *b == '-') || (*a == '-' && *b == '_')))
		a++, b++;
	return !*a && !*b;
}

static const struct hb_param *find_in(const struct hb_param *tab, const char *key)
{
	for (; tab && tab->name; tab++)
		if (strcmp(tab->name, key) == 0)
			return tab;
	return NULL;
}

const struct hb_param *hb_param_find(const struct hb_param *tab, const char *key)
{
	const struct hb_param *p = find_in(tab, key);

	return p ? p : find_in(hb_common_params, key);
}

int hb_param_parse_long(const char *s, long *out)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char *end;
	long v;

	if (*d < '0' || *d > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* value is one of the '|'-separated choices (len bytes of it when len >= 0). */
static bool is_choice(const char *choices, const char *value, size_t len)
{
	for (const char *c = choices; c && *c;) {
		size_t l = strcspn(c, "|");

		if (l == len && strncmp(c, value, len) == 0)
			return true;
		c += l;
		if (*c == '|')
			c++;
	}
	return false;
}

void hb_param_allowed(const struct hb_param *p, char *buf, size_t len)
{
	switch (p->type) {
	case HB_PARAM_LONG:
		if (p->mult == 2)
			snprintf(buf, len, "an even number in %ld..%ld", p->min, p->max);
		else if (p->mult > 2)
			snprintf(buf, len, "a multiple of %ld in %ld..%ld", p->mult, p->min, p->max);
		else
			snprintf(buf, len, "a whole number in %ld..%ld", p->min, p->max);
		break;
	case HB_PARAM_BOOL:
		snprintf(buf, len, "0 or 1");
		break;
	case HB_PARAM_ENUM:
		snprintf(buf, len, "one of %s", p->choices);
		break;
	case HB_PARAM_LIST:
		snprintf(buf, len, "a comma-separated list of %s", p->choices);
		break;
	default:
		snprintf(buf, len, "any text");
	}
}

static bool value_ok(const struct hb_param *p, const char *v)
{
	long n;

	switch (p->type) {
	case HB_PARAM_LONG:
		return hb_param_parse_long(v, &n) == 0 && n >= p->min && n <= p->max &&
		       (p->mult <= 1 || n % p->mult == 0);
	case HB_PARAM_BOOL:
		return strcmp(v, "0") == 0 || strcmp(v, "1") == 0;
	case HB_PARAM_ENUM:
		return is_choice(p->choices, v, strlen(v));
	case HB_PARAM_LIST:
		do {
			size_t l = strcspn(v, ",");

			if (!l || !is_choice(p->choices, v, l))
				return false;
			v += l;
		} while (*v++ == ',');
		return true;
	default:
		return true;
	}
}

int hb_param_check(const struct hb_param *p, const char *value, char *why, size_t len)
{
	char allowed[256], ex[4 * HB_EXCERPT_MAX + 4];

	if (value_ok(p, value))
		return 0;
	hb_param_allowed(p, allowed, sizeof(allowed));
	/* the value is the suite file's text: a short escaped excerpt only */
	hb_excerpt(value, (size_t)-1, ex, sizeof(ex));
	snprintf(why, len, "%s=%s is not %s", p->name, ex, allowed);
	return -1;
}

/* "size_mb, shmem_enabled, repeat, timeout_s": what a line of w may say. */
static void key_list(const struct hb_param *tab, char *buf, size_t len)
{
	const struct hb_param *tabs[] = { tab, hb_common_params };
	size_t used = 0;

	buf[0] = 0;
	for (size_t t = 0; t < 2; t++)
		for (const struct hb_param *p = tabs[t]; p && p->name && used < len; p++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 p->name);
}

static int check_entry(const struct hb_suite_entry *e, const struct hb_wl_desc *w, char *err,
		       size_t len)
{
	char why[384], keys[256];

	for (int i = 0; i < e->n_params; i++) {
		const char *key = e->params[i].key;
		const struct hb_param *p = hb_param_find(w->params, key);

		if (!p) {
			char ex[4 * HB_EXCERPT_MAX + 4];

			key_list(w->params, keys, sizeof(keys));
			hb_excerpt(key, (size_t)-1, ex, sizeof(ex));
			snprintf(err, len, "line %d (%s): unknown parameter '%s'; %s takes %s", e->line,
				 e->name, ex, w->name, keys);
			return -1;
		}
		for (int k = 0; k < i; k++)
			if (strcmp(e->params[k].key, key) == 0) {
				snprintf(err, len, "line %d (%s): %s given twice", e->line, e->name, key);
				return -1;
			}
		if (hb_param_check(p, e->params[i].value, why, sizeof(why))) {
			snprintf(err, len, "line %d (%s): %s", e->line, e->name, why);
			return -1;
		}
	}
	return 0;
}

/* The descriptor of the workload called name, or NULL. */
static const struct hb_wl_desc *wl_find(const struct hb_wl_desc *wl, size_t n_wl,
					const char *name)
{
	for (size_t k = 0; k < n_wl; k++)
		if (hb_wl_name_eq(wl[k].name, name))
			return &wl[k];
	return NULL;
}

int hb_suite_check(const struct hb_suite_entry *e, int n, const struct hb_wl_desc *wl,
		   size_t n_wl, char *err, size_t len)
{
	for (int i = 0; i < n; i++) {
		const struct hb_wl_desc *w = wl_find(wl, n_wl, e[i].name);

		if (!w) {
			char known[512], ex[4 * HB_EXCERPT_MAX + 4];
			size_t used = 0;

			hb_excerpt(e[i].name, (size_t)-1, ex, sizeof(ex));
			known[0] = 0;
			for (size_t k = 0; k < n_wl && used < sizeof(known); k++)
				used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s",
							 k ? ", " : "", wl[k].name);
			snprintf(err, len, "line %d: unknown workload '%s'; known: %s", e[i].line, ex,
				 known);
			return -1;
		}
		if (check_entry(&e[i], w, err, len))
			return -1;
	}
	return 0;
}

bool hb_suite_uses_tools(const struct hb_suite_entry *e, int n, const struct hb_wl_desc *wl,
			 size_t n_wl)
{
	for (int i = 0; i < n; i++) {
		const struct hb_wl_desc *w = wl_find(wl, n_wl, e[i].name);

		if (w && w->tool)
			return true;
	}
	return false;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *param_json(const struct hb_param *p)
{
	json_t *o = json_pack("{s:s, s:s}", "name", p->name, "type", type_names[p->type]);
	long n;

	if (!p->def)
		json_object_set_new(o, "default", json_null());
	else if (p->type == HB_PARAM_LONG && hb_param_parse_long(p->def, &n) == 0)
		json_object_set_new(o, "default", json_integer(n));
	else if (p->type == HB_PARAM_BOOL)
		json_object_set_new(o, "default", json_boolean(strcmp(p->def, "0") != 0));
	else
		json_object_set_new(o, "default", json_string(p->def));
	if (p->type == HB_PARAM_LONG) {
		json_object_set_new(o, "min", json_integer(p->min));
		json_object_set_new(o, "max", json_integer(p->max));
		if (p->mult > 1)
			json_object_set_new(o, "multiple_of", json_integer(p->mult));
	}
	if (p->type == HB_PARAM_ENUM || p->type == HB_PARAM_LIST) {
		json_t *c = json_array();

		for (const char *s = p->choices; s && *s;) {
			size_t l = strcspn(s, "|");

			json_array_append_new(c, json_stringn(s, l));
			s += l + (s[l] == '|');
		}
		json_object_set_new(o, "choices", c);
	}
	json_object_set_new(o, "by", json_string(p->runner ? "runner" : "workload"));
	json_object_set_new(o, "help", json_string(p->help ? p->help : ""));
	return o;
}

static json_t *table_json(const struct hb_param *tab)
{
	json_t *a = json_array();

	for (; tab && tab->name; tab++)
		json_array_append_new(a, param_json(tab));
	return a;
}

json_t *hb_describe_json(const struct hb_wl_desc *wl, size_t n)
{
	json_t *list = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *w = json_pack("{s:s, s:s, s:o}", "name", wl[i].name, "help",
				      wl[i].help ? wl[i].help : "", "params",
				      table_json(wl[i].params));

		if (wl[i].tool)
			json_object_set_new(w, "tool", json_string(wl[i].tool));
		json_array_append_new(list, w);
	}
	return json_pack("{s:s, s:o, s:o}", "schema", HB_DESCRIBE_SCHEMA, "common",
			 table_json(hb_common_params), "workloads", list);
}

/* One parameter back from JSON; choices and a numeric default are new
 * strings (freed by hb_describe_free()), the others point into the JSON. */
static int param_load(json_t *o, struct hb_param *p)
{
	const char *type = json_string_value(json_object_get(o, "type"));
	json_t *def = json_object_get(o, "default"), *ch = json_object_get(o, "choices");
	char *num;
	size_t t;

	p->name = json_string_value(json_object_get(o, "name"));
	p->help = json_string_value(json_object_get(o, "help"));
	for (t = 0; type && t < sizeof(type_names) / sizeof(type_names[0]); t++)
		if (strcmp(type, type_names[t]) == 0)
			break;
	if (!p->name || !type || t == sizeof(type_names) / sizeof(type_names[0]))
		return -1;
	p->type = (enum hb_param_type)t;
	p->runner = json_is_string(json_object_get(o, "by")) &&
		    strcmp(json_string_value(json_object_get(o, "by")), "runner") == 0;
	p->min = (long)json_integer_value(json_object_get(o, "min"));
	p->max = (long)json_integer_value(json_object_get(o, "max"));
	p->mult = (long)json_integer_value(json_object_get(o, "multiple_of"));
	if (json_is_string(def))
		p->def = strdup(json_string_value(def));
	else if (json_is_integer(def) &&
		 asprintf(&num, "%lld", (long long)json_integer_value(def)) >= 0)
		p->def = num;
	else if (json_is_boolean(def))
		p->def = strdup(json_is_true(def) ? "1" : "0");
	if (json_is_array(ch)) {
		size_t i, len = 1;
		json_t *c;
		char *s;

		json_array_foreach(ch, i, c)
			len += strlen(json_string_value(c) ? json_string_value(c) : "") + 1;
		s = calloc(1, len);
		if (!s)
			return -1;
		json_array_foreach(ch, i, c)
			snprintf(s + strlen(s), len - strlen(s), "%s%s", i ? "|" : "",
				 json_string_value(c) ? json_string_value(c) : "");
		p->choices = s;
	}
	return 0;
}

static void table_free(struct hb_param *tab)
{
	for (struct hb_param *p = tab; p && p->name; p++) {
		free((char *)p->def);
		free((char *)p->choices);
	}
	free(tab);
}

/* A JSON array of parameters as a table; NULL when one of them is bad. */
static struct hb_param *table_load(json_t *a)
{
	struct hb_param *tab = calloc(json_array_size(a) + 1, sizeof(*tab));
	size_t i;
	json_t *o;

	if (!tab)
		return NULL;
	json_array_foreach(a, i, o)
		if (param_load(o, &tab[i])) {
			table_free(tab);
			return NULL;
		}
	return tab;
}

int hb_describe_load(const char *text, struct hb_describe *d, char *err, size_t len)
{
	json_error_t je;
	json_t *list, *w;
	const char *schema;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->json = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	schema = json_string_value(json_object_get(d->json, "schema"));
	if (!schema || strcmp(schema, HB_DESCRIBE_SCHEMA)) {
		snprintf(err, len, "not %s JSON%s%s", HB_DESCRIBE_SCHEMA, d->json ? "" : ": ",
			 d->json ? "" : je.text);
		hb_describe_free(d);
		return -1;
	}
	list = json_object_get(d->json, "workloads");
	d->common = table_load(json_object_get(d->json, "common"));
	d->wl = calloc(json_array_size(list) + 1, sizeof(*d->wl));
	if (!d->common || !d->wl || !json_array_size(list))
		goto bad;
	json_array_foreach(list, i, w) {
		d->wl[i].name = json_string_value(json_object_get(w, "name"));
		d->wl[i].help = json_string_value(json_object_get(w, "help"));
		d->wl[i].params = table_load(json_object_get(w, "params"));
		d->wl[i].tool = json_string_value(json_object_get(w, "tool"));
		d->n = i + 1;
		if (!d->wl[i].name || !d->wl[i].params)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, len, "%s JSON without the expected workloads, names or types",
		 HB_DESCRIBE_SCHEMA);
	hb_describe_free(d);
	return -1;
}

void hb_describe_free(struct hb_describe *d)
{
	for (size_t i = 0; d->wl && i < d->n; i++)
		table_free((struct hb_param *)d->wl[i].params);
	free(d->wl);
	table_free(d->common);
	json_decref(d->json);
	memset(d, 0, sizeof(*d));
}

/* The ALLOWED column: "2..1024, even", "a|b|c", "list of a|b", "0|1". */
static void allowed_short(const struct hb_param *p, char *buf, size_t len)
{
	size_t n;

	switch (p->type) {
	case HB_PARAM_LONG:
		snprintf(buf, len, "%ld..%ld", p->min, p->max);
		n = strlen(buf);
		if (p->mult == 2)
			snprintf(buf + n, len - n, ", even");
		else if (p->mult > 2)
			snprintf(buf + n, len - n, ", multiple of %ld", p->mult);
		break;
	case HB_PARAM_BOOL:
		snprintf(buf, len, "0|1");
		break;
	case HB_PARAM_ENUM:
		snprintf(buf, len, "%s", p->choices);
		break;
	case HB_PARAM_LIST:
		snprintf(buf, len, "list of %s", p->choices);
		break;
	default:
		snprintf(buf, len, "text");
	}
}

static void print_table(FILE *f, const struct hb_param *tab)
{
	char allowed[256];

	fprintf(f, "  %-20s %-10s %-28s %s\n", "PARAMETER", "DEFAULT", "ALLOWED", "WHAT");
	for (; tab && tab->name; tab++) {
		allowed_short(tab, allowed, sizeof(allowed));
		fprintf(f, "  %-20s %-10s %-28s %s%s\n", tab->name, tab->def ? tab->def : "-",
			allowed, tab->runner ? "[runner] " : "", tab->help ? tab->help : "");
	}
}

void hb_describe_print(FILE *f, const struct hb_describe *d)
{
	fprintf(f, "A suite line is: WORKLOAD [key=value ...]. Every line takes:\n");
	print_table(f, d->common);
	for (size_t i = 0; i < d->n; i++) {
		fprintf(f, "\n%s: %s\n", d->wl[i].name, d->wl[i].help ? d->wl[i].help : "");
		if (d->wl[i].params && d->wl[i].params->name)
			print_table(f, d->wl[i].params);
		else
			fprintf(f, "  (no parameters of its own)\n");
	}
	fprintf(f, "\n[runner]: the runner acts on it, not the workload. A suite is checked "
		   "against these tables before anything boots.\n");
}
